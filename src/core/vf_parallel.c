// SPDX-License-Identifier: BSD-3-Clause
/* Parallel-for on a pool of worker threads kept between calls. A call publishes one job (a
 * range split into contiguous chunks); the caller and the workers claim chunks from a shared
 * ticket until none is left, so a worker that wakes late, or never started, only means the
 * caller runs more chunks itself. Idle workers poll for a while, then sleep, each on a condition
 * variable of its own: the CPU stages call in bursts (a frame's stages one after another), and a
 * worker woken from sleep starts its share late (the tracker took 2-5% longer a call that way; see
 * docs/perf/refinement.md, "CPU: worker threads kept by the context"). A job wakes only the
 * sleepers its chunks need, the last to fall asleep first (vf_wake_for). */
#include "core/vf_parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "core/vf_error.h"
#include "core/vf_fault.h"

#define VF_PARALLEL_MAX_THREADS 64
/* How long an idle worker, or a caller waiting for the last chunk, polls before sleeping, so
 * that a frame's next parallel call finds the workers awake. */
#define VF_POOL_SPIN_NS 50000
/* The tests start workers through a starter that can fail (tests/unit/core/test_pool.c). */
#ifdef VF_POOL_THREAD_CREATE
int VF_POOL_THREAD_CREATE(pthread_t* id, const pthread_attr_t* attr, void* (*fn)(void*), void* arg);
#else
#define VF_POOL_THREAD_CREATE pthread_create
#endif

#if defined(__x86_64__) || defined(__i386__)
#define vf_relax() __builtin_ia32_pause()
#elif defined(__aarch64__) || defined(__arm__)
#define vf_relax() __asm__ __volatile__("yield")
#else
#define vf_relax() ((void)0)
#endif

/* A worker's place: its own condition variable, so that a job wakes the workers it needs, the
 * last to fall asleep first (vf_wake_for). */
typedef struct vf_pool_seat {
  struct vf_pool* pool;
  int index;
  int roused; /* under the lock: picked by vf_wake_for (or woken to stop) */
  pthread_cond_t wake;
} vf_pool_seat;

struct vf_pool {
  int threads; /* as asked for (the context's cpu_threads) */
  int workers; /* running */
  int tried;   /* the start was tried: a failed start is not retried every call */
  pthread_t ids[VF_PARALLEL_MAX_THREADS - 1];
  vf_pool_seat seats[VF_PARALLEL_MAX_THREADS - 1];
  /* Under the lock: the sleeping workers' seats, the last to fall asleep on top. */
  int idle[VF_PARALLEL_MAX_THREADS - 1];
  int idle_count;
  atomic_int busy; /* a call owns the job: a nested or concurrent call runs inline */
  /* The job: written before the ticket is published, read after a chunk is claimed. */
  vf_range_fn fn;
  void* arg;
  int count, chunks;
  /* job number << 32 | chunks << 16 | next chunk: a claim is one compare-and-swap, and a
   * claim left over from an earlier job fails on the job number. */
  _Atomic uint64_t ticket;
  atomic_int done;     /* chunks of the job finished */
  atomic_int sleepers; /* workers asleep (idle_count, read without the lock) */
  atomic_int waiting;  /* the caller asleep on `finished` */
  atomic_int stop;
  pthread_mutex_t lock;
  pthread_cond_t finished;
};

static int vf_ticket_open(uint64_t t) { return (int)(t & 0xffff) < (int)((t >> 16) & 0xffff); }

static long long vf_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Polls ready(p) for VF_POOL_SPIN_NS; 1 once it holds, 0 when the time is up. After a few
 * pauses the polling yields the CPU: where threads outnumber free cores, the thread being waited
 * for may need this one's core (pausing alone then cost a call ~50 us). */
static int vf_spin(vf_pool* p, int (*ready)(vf_pool*)) {
  long long end = 0;
  for (int i = 0;; ++i) {
    if (ready(p)) return 1;
    if (i < 64) {
      vf_relax();
      continue;
    }
    long long now = vf_now_ns();
    if (end == 0) end = now + VF_POOL_SPIN_NS;
    if (now >= end) return 0;
    sched_yield();
  }
}

/* Waits until ready(p): polls (vf_spin), then sleeps on `cond`, counted in `asleep`. The count
 * goes up under the lock before the last check, and whoever makes ready(p) true looks at the
 * count afterwards (vf_wake): a wake-up cannot fall between the check and the sleep. */
static void vf_await(vf_pool* p, int (*ready)(vf_pool*), pthread_cond_t* cond, atomic_int* asleep) {
  if (vf_spin(p, ready)) return;
  pthread_mutex_lock(&p->lock);
  atomic_fetch_add(asleep, 1);
  while (!ready(p)) pthread_cond_wait(cond, &p->lock);
  atomic_fetch_sub(asleep, 1);
  pthread_mutex_unlock(&p->lock);
}

/* After a change that makes some vf_await's ready(p) true: wakes those asleep on `cond`. */
static void vf_wake(vf_pool* p, pthread_cond_t* cond, atomic_int* asleep) {
  if (atomic_load(asleep) == 0) return;
  pthread_mutex_lock(&p->lock);
  pthread_cond_broadcast(cond);
  pthread_mutex_unlock(&p->lock);
}

/* A new job of `chunks` chunks: wakes at most chunks - 1 sleeping workers (the caller runs a
 * chunk itself), the last to fall asleep first. Waking every worker for a job of two chunks (a
 * rig's two units) made the caller share the free cores with a dozen workers that found nothing
 * to claim: on the device tool's 16-core host, beside a replay's 8 decoding threads, the rig's
 * units started 280-310 us late (docs/perf/rig.md). A worker that wakes and finds the job
 * claimed sleeps again after its polling. The sleeper is counted, and pushed, under the lock
 * before its last check (vf_pool_sleep): one that this misses saw the job already. */
static void vf_wake_for(vf_pool* p, int chunks) {
  if (atomic_load(&p->sleepers) == 0) return;
  pthread_mutex_lock(&p->lock);
  for (int k = chunks - 1; k > 0 && p->idle_count > 0; --k) {
    vf_pool_seat* s = &p->seats[p->idle[--p->idle_count]];
    s->roused = 1;
    pthread_cond_signal(&s->wake);
  }
  pthread_mutex_unlock(&p->lock);
}

/* Runs chunks of the published job until none is left to claim. */
static void vf_pool_work(vf_pool* p) {
  uint64_t t = atomic_load(&p->ticket);
  while (vf_ticket_open(t)) {
    if (!atomic_compare_exchange_weak(&p->ticket, &t, t + 1)) continue;
    const int c = (int)(t & 0xffff), n = p->chunks;
    p->fn((int)((long long)p->count * c / n), (int)((long long)p->count * (c + 1) / n), p->arg);
    if (atomic_fetch_add(&p->done, 1) + 1 == n) vf_wake(p, &p->finished, &p->waiting);
    t = atomic_load(&p->ticket);
  }
}

static int vf_pool_called(vf_pool* p) {
  return vf_ticket_open(atomic_load(&p->ticket)) || atomic_load(&p->stop);
}

static int vf_pool_all_done(vf_pool* p) { return atomic_load(&p->done) == p->chunks; }

/* A worker with nothing to claim after its polling: asleep on its seat until a job picks it
 * (vf_wake_for) or the pool stops. */
static void vf_pool_sleep(vf_pool* p, vf_pool_seat* s) {
  pthread_mutex_lock(&p->lock);
  s->roused = 0;
  p->idle[p->idle_count++] = s->index;
  atomic_fetch_add(&p->sleepers, 1);
  while (!s->roused && !vf_pool_called(p)) pthread_cond_wait(&s->wake, &p->lock);
  if (!s->roused) {
    /* It saw a job itself: off the stack. */
    int i = 0;
    while (i < p->idle_count && p->idle[i] != s->index) ++i;
    for (; i + 1 < p->idle_count; ++i) p->idle[i] = p->idle[i + 1];
    p->idle_count--;
  }
  atomic_fetch_sub(&p->sleepers, 1);
  pthread_mutex_unlock(&p->lock);
}

static void* vf_pool_worker(void* arg) {
  vf_pool_seat* s = arg;
  vf_pool* p = s->pool;
  for (;;) {
    if (!vf_spin(p, vf_pool_called)) vf_pool_sleep(p, s);
    if (atomic_load(&p->stop)) return NULL;
    vf_pool_work(p);
  }
}

/* Starts the workers; those that fail to start are done without (the caller runs their
 * chunks). */
static void vf_pool_start(vf_pool* p) {
  p->tried = 1;
  int want = (p->threads < VF_PARALLEL_MAX_THREADS ? p->threads : VF_PARALLEL_MAX_THREADS) - 1;
  while (p->workers < want) {
    vf_pool_seat* s = &p->seats[p->workers];
    s->pool = p;
    s->index = p->workers;
    if (pthread_cond_init(&s->wake, NULL) != 0) break;
    if (VF_POOL_THREAD_CREATE(&p->ids[p->workers], NULL, vf_pool_worker, s) != 0) {
      pthread_cond_destroy(&s->wake);
      break;
    }
    p->workers++;
  }
}

vf_status vf_pool_create(int threads, vf_pool** out) {
  *out = NULL;
  vf_pool* p = vf_calloc(1, sizeof *p);
  if (p == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_pool_create: out of memory");
  p->threads = threads > 1 ? threads : 1;
  if (pthread_mutex_init(&p->lock, NULL) != 0) {
    free(p);
    return vf_fail(NULL, VF_ERR_NOMEM, "vf_pool_create: pthread_mutex_init failed");
  }
  if (pthread_cond_init(&p->finished, NULL) != 0) {
    pthread_mutex_destroy(&p->lock);
    free(p);
    return vf_fail(NULL, VF_ERR_NOMEM, "vf_pool_create: pthread_cond_init failed");
  }
  *out = p;
  return VF_OK;
}

void vf_pool_destroy(vf_pool* pool) {
  if (pool == NULL) return;
  atomic_store(&pool->stop, 1);
  pthread_mutex_lock(&pool->lock);
  while (pool->idle_count > 0) {
    vf_pool_seat* s = &pool->seats[pool->idle[--pool->idle_count]];
    s->roused = 1;
    pthread_cond_signal(&s->wake);
  }
  pthread_mutex_unlock(&pool->lock);
  for (int i = 0; i < pool->workers; ++i) pthread_join(pool->ids[i], NULL);
  for (int i = 0; i < pool->workers; ++i) pthread_cond_destroy(&pool->seats[i].wake);
  pthread_cond_destroy(&pool->finished);
  pthread_mutex_destroy(&pool->lock);
  free(pool);
}

int vf_pool_threads(const vf_pool* pool) { return pool != NULL ? pool->threads : 1; }

static void vf_run_inline(int count, int chunks, vf_range_fn fn, void* arg) {
  for (int c = 0; c < chunks; ++c) {
    fn((int)((long long)count * c / chunks), (int)((long long)count * (c + 1) / chunks), arg);
  }
}

void vf_parallel_for(vf_pool* pool, int count, int threads, vf_range_fn fn, void* arg) {
  if (count <= 0) return;
  if (threads > VF_PARALLEL_MAX_THREADS) threads = VF_PARALLEL_MAX_THREADS;
  if (threads > count) threads = count;
  if (threads <= 1) {
    fn(0, count, arg);
    return;
  }
  if (pool == NULL || atomic_exchange(&pool->busy, 1)) {
    vf_run_inline(count, threads, fn, arg);
    return;
  }
  if (!pool->tried) vf_pool_start(pool);
  if (pool->workers == 0) {
    vf_run_inline(count, threads, fn, arg);
    atomic_store(&pool->busy, 0);
    return;
  }
  pool->fn = fn;
  pool->arg = arg;
  pool->count = count;
  pool->chunks = threads;
  atomic_store(&pool->done, 0);
  uint64_t job = (atomic_load(&pool->ticket) >> 32) + 1;
  atomic_store(&pool->ticket, job << 32 | (uint64_t)threads << 16);
  vf_wake_for(pool, threads);
  vf_pool_work(pool);
  vf_await(pool, vf_pool_all_done, &pool->finished, &pool->waiting);
  atomic_store(&pool->busy, 0);
}

typedef struct vf_items {
  vf_item_fn fn;
  void* arg;
  int count, block;
  atomic_int next;
} vf_items;

static void vf_items_worker(int begin, int end, void* arg) {
  (void)begin;
  (void)end;
  vf_items* j = arg;
  for (;;) {
    const int first = atomic_fetch_add(&j->next, j->block);
    if (first >= j->count) return;
    const int last = first + j->block < j->count ? first + j->block : j->count;
    for (int i = first; i < last; ++i) j->fn(i, j->arg);
  }
}

void vf_parallel_items(vf_pool* pool, int count, int threads, int block, vf_item_fn fn, void* arg) {
  vf_items job = {fn, arg, count, block > 0 ? block : 1, 0};
  if (threads < 1) threads = 1;
  vf_parallel_for(pool, threads, threads, vf_items_worker, &job);
}

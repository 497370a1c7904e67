// SPDX-License-Identifier: BSD-3-Clause
/* The CPU backend's worker pool (src/core/vf_parallel.c, compiled into this test with a thread
 * starter that can be told to fail): every index runs exactly once in the documented chunks,
 * blocks of items likewise, nested calls run inline, many calls in a row with and without the
 * workers asleep, several threads on separate pools and on one pool at once, destroy with idle,
 * sleeping and never-started workers, and a pool whose workers cannot all start. The core count
 * that sizes a default pool follows the process's CPU affinity (src/core/vf_cores.c). */
#define _GNU_SOURCE
#include <pthread.h>
#ifdef __linux__
#include <sched.h>
#endif
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "core/vf_parallel.h"
#include "vf_test.h"

/* Starts fail once this many have succeeded (-1: never). */
static atomic_int start_budget = -1;

int test_thread_create(pthread_t* id, const pthread_attr_t* attr, void* (*fn)(void*), void* arg);
int test_thread_create(pthread_t* id, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  int left = atomic_load(&start_budget);
  if (left == 0) return 11; /* EAGAIN, as pthread_create gives when out of threads */
  if (left > 0) atomic_fetch_sub(&start_budget, 1);
  return pthread_create(id, attr, fn, arg);
}

static void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

enum { MAX_COUNT = 100003, MAX_CALLS = 128 };

typedef struct range_job {
  atomic_int* hits;
  atomic_int calls;
  int begin[MAX_CALLS], end[MAX_CALLS];
  atomic_int other_thread; /* a chunk ran off the calling thread */
  pthread_t caller;
  long chunk_sleep_us;
} range_job;

static void range_fn(int begin, int end, void* arg) {
  range_job* j = arg;
  int k = atomic_fetch_add(&j->calls, 1);
  if (k < MAX_CALLS) {
    j->begin[k] = begin;
    j->end[k] = end;
  }
  if (!pthread_equal(pthread_self(), j->caller)) atomic_store(&j->other_thread, 1);
  if (j->chunk_sleep_us > 0) sleep_us(j->chunk_sleep_us);
  for (int i = begin; i < end; ++i) atomic_fetch_add(&j->hits[i], 1);
}

static atomic_int hits[MAX_COUNT];

/* One call; checks each index once and the calls made against the documented split. */
static int check_range(vf_pool* pool, int count, int threads, range_job* j) {
  for (int i = 0; i < count; ++i) atomic_store(&hits[i], 0);
  atomic_store(&j->calls, 0);
  j->hits = hits;
  j->caller = pthread_self();
  vf_parallel_for(pool, count, threads, range_fn, j);
  int ok = 1;
  for (int i = 0; i < count; ++i) ok &= atomic_load(&hits[i]) == 1;
  int n = threads < 1 ? 1 : threads > 64 ? 64 : threads;
  if (n > count) n = count;
  int calls = atomic_load(&j->calls);
  if (count > 0) {
    /* threads <= 1: one call over everything; else chunk t = [count t / n, count (t + 1) / n). */
    ok &= calls == n;
    for (int k = 0; k < calls && k < MAX_CALLS; ++k) {
      int t = 0;
      while (t < n && (int)((long long)count * t / n) != j->begin[k]) ++t;
      ok &= t < n && j->end[k] == (int)((long long)count * (t + 1) / n);
    }
  } else {
    ok &= calls == 0;
  }
  if (!ok) fprintf(stderr, "  count %d threads %d: wrong indices or chunks\n", count, threads);
  return ok;
}

static void test_every_index(void) {
  static const int counts[] = {0, 1, 2, 3, 7, 64, 65, 1000, MAX_COUNT};
  static const int threads[] = {-1, 0, 1, 2, 3, 4, 8, 64, 100};
  static const int pools[] = {1, 2, 3, 4, 8, 100};
  static range_job j;
  for (size_t p = 0; p < sizeof pools / sizeof pools[0]; ++p) {
    vf_pool* pool = NULL;
    CHECK_OK(vf_pool_create(pools[p], &pool));
    if (pool == NULL) continue;
    CHECK(vf_pool_threads(pool) == pools[p]);
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
      for (size_t t = 0; t < sizeof threads / sizeof threads[0]; ++t) {
        CHECK(check_range(pool, counts[c], threads[t], &j));
      }
    }
    vf_pool_destroy(pool);
  }
  CHECK(vf_pool_threads(NULL) == 1);
  CHECK(check_range(NULL, 1000, 4, &j));
  printf("every index once, in the documented chunks: pools of 1..100, counts 0..%d\n", MAX_COUNT);
}

typedef struct item_job {
  atomic_int* hits;
} item_job;

static void item_fn(int i, void* arg) { atomic_fetch_add(&((item_job*)arg)->hits[i], 1); }

static void test_items(void) {
  static const int blocks[] = {0, 1, 2, 8, 1000};
  vf_pool* pool = NULL;
  CHECK_OK(vf_pool_create(4, &pool));
  item_job j = {hits};
  for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; ++b) {
    for (int threads = 1; threads <= 6; ++threads) {
      const int count = 4099;
      for (int i = 0; i < count; ++i) atomic_store(&hits[i], 0);
      vf_parallel_items(pool, count, threads, blocks[b], item_fn, &j);
      int ok = 1;
      for (int i = 0; i < count; ++i) ok &= atomic_load(&hits[i]) == 1;
      CHECK(ok);
    }
  }
  vf_pool_destroy(pool);
  printf("items: every item once, blocks of 0..1000, 1..6 threads\n");
}

typedef struct nest_job {
  vf_pool* pool;
  atomic_int inner;
} nest_job;

static void inner_fn(int begin, int end, void* arg) {
  atomic_fetch_add(&((nest_job*)arg)->inner, end - begin);
}

static void outer_fn(int begin, int end, void* arg) {
  nest_job* j = arg;
  for (int i = begin; i < end; ++i) vf_parallel_for(j->pool, 100, 4, inner_fn, j);
}

static void inner_item(int i, void* arg) {
  (void)i;
  atomic_fetch_add(&((nest_job*)arg)->inner, 1);
}

static void outer_items(int i, void* arg) {
  (void)i;
  nest_job* j = arg;
  vf_parallel_items(j->pool, 10, 4, 1, inner_item, j);
}

static void test_nested(void) {
  nest_job j = {NULL, 0};
  CHECK_OK(vf_pool_create(4, &j.pool));
  vf_parallel_for(j.pool, 8, 4, outer_fn, &j);
  CHECK(atomic_load(&j.inner) == 8 * 100);
  atomic_store(&j.inner, 0);
  vf_parallel_items(j.pool, 16, 4, 1, outer_items, &j);
  CHECK(atomic_load(&j.inner) == 16 * 10);
  vf_pool_destroy(j.pool);
  printf("nested calls from chunks and items run inline: every index once\n");
}

static void add_fn(int begin, int end, void* arg) {
  atomic_fetch_add((atomic_llong*)arg, (long long)(end - begin) * (begin + end - 1) / 2);
}

static void test_many_calls(void) {
  vf_pool* pool = NULL;
  CHECK_OK(vf_pool_create(3, &pool));
  int ok = 1;
  for (int k = 0; k < 20000; ++k) {
    atomic_llong sum = 0;
    const int count = 1 + k % 97;
    vf_parallel_for(pool, count, 3, add_fn, &sum);
    ok &= atomic_load(&sum) == (long long)count * (count - 1) / 2;
    /* Now and then long enough for the workers to fall asleep, so that a call wakes them. */
    if (k % 1000 == 999) sleep_us(2000);
  }
  CHECK(ok);
  /* A chunk long enough that a worker wakes up before the caller could take it. */
  static range_job j;
  j.chunk_sleep_us = 3000;
  int seen = 0;
  for (int k = 0; k < 20 && !seen; ++k) {
    atomic_store(&j.other_thread, 0);
    CHECK(check_range(pool, 2, 2, &j));
    seen = atomic_load(&j.other_thread);
    sleep_us(1000);
  }
  j.chunk_sleep_us = 0;
  CHECK(seen);
  vf_pool_destroy(pool);
  printf("20000 calls in a row, waking sleeping workers; a worker runs chunks\n");
}

typedef struct submitter {
  vf_pool* pool;
  int ok;
} submitter;

static void* submit_many(void* arg) {
  submitter* s = arg;
  s->ok = 1;
  for (int k = 0; k < 3000; ++k) {
    atomic_llong sum = 0;
    const int count = 10 + k % 1000;
    vf_parallel_for(s->pool, count, 1 + k % 4, add_fn, &sum);
    s->ok &= atomic_load(&sum) == (long long)count * (count - 1) / 2;
  }
  return NULL;
}

/* shared: all threads submit to one pool (a call that finds it running another runs inline). */
static void run_submitters(int shared) {
  enum { N = 4 };
  submitter s[N];
  pthread_t id[N];
  vf_pool* one = NULL;
  if (shared) CHECK_OK(vf_pool_create(3, &one));
  for (int i = 0; i < N; ++i) {
    s[i].pool = one;
    if (!shared) CHECK_OK(vf_pool_create(3, &s[i].pool));
  }
  int started[N];
  for (int i = 0; i < N; ++i) started[i] = pthread_create(&id[i], NULL, submit_many, &s[i]) == 0;
  for (int i = 0; i < N; ++i) {
    CHECK(started[i]);
    if (started[i]) pthread_join(id[i], NULL);
    CHECK(!started[i] || s[i].ok);
    if (!shared) vf_pool_destroy(s[i].pool);
  }
  vf_pool_destroy(one);
}

static void test_several_threads(void) {
  run_submitters(0);
  run_submitters(1);
  printf("4 threads submitting at once, on their own pools and on one pool\n");
}

static void test_destroy(void) {
  vf_pool* pool = NULL;
  CHECK_OK(vf_pool_create(8, &pool));
  vf_pool_destroy(pool); /* workers never started */
  static range_job j;
  for (int idle_us = 0; idle_us <= 3000; idle_us += 1500) {
    pool = NULL;
    CHECK_OK(vf_pool_create(8, &pool));
    CHECK(check_range(pool, 1000, 8, &j));
    if (idle_us > 0) sleep_us(idle_us); /* spinning at 0, asleep after */
    vf_pool_destroy(pool);
  }
  vf_pool_destroy(NULL);
  printf("destroy: workers never started, spinning, asleep; NULL\n");
}

static void test_start_failure(void) {
  static range_job j;
  for (int budget = 0; budget <= 2; ++budget) {
    atomic_store(&start_budget, budget);
    vf_pool* pool = NULL;
    CHECK_OK(vf_pool_create(6, &pool));
    for (int k = 0; k < 50; ++k) CHECK(check_range(pool, 5000, 6, &j));
    item_job items = {hits};
    for (int i = 0; i < 777; ++i) atomic_store(&hits[i], 0);
    vf_parallel_items(pool, 777, 6, 3, item_fn, &items);
    int ok = 1;
    for (int i = 0; i < 777; ++i) ok &= atomic_load(&hits[i]) == 1;
    CHECK(ok);
    vf_pool_destroy(pool);
  }
  atomic_store(&start_budget, -1);
  printf("workers that fail to start: 0, 1 or 2 of 5 started, all the work still done\n");
}

/* Pinned to one core (as taskset or a container's cpuset does), the count is 1; unpinned again, the
 * affinity's count, at most the online cores. */
static void test_cores(void) {
  const int all = vf_cpu_cores();
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  CHECK(all >= 1 && (online < 1 || all <= online));
#ifdef __linux__
  cpu_set_t before, one;
  CHECK(sched_getaffinity(0, sizeof before, &before) == 0);
  int first = 0;
  while (first < CPU_SETSIZE && !CPU_ISSET(first, &before)) ++first;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
  CHECK(vf_cpu_cores() == 1);
  CHECK(sched_setaffinity(0, sizeof before, &before) == 0);
  CHECK(vf_cpu_cores() == CPU_COUNT(&before));
#endif
}

/* Chunk 0 waits (at most 2 s) for chunk 1 to start: only a worker can run it meanwhile. */
typedef struct meet_job {
  atomic_int started[2];
  atomic_int met;
} meet_job;

static void meet_fn(int begin, int end, void* arg) {
  meet_job* j = arg;
  (void)end;
  atomic_store(&j->started[begin], 1);
  if (begin != 0) return;
  for (int i = 0; i < 20000 && !atomic_load(&j->started[1]); ++i) sleep_us(100);
  atomic_store(&j->met, atomic_load(&j->started[1]));
}

/* A call of two chunks wakes one of the sleeping workers (a call wakes only as many as its chunks
 * need, the last to fall asleep first): its chunks run at once, every time, after the workers of
 * a pool of 8 fell asleep; and a call of all chunks after it still finds every worker. */
static void test_wake_for_chunks(void) {
  vf_pool* pool = NULL;
  CHECK_OK(vf_pool_create(8, &pool));
  if (pool == NULL) return;
  static range_job j;
  int met = 0;
  for (int round = 0; round < 20; ++round) {
    CHECK(check_range(pool, 1000, 8, &j)); /* every worker started and busy once */
    sleep_us(2000);                        /* asleep */
    meet_job m;
    atomic_store(&m.started[0], 0);
    atomic_store(&m.started[1], 0);
    atomic_store(&m.met, 0);
    vf_parallel_for(pool, 2, 2, meet_fn, &m);
    met += atomic_load(&m.met);
  }
  CHECK(met == 20);
  j.chunk_sleep_us = 3000;
  atomic_store(&j.other_thread, 0);
  sleep_us(2000);
  CHECK(check_range(pool, 8, 8, &j));
  CHECK(atomic_load(&j.other_thread));
  j.chunk_sleep_us = 0;
  vf_pool_destroy(pool);
  printf("two chunks after the workers fell asleep: run at once in %d of 20 calls\n", met);
}

int main(void) {
  test_cores();
  test_every_index();
  test_items();
  test_nested();
  test_many_calls();
  test_wake_for_chunks();
  test_several_threads();
  test_destroy();
  test_start_failure();
  VF_TEST_END("test_pool");
}

// SPDX-License-Identifier: BSD-3-Clause
/* Parallel-for: splits a range into contiguous chunks, one POSIX thread each. */
#include "core/vf_parallel.h"

#include <pthread.h>
#include <stdatomic.h>

#define VF_PARALLEL_MAX_THREADS 64

typedef struct vf_chunk {
  int begin;
  int end;
  vf_range_fn fn;
  void* arg;
} vf_chunk;

static void* vf_chunk_run(void* p) {
  vf_chunk* c = p;
  c->fn(c->begin, c->end, c->arg);
  return NULL;
}

void vf_parallel_for(int count, int threads, vf_range_fn fn, void* arg) {
  if (count <= 0) return;
  if (threads > VF_PARALLEL_MAX_THREADS) threads = VF_PARALLEL_MAX_THREADS;
  if (threads > count) threads = count;
  if (threads <= 1) {
    fn(0, count, arg);
    return;
  }
  vf_chunk chunks[VF_PARALLEL_MAX_THREADS];
  pthread_t ids[VF_PARALLEL_MAX_THREADS];
  int started[VF_PARALLEL_MAX_THREADS] = {0};
  for (int t = 0; t < threads; ++t) {
    chunks[t].begin = (int)((long long)count * t / threads);
    chunks[t].end = (int)((long long)count * (t + 1) / threads);
    chunks[t].fn = fn;
    chunks[t].arg = arg;
  }
  /* Chunk 0 runs on the calling thread; a chunk whose thread fails to start runs inline. */
  for (int t = 1; t < threads; ++t) {
    started[t] = pthread_create(&ids[t], NULL, vf_chunk_run, &chunks[t]) == 0;
  }
  vf_chunk_run(&chunks[0]);
  for (int t = 1; t < threads; ++t) {
    if (started[t]) {
      pthread_join(ids[t], NULL);
    } else {
      vf_chunk_run(&chunks[t]);
    }
  }
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

void vf_parallel_items(int count, int threads, int block, vf_item_fn fn, void* arg) {
  vf_items job = {fn, arg, count, block > 0 ? block : 1, 0};
  if (threads < 1) threads = 1;
  vf_parallel_for(threads, threads, vf_items_worker, &job);
}

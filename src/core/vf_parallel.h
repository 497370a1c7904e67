// SPDX-License-Identifier: BSD-3-Clause
/* A parallel-for over an index range for the CPU backend, on worker threads that a pool keeps
 * from call to call (each context owns one, sized by its cpu_threads). */
#ifndef VF_PARALLEL_H
#define VF_PARALLEL_H

#include "viofront/vf_status.h"

typedef struct vf_pool vf_pool;

/* A pool for `threads` participants: the calling thread and threads - 1 workers (at most 63),
 * started at the first call that splits a range, idle between calls, joined by destroy.
 * Allocates only; the workers' start cannot fail a later call (see vf_parallel_for). */
vf_status vf_pool_create(int threads, vf_pool** out);
void vf_pool_destroy(vf_pool* pool);
/* The `threads` the pool was made with; 1 for NULL (a caller without a pool runs inline). */
int vf_pool_threads(const vf_pool* pool);
/* The cores this process may run on (its CPU affinity on Linux, else the online count), >= 1. */
int vf_cpu_cores(void);

/* Runs fn(begin, end, arg) over [0, count) split into at most `threads` contiguous chunks (chunk
 * t = [count * t / n, count * (t + 1) / n), whoever runs it). Runs the chunks in order on the
 * calling thread when pool is NULL, threads <= 1 or count is small, the pool's workers could
 * not be started, or the pool is already running a call (a nested call from a chunk, or another
 * thread's call). */
typedef void (*vf_range_fn)(int begin, int end, void* arg);
void vf_parallel_for(vf_pool* pool, int count, int threads, vf_range_fn fn, void* arg);

/* Runs fn(i, arg) for every i in [0, count) on up to `threads` threads that take blocks of
 * `block` items from a shared counter: for items whose cost varies (equal shares would leave
 * a thread idle). */
typedef void (*vf_item_fn)(int i, void* arg);
void vf_parallel_items(vf_pool* pool, int count, int threads, int block, vf_item_fn fn, void* arg);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* A parallel-for over an index range on POSIX threads, for the CPU backend. */
#ifndef VF_PARALLEL_H
#define VF_PARALLEL_H

/* Runs fn(begin, end, arg) over [0, count) split into at most `threads` contiguous chunks.
 * Runs inline when threads <= 1 or count is small, or if threads cannot be started. */
typedef void (*vf_range_fn)(int begin, int end, void* arg);
void vf_parallel_for(int count, int threads, vf_range_fn fn, void* arg);

/* Runs fn(i, arg) for every i in [0, count) on up to `threads` threads that take blocks of
 * `block` items from a shared counter: for items whose cost varies (equal shares would leave
 * a thread idle). */
typedef void (*vf_item_fn)(int i, void* arg);
void vf_parallel_items(int count, int threads, int block, vf_item_fn fn, void* arg);

#endif

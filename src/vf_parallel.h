// SPDX-License-Identifier: BSD-3-Clause
/* A parallel-for over an index range on POSIX threads, for the CPU backend. */
#ifndef VF_PARALLEL_H
#define VF_PARALLEL_H

/* Runs fn(begin, end, arg) over [0, count) split into at most `threads` contiguous chunks.
 * Runs inline when threads <= 1 or count is small, or if threads cannot be started. */
typedef void (*vf_range_fn)(int begin, int end, void* arg);
void vf_parallel_for(int count, int threads, vf_range_fn fn, void* arg);

#endif

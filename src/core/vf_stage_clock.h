// SPDX-License-Identifier: BSD-3-Clause
/* Marks between the stages of a frame: CUDA events recorded on the context's stream (no
 * synchronisation until the frame is read out) or CLOCK_MONOTONIC on the CPU backend. Mark i
 * ends stage i - 1 and starts stage i; vf_stage_clock_read gives each stage's milliseconds. A
 * host mark (vf_stage_clock_mark_host) ends a stage of host work on the host's clock: reading a
 * frame that ends with one waits for no event the host recorded just before. */
#ifndef VF_STAGE_CLOCK_H
#define VF_STAGE_CLOCK_H

#include <stddef.h>
#include <time.h>

#include "core/vf_context_internal.h"

#define VF_STAGE_CLOCK_MAX_MARKS 16

typedef struct vf_stage_clock {
  const vf_context* ctx;
  int marks;
  void* event[VF_STAGE_CLOCK_MAX_MARKS]; /* CUDA */
  struct timespec time[VF_STAGE_CLOCK_MAX_MARKS];
  unsigned recorded; /* bit i: mark i was set this frame */
  unsigned host;     /* bit i: mark i is a host mark (CUDA: no event) */
  vf_error err;      /* the frame's first failed mark: vf_stage_clock_read reports it */
} vf_stage_clock;

/* marks: 2..VF_STAGE_CLOCK_MAX_MARKS. */
vf_status vf_stage_clock_init(vf_stage_clock* c, const vf_context* ctx, int marks);
void vf_stage_clock_release(vf_stage_clock* c);
/* Forgets the previous frame's marks. */
void vf_stage_clock_reset(vf_stage_clock* c);
vf_status vf_stage_clock_mark(vf_stage_clock* c, int mark);
/* Mark `mark` on the host's clock alone. The stage it ends is timed on the host's clock (from
 * the host's call of the mark before it): use it after a stage whose work the host does. A
 * stage from a host mark to an event mark has no time (0). */
vf_status vf_stage_clock_mark_host(vf_stage_clock* c, int mark);
/* ms[i] = time from mark i to the next recorded mark after it (0 when either is missing).
 * Waits for the last recorded event mark on CUDA (a host mark has no event); fails when a mark
 * of this frame failed. */
vf_status vf_stage_clock_read(vf_stage_clock* c, double* ms);

#endif

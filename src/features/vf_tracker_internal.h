// SPDX-License-Identifier: BSD-3-Clause
/* What the library's other stages may ask of a tracker beyond the public API. */
#ifndef VF_TRACKER_INTERNAL_H
#define VF_TRACKER_INTERNAL_H

#include "viofront/vf_tracker.h"

/* CUDA with refinement: whether calls the GPU holds at once track and refine in one launch (the
 * default) or in two kernels. One launch is faster when the tracker has the GPU to itself, but
 * each feature's block holds the refinement's registers while its first warp tracks, so beside
 * other work on the GPU it takes multiprocessors from that work: the frontend, whose SGM runs on
 * a second stream meanwhile, measured its frame slower with it (docs/perf/refinement.md) and turns
 * it off. Both give the same results. */
void vf_tracker_set_one_launch(vf_tracker* t, int on);

#endif

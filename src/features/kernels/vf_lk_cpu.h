// SPDX-License-Identifier: BSD-3-Clause
/* CPU reference of the feature tracker (the mathematics is in src/features/kernels/vf_lk_rules.h).
 */
#ifndef VF_LK_CPU_H
#define VF_LK_CPU_H

#include "core/vf_parallel.h"
#include "features/kernels/vf_lk_rules.h"

/* Tracks count features, split over the pool's threads. Templates of first-observation
 * slots are read and written through p->templates / p->slot_levels (host memory). */
void vf_lk_cpu_track(const vf_lk_params* p, const vf_track_request* requests,
                     vf_track_result* results, int count, vf_pool* pool);

/* One feature on the calling thread (for a caller that does more per feature in one pass):
 * request r, the i-th of the call (its start level, vf_lk_params.start_levels). */
vf_track_result vf_lk_cpu_track_one(const vf_lk_params* p, const vf_track_request* r, int i);

#endif

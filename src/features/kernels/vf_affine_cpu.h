// SPDX-License-Identifier: BSD-3-Clause
/* CPU reference of the reference refinement (the mathematics is in
 * src/features/kernels/vf_affine_rules.h). */
#ifndef VF_AFFINE_CPU_H
#define VF_AFFINE_CPU_H

#include "core/vf_parallel.h"
#include "features/kernels/vf_affine_rules.h"
#include "features/kernels/vf_lk_rules.h"

/* Tracks requests[i] frame to frame (lk, as vf_lk_cpu_track) into results[i] and refines that
 * result against the reference of the request's slot, taking that reference first where the
 * request asks for a new template. Slots and samples are host memory. Both steps of a feature run
 * on one thread, features split over the pool's threads in one pass. */
void vf_affine_cpu_track(const vf_lk_params* lk, const vf_affine_params* p,
                         const vf_track_request* requests, vf_track_result* results, int count,
                         vf_pool* pool);

/* The refinement of one frame-to-frame result (out) against the reference of r's slot, taking
 * that reference first where r asks for a new template. wide: two patch rows at once in 8 lanes
 * (only where vf_simd8.h defines VF_SIMD8 and vf_simd8_available() says so); the same bits as
 * 4 lanes (test_tracker_lanes compares them). */
void vf_affine_cpu_refine(const vf_affine_params* p, const vf_track_request* r,
                          vf_track_result* out, int wide);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* CPU reference of the reference refinement (the mathematics is in
 * src/features/kernels/vf_affine_rules.h). */
#ifndef VF_AFFINE_CPU_H
#define VF_AFFINE_CPU_H

#include "features/kernels/vf_affine_rules.h"

/* Refines results[i] (the frame-to-frame result of requests[i]) against the reference of the
 * request's slot, taking that reference first where the request asks for a new template. Slots
 * and samples are host memory. Split over up to `threads` threads. */
void vf_affine_cpu_refine(const vf_affine_params* p, const vf_track_request* requests,
                          vf_track_result* results, int count, int threads);

#endif

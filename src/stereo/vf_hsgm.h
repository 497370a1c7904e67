// SPDX-License-Identifier: BSD-3-Clause
/* Hierarchical SGM as an internal stage of vf_stereo (method VF_STEREO_HSGM; SGM with 16 paths
 * on the CPU backend, which is HSGM with one level; ZNCC + SGM, one level with the ZNCC cost):
 * full-range SGM on the coarsest level of a 2x2 pyramid, then on every finer level a per-pixel
 * disparity range from the min / max of the coarser result in a window (full range where it has no
 * valid disparity), a dynamic cost cube that holds each pixel's range only, 2..16 aggregation paths
 * and the left-right check (Fu, "Dense matching GPU implementation", Stuttgart; rules in
 * src/stereo/kernels/vf_hsgm_rules.h). Buffers in the context's memory, allocated at create time.
 */
#ifndef VF_HSGM_H
#define VF_HSGM_H

#include <stddef.h>
#include <stdint.h>

#include "core/vf_error.h"
#include "stereo/kernels/vf_hsgm_rules.h"
#include "viofront/vf_context.h"
#include "viofront/vf_stereo.h"

typedef struct vf_hsgm vf_hsgm;

/* Validates the HSGM part of `c` and the fields it shares with SGM (messages start with `what`)
 * and fills `hp`. */
vf_status vf_hsgm_params_from_config(const vf_stereo_config* c, vf_hsgm_params* hp,
                                     const char* what);

vf_status vf_hsgm_create(vf_context* ctx, const vf_hsgm_params* hp, vf_hsgm** out);
void vf_hsgm_destroy(vf_hsgm* h);

/* Images and outputs in the backend's memory (device memory on CUDA, where the work is queued
 * on the context's stream). outf (may be NULL): CUDA only, the CPU caller converts out16 itself.
 * Failures are recorded in err. */
vf_status vf_hsgm_compute(vf_hsgm* h, const uint8_t* left, size_t left_stride, const uint8_t* right,
                          size_t right_stride, uint16_t* out16, size_t out16_stride, float* outf,
                          size_t outf_stride, vf_error* err);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* The CPU backend of the local stereo methods (src/stereo/vf_stereo_local.h): the references the
 * CUDA kernels must match bit for bit. All buffers come from the caller (allocated at create). */
#ifndef VF_LOCAL_CPU_H
#define VF_LOCAL_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/vf_parallel.h"
#include "stereo/kernels/vf_local_rules.h"

/* Per-image window terms of ZNCC over a (2r+1)^2 window: sum = sum(I) and
 * var = n sum(I^2) - sum(I)^2, on w*h tight arrays; 0 where the window leaves the image.
 * integral != 0: from summed-area tables in `sat` ((w+1)*(h+1)*2 words), else added directly. */
void vf_cpu_zncc_window_sums(const uint8_t* img, size_t stride, int w, int h, int radius,
                             int integral, uint32_t* sat, uint16_t* sum, uint32_t* var,
                             vf_pool* pool);

/* ZNCC cost codes (vf_stereo_local_common.h) for every pixel and disparity, disparity fastest,
 * 8-bit codes when pack8 else 16-bit. scratch: vf_pool_threads(pool) * disparities * width
 * words. */
void vf_cpu_zncc_costs(const vf_local_pair* p, int radius, const uint16_t* sum_l,
                       const uint32_t* var_l, const uint16_t* sum_r, const uint32_t* var_r,
                       void* volume, int pack8, uint32_t* scratch, vf_pool* pool);

/* Census cost codes from the 9x7 census byte planes of both images (vf_cpu_census layout,
 * `bits` = 31 or 62). */
void vf_cpu_census_costs(const vf_local_pair* p, const uint8_t* census_l, const uint8_t* census_r,
                         int bits, void* volume, int pack8, vf_pool* pool);

/* FastDT: passes left->right and right->left, top->bottom in place, bottom->top fused with
 * winner-takes-all into `disparity`. weights: the 256 Q15 weights by |dI|. scratch: width *
 * disparities words. */
void vf_cpu_fastdt(const vf_local_pair* p, const uint16_t* weights, void* volume, int pack8,
                   uint32_t* scratch, uint16_t* disparity, size_t disparity_stride, vf_pool* pool);

/* Winner-takes-all on a cost volume without aggregation. */
void vf_cpu_wta(const vf_local_pair* p, const void* volume, int pack8, uint16_t* disparity,
                size_t disparity_stride, vf_pool* pool);

/* Cyclops2 search; VF_STEREO_LOCAL_INVALID where no candidate exists. (The 3x3 median is SGM's
 * vf_cpu_median3, src/stereo/kernels/vf_sgm_cpu.h.) */
void vf_cpu_cyclops(const vf_local_pair* p, const vf_local_cyclops* c, uint16_t* disparity,
                    size_t disparity_stride, vf_pool* pool);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* The CPU reference of hierarchical SGM (src/stereo/kernels/vf_hsgm_rules.h): per level, the
 * disparity ranges, the aggregation over 2..16 paths into the dynamic cost cube and the selection.
 * Also SGM with 16 paths (one level, full ranges). */
#ifndef VF_HSGM_CPU_H
#define VF_HSGM_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/vf_parallel.h"
#include "stereo/kernels/vf_hsgm_rules.h"

/* The per-pixel ranges of one level (w*h each): range (vf_hsgm_range_pack) and the offset of the
 * pixel's first cell within its row of the cube; row y of the cube starts at y * w * D. */
typedef struct vf_hsgm_ranges {
  uint32_t* range;
  uint32_t* offset;
} vf_hsgm_ranges;

/* Ranges of level p from the coarser map (cw x ch, coarse_min..) or, coarse NULL, full ranges. */
void vf_cpu_hsgm_ranges(const vf_sgm_params* p, const uint16_t* coarse, int cw, int ch, int radius,
                        int margin, const vf_hsgm_ranges* r, vf_pool* pool);

/* Sum over p->paths paths of the aggregated costs of every pixel over its range, into the cube
 * `sum` (layout of vf_hsgm_ranges). left: the level's left image (adaptive P2). The matching
 * cost: the Hamming distance of the census words, or where zncc is not NULL vf_zncc_sgm_cost of
 * its codes (w*h*D, disparity fastest; ZNCC + SGM). */
void vf_cpu_hsgm_aggregate(const vf_sgm_params* p, const uint8_t* left, size_t left_stride,
                           const uint64_t* census_l, const uint64_t* census_r, const uint16_t* zncc,
                           const vf_hsgm_ranges* r, uint16_t* sum, vf_pool* pool);

/* Winner takes all over each pixel's range with the uniqueness ratio, the left-right check
 * against the right image's winners, and (p->subpixel) the sub-pixel V fit: w*h values into out.
 * right_best: w*h words of scratch. */
void vf_cpu_hsgm_select(const vf_sgm_params* p, const vf_hsgm_ranges* r, const uint16_t* sum,
                        uint32_t* right_best, uint16_t* out, vf_pool* pool);

#endif

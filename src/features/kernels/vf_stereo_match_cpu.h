// SPDX-License-Identifier: BSD-3-Clause
/* CPU twin of cuda/features/vf_stereo_match.cu: the sparse stereo match of points of a rectified
 * pair (src/features/kernels/vf_stereo_match_rules.h). */
#ifndef VF_STEREO_MATCH_CPU_H
#define VF_STEREO_MATCH_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/vf_parallel.h"
#include "features/kernels/vf_stereo_match_rules.h"
#include "viofront/vf_sampler.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = the match of point xy[i] from prior[i] (prior may be NULL: none), points split over
 * the pool's threads. */
void vf_cpu_match_stereo(const uint8_t* left, size_t left_stride, const uint8_t* right,
                         size_t right_stride, int width, int height, const float* xy,
                         const float* prior, int count, const vf_stereo_match_config* c,
                         vf_stereo_match* out, vf_pool* pool);

/* vf_match_run's search (the same lo, hi, d, cost, cm, cp and second), its costs in vector
 * lanes. */
vf_match_search vf_cpu_match_run(const uint8_t* f, size_t f_stride, const uint8_t* m,
                                 size_t m_stride, int width, int xf, int y, int sign, int lo,
                                 int hi, const vf_match_rect* w);

/* vf_match_cells (src/features/kernels/vf_stereo_match_point.h): the depth step's nine cells,
 * the same texture tests, costs and picks; cells of 8 columns or fewer in one vector a row, their
 * costs from the rows widened once a cell. */
void vf_cpu_match_cells(const uint8_t* left, size_t ls, const uint8_t* right, size_t rs, int width,
                        int xi, int yi, int d, int cr, float cell[9], int valid[9]);

/* vf_match_zncc and vf_match_textured, their integer sums in vector lanes. */
float vf_cpu_match_zncc(const uint8_t* a, size_t sa, int xa, const uint8_t* b, size_t sb, int xb,
                        int y, const vf_match_rect* w);
int vf_cpu_match_textured(const uint8_t* img, size_t stride, int x, int y, int r);

#ifdef __cplusplus
}
#endif
#endif

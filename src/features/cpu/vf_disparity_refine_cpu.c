// SPDX-License-Identifier: BSD-3-Clause
/* The disparity refinement of one point on the CPU (vf_disparity_refine_point of
 * src/features/kernels/vf_disparity_rules.h, the same result bit for bit): the smoothed pixels
 * under the window and the strip in 16-bit integers, 8 pixels at a time (vf_smooth_cpu.h, the
 * same floats as the rules' vf_disparity_smoothed), then the rules' matching
 * (vf_disparity_refine_solve). */
#include "features/kernels/vf_sample_cpu.h"

#include "features/cpu/vf_smooth_cpu.h"
#include "features/kernels/vf_disparity_rules.h"

/* out[i][k] (i < rows, k < cols) = the smoothed pixel (x0 + k, y0 + i) of img, rows of stride
 * out_stride floats, 16-byte aligned, with room for cols rounded up to 4. Reads rows y0 - 1 ..
 * y0 + rows, raw columns from x0 - 1 on, whole vectors: up to 7 past x0 + cols, which
 * vf_disparity_refine_reach leaves inside the image or in the next row (there is one). */
static void vf_refine_smooth(const uint8_t* img, size_t stride, int x0, int y0, int cols, int rows,
                             float* out, int out_stride) {
  int16_t h[VF_DR_ROWS + 2][VF_DR_COLS + 8];
  const uint8_t* q = img + (size_t)(y0 - 1) * stride + (size_t)(x0 - 1);
  for (int i = 0; i < rows + 2; ++i, q += stride) vf_cpu_smooth_row(q, cols, h[i]);
  for (int i = 0; i < rows; ++i)
    vf_cpu_smooth_column(h[i], h[i + 1], h[i + 2], cols, out + (size_t)i * (size_t)out_stride);
}

float vf_cpu_disparity_refine_point(const uint8_t* left, size_t left_stride, const uint8_t* right,
                                    size_t right_stride, int width, int height, float x, float y,
                                    float d0, const vf_disparity_refine_config* c) {
  const int r = c->radius, side = 2 * r + 1;
  vf_disparity_reach at;
  if (!vf_disparity_refine_reach(width, height, x, y, d0, r, c->max_change, &at)) return NAN;
  _Alignas(16) float sl[VF_DR_ROWS][VF_DR_SIDE + 3];
  _Alignas(16) float sr[VF_DR_ROWS][VF_DR_COLS];
  vf_refine_smooth(left, left_stride, at.fx - r - 1, at.fy - r, side + 3, side + 1, sl[0],
                   VF_DR_SIDE + 3);
  vf_refine_smooth(right, right_stride, at.c0, at.fy - r, at.cols, side + 1, sr[0], VF_DR_COLS);
  return vf_disparity_refine_solve(sl, sr, &at, x, d0, c);
}

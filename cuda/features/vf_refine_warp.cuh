// SPDX-License-Identifier: BSD-3-Clause
// One point's disparity refinement on one warp (vf_disparity_refine_point of
// src/features/kernels/vf_disparity_rules.h, the CPU reference): shared by the refinement
// kernels (vf_disparity_refine.cu) and the sparse stereo matcher (vf_stereo_match.cu).
#ifndef VF_REFINE_WARP_CUH
#define VF_REFINE_WARP_CUH

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "features/kernels/vf_disparity_rules.h"
#include "vf_warp_sums.cuh"

// Internal linkage: every kernel file that includes it gets its own copy.
namespace {
namespace vf_refine_warp_ns {

constexpr int kLeftCols = VF_DR_SIDE + 3;
// Samples a lane keeps: the largest window over 32 lanes.
constexpr int kPerLane = (VF_DR_SIDE * VF_DR_SIDE + 31) / 32;

struct vf_refine_smem {
  float left[VF_DR_ROWS][kLeftCols];
  float right[VF_DR_ROWS][VF_DR_COLS];
};

// The raw rows a strip of smoothed pixels reads: its rows and one more each side.
constexpr int kRawRows = VF_DR_ROWS + 2;
static_assert(VF_DR_COLS + 2 <= 32 && VF_DR_SIDE + 5 <= 32, "a strip's raw columns fit a warp");

// The smoothed pixels (vf_disparity_smoothed's taps and weights) of `rows` rows and `cols`
// columns from (x0, y0), into out (out_stride floats a row). Lane j reads raw column x0 - 1 + j
// of every raw row, all its loads at once (one wait on memory, not one a pixel as a loop over
// the pixels has), takes the row's other two taps from lanes j + 1 and j + 2, and lane k < cols
// runs down column k. Not inlined: the left and the right strip share one copy of the code
// (a warp that runs alone on its multiprocessor waits for each new instruction to be fetched).
__device__ __noinline__ void vf_smooth_strip(const uint8_t* img, size_t stride, int x0, int y0,
                                             int rows, int cols, float* out, int out_stride,
                                             int lane) {
  const uint8_t* p = img + (size_t)(y0 - 1) * stride + (size_t)(x0 - 1 + min(lane, cols + 1));
  unsigned raw[kRawRows];
#pragma unroll
  for (int i = 0; i < kRawRows; ++i) raw[i] = i < rows + 2 ? __ldg(p + (size_t)i * stride) : 0u;
  float h[kRawRows];
#pragma unroll
  for (int i = 0; i < kRawRows; ++i) {
    const float a = (float)raw[i];
    const float b = (float)__shfl_down_sync(0xffffffffu, raw[i], 1);
    const float c = (float)__shfl_down_sync(0xffffffffu, raw[i], 2);
    h[i] = 0.25f * (a + c) + 0.5f * b;
  }
#pragma unroll
  for (int i = 0; i < kRawRows - 2; ++i) {
    if (i < rows && lane < cols) {
      float v = 0.0f;
      v += 0.25f * h[i];
      v += 0.5f * h[i + 1];
      v += 0.25f * h[i + 2];
      out[i * out_stride + lane] = v;
    }
  }
}

__device__ float vf_refine_warp(const uint8_t* left, size_t left_stride, const uint8_t* right,
                                size_t right_stride, int width, int height, float x, float y,
                                float d0, const vf_disparity_refine_config& c, vf_refine_smem& sm,
                                int lane) {
  const int r = c.radius, side = 2 * r + 1, n = side * side;
  vf_disparity_reach at;
  if (!vf_disparity_refine_reach(width, height, x, y, d0, r, c.max_change, &at)) return NAN;
  const int fx = at.fx, fy = at.fy, c0 = at.c0, cols = at.cols;
  const float ax = at.ax, ay = at.ay, lo = at.lo, hi = at.hi;
  // The smoothed pixels under both windows, a column a lane.
  vf_smooth_strip(left, left_stride, fx - r - 1, fy - r, side + 1, side + 3, &sm.left[0][0],
                  kLeftCols, lane);
  vf_smooth_strip(right, right_stride, c0, fy - r, side + 1, cols, &sm.right[0][0], VF_DR_COLS,
                  lane);
  __syncwarp();
  // The window's samples: lane l keeps samples l, l + 32, ..., with each one's place in the
  // right strip (row i, column k: i VF_DR_COLS + k, -1 past the window), worked out once: a
  // division by the side in every iteration cost more than the iteration's arithmetic.
  float t[kPerLane], tx[kPerLane];
  int at_right[kPerLane];
  float sums[5];
  sums[0] = 0.0f;
#pragma unroll
  for (int j = 0; j < kPerLane; ++j) {
    const int s = lane + 32 * j;
    t[j] = tx[j] = 0.0f;
    at_right[j] = -1;
    if (s < n) {
      const int i = s / side, k = s - i * side;
      at_right[j] = i * VF_DR_COLS + k;
      const float* q = &sm.left[i][k];
      const float g0 = vf_disparity_bilerp(q, kLeftCols, ax, ay);
      const float g1 = vf_disparity_bilerp(q + 1, kLeftCols, ax, ay);
      const float g2 = vf_disparity_bilerp(q + 2, kLeftCols, ax, ay);
      t[j] = g1;
      tx[j] = 0.5f * (g2 - g0);
      sums[0] += g1;
    }
  }
  vf_warp_sums<1>(sums);
  const float mu = sums[0] / (float)n;
  // H (symmetric 3x3) and its inverse by cofactors.
#pragma unroll
  for (int k = 0; k < 5; ++k) sums[k] = 0.0f;
#pragma unroll
  for (int j = 0; j < kPerLane; ++j) {
    if (at_right[j] < 0) continue;
    t[j] -= mu;  // from here on t holds T - mu
    const float g = tx[j], tc = t[j];
    sums[0] += g * g;
    sums[1] += g * tc;
    sums[2] += g;
    sums[3] += tc * tc;
    sums[4] += tc;
  }
  vf_warp_sums<5>(sums);
  const float h00 = sums[0], h01 = sums[1], h02 = sums[2], h11 = sums[3], h12 = sums[4];
  const float h22 = (float)n;
  const float c00 = h11 * h22 - h12 * h12, c01 = h02 * h12 - h01 * h22, c02 = h01 * h12 - h02 * h11,
              c11 = h00 * h22 - h02 * h02, c12 = h01 * h02 - h00 * h12, c22 = h00 * h11 - h01 * h01;
  const float det = h00 * c00 + h01 * c01 + h02 * c02;
  if (!(h00 > 0) || !(h11 > 0) || !(det > 1e-6f * h00 * h11 * h22)) return NAN;
  const float inv_det = 1.0f / det;
  float xr = x - d0, gain = 1.0f, off = mu;
  int converged = 0;
  for (int it = 0; it < c.max_iterations && !converged; ++it) {
    if (!(xr >= lo && xr <= hi)) return NAN;
    const int fr = (int)floorf(xr);
    const float axr = xr - (float)fr;
    const int k0 = fr - r - c0;
    // One reciprocal an iteration instead of a division a sample (within a rounding of the
    // CPU's quotient: the backends agree within test_sampler's tolerance).
    const float inv_gain = 1.0f / gain;
    const float* strip = &sm.right[0][0] + k0;
    float b[3] = {0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      if (at_right[j] < 0) continue;
      const float v = vf_disparity_bilerp(strip + at_right[j], VF_DR_COLS, axr, ay);
      const float e = (v - off) * inv_gain - t[j];
      b[0] += tx[j] * e;
      b[1] += t[j] * e;
      b[2] += e;
    }
    vf_warp_sums<3>(b);
    const float d0s = (c00 * b[0] + c01 * b[1] + c02 * b[2]) * inv_det;
    const float d1 = (c01 * b[0] + c11 * b[1] + c12 * b[2]) * inv_det;
    const float d2 = (c02 * b[0] + c12 * b[1] + c22 * b[2]) * inv_det;
    xr -= d0s;
    off += gain * d2;
    gain *= 1.0f + d1;
    if (!(gain > 0.3f && gain < 3.0f)) return NAN;
    converged = fabsf(d0s) < VF_DISPARITY_REFINE_MIN_STEP;
  }
  const float d = x - xr;
  return converged && fabsf(d - d0) <= c.max_change ? d : NAN;
}

}  // namespace vf_refine_warp_ns
}  // namespace

#endif

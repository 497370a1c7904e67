// SPDX-License-Identifier: BSD-3-Clause
// The disparity probe of one point on one warp (vf_probe_point of
// src/features/kernels/vf_sample_cpu.h, which reads up to 2 (2r + 1)^2 + reach pixels one after
// another: on the GPU a chain of L2 round trips per point): lane a < 2r + 1 walks row a and
// column a of the window, the lanes stride the occlusion scan, and the counts and maxima are
// combined across the warp. Sums and maxima of integers do not depend on the order, so the
// result equals vf_probe_point's bit for bit. Shared by the probe kernel
// (cuda/features/vf_sample.cu) and the probe-and-match kernel
// (cuda/features/vf_disparity_refine.cu).
#ifndef VF_PROBE_WARP_CUH
#define VF_PROBE_WARP_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "features/kernels/vf_sample_cpu.h"

namespace vf_probe_warp {

constexpr int kChunk = 8;  // pixels a lane reads before it uses them

__device__ __forceinline__ int vf_warp_max(int v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ __forceinline__ int vf_warp_sum(int v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// The probe at p; every lane returns the same result.
__device__ __forceinline__ vf_disparity_probe vf_probe_warp(const uint16_t* __restrict__ image,
                                                            size_t stride_bytes, int width,
                                                            int height, float2 p,
                                                            const vf_disparity_probe_config& c,
                                                            int lane) {
  const int x = vf_sample_index(p.x, width), y = vf_sample_index(p.y, height), r = c.radius;
  vf_disparity_probe res = {c.invalid, 0, 0, 0};
  if (x < 0 || y < 0) {
    res.holes = (uint16_t)((2 * r + 1) * (2 * r + 1));
    return res;
  }
  res.value = vf_probe_at(image, stride_bytes, x, y);
  int holes = 0, jump = 0;
  if (lane <= 2 * r) {
    // Row a (y + a, counting the holes: the rows cover the window once) and column a (x + a),
    // kChunk pixels of each read at once before any is used: a wait on memory a chunk, not a
    // pixel.
    const int a = lane - r;
    int last_row = -1, last_col = -1;
    for (int b0 = -r; b0 <= r; b0 += kChunk) {
      int vr[kChunk], vc[kChunk];
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        const int b = b0 + j, rx = x + b, ry = y + a, cx = x + a, cy = y + b;
        const int row_in = b <= r && rx >= 0 && ry >= 0 && rx < width && ry < height;
        const int col_in = b <= r && cx >= 0 && cy >= 0 && cx < width && cy < height;
        vr[j] = row_in ? vf_probe_at(image, stride_bytes, rx, ry) : c.invalid;
        vc[j] = col_in ? vf_probe_at(image, stride_bytes, cx, cy) : c.invalid;
      }
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        if (b0 + j > r) break;
        if (vr[j] == c.invalid) {
          ++holes;
        } else {
          if (last_row >= 0) jump = max(jump, abs(vr[j] - last_row));
          last_row = vr[j];
        }
        if (vc[j] != c.invalid) {
          if (last_col >= 0) jump = max(jump, abs(vc[j] - last_col));
          last_col = vc[j];
        }
      }
    }
  }
  holes = vf_warp_sum(holes);
  jump = vf_warp_max(jump);
  res.holes = (uint16_t)holes;
  res.jump = (uint16_t)jump;
  if (res.value != c.invalid) {
    // The CPU's scan k = 1..reach, the lanes taking every 32nd k, kChunk of a lane's at once.
    const int one = 1 << c.fractional_bits, half = one >> 1, d0 = res.value;
    int occluder = 0;
    for (int k0 = lane + 1; k0 <= c.reach && x + k0 < width; k0 += 32 * kChunk) {
      int v[kChunk];
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        const int k = k0 + 32 * j;
        v[j] =
            k <= c.reach && x + k < width ? vf_probe_at(image, stride_bytes, x + k, y) : c.invalid;
      }
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        const int k = k0 + 32 * j;
        if (v[j] != c.invalid && k * one + d0 <= v[j] + half && v[j] > occluder) occluder = v[j];
      }
    }
    res.occluder = (uint16_t)vf_warp_max(occluder);
  }
  return res;
}

}  // namespace vf_probe_warp

#endif

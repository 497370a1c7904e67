// SPDX-License-Identifier: BSD-3-Clause
// Nearest-pixel reads of a 16-bit image at points (one thread per point) and the disparity probe
// (one warp per point); the rounding and the pixel reads are the CPU reference's own inline
// functions (src/features/kernels/vf_sample_cpu.h), so both backends read the same pixels and
// compute the same integers.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "features/kernels/vf_sample_cpu.h"
#include "features/kernels/vf_sample_cuda.h"

namespace {

__global__ void vf_gather_kernel(const uint16_t* __restrict__ image, size_t stride_bytes, int width,
                                 int height, const float2* __restrict__ xy, int count,
                                 uint16_t outside, uint16_t* __restrict__ values) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  float2 p = xy[i];
  int x = vf_sample_index(p.x, width), y = vf_sample_index(p.y, height);
  values[i] =
      (x < 0 || y < 0)
          ? outside
          : *(const uint16_t*)((const uint8_t*)image + (size_t)y * stride_bytes + (size_t)x * 2);
}

// The probe, one warp per point (the CPU's loops read up to 2 (2r + 1)^2 + reach pixels one
// after another, which on the GPU is a chain of L2 round trips per point): lane a < 2r + 1 walks
// row a and column a of the window, the lanes stride the occlusion scan, and the counts and
// maxima are combined across the warp. Sums and maxima of integers do not depend on the order,
// so the result equals vf_probe_point's bit for bit.
constexpr int kProbeWarps = 4;

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

__global__ void __launch_bounds__(32 * kProbeWarps)
    vf_probe_kernel(const uint16_t* __restrict__ image, size_t stride_bytes, int width, int height,
                    const float2* __restrict__ xy, int count, vf_disparity_probe_config c,
                    vf_disparity_probe* __restrict__ out) {
  const int i = blockIdx.x * kProbeWarps + (threadIdx.x >> 5), lane = threadIdx.x & 31;
  if (i >= count) return;  // the whole warp: i is the same in every lane
  const float2 p = xy[i];
  const int x = vf_sample_index(p.x, width), y = vf_sample_index(p.y, height), r = c.radius;
  vf_disparity_probe res = {c.invalid, 0, 0, 0};
  if (x < 0 || y < 0) {
    res.holes = (uint16_t)((2 * r + 1) * (2 * r + 1));
    if (lane == 0) out[i] = res;
    return;
  }
  res.value = vf_probe_at(image, stride_bytes, x, y);
  int holes = 0, jump = 0;
  if (lane <= 2 * r) {
    // Row a (y + a, counting the holes: the rows cover the window once) and column a (x + a).
    const int a = lane - r;
    int last_row = -1, last_col = -1;
    for (int b = -r; b <= r; ++b) {
      const int rx = x + b, ry = y + a, cx = x + a, cy = y + b;
      const int row_in = rx >= 0 && ry >= 0 && rx < width && ry < height;
      const int col_in = cx >= 0 && cy >= 0 && cx < width && cy < height;
      const int vr = row_in ? vf_probe_at(image, stride_bytes, rx, ry) : c.invalid;
      const int vc = col_in ? vf_probe_at(image, stride_bytes, cx, cy) : c.invalid;
      if (vr == c.invalid) {
        ++holes;
      } else {
        if (last_row >= 0) jump = max(jump, abs(vr - last_row));
        last_row = vr;
      }
      if (vc != c.invalid) {
        if (last_col >= 0) jump = max(jump, abs(vc - last_col));
        last_col = vc;
      }
    }
  }
  holes = vf_warp_sum(holes);
  jump = vf_warp_max(jump);
  res.holes = (uint16_t)holes;
  res.jump = (uint16_t)jump;
  if (res.value != c.invalid) {
    // The CPU's scan k = 1..reach, the lanes taking every 32nd k.
    const int one = 1 << c.fractional_bits, half = one >> 1, d0 = res.value;
    int occluder = 0;
    for (int k = lane + 1; k <= c.reach && x + k < width; k += 32) {
      const int v = vf_probe_at(image, stride_bytes, x + k, y);
      if (v != c.invalid && k * one + d0 <= v + half && v > occluder) occluder = v;
    }
    res.occluder = (uint16_t)vf_warp_max(occluder);
  }
  if (lane == 0) out[i] = res;
}

}  // namespace

extern "C" int vf_cuda_gather_u16(const uint16_t* image, size_t stride_bytes, int width, int height,
                                  const float* xy, int count, uint16_t outside, uint16_t* values,
                                  void* stream) {
  if (count <= 0) return 0;
  const int threads = 128;
  vf_gather_kernel<<<(count + threads - 1) / threads, threads, 0, (cudaStream_t)stream>>>(
      image, stride_bytes, width, height, (const float2*)xy, count, outside, values);
  return VF_CUDA_LAUNCH_STATUS();
}

extern "C" int vf_cuda_probe_disparity(const uint16_t* image, size_t stride_bytes, int width,
                                       int height, const float* xy, int count,
                                       const vf_disparity_probe_config* config,
                                       vf_disparity_probe* out, void* stream) {
  if (count <= 0) return 0;
  vf_probe_kernel<<<(count + kProbeWarps - 1) / kProbeWarps, 32 * kProbeWarps, 0,
                    (cudaStream_t)stream>>>(image, stride_bytes, width, height, (const float2*)xy,
                                            count, *config, out);
  return VF_CUDA_LAUNCH_STATUS();
}

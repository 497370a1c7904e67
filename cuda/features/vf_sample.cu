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
#include "vf_probe_warp.cuh"

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

constexpr int kProbeWarps = 4;

__global__ void __launch_bounds__(32 * kProbeWarps)
    vf_probe_kernel(const uint16_t* __restrict__ image, size_t stride_bytes, int width, int height,
                    const float2* __restrict__ xy, int count, vf_disparity_probe_config c,
                    vf_disparity_probe* __restrict__ out) {
  const int i = blockIdx.x * kProbeWarps + (threadIdx.x >> 5), lane = threadIdx.x & 31;
  if (i >= count) return;  // the whole warp: i is the same in every lane
  const vf_disparity_probe res =
      vf_probe_warp::vf_probe_warp(image, stride_bytes, width, height, xy[i], c, lane);
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

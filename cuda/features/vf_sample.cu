// SPDX-License-Identifier: BSD-3-Clause
// Nearest-pixel reads of a 16-bit image at points and the disparity probe, one thread per point;
// the rounding and the probe are the CPU reference's own inline functions (src/features/
// kernels/vf_sample_cpu.h), so both backends read the same pixels and compute the same integers.
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

__global__ void vf_probe_kernel(const uint16_t* __restrict__ image, size_t stride_bytes, int width,
                                int height, const float2* __restrict__ xy, int count,
                                vf_disparity_probe_config config,
                                vf_disparity_probe* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  float2 p = xy[i];
  out[i] = vf_probe_point(image, stride_bytes, width, height, p.x, p.y, &config);
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
  const int threads = 64;
  vf_probe_kernel<<<(count + threads - 1) / threads, threads, 0, (cudaStream_t)stream>>>(
      image, stride_bytes, width, height, (const float2*)xy, count, *config, out);
  return VF_CUDA_LAUNCH_STATUS();
}

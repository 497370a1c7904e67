// SPDX-License-Identifier: BSD-3-Clause
// CUDA 3x3 median of the disparity (edges replicated, VF_STEREO_INVALID sorts as the largest
// value, as in src/stereo/cpu/vf_sgm_select_cpu.c) and the optional float output.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "stereo/kernels/vf_sgm_cuda.h"

namespace {

__device__ __forceinline__ void vf_sort2(uint32_t& a, uint32_t& b) {
  const uint32_t t = min(a, b);
  b = max(a, b);
  a = t;
}

__global__ void vf_median_kernel(const uint16_t* __restrict__ in, int w, int h, int subpixel,
                                 uint16_t* out16, size_t out16_stride, float* outf,
                                 size_t outf_stride) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  uint32_t v[9];
  int n = 0;
#pragma unroll
  for (int dy = -1; dy <= 1; ++dy) {
    const int yy = min(max(y + dy, 0), h - 1);
#pragma unroll
    for (int dx = -1; dx <= 1; ++dx) v[n++] = in[(size_t)yy * w + min(max(x + dx, 0), w - 1)];
  }
  // Paeth's 19-exchange median-of-9 network.
  vf_sort2(v[1], v[2]);
  vf_sort2(v[4], v[5]);
  vf_sort2(v[7], v[8]);
  vf_sort2(v[0], v[1]);
  vf_sort2(v[3], v[4]);
  vf_sort2(v[6], v[7]);
  vf_sort2(v[1], v[2]);
  vf_sort2(v[4], v[5]);
  vf_sort2(v[7], v[8]);
  vf_sort2(v[0], v[3]);
  vf_sort2(v[5], v[8]);
  vf_sort2(v[4], v[7]);
  vf_sort2(v[3], v[6]);
  vf_sort2(v[1], v[4]);
  vf_sort2(v[2], v[5]);
  vf_sort2(v[4], v[7]);
  vf_sort2(v[4], v[2]);
  vf_sort2(v[6], v[4]);
  vf_sort2(v[4], v[2]);
  const uint32_t m = v[4];
  out16[(size_t)y * (out16_stride / 2) + x] = (uint16_t)m;
  if (outf != NULL) {
    outf[(size_t)y * (outf_stride / 4) + x] = m == VF_STEREO_INVALID
                                                  ? __int_as_float(0x7fc00000)
                                                  : (float)m * (subpixel ? 1.0f / 16.0f : 1.0f);
  }
}

}  // namespace

extern "C" int vf_cuda_sgm_median(const vf_sgm_params* p, const uint16_t* in, uint16_t* out16,
                                  size_t out16_stride, float* outf, size_t outf_stride,
                                  void* stream) {
  dim3 block(32, 8);
  dim3 grid((p->width + 31) / 32, (p->height + 7) / 8);
  vf_median_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(
      in, p->width, p->height, p->subpixel, out16, out16_stride, outf, outf_stride);
  return VF_CUDA_LAUNCH_STATUS();
}

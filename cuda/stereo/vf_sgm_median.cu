// SPDX-License-Identifier: BSD-3-Clause
// CUDA 3x3 median of the disparity (edges replicated, VF_STEREO_INVALID sorts as the largest
// value, as in src/stereo/cpu/vf_sgm_select_cpu.c) and the optional float output.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "stereo/kernels/vf_sgm_cuda.h"

namespace {

constexpr int kThreadsX = 32, kThreadsY = 8, kRun = 4;  // four neighbouring pixels a thread

__device__ __forceinline__ uint32_t vf_med3(uint32_t a, uint32_t b, uint32_t c) {
  return max(min(a, b), min(max(a, b), c));
}

// A column of three sorted (lo, mid, hi) in five minima and maxima, as the CPU sorts it.
__device__ __forceinline__ void vf_sort3(uint32_t& a, uint32_t& b, uint32_t& c) {
  const uint32_t l = min(a, b), u = max(a, b);
  a = min(l, c);
  b = max(l, min(u, c));
  c = max(u, c);
}

__device__ __forceinline__ void vf_put(uint16_t* out16, float* outf, int x, uint32_t m,
                                       int subpixel) {
  out16[x] = (uint16_t)m;
  if (outf != NULL) {
    outf[x] = m == VF_STEREO_INVALID ? __int_as_float(0x7fc00000)
                                     : (float)m * (subpixel ? 1.0f / 16.0f : 1.0f);
  }
}

// The median of 9 from three sorted columns (as src/stereo/cpu/vf_sgm_select_cpu.c): the median
// of the largest low, the middle mid and the smallest high. A thread takes kRun pixels of a row,
// so each of its kRun + 2 columns is sorted once for up to three pixels: about a third of the
// instructions of a 19-exchange network a pixel with nine clamped loads. Rows and columns at the
// image's edges are replicated.
__global__ void __launch_bounds__(kThreadsX* kThreadsY)
    vf_median_kernel(const uint16_t* __restrict__ in, int w, int h, int subpixel, uint16_t* out16,
                     size_t out16_stride, float* outf, size_t outf_stride) {
  const int x0 = (blockIdx.x * kThreadsX + threadIdx.x) * kRun;
  const int y = blockIdx.y * kThreadsY + threadIdx.y;
  if (x0 >= w || y >= h) return;
  const uint16_t* rows[3] = {in + (size_t)max(y - 1, 0) * w, in + (size_t)y * w,
                             in + (size_t)min(y + 1, h - 1) * w};
  uint32_t lo[kRun + 2], mid[kRun + 2], hi[kRun + 2];
  if (x0 >= 1 && x0 + kRun < w) {  // inside: loads at constant offsets from three addresses
#pragma unroll
    for (int c = 0; c < kRun + 2; ++c) {
      lo[c] = __ldg(rows[0] + x0 - 1 + c);
      mid[c] = __ldg(rows[1] + x0 - 1 + c);
      hi[c] = __ldg(rows[2] + x0 - 1 + c);
    }
  } else {
#pragma unroll
    for (int c = 0; c < kRun + 2; ++c) {
      const int x = min(max(x0 - 1 + c, 0), w - 1);
      lo[c] = __ldg(rows[0] + x);
      mid[c] = __ldg(rows[1] + x);
      hi[c] = __ldg(rows[2] + x);
    }
  }
#pragma unroll
  for (int c = 0; c < kRun + 2; ++c) vf_sort3(lo[c], mid[c], hi[c]);
  uint16_t* o16 = out16 + (size_t)y * (out16_stride / 2);
  float* of = outf != NULL ? outf + (size_t)y * (outf_stride / 4) : NULL;
#pragma unroll
  for (int i = 0; i < kRun; ++i) {
    if (x0 + i >= w) break;
    const uint32_t a = max(max(lo[i], lo[i + 1]), lo[i + 2]);
    const uint32_t b = vf_med3(mid[i], mid[i + 1], mid[i + 2]);
    const uint32_t c = min(min(hi[i], hi[i + 1]), hi[i + 2]);
    vf_put(o16, of, x0 + i, vf_med3(a, b, c), subpixel);
  }
}

}  // namespace

extern "C" int vf_cuda_sgm_median(const vf_sgm_params* p, const uint16_t* in, uint16_t* out16,
                                  size_t out16_stride, float* outf, size_t outf_stride,
                                  void* stream) {
  dim3 block(kThreadsX, kThreadsY);
  dim3 grid((p->width + kThreadsX * kRun - 1) / (kThreadsX * kRun),
            (p->height + kThreadsY - 1) / kThreadsY);
  vf_median_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(
      in, p->width, p->height, p->subpixel, out16, out16_stride, outf, outf_stride);
  return VF_CUDA_LAUNCH_STATUS();
}

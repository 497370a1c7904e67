// SPDX-License-Identifier: BSD-3-Clause
// CUDA census transform 9x7 of both images in one launch (blockIdx.z picks the image): each
// block stages its 32x8 output tile plus the window apron in shared memory (edges replicated),
// then every thread builds one word. Bit order equals src/stereo/cpu/vf_census_cpu.c.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "stereo/kernels/vf_sgm_cuda.h"
#include "vf_sgm_warp.cuh"

namespace {

constexpr int kTileW = 32, kTileH = 8;
constexpr int kApronW = kTileW + 2 * VF_CENSUS_RX, kApronH = kTileH + 2 * VF_CENSUS_RY;

template <bool FULL>
__global__ void __launch_bounds__(kTileW* kTileH)
    vf_census_kernel(const uint8_t* __restrict__ left, size_t left_stride,
                     const uint8_t* __restrict__ right, size_t right_stride, int w, int h,
                     typename vf_sgm::census_word<FULL>::type* out_l,
                     typename vf_sgm::census_word<FULL>::type* out_r) {
  typedef typename vf_sgm::census_word<FULL>::type CT;
  __shared__ uint8_t tile[kApronH][kApronW];
  const uint8_t* img = blockIdx.z ? right : left;
  const size_t stride = blockIdx.z ? right_stride : left_stride;
  const int x0 = blockIdx.x * kTileW - VF_CENSUS_RX, y0 = blockIdx.y * kTileH - VF_CENSUS_RY;
  for (int i = threadIdx.y * kTileW + threadIdx.x; i < kApronH * kApronW; i += kTileW * kTileH) {
    const int ty = i / kApronW, tx = i % kApronW;
    const int y = min(max(y0 + ty, 0), h - 1), x = min(max(x0 + tx, 0), w - 1);
    tile[ty][tx] = img[(size_t)y * stride + x];
  }
  __syncthreads();
  const int x = blockIdx.x * kTileW + threadIdx.x, y = blockIdx.y * kTileH + threadIdx.y;
  if (x >= w || y >= h) return;
  const int cx = threadIdx.x + VF_CENSUS_RX, cy = threadIdx.y + VF_CENSUS_RY;
  CT bits = 0;
  int n = 0;
  if (FULL) {
    const uint8_t c = tile[cy][cx];
#pragma unroll
    for (int dy = -VF_CENSUS_RY; dy <= VF_CENSUS_RY; ++dy) {
#pragma unroll
      for (int dx = -VF_CENSUS_RX; dx <= VF_CENSUS_RX; ++dx) {
        if (dx == 0 && dy == 0) continue;
        bits |= (CT)(tile[cy + dy][cx + dx] < c) << n++;
      }
    }
  } else {
#pragma unroll
    for (int dy = -VF_CENSUS_RY; dy <= 0; ++dy) {
#pragma unroll
      for (int dx = -VF_CENSUS_RX; dx <= VF_CENSUS_RX; ++dx) {
        if (dy == 0 && dx >= 0) break;
        bits |= (CT)(tile[cy + dy][cx + dx] > tile[cy - dy][cx - dx]) << n++;
      }
    }
  }
  (blockIdx.z ? out_r : out_l)[(size_t)y * w + x] = bits;
}

}  // namespace

extern "C" int vf_cuda_census(const vf_sgm_params* p, const uint8_t* left, size_t left_stride,
                              const uint8_t* right, size_t right_stride, void* census_l,
                              void* census_r, void* stream) {
  dim3 block(kTileW, kTileH);
  dim3 grid((p->width + kTileW - 1) / kTileW, (p->height + kTileH - 1) / kTileH, 2);
  cudaStream_t s = (cudaStream_t)stream;
  if (p->census_full) {
    vf_census_kernel<true><<<grid, block, 0, s>>>(left, left_stride, right, right_stride, p->width,
                                                  p->height, (unsigned long long*)census_l,
                                                  (unsigned long long*)census_r);
  } else {
    vf_census_kernel<false><<<grid, block, 0, s>>>(left, left_stride, right, right_stride, p->width,
                                                   p->height, (uint32_t*)census_l,
                                                   (uint32_t*)census_r);
  }
  return VF_CUDA_LAUNCH_STATUS();
}

// SPDX-License-Identifier: BSD-3-Clause
// CUDA per-pixel disparity ranges of an HSGM level (rule vf_hsgm_range_at of
// src/stereo/kernels/vf_hsgm_rules.h, as src/stereo/cpu/vf_hsgm_ranges_cpu.c) and the offsets of
// the pixels' cells in their row of the dynamic cost cube: one block per row, each thread a run of
// consecutive pixels, the runs' totals scanned across the block with warp shuffles.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "stereo/kernels/vf_hsgm_cuda.h"

namespace {

constexpr int kThreads = 256;
constexpr unsigned kFull = 0xffffffffu;

__device__ __forceinline__ uint32_t range_of(const vf_sgm_params& p, const uint16_t* coarse, int cw,
                                             int ch, int radius, int margin, int x, int y) {
  return coarse == NULL ? vf_hsgm_range_pack(0, p.disparities)
                        : vf_hsgm_range_at(coarse, cw, ch, x, y, radius, margin, p.min_disparity,
                                           p.disparities);
}

// Exclusive prefix sum of v over the block.
__device__ __forceinline__ uint32_t block_exclusive_scan(uint32_t v) {
  __shared__ uint32_t s_warp[kThreads / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  uint32_t inc = v;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const uint32_t t = __shfl_up_sync(kFull, inc, o);
    if (lane >= o) inc += t;
  }
  if (lane == 31) s_warp[warp] = inc;
  __syncthreads();
  if (warp == 0) {
    uint32_t t = lane < kThreads / 32 ? s_warp[lane] : 0;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const uint32_t u = __shfl_up_sync(kFull, t, o);
      if (lane >= o) t += u;
    }
    if (lane < kThreads / 32) s_warp[lane] = t;  // inclusive totals of the warps
  }
  __syncthreads();
  return inc - v + (warp > 0 ? s_warp[warp - 1] : 0);
}

__global__ void __launch_bounds__(kThreads)
    vf_ranges_kernel(vf_sgm_params p, const uint16_t* __restrict__ coarse, int cw, int ch,
                     int radius, int margin, uint32_t* range, uint32_t* offset) {
  const int y = blockIdx.x, w = p.width;
  const int run = (w + kThreads - 1) / kThreads;
  const int x0 = threadIdx.x * run, x1 = min(x0 + run, w);
  uint32_t total = 0;
  for (int x = x0; x < x1; ++x) {
    const uint32_t r = range_of(p, coarse, cw, ch, radius, margin, x, y);
    range[(size_t)y * w + x] = r;
    total += (uint32_t)vf_hsgm_range_n(r);
  }
  uint32_t at = block_exclusive_scan(total);
  for (int x = x0; x < x1; ++x) {
    offset[(size_t)y * w + x] = at;
    at += (uint32_t)vf_hsgm_range_n(range[(size_t)y * w + x]);
  }
}

}  // namespace

extern "C" int vf_cuda_hsgm_ranges(const vf_sgm_params* p, const uint16_t* coarse, int cw, int ch,
                                   int radius, int margin, uint32_t* range, uint32_t* offset,
                                   void* stream) {
  vf_ranges_kernel<<<p->height, kThreads, 0, (cudaStream_t)stream>>>(*p, coarse, cw, ch, radius,
                                                                     margin, range, offset);
  return VF_CUDA_LAUNCH_STATUS();
}

// SPDX-License-Identifier: BSD-3-Clause
// CUDA disparity selection of hierarchical SGM over per-pixel ranges, one block per image row:
// each warp takes pixels of the row, its lanes the disparities of the pixel's range (32 at a
// time), adds the paths' costs from the dynamic cubes, picks the winner (smallest cost, then
// smallest index), checks uniqueness, fits the sub-pixel V where both neighbours lie in
// the range, and folds every cost into the row's right-image winners in shared memory (atomic
// minimum of packed cost and index); then the left-right check and the output. Rules as in
// src/stereo/cpu/vf_hsgm_select_cpu.c.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "stereo/kernels/vf_hsgm_cuda.h"
#include "vf_sgm_common.cuh"
#include "vf_sgm_warp.cuh"

namespace {

constexpr int kThreads = 256, kWarps = kThreads / 32, kChunks = 8;  // 8 x 32 = 256 disparities
constexpr uint32_t kNone = vf_sgm::kNoWinner;

// The sum at range position q (0 <= q < 32 * kChunks) of this warp, read from the owning lane.
__device__ __forceinline__ uint32_t sum_at(const uint32_t (&sv)[kChunks], int q) {
  uint32_t v = 0;
#pragma unroll
  for (int ch = 0; ch < kChunks; ++ch) v = ch == (q >> 5) ? sv[ch] : v;
  return __shfl_sync(vf_sgm::kFull, v, q & 31);
}

__device__ __forceinline__ void select_pixel(const vf_sgm_params& p,
                                             const uint8_t* __restrict__ cell, size_t plane,
                                             uint32_t rg, int x, int lane, uint32_t* right,
                                             uint32_t* best_left) {
  const int lo = vf_hsgm_range_lo(rg), n = vf_hsgm_range_n(rg);
  uint32_t sv[kChunks], best = kNone;
#pragma unroll
  for (int ch = 0; ch < kChunks; ++ch) {
    const int q = 32 * ch + lane;
    sv[ch] = kNone;
    if (q < n) {
      uint32_t s = 0;
      for (int v = 0; v < p.paths; ++v) s += __ldg(cell + v * plane + q);
      sv[ch] = s;
      best = min(best, vf_sgm_pack(s, (uint32_t)(lo + q)));
    }
  }
  best = vf_sgm::group_min<32>(best);
  const int kb = (int)(best & 0xffu), jb = kb - lo;
  const uint32_t s1 = best >> 8;
  uint32_t second = kNone;
#pragma unroll
  for (int ch = 0; ch < kChunks; ++ch) {
    const int q = 32 * ch + lane;
    if (q < n && (q < jb - 1 || q > jb + 1)) second = min(second, sv[ch]);
  }
  second = vf_sgm::group_min<32>(second);
  const uint32_t sa = sum_at(sv, jb > 0 ? jb - 1 : jb);
  const uint32_t sc = sum_at(sv, jb < n - 1 ? jb + 1 : jb);
  if (lane == 0)
    best_left[x] = vf_sgm::winner_word(p, x, kb, s1, second, jb > 0 && jb < n - 1, sa, sc);
  if (p.lr_check) {
#pragma unroll
    for (int ch = 0; ch < kChunks; ++ch) {
      const int q = 32 * ch + lane;
      const int xr = x - p.min_disparity - lo - q;
      if (q < n && xr >= 0) atomicMin(&right[xr], vf_sgm_pack(sv[ch], (uint32_t)(lo + q)));
    }
  }
}

__global__ void __launch_bounds__(kThreads)
    vf_hsgm_select_kernel(vf_sgm_params p, const uint32_t* __restrict__ range,
                          const uint32_t* __restrict__ offset, const uint8_t* __restrict__ volumes,
                          size_t plane, uint16_t* out16, size_t out16_stride, float* outf,
                          size_t outf_stride) {
  extern __shared__ uint32_t s_mem[];
  const int w = p.width, y = blockIdx.x;
  uint32_t* right = s_mem;
  uint32_t* best_left = s_mem + w;
  for (int i = threadIdx.x; i < w; i += kThreads) right[i] = kNone;
  __syncthreads();
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const uint8_t* row = volumes + (size_t)y * w * p.disparities;
  const uint32_t* rrow = range + (size_t)y * w;
  const uint32_t* orow = offset + (size_t)y * w;
  // Every lane loads the range and offset of the warp's next pixel while this one is reduced.
  int x = warp;
  uint32_t rg = x < w ? __ldg(rrow + x) : 0, off = x < w ? __ldg(orow + x) : 0;
  for (; x < w; x += kWarps) {
    const int xn = x + kWarps;
    const uint32_t rg_next = xn < w ? __ldg(rrow + xn) : 0,
                   off_next = xn < w ? __ldg(orow + xn) : 0;
    select_pixel(p, row + off, plane, rg, x, lane, right, best_left);
    rg = rg_next;
    off = off_next;
  }
  __syncthreads();
  vf_sgm::write_row(p, y, right, best_left, out16, out16_stride, outf, outf_stride);
}

}  // namespace

extern "C" int vf_cuda_hsgm_select(const vf_sgm_params* p, const uint32_t* range,
                                   const uint32_t* offset, const uint8_t* volumes, size_t plane,
                                   uint16_t* out16, size_t out16_stride, float* outf,
                                   size_t outf_stride, void* stream) {
  const size_t smem = 2 * (size_t)p->width * sizeof(uint32_t);
  vf_hsgm_select_kernel<<<p->height, kThreads, smem, (cudaStream_t)stream>>>(
      *p, range, offset, volumes, plane, out16, out16_stride, outf, outf_stride);
  return VF_CUDA_LAUNCH_STATUS();
}

// SPDX-License-Identifier: BSD-3-Clause
// CUDA disparity selection, one block per image row, everything after aggregation in one pass:
// each G-lane group takes pixels of the row, adds the paths' byte costs (in 16-bit pairs),
// picks the winner (smallest cost, then smallest index), checks uniqueness, fits the sub-pixel
// V (vf_sgm_subpixel16), and folds every cost into the row's right-image winners in shared memory
// (atomic minimum of packed cost and index); then the left-right check and the output. Rules as in
// src/stereo/cpu/vf_sgm_select_cpu.c and src/stereo/kernels/vf_sgm_rules.h.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "stereo/kernels/vf_sgm_cuda.h"
#include "vf_sgm_common.cuh"
#include "vf_sgm_warp.cuh"

namespace {

constexpr int kThreads = 256;
constexpr uint32_t kNone = vf_sgm::kNoWinner;

// The sum of slot s (= 4m + b) from the 16-bit pair sums lo (bytes 0, 2) and hi (1, 3).
template <int WB>
__device__ __forceinline__ uint32_t slot_sum(const uint32_t (&lo)[WB], const uint32_t (&hi)[WB],
                                             int s) {
  const uint32_t v = (s & 1) ? hi[s >> 2] : lo[s >> 2];
  return (s & 2) ? v >> 16 : v & 0xffffu;
}

// The sum at disparity index k (0 <= k < D) of this group, read from the owning lane.
template <int G, int WB>
__device__ __forceinline__ uint32_t sum_at(const uint32_t (&lo)[WB], const uint32_t (&hi)[WB],
                                           int k) {
  const int slot = k / G;
  uint32_t v = 0;
#pragma unroll
  for (int s = 0; s < 4 * WB; ++s) v = s == slot ? slot_sum<WB>(lo, hi, s) : v;
  return __shfl_sync(vf_sgm::kFull, v, k % G, G);
}

// The paths' cost words of one pixel (slots 4m..4m+3 of word m), loaded a round ahead.
template <int PATHS, int WB>
struct cell_words {
  uint32_t w[PATHS][WB];
};

template <int G, int PATHS, int WB>
__device__ __forceinline__ void load_cell(const uint32_t* __restrict__ cell, size_t plane,
                                          cell_words<PATHS, WB>& c) {
#pragma unroll
  for (int v = 0; v < PATHS; ++v) {
#pragma unroll
    for (int m = 0; m < WB; ++m) c.w[v][m] = __ldg(cell + v * plane + m * G);
  }
}

// Selection for pixel x (every lane of the warp calls it; `inside` false for padding groups).
template <int G, int SLOTS, int PATHS>
__device__ __forceinline__ void select_pixel(const vf_sgm_params& p,
                                             const cell_words<PATHS, SLOTS / 4>& cw, int x,
                                             bool inside, int lane, uint32_t* right,
                                             uint32_t* best_left) {
  constexpr int D = G * SLOTS, WB = SLOTS / 4;
  uint32_t lo[WB], hi[WB];
#pragma unroll
  for (int m = 0; m < WB; ++m) {
    lo[m] = hi[m] = 0;
#pragma unroll
    for (int v = 0; v < PATHS; ++v) {
      lo[m] += cw.w[v][m] & 0x00ff00ffu;
      hi[m] += (cw.w[v][m] >> 8) & 0x00ff00ffu;
    }
  }
  uint32_t best = kNone;
#pragma unroll
  for (int s = 0; s < SLOTS; ++s) {
    best = min(best, vf_sgm_pack(slot_sum<WB>(lo, hi, s), (uint32_t)(lane + G * s)));
  }
  best = vf_sgm::group_min<G>(best);
  const int kb = (int)(best & 0xffu);
  const uint32_t s1 = best >> 8;
  uint32_t second = kNone;
#pragma unroll
  for (int s = 0; s < SLOTS; ++s) {
    const int k = lane + G * s;
    if (k < kb - 1 || k > kb + 1) second = min(second, slot_sum<WB>(lo, hi, s));
  }
  second = vf_sgm::group_min<G>(second);
  const uint32_t sa = sum_at<G, WB>(lo, hi, kb > 0 ? kb - 1 : kb);
  const uint32_t sc = sum_at<G, WB>(lo, hi, kb < D - 1 ? kb + 1 : kb);
  if (!inside) return;
  if (lane == 0)
    best_left[x] = vf_sgm::winner_word(p, x, kb, s1, second, kb > 0 && kb < D - 1, sa, sc);
  if (p.lr_check) {
#pragma unroll
    for (int s = 0; s < SLOTS; ++s) {
      const int k = lane + G * s;
      const int xr = x - p.min_disparity - k;
      if (xr >= 0) atomicMin(&right[xr], vf_sgm_pack(slot_sum<WB>(lo, hi, s), (uint32_t)k));
    }
  }
}

template <int G, int SLOTS, int PATHS>
__global__ void __launch_bounds__(kThreads)
    vf_select_kernel(vf_sgm_params p, const uint8_t* __restrict__ volumes, uint16_t* out16,
                     size_t out16_stride, float* outf, size_t outf_stride) {
  constexpr int D = G * SLOTS, WB = SLOTS / 4, GROUPS = kThreads / G;
  extern __shared__ uint32_t s_mem[];
  const int w = p.width, y = blockIdx.x;
  uint32_t* right = s_mem;
  uint32_t* best_left = s_mem + w;
  for (int i = threadIdx.x; i < w; i += kThreads) right[i] = kNone;
  __syncthreads();
  const int lane = threadIdx.x % G, group = threadIdx.x / G;
  const size_t plane = (size_t)w * p.height * D / 4;  // one path's costs, in words
  const uint32_t* row = reinterpret_cast<const uint32_t*>(volumes) + (size_t)y * w * D / 4 + lane;
  // Every group runs the same rounds (padding groups shadow the last pixel) so that shuffles
  // see full warps; the next round's words load while this round's are reduced.
  const int rounds = (w + GROUPS - 1) / GROUPS;
  cell_words<PATHS, WB> a, b;
  load_cell<G, PATHS, WB>(row + (size_t)min(group, w - 1) * (D / 4), plane, a);
  for (int r = 0; r < rounds; r += 2) {
    const int xa = r * GROUPS + group, xb = xa + GROUPS;
    const bool has_b = r + 1 < rounds;
    if (has_b) load_cell<G, PATHS, WB>(row + (size_t)min(xb, w - 1) * (D / 4), plane, b);
    select_pixel<G, SLOTS, PATHS>(p, a, xa, xa < w, lane, right, best_left);
    if (!has_b) break;
    if (r + 2 < rounds) {
      load_cell<G, PATHS, WB>(row + (size_t)min(xb + GROUPS, w - 1) * (D / 4), plane, a);
    }
    select_pixel<G, SLOTS, PATHS>(p, b, xb, xb < w, lane, right, best_left);
  }
  __syncthreads();
  vf_sgm::write_row(p, y, right, best_left, out16, out16_stride, outf, outf_stride);
}

// The launch below, one fault-injection site for all its instantiations.
VF_CUDA_SITE(vf_launch_site);

template <int G, int SLOTS>
int vf_launch(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, uint16_t* out16,
              size_t out16_stride, float* outf, size_t outf_stride, cudaStream_t stream) {
  const size_t smem = 2 * (size_t)p->width * sizeof(uint32_t);
  const dim3 grid(p->height), block(kThreads);
  if (p->paths == 2) {
    vf_select_kernel<G, SLOTS, 2>
        <<<grid, block, smem, stream>>>(*p, b->volumes, out16, out16_stride, outf, outf_stride);
  } else if (p->paths == 4) {
    vf_select_kernel<G, SLOTS, 4>
        <<<grid, block, smem, stream>>>(*p, b->volumes, out16, out16_stride, outf, outf_stride);
  } else if (p->paths == 8) {
    vf_select_kernel<G, SLOTS, 8>
        <<<grid, block, smem, stream>>>(*p, b->volumes, out16, out16_stride, outf, outf_stride);
  } else {
    vf_select_kernel<G, SLOTS, 16>
        <<<grid, block, smem, stream>>>(*p, b->volumes, out16, out16_stride, outf, outf_stride);
  }
  return VF_CUDA_LAUNCH_STATUS_AT(vf_launch_site);
}

}  // namespace
extern "C" int vf_cuda_sgm_select(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b,
                                  uint16_t* out16, size_t out16_stride, float* outf,
                                  size_t outf_stride, void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  if (p->disparities == 64)
    return vf_cuda_sgm_select_pixel(p, b, out16, out16_stride, outf, outf_stride, stream);
  if (p->disparities == 128 && p->paths <= 4 && vf_cuda_sgm_select_pixel128_fits(p))
    return vf_cuda_sgm_select_pixel128(p, b, out16, out16_stride, outf, outf_stride, stream);
  if (p->disparities == 128)
    return vf_launch<32, 4>(p, b, out16, out16_stride, outf, outf_stride, s);
  return vf_launch<32, 8>(p, b, out16, out16_stride, outf, outf_stride, s);
}

// SPDX-License-Identifier: BSD-3-Clause
// Sparse stereo: the right-image match of points of a rectified pair, one warp per point. The
// control flow is the CPU reference's own (vf_match_point_whole,
// src/features/kernels/vf_stereo_match_point.h); its whole-pixel searches run here on the warp,
// lane l taking disparities lo + l, lo + l + 32, ..., the best, its neighbours and the second
// best gathered by shuffles into every lane. Costs are integers, so the result, the correlation
// and the corner spread equal the CPU's bit for bit; the sub-pixel step is the refinement's warp
// code (vf_refine_warp.cuh), within its tolerance of the CPU's.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "features/kernels/vf_stereo_match_cuda.h"
#include "features/kernels/vf_stereo_match_rules.h"
#include "vf_refine_warp.cuh"

namespace {

__device__ __forceinline__ int32_t vf_warp_min_i32(int32_t v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ __forceinline__ uint64_t vf_warp_min_u64(uint64_t v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const uint64_t u = __shfl_xor_sync(0xffffffffu, v, o);
    v = u < v ? u : v;
  }
  return v;
}

// vf_match_run on a warp: the same disparities, costs and choices (the smallest cost, the
// smallest disparity on ties), every lane ending with the same result.
__device__ vf_match_search vf_match_run_warp(const uint8_t* f, size_t fs, const uint8_t* m,
                                             size_t ms, int width, int xf, int y, int sign, int lo,
                                             int hi, const vf_match_rect* w, int lane) {
  vf_match_search s = vf_match_begin(width, xf, sign, lo, hi, w);
  lo = s.lo;
  hi = s.hi;
  if (lo > hi) return s;
  const int32_t sf = vf_match_sum(f, fs, xf, y, w);
  // Pass 1: the best (cost, then disparity) as one 64-bit key.
  uint64_t best = ~0ull;
  for (int d = lo + lane; d <= hi; d += 32) {
    const int32_t c = vf_match_zsad(f, fs, xf, m, ms, xf - sign * d, y, w, sf);
    const uint64_t key = ((uint64_t)(uint32_t)c << 32) | (uint32_t)(d - lo);
    best = key < best ? key : best;
  }
  best = vf_warp_min_u64(best);
  s.d = lo + (int)(uint32_t)best;
  s.cost = (int32_t)(best >> 32);
  // Pass 2: the neighbours and the second (a local minimum more than a pixel away), costs
  // recomputed (a lane keeps none: the range may be 1024 wide), 32 consecutive disparities a
  // round; a lane's neighbours come from the lanes beside it, the round's ends compute theirs.
  const int32_t kNone = 0x7fffffff;
  int32_t second = kNone, cm = kNone, cp = kNone;
  for (int base = lo; base <= hi; base += 32) {
    const int d = base + lane;
    const bool valid = d <= hi;
    const int32_t c = valid ? vf_match_zsad(f, fs, xf, m, ms, xf - sign * d, y, w, sf) : -1;
    int32_t left = __shfl_up_sync(0xffffffffu, c, 1);
    int32_t right = __shfl_down_sync(0xffffffffu, c, 1);
    if (lane == 0)
      left = d > lo ? vf_match_zsad(f, fs, xf, m, ms, xf - sign * (d - 1), y, w, sf) : -1;
    if (lane == 31 || d + 1 > hi)
      right = valid && d < hi ? vf_match_zsad(f, fs, xf, m, ms, xf - sign * (d + 1), y, w, sf) : -1;
    if (!valid) continue;
    if (d == s.d - 1) cm = c;
    if (d == s.d + 1) cp = c;
    if (vf_match_second_candidate(d, s.d, c, left, right)) second = min(second, c);
  }
  second = vf_warp_min_i32(second);
  cm = vf_warp_min_i32(cm);
  cp = vf_warp_min_i32(cp);
  s.second = second == kNone ? -1 : second;
  s.cm = cm == kNone ? -1 : cm;
  s.cp = cp == kNone ? -1 : cp;
  return s;
}

}  // namespace

#define VF_MATCH_RUN(f, fs, m, ms, width, xf, y, sign, lo, hi, w, lane) \
  vf_match_run_warp(f, fs, m, ms, width, xf, y, sign, lo, hi, w, lane)
#define VF_MATCH_FN static __device__ __forceinline__
#include "features/kernels/vf_stereo_match_point.h"

namespace {

using namespace vf_refine_warp_ns;

constexpr int kPointsPerBlock = 4;

__global__ void __launch_bounds__(32 * kPointsPerBlock)
    vf_match_kernel(const uint8_t* __restrict__ left, size_t left_stride,
                    const uint8_t* __restrict__ right, size_t right_stride, int width, int height,
                    const float2* __restrict__ xy, const float* __restrict__ prior, int count,
                    vf_stereo_match_config config, vf_stereo_match* __restrict__ out) {
  __shared__ vf_refine_smem sm[kPointsPerBlock];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int i = blockIdx.x * kPointsPerBlock + warp;
  if (i >= count) return;  // the whole warp
  const float2 p = xy[i];
  const float pr = prior != nullptr ? prior[i] : NAN;
  vf_stereo_match res;
  float start;
  vf_match_point_whole(left, left_stride, right, right_stride, width, height, p.x, p.y, pr, &config,
                       &res, &start, lane);
  if (res.result == VF_STEREO_MATCH_OK) {
    const float d = vf_refine_warp(left, left_stride, right, right_stride, width, height, p.x, p.y,
                                   start, config.refine, sm[warp], lane);
    vf_match_point_finish(d, &res);
  }
  if (lane == 0) out[i] = res;
}

}  // namespace

extern "C" int vf_cuda_match_stereo(const uint8_t* left, size_t left_stride, const uint8_t* right,
                                    size_t right_stride, int width, int height, const float* xy,
                                    const float* prior, int count,
                                    const vf_stereo_match_config* config, vf_stereo_match* out,
                                    void* stream) {
  if (count <= 0) return 0;
  const int blocks = (count + kPointsPerBlock - 1) / kPointsPerBlock;
  vf_match_kernel<<<blocks, 32 * kPointsPerBlock, 0, (cudaStream_t)stream>>>(
      left, left_stride, right, right_stride, width, height, (const float2*)xy, prior, count,
      *config, out);
  return VF_CUDA_LAUNCH_STATUS();
}

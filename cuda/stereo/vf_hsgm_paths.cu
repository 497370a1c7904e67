// SPDX-License-Identifier: BSD-3-Clause
// CUDA aggregation of hierarchical SGM over per-pixel disparity ranges, every path in one launch
// (block ranges select the direction, longest walks first). One warp per walk of
// src/stereo/kernels/vf_sgm_rules.h; at each pixel the lanes take the disparities of its range, 32
// at a time, computing the census cost on the fly and the step vf_hsgm_step of
// src/stereo/kernels/vf_hsgm_rules.h from the previous pixel's costs, which the warp keeps in
// shared memory indexed by disparity (the ranges of neighbours differ, so they do not line up in
// registers). The warp loads the range, offset and census word of 32 steps at once (one per lane)
// and hands them round with shuffles; the right census of the next step is loaded while this one is
// aggregated. Each pixel's costs go to its cells of the path's dynamic cube. ZNCC + SGM reads its
// matching costs from the ZNCC cost volume instead (SRC below). Equal to
// src/stereo/cpu/vf_hsgm_paths_cpu.c.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "stereo/kernels/vf_hsgm_cuda.h"
#include "vf_sgm_common.cuh"
#include "vf_sgm_warp.cuh"

namespace {

constexpr int kWarps = 4;

// The matching cost: census words of 32 or 64 bits, or ZNCC cost codes.
enum cost_source { kCensusCs = 0, kCensusFull = 1, kZncc = 2 };

// What one step needs, as lane t of a batch loaded it.
template <typename CT>
struct step_meta {
  int x, y;
  uint32_t range, offset;
  CT census;
  int p2;
};

template <typename CT>
__device__ __forceinline__ step_meta<CT> meta_of(const step_meta<CT>& m, int from) {
  step_meta<CT> r;
  r.x = __shfl_sync(vf_sgm::kFull, m.x, from);
  r.y = __shfl_sync(vf_sgm::kFull, m.y, from);
  r.range = __shfl_sync(vf_sgm::kFull, m.range, from);
  r.offset = __shfl_sync(vf_sgm::kFull, m.offset, from);
  r.census = __shfl_sync(vf_sgm::kFull, m.census, from);
  r.p2 = __shfl_sync(vf_sgm::kFull, m.p2, from);
  return r;
}

struct walk_ctx {
  vf_sgm_params p;
  int dx, dy;
  const uint8_t* left;
  size_t left_stride;
  const uint16_t* zncc;
};

// This lane's source of the matching cost for the first 32 disparities of step m's range: the
// right census word, or the ZNCC code.
template <int SRC, typename CT>
__device__ __forceinline__ CT first_right(const walk_ctx& c, const CT* __restrict__ cr,
                                          const step_meta<CT>& m, int lane) {
  if (m.y < 0 || m.y >= c.p.height || lane >= vf_hsgm_range_n(m.range)) return 0;
  const int k = vf_hsgm_range_lo(m.range) + lane;
  if (SRC == kZncc) {
    return __ldg(c.zncc + ((size_t)m.y * c.p.width + m.x) * c.p.disparities + k);
  }
  const int xr = m.x - c.p.min_disparity - k;
  return xr >= 0 ? __ldg(cr + (size_t)m.y * c.p.width + xr) : (CT)0;
}

// The matching cost at disparity index k of pixel m; `first`: what first_right loaded for it.
template <int SRC, typename CT>
__device__ __forceinline__ int matching_cost(const walk_ctx& c, const CT* __restrict__ rrow,
                                             const step_meta<CT>& m, int k, bool use_first,
                                             CT first) {
  if (SRC == kZncc) {
    const uint32_t code =
        use_first ? (uint32_t)first
                  : __ldg(c.zncc + ((size_t)m.y * c.p.width + m.x) * c.p.disparities + k);
    return vf_zncc_sgm_cost(code);
  }
  const int xr = m.x - c.p.min_disparity - k;
  if (xr < 0) return c.p.max_cost;
  return (int)vf_sgm::popc(m.census ^ (use_first ? first : __ldg(rrow + xr)));
}

template <int SRC>
__global__ void __launch_bounds__(kWarps * 32) vf_hsgm_paths_kernel(
    vf_sgm_params p, vf_sgm::walk_table t,
    const typename vf_sgm::census_word<SRC == kCensusFull>::type* __restrict__ cl,
    const typename vf_sgm::census_word<SRC == kCensusFull>::type* __restrict__ cr,
    const uint16_t* __restrict__ zncc, const uint8_t* __restrict__ left, size_t left_stride,
    const uint32_t* __restrict__ range, const uint32_t* __restrict__ offset, uint8_t* volumes,
    size_t plane) {
  typedef typename vf_sgm::census_word<SRC == kCensusFull>::type CT;
  __shared__ uint8_t s_costs[kWarps][2][256];
  const int i = vf_sgm::walk_entry(t);
  walk_ctx c;
  c.p = p;
  c.left = left;
  c.left_stride = left_stride;
  c.zncc = zncc;
  vf_sgm_direction(t.path[i], &c.dx, &c.dy);
  const int w = p.width, h = p.height;
  int walks, steps;
  vf_sgm_walks(c.dx, c.dy, w, h, &walks, &steps);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int walk = (blockIdx.x - t.first_block[i]) * kWarps + warp;
  if (walk >= walks) return;  // the whole warp
  int x0, y0;
  vf_sgm_walk_start(c.dx, c.dy, w, h, walk, &x0, &y0);
  uint8_t* vol = volumes + (size_t)t.path[i] * plane;
  uint8_t* prev = s_costs[warp][0];
  uint8_t* cur = s_costs[warp][1];
  const size_t row_cells = (size_t)w * p.disparities;
  int plo = 0, pn = 0;
  uint32_t pmin = 0;
  for (int t0 = 0; t0 < steps; t0 += 32) {
    step_meta<CT> mine;
    vf_sgm_walk_at(c.dx, c.dy, w, x0, y0, t0 + lane, &mine.x, &mine.y);
    mine.range = mine.offset = 0;
    mine.census = 0;
    mine.p2 = p.p2;
    if (t0 + lane < steps && mine.y >= 0 && mine.y < h) {
      const size_t at = (size_t)mine.y * w + mine.x;
      mine.range = __ldg(range + at);
      mine.offset = __ldg(offset + at);
      if (SRC != kZncc) mine.census = __ldg(cl + at);
      if (p.adaptive_p2 && !vf_sgm_path_start(c.dx, c.dy, w, h, mine.x, mine.y)) {
        mine.p2 = vf_sgm_p2(p.p1, p.p2, 1, __ldg(left + (size_t)mine.y * left_stride + mine.x),
                            __ldg(left + (size_t)(mine.y - c.dy) * left_stride + mine.x - c.dx));
      }
    }
    const int count = min(32, steps - t0);
    step_meta<CT> m = meta_of(mine, 0);
    CT r0 = first_right<SRC>(c, cr, m, lane);
    for (int j = 0; j < count; ++j) {
      if (m.y < 0 || m.y >= h) return;  // past the end of a shorter walk: the whole warp
      step_meta<CT> next = m;
      CT r0_next = 0;
      if (j + 1 < count) {
        next = meta_of(mine, j + 1);
        r0_next = first_right<SRC>(c, cr, next, lane);
      }
      const bool start = vf_sgm_path_start(c.dx, c.dy, w, h, m.x, m.y);
      const int lo = vf_hsgm_range_lo(m.range), n = vf_hsgm_range_n(m.range);
      uint8_t* out = vol + (size_t)m.y * row_cells + m.offset;
      const CT* rrow = cr + (size_t)m.y * w;
      uint32_t local = 0xffffffffu;
      for (int q0 = 0; q0 < n; q0 += 32) {
        const int q = q0 + lane, k = lo + q;
        if (q < n) {
          const int cost = matching_cost<SRC>(c, rrow, m, k, q0 == 0, r0);
          const int v = start ? cost : vf_hsgm_step(cost, k, prev, plo, pn, (int)pmin, p.p1, m.p2);
          cur[k] = (uint8_t)v;
          out[q] = (uint8_t)v;
          local = min(local, (uint32_t)v);
        }
      }
      pmin = vf_sgm::group_min<32>(local);
      __syncwarp();
      uint8_t* tmp = prev;
      prev = cur;
      cur = tmp;
      plo = lo;
      pn = n;
      m = next;
      r0 = r0_next;
    }
  }
}

// The launch below, one fault-injection site for all its instantiations.
VF_CUDA_SITE(vf_launch_site);

template <int SRC>
int vf_launch(const vf_sgm_params* p, const void* census_l, const void* census_r,
              const uint16_t* zncc, const uint8_t* left, size_t left_stride, const uint32_t* range,
              const uint32_t* offset, uint8_t* volumes, size_t plane, cudaStream_t stream) {
  typedef typename vf_sgm::census_word<SRC == kCensusFull>::type CT;
  vf_sgm::walk_table t;
  const int blocks = vf_sgm::make_walk_table(p, kWarps, &t);
  vf_hsgm_paths_kernel<SRC>
      <<<blocks, kWarps * 32, 0, stream>>>(*p, t, (const CT*)census_l, (const CT*)census_r, zncc,
                                           left, left_stride, range, offset, volumes, plane);
  return VF_CUDA_LAUNCH_STATUS_AT(vf_launch_site);
}

}  // namespace

extern "C" int vf_cuda_hsgm_paths(const vf_sgm_params* p, const void* census_l,
                                  const void* census_r, const uint16_t* zncc, const uint8_t* left,
                                  size_t left_stride, const uint32_t* range, const uint32_t* offset,
                                  uint8_t* volumes, size_t plane, void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  if (zncc != NULL) {
    return vf_launch<kZncc>(p, census_l, census_r, zncc, left, left_stride, range, offset, volumes,
                            plane, s);
  }
  if (p->census_full) {
    return vf_launch<kCensusFull>(p, census_l, census_r, zncc, left, left_stride, range, offset,
                                  volumes, plane, s);
  }
  return vf_launch<kCensusCs>(p, census_l, census_r, zncc, left, left_stride, range, offset,
                              volumes, plane, s);
}

// SPDX-License-Identifier: BSD-3-Clause
// Sparse stereo: the right-image match of points of a rectified pair, one warp per point. The
// control flow is the CPU reference's own (vf_match_point_whole,
// src/features/kernels/vf_stereo_match_point.h); its whole-pixel searches, correlations and
// texture tests run here on the warp with every lane busy: a search gives each disparity a
// group of lanes (a power of two, so many that the disparities of a prior's window or a cell
// fill the warp in one round), each lane a share of the window's rows, and keeps the costs in
// shared memory so that the best's neighbours and the second best are read, not recomputed; a
// search over more disparities than half a warp (the whole range) gives each lane a disparity
// and reads the window's zero-mean terms from shared memory (vf_match_run_lanes).
// Costs are integer sums, whose order does not matter, so the result, the correlation and the
// depth step equal the CPU's bit for bit; the sub-pixel step is the refinement's warp code
// (vf_refine_warp.cuh), within its tolerance of the CPU's.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "features/kernels/vf_stereo_match_cuda.h"
#include "features/kernels/vf_stereo_match_rules.h"
#include "vf_refine_warp.cuh"

namespace {

constexpr int kPointsPerBlock = 4;
constexpr unsigned kAll = 0xffffffffu;

// The warp's share of the whole-pixel searches' costs: max_disparity - min_disparity + 1 a point
// (every search lies within that range), in dynamic shared memory that vf_cuda_match_stereo sizes
// rather than for the widest range the API allows (1025 a point, 16 KB a block, which on a TX2's
// 64 KB a multiprocessor left room for one block instead of two).
__device__ __forceinline__ int32_t* vf_warp_costs() {
  extern __shared__ int32_t vf_match_costs[];
  unsigned bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return vf_match_costs + (threadIdx.x / 32) * (bytes / (sizeof(int32_t) * kPointsPerBlock));
}

__device__ __forceinline__ int32_t vf_warp_min_i32(int32_t v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(kAll, v, o));
  return v;
}

__device__ __forceinline__ uint64_t vf_warp_min_u64(uint64_t v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const uint64_t u = __shfl_xor_sync(kAll, v, o);
    v = u < v ? u : v;
  }
  return v;
}

// The sum over each aligned group of `group` lanes (a power of two), in every lane of it.
__device__ __forceinline__ int32_t vf_group_sum(int32_t v, int group) {
  for (int o = 1; o < group; o <<= 1) v += __shfl_xor_sync(kAll, v, o);
  return v;
}

// Lane l takes pixels l, l + 32, ... of a square window of radius r (row-major), at (i, j) from
// its centre, stepped without a division a pixel (one a window: sides are at most 15). Every
// sum of the rules fits 32 bits here (at most 15 x 15 pixels of 255^2).
struct vf_lane_walk {
  int i, j;    // the lane's pixel, from the centre
  int di, dj;  // 32 pixels on: columns and rows
  int side, r;
};

__device__ __forceinline__ vf_lane_walk vf_lane_walk_start(int lane, int r) {
  vf_lane_walk w;
  w.side = 2 * r + 1;
  w.r = r;
  w.dj = 32 / w.side;
  w.di = 32 - w.dj * w.side;
  w.j = lane / w.side;
  w.i = lane - w.j * w.side - r;
  w.j -= r;
  return w;
}

__device__ __forceinline__ void vf_lane_walk_next(vf_lane_walk* w) {
  w->i += w->di;
  w->j += w->dj;
  if (w->i > w->r) {
    w->i -= w->side;
    ++w->j;
  }
}

// vf_match_zncc's sums over the warp (the windows are squares of radius w->x1 here), then its
// double arithmetic: the same bits.
__device__ float vf_match_zncc_warp(const uint8_t* a, size_t sa, int xa, const uint8_t* b,
                                    size_t sb, int xb, int y, const vf_match_rect* w, int lane) {
  int32_t s[5] = {0, 0, 0, 0, 0};  // sum a, b, a^2, b^2, ab
  const int r = w->x1;
  vf_lane_walk q = vf_lane_walk_start(lane, r);
  for (int p = lane; p < (2 * r + 1) * (2 * r + 1); p += 32, vf_lane_walk_next(&q)) {
    const int32_t u = a[(size_t)(y + q.j) * sa + (size_t)(xa + q.i)];
    const int32_t v = b[(size_t)(y + q.j) * sb + (size_t)(xb + q.i)];
    s[0] += u;
    s[1] += v;
    s[2] += u * u;
    s[3] += v * v;
    s[4] += u * v;
  }
  vf_warp_sums<5>(s);
  const int32_t s_a = s[0], s_b = s[1], s_aa = s[2], s_bb = s[3], s_ab = s[4];
  const int64_t n = vf_match_rect_size(w);
  const int64_t va = n * s_aa - (int64_t)s_a * s_a, vb = n * s_bb - (int64_t)s_b * s_b;
  if (va <= 0 || vb <= 0) return NAN;
  return (float)((double)(n * s_ab - (int64_t)s_a * s_b) / sqrt((double)va * (double)vb));
}

// A window row's sum, and its zero-mean SAD terms (vf_match_zsad's), with the width known to the
// compiler: the loads of a row issue back to back instead of one a loop trip.
template <int kCols>
__device__ __forceinline__ int32_t vf_row_sum(const uint8_t* p) {
  int32_t s = 0;
#pragma unroll
  for (int i = 0; i < kCols; ++i) s += p[i];
  return s;
}

template <int kCols>
__device__ __forceinline__ int32_t vf_row_zsad(const uint8_t* pf, const uint8_t* pm, int32_t n,
                                               int32_t off) {
  int32_t c = 0;
#pragma unroll
  for (int i = 0; i < kCols; ++i) c += abs(n * ((int32_t)pf[i] - (int32_t)pm[i]) - off);
  return c;
}

// The search's choices from its costs (cost[d - lo], every one written) and the warp's best key
// (cost, then disparity - lo): the best, its neighbours' costs and the second.
__device__ __forceinline__ vf_match_search vf_match_finish_warp(uint64_t best, const int32_t* cost,
                                                                vf_match_search s, int lane) {
  const int lo = s.lo, hi = s.hi;
  best = vf_warp_min_u64(best);
  s.d = lo + (int)(uint32_t)best;
  s.cost = (int32_t)(best >> 32);
  __syncwarp();  // every cost is written
  s.cm = s.d > lo ? cost[s.d - 1 - lo] : -1;
  s.cp = s.d < hi ? cost[s.d + 1 - lo] : -1;
  const int32_t kNone = 0x7fffffff;
  int32_t second = kNone;
  for (int d = lo + lane; d <= hi; d += 32) {
    const int32_t c = cost[d - lo];
    const int32_t left = d > lo ? cost[d - 1 - lo] : -1, right = d < hi ? cost[d + 1 - lo] : -1;
    if (vf_match_second_candidate(d, s.d, c, left, right)) second = min(second, c);
  }
  second = vf_warp_min_i32(second);
  s.second = second == kNone ? -1 : second;
  return s;
}

// A whole-range search (more disparities than lanes: a lane a disparity, all rows) with the
// window's terms rewritten so that a pixel costs a load, a multiply-add and one VABSDIFF: the
// term n (f - m) - (sf - sm) is (n f - sf) - (n m - sm), where n f - sf is the same for every
// disparity (kept in shared memory, read four at a time by every lane at once) and sm, the moving
// window's sum, comes from the round's column sums (each column of the band summed once, not once
// a disparity). The same integer terms as vf_match_zsad, so the same costs bit for bit. kR: the
// window's radius when known to the compiler (the frontend's 7), 0 for any radius.
constexpr int kMaxSide = 2 * VF_STEREO_MATCH_MAX_RADIUS + 1;

template <int kR>
__device__ __forceinline__ uint64_t vf_match_run_lanes(const uint8_t* f, size_t fs,
                                                       const uint8_t* m, size_t ms, int width,
                                                       int xf, int y, int sign, int lo, int hi,
                                                       int radius, int32_t sf, int32_t (*zf)[16],
                                                       int32_t* col, int32_t* cost, int lane) {
  const int r = kR > 0 ? kR : radius, side = 2 * r + 1;
  const int32_t n = side * side;
  vf_lane_walk q = vf_lane_walk_start(lane, r);
  for (int p = lane; p < n; p += 32, vf_lane_walk_next(&q))
    zf[q.j + r][q.i + r] = n * (int32_t)f[(size_t)(y + q.j) * fs + (size_t)(xf + q.i)] - sf;
  uint64_t best = ~0ull;
  for (int base = lo; base <= hi; base += 32) {
    const int d = base + lane;
    // The round's band: the columns under the windows of disparities base .. base + 31.
    const int band = (sign > 0 ? xf - base - 31 : xf + base) - r;
    __syncwarp();  // the previous round's columns are read (the first: zf is written)
    for (int c = lane; c < 32 + 2 * r; c += 32) {
      const int x = band + c;
      int32_t s = 0;
      if (x >= 0 && x < width) {
        const uint8_t* pm = m + (size_t)(y - r) * ms + (size_t)x;
#pragma unroll
        for (int j = 0; j < (kR > 0 ? 2 * kR + 1 : kMaxSide); ++j)
          if (kR > 0 || j < side) s += pm[(size_t)j * ms];
      }
      col[c] = s;
    }
    __syncwarp();
    if (d > hi) continue;
    const int xm = xf - sign * d, c0 = xm - r - band;
    int32_t sm = 0;
#pragma unroll
    for (int i = 0; i < (kR > 0 ? 2 * kR + 1 : kMaxSide); ++i)
      if (kR > 0 || i < side) sm += col[c0 + i];
    unsigned c = 0;
    const uint8_t* pm = m + (size_t)(y - r) * ms + (size_t)(xm - r);
    if (kR > 0) {
      // Three rows a trip, not all fifteen: one warp runs this alone on a multiprocessor, and
      // the unrolled body (about 1000 instructions a copy) was fetched from L2 as it ran (Nsight
      // Compute: 43% of the matcher's stalls waited for instructions).
#pragma unroll 3
      for (int j = 0; j < 2 * kR + 1; ++j) {
        const int4* z = reinterpret_cast<const int4*>(zf[j]);
        const uint8_t* row = pm + (size_t)j * ms;
#pragma unroll
        for (int i4 = 0; i4 < (2 * kR + 4) / 4; ++i4) {
          const int4 a = z[i4];
          const int32_t av[4] = {a.x, a.y, a.z, a.w};
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int i = 4 * i4 + e;
            if (i < 2 * kR + 1) c = __sad(av[e], n * (int32_t)row[i] - sm, c);
          }
        }
      }
    } else {
      for (int j = 0; j < side; ++j) {
        const uint8_t* row = pm + (size_t)j * ms;
        for (int i = 0; i < side; ++i) c = __sad(zf[j][i], n * (int32_t)row[i] - sm, c);
      }
    }
    cost[d - lo] = (int32_t)c;
    const uint64_t key = ((uint64_t)c << 32) | (uint32_t)(d - lo);
    best = key < best ? key : best;
  }
  return best;
}

// vf_match_run on a warp: the same disparities, costs and choices (the smallest cost, the
// smallest disparity on ties), every lane ending with the same result. Not inlined: a point's
// searches (the prior's window or the whole range, then the left-right check) share one copy
// of the code, which the second finds in the instruction cache.
__device__ __noinline__ vf_match_search vf_match_run_warp(const uint8_t* f, size_t fs,
                                                          const uint8_t* m, size_t ms, int width,
                                                          int xf, int y, int sign, int lo, int hi,
                                                          const vf_match_rect* w, int lane) {
  int32_t* cost = vf_warp_costs();
  vf_match_search s = vf_match_begin(width, xf, sign, lo, hi, w);
  lo = s.lo;
  hi = s.hi;
  if (lo > hi) return s;
  const int count = hi - lo + 1, rows = w->y1 - w->y0 + 1;
  const int32_t n = vf_match_rect_size(w);
  int32_t sf = 0;
  vf_lane_walk q = vf_lane_walk_start(lane, w->x1);  // the windows are squares
  for (int p = lane; p < n; p += 32, vf_lane_walk_next(&q))
    sf += f[(size_t)(y + q.j) * fs + (size_t)(xf + q.i)];
  vf_warp_sums<1>(&sf);
  int group = 1;
  while (group * 2 * count <= 32 && group * 2 <= rows) group *= 2;
  // More disparities than half a warp (the whole range): a lane a disparity, every row.
  const bool square = w->x0 == -w->x1 && w->y0 == -w->x1 && w->y1 == w->x1;
  if (group == 1 && square) {
    __shared__ __align__(16) int32_t zero_mean[kPointsPerBlock][kMaxSide][16];
    __shared__ int32_t columns[kPointsPerBlock][32 + 2 * VF_STEREO_MATCH_MAX_RADIUS];
    int32_t(*zf)[16] = zero_mean[threadIdx.x / 32];
    int32_t* col = columns[threadIdx.x / 32];
    __syncwarp();  // the previous search's costs, window terms and columns are read
    const uint64_t best = w->x1 == 7 ? vf_match_run_lanes<7>(f, fs, m, ms, width, xf, y, sign, lo,
                                                             hi, 7, sf, zf, col, cost, lane)
                                     : vf_match_run_lanes<0>(f, fs, m, ms, width, xf, y, sign, lo,
                                                             hi, w->x1, sf, zf, col, cost, lane);
    return vf_match_finish_warp(best, cost, s, lane);
  }
  const int per_round = 32 / group, g = lane & (group - 1);
  // The frontend's windows are 15 wide (search radius 7): their rows unrolled.
  const bool wide15 = w->x1 - w->x0 == 14;
  __syncwarp();  // the previous search's costs are read
  uint64_t best = ~0ull;
  for (int base = lo; base <= hi; base += per_round) {
    const int d = base + lane / group;
    const bool valid = d <= hi;
    const int xm = xf - sign * d;
    int32_t sm = 0;
    if (valid)
      for (int j = w->y0 + g; j <= w->y1; j += group) {
        const uint8_t* pm = m + (size_t)(y + j) * ms + xm;
        if (wide15) {
          sm += vf_row_sum<15>(pm + w->x0);
        } else {
          for (int i = w->x0; i <= w->x1; ++i) sm += pm[i];
        }
      }
    const int32_t off = sf - vf_group_sum(sm, group);
    int32_t c = 0;
    if (valid)
      for (int j = w->y0 + g; j <= w->y1; j += group) {
        const uint8_t* pf = f + (size_t)(y + j) * fs + xf;
        const uint8_t* pm = m + (size_t)(y + j) * ms + xm;
        if (wide15) {
          c += vf_row_zsad<15>(pf + w->x0, pm + w->x0, n, off);
        } else {
          for (int i = w->x0; i <= w->x1; ++i)
            c += abs(n * ((int32_t)pf[i] - (int32_t)pm[i]) - off);
        }
      }
    c = vf_group_sum(c, group);
    if (valid) {
      if (g == 0) cost[d - lo] = c;
      const uint64_t key = ((uint64_t)(uint32_t)c << 32) | (uint32_t)(d - lo);
      best = key < best ? key : best;
    }
  }
  return vf_match_finish_warp(best, cost, s, lane);
}

}  // namespace

#define VF_MATCH_RUN(f, fs, m, ms, width, xf, y, sign, lo, hi, w, lane) \
  vf_match_run_warp(f, fs, m, ms, width, xf, y, sign, lo, hi, w, lane)
#define VF_MATCH_ZNCC(a, sa, xa, b, sb, xb, y, w, lane) \
  vf_match_zncc_warp(a, sa, xa, b, sb, xb, y, w, lane)
#define VF_MATCH_CELLS(left, ls, right, rs, width, xi, yi, d, cr, cell, valid, lane) \
  vf_match_cells_warp(left, ls, right, rs, width, xi, yi, d, cr, cell, valid, lane)
namespace {
__device__ void vf_match_cells_warp(const uint8_t* left, size_t ls, const uint8_t* right, size_t rs,
                                    int width, int xi, int yi, int d, int cr, float cell[9],
                                    int valid[9], int lane);
}  // namespace
#define VF_MATCH_FN static __device__ __forceinline__
#include "features/kernels/vf_stereo_match_point.h"

namespace {

// vf_match_cell_cost for the frontend's 7 x 7 cells (radius 3), rows unrolled: the same sums.
__device__ __forceinline__ int32_t vf_cell_cost7(const uint8_t* left, size_t ls,
                                                 const uint8_t* right, size_t rs, int width, int xi,
                                                 int yi, int d, int k, int e) {
  constexpr int kR = 3;
  const int de = d - VF_STEREO_MATCH_STEP_REACH + e;
  int cx, cy;
  const vf_match_search b = vf_match_cell_search(width, xi, yi, d, kR, k, &cx, &cy);
  if (de < b.lo || de > b.hi) return -1;
  const uint8_t* pf = left + (size_t)(cy - kR) * ls + (size_t)(cx - kR);
  const uint8_t* pm = right + (size_t)(cy - kR) * rs + (size_t)(cx - de - kR);
  int32_t sf = 0, sm = 0;
#pragma unroll
  for (int j = 0; j < 2 * kR + 1; ++j) {
    sf += vf_row_sum<2 * kR + 1>(pf + (size_t)j * ls);
    sm += vf_row_sum<2 * kR + 1>(pm + (size_t)j * rs);
  }
  const int32_t n = (2 * kR + 1) * (2 * kR + 1), off = sf - sm;
  int32_t c = 0;
#pragma unroll
  for (int j = 0; j < 2 * kR + 1; ++j)
    c += vf_row_zsad<2 * kR + 1>(pf + (size_t)j * ls, pm + (size_t)j * rs, n, off);
  return c;
}

// The depth step's cells on the warp: lane q takes cell q / span's cost at the cell's q % span-th
// disparity (45 costs for the default reach, 7 x 7 pixels each in the frontend: two rounds),
// lanes 0..8 then pick their cell's disparity from the costs in shared memory, and every lane
// takes the nine. The rules' integer functions on each lane: the CPU's costs and picks, bit for
// bit. Nine warp searches, each with its set-up and reductions, took more instructions.
__device__ void vf_match_cells_warp(const uint8_t* left, size_t ls, const uint8_t* right, size_t rs,
                                    int width, int xi, int yi, int d, int cr, float cell[9],
                                    int valid[9], int lane) {
  constexpr int kSpan = 2 * VF_STEREO_MATCH_STEP_REACH + 1;
  __shared__ int32_t costs[kPointsPerBlock][9 * kSpan];
  int32_t* cost = costs[threadIdx.x / 32];
  __syncwarp();  // a previous point's costs are read
  for (int q = lane; q < 9 * kSpan; q += 32) {
    const int k = q / kSpan;
    cost[q] = cr == 3
                  ? vf_cell_cost7(left, ls, right, rs, width, xi, yi, d, k, q - k * kSpan)
                  : vf_match_cell_cost(left, ls, right, rs, width, xi, yi, d, cr, k, q - k * kSpan);
  }
  __syncwarp();
  float mine = 0.0f;
  int ok = 0;
  if (lane < 9)
    ok = vf_match_cell_pick(left, ls, width, xi, yi, d, cr, lane, cost + lane * kSpan, &mine);
#pragma unroll
  for (int k = 0; k < 9; ++k) {
    cell[k] = __shfl_sync(kAll, mine, k);
    valid[k] = __shfl_sync(kAll, ok, k);
  }
}

using namespace vf_refine_warp_ns;

// The points: plain positions, or the tracker's results, where a track that did not converge
// gets no match (its position means nothing).
__device__ __forceinline__ bool vf_match_at(const float2* xy, int i, float2* p) {
  *p = xy[i];
  return true;
}

__device__ __forceinline__ bool vf_match_at(const vf_track_result* r, int i, float2* p) {
  *p = make_float2(r[i].x, r[i].y);
  return r[i].status == VF_TRACK_CONVERGED;
}

template <typename Point>
__global__ void __launch_bounds__(32 * kPointsPerBlock)
    vf_match_kernel(const uint8_t* __restrict__ left, size_t left_stride,
                    const uint8_t* __restrict__ right, size_t right_stride, int width, int height,
                    const Point* __restrict__ points, const float* __restrict__ prior, int count,
                    vf_stereo_match_config config, vf_stereo_match* __restrict__ out) {
  __shared__ vf_refine_smem sm[kPointsPerBlock];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int i = blockIdx.x * kPointsPerBlock + warp;
  if (i >= count) return;  // the whole warp
  float2 p;
  vf_stereo_match res;
  if (!vf_match_at(points, i, &p)) {
    if (lane == 0) out[i] = vf_stereo_match{NAN, NAN, NAN, VF_STEREO_MATCH_NONE};
    return;
  }
  const float pr = prior != nullptr ? prior[i] : NAN;
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

template <typename Point>
int vf_match_launch(const uint8_t* left, size_t left_stride, const uint8_t* right,
                    size_t right_stride, int width, int height, const Point* points,
                    const float* prior, int count, const vf_stereo_match_config* config,
                    vf_stereo_match* out, void* stream) {
  if (count <= 0) return 0;
  const int blocks = (count + kPointsPerBlock - 1) / kPointsPerBlock;
  // The searches' costs (vf_warp_costs): the configured range a point, within the API's.
  int range = config->max_disparity - config->min_disparity + 1;
  range = range < 1                                   ? 1
          : range > VF_STEREO_MATCH_MAX_DISPARITY + 1 ? VF_STEREO_MATCH_MAX_DISPARITY + 1
                                                      : range;
  const size_t cost_bytes = (size_t)kPointsPerBlock * (size_t)range * sizeof(int32_t);
  vf_match_kernel<Point><<<blocks, 32 * kPointsPerBlock, cost_bytes, (cudaStream_t)stream>>>(
      left, left_stride, right, right_stride, width, height, points, prior, count, *config, out);
  return VF_CUDA_LAUNCH_STATUS();
}

}  // namespace

extern "C" int vf_cuda_match_stereo(const uint8_t* left, size_t left_stride, const uint8_t* right,
                                    size_t right_stride, int width, int height, const float* xy,
                                    const float* prior, int count,
                                    const vf_stereo_match_config* config, vf_stereo_match* out,
                                    void* stream) {
  return vf_match_launch(left, left_stride, right, right_stride, width, height, (const float2*)xy,
                         prior, count, config, out, stream);
}

extern "C" int vf_cuda_match_stereo_tracked(const uint8_t* left, size_t left_stride,
                                            const uint8_t* right, size_t right_stride, int width,
                                            int height, const vf_track_result* tracked,
                                            const float* prior, int count,
                                            const vf_stereo_match_config* config,
                                            vf_stereo_match* out, void* stream) {
  return vf_match_launch(left, left_stride, right, right_stride, width, height, tracked, prior,
                         count, config, out, stream);
}

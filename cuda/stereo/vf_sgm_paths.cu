// SPDX-License-Identifier: BSD-3-Clause
// CUDA aggregation of every path in one launch, so that even the short paths of a small image
// fill the GPU: block ranges select the direction (longest lines first). One G-lane group per
// walk of src/stereo/kernels/vf_sgm_rules.h (vf_sgm_walks); costs computed on the fly from the
// census words (no cost volume), with the census of the next pixel or two loaded while the current
// one is aggregated; L_r stored as bytes per pixel for vf_sgm_select.cu. Diagonal and (2,1) walks
// wrap around the image (one group per column, or two for the steep (1,2) moves): a group restarts
// its path where it re-enters through the side column. 64 disparities have two layouts of a
// walk's disparities over its lanes (vf_cuda_sgm_runs picks one per device and size).
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>

#include "core/vf_cuda_fault.cuh"
#include "core/vf_device_memo.cuh"
#include "stereo/kernels/vf_sgm_cuda.h"
#include "vf_sgm_common.cuh"
#include "vf_sgm_warp.cuh"

namespace {

constexpr int kWarps = 4;

// Pixels whose right pixels are all inside the image (x >= min_disparity + D - 1) skip the
// per-disparity bound tests through a branch (128 and 256 disparities: 1920x1080 with 256 took
// 11% less). Where a group is a whole warp, its loads also branch; narrower groups load without
// a test (the loads' split, taken by some groups of a warp only, made 450x375 with 64 17%
// slower), and runs skip the cost tests when every group of the warp may (aggregate()).
template <int G>
constexpr bool kSplitFull = G == 32;

// The runs' vote (aggregate()) where the vote and the uniform branch cost less than the tests
// they skip: the straight walk's trip of 24 cells counts 305 instructions with it against 343
// without on sm_90, 445 / 482 on sm_87 and 457 / 485 on sm_75 (CUDA 13.0), but 489 / 472 on
// sm_62, the TX2 (CUDA 11.8: the vote's SSY / SYNC and lane reads cost more there), which keeps
// the tests (docs/perf/sass_counts.md).
// VF_SGM_RUNS_VOTE=0 or 1 at build time fixes it on every target (measurements: the count a
// TX2's loop stands for, taken on another GPU).
#if defined(VF_SGM_RUNS_VOTE)
constexpr bool kRunsVote = VF_SGM_RUNS_VOTE != 0;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
constexpr bool kRunsVote = false;
#else
constexpr bool kRunsVote = true;
#endif

// Where a lane's disparities are: interleaved (k = lane + G s, vf_sgm::path_step) or a run of
// SLOTS (k = SLOTS lane + s, vf_sgm::path_step_run; 64 disparities, 8-lane groups). In memory
// both keep a pixel's bytes in the lane's order, so a run stores disparity k in byte k.
template <bool RUN, int G, int SLOTS>
struct layout {
  static constexpr int kSlotStep = RUN ? 1 : G;  // disparity step between a lane's slots
  static __device__ __forceinline__ int first(int lane) { return RUN ? SLOTS * lane : lane; }
};

// Where a group is on its line, and the loads for that pixel. idx = y * w + x: 32-bit offsets
// stepped along the walk keep the address arithmetic off the 64-bit path (measured: it was a
// third of the instructions of a step at 1920x1080 with 256 disparities).
template <int SLOTS, typename CT>
struct pixel {
  int x, y, idx;
  bool start;
  bool inside; /* false past the end of a shorter |dy| = 2 walk (then y is clamped) */
  bool full;   /* every disparity of the group has its right pixel inside the image */
  CT cl;
  CT cr[SLOTS];
  uint32_t i_here, i_prev;
};

struct line_ctx {
  const uint8_t* left;
  int left_stride;
  int w, h, dx, dy, step, min_disparity;
  int full_from;    /* first x whose D right pixels are all inside: min_disparity + D - 1 */
  int shift_stride; /* words between the right census's shifted copies (runs layout) */
  int run_first;    /* runs: min_disparity + the lane's last disparity (idx - run_first = a) */
  uint2 run_edges;  /* runs: vf_sgm::run_edges of the lane */
};

template <bool RUN, bool ADAPTIVE, int G, int SLOTS, typename CT>
__device__ __forceinline__ void load(const line_ctx& lc, const CT* __restrict__ census_l,
                                     const CT* __restrict__ census_r, int lane,
                                     pixel<SLOTS, CT>& p) {
  typedef layout<RUN, G, SLOTS> lay;
  constexpr int S = lay::kSlotStep;
  p.cl = __ldg(census_l + p.idx);
  p.full = p.x >= lc.full_from;
  if (ADAPTIVE && !p.start) {
    p.i_here = __ldg(lc.left + (p.y * lc.left_stride + p.x));
    p.i_prev = __ldg(lc.left + ((p.y - lc.dy) * lc.left_stride + (p.x - lc.dx)));
  }
  if (RUN) {
    // The run's 8 words a .. a + 7 (a = idx - min_disparity - 8 lane - 7) as two aligned 16-byte
    // loads from the copy of the right census shifted by j words (vf_cuda_census_shift): one
    // sector-aligned 32 bytes a lane, 256 contiguous bytes a group, where 8 word loads 8 words
    // apart touched 8 times the sectors. The offset in 32 bits and one wide multiply-add to the
    // address (the 64-bit sum of the copy's and the word's offsets took 12 instructions a pixel on
    // sm_90).
    const int a = p.idx - lc.run_first, j = (-a) & 3;
    const int at = a + j * (lc.shift_stride + 1);
    const uint4* q =
        reinterpret_cast<const uint4*>(reinterpret_cast<const uint32_t*>(census_r) + at);
    const uint4 v0 = __ldg(q), v1 = __ldg(q + 1);
    const uint32_t v[8] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w};
#pragma unroll
    for (int s = 0; s < SLOTS; ++s)
      p.cr[s] = (CT)v[SLOTS - 1 - s];  // word a + 7 - s: disparity + s
    return;
  }
  const int r = p.idx - lc.min_disparity - lay::first(lane);
  if (kSplitFull<G> && !p.full) {
    const int xbase = p.x - lc.min_disparity - lay::first(lane);
#pragma unroll
    for (int s = 0; s < SLOTS; ++s) {
      p.cr[s] = xbase - S * s >= 0 ? __ldg(census_r + (r - S * s)) : (CT)0;
    }
  } else if (!kSplitFull<G>) {
    // Without the split, unconditional: a right pixel left of the image (xr < 0) reads the row
    // above it, or before the first row the left census carved just below census_r (w * h >=
    // D words), and aggregate() replaces its cost by the maximum. One address a pixel, the
    // slots at constant offsets from it: 134-136 us for the 752x480 / 64 / 4 kernel against
    // 140-141 with an address a slot (H100); with whole-warp groups it measured 1-2% slower.
    // A run reaches as far left (8 lane + 7 <= 63) as the interleaved slots (lane + 48).
    const CT* at = census_r + r;
#pragma unroll
    for (int s = 0; s < SLOTS; ++s) p.cr[s] = __ldg(at - S * s);
  } else {
#pragma unroll
    for (int s = 0; s < SLOTS; ++s) p.cr[s] = __ldg(census_r + (r - S * s));
  }
}

// The kinds of walk, each with its own instantiation of the step loop (the direction is the
// same for a whole block): a straight walk (horizontal or vertical) starts its path once and
// never leaves the image; a diagonal or (2,1) walk wraps around the sides, where its path
// restarts; a steep (1,2) walk also wraps and is the only kind whose y can leave the image before
// its last step. The tests a kind does not need sat on the chain from one pixel's address to the
// next one's loads (measured: testing y on every walk made 640x480 with 128 disparities and 4
// paths 12% slower).
enum walk_kind { kStraight, kWrapping, kSteep };

template <int KIND, int SLOTS, typename CT>
__device__ __forceinline__ void advance(const line_ctx& lc, const pixel<SLOTS, CT>& from,
                                        pixel<SLOTS, CT>& to) {
  to.x = from.x + lc.dx;
  to.y = from.y + lc.dy;
  to.idx = from.idx + lc.step;
  to.start = false;
  to.inside = from.inside;
  if (KIND == kStraight) return;
  // A walk leaving through a side re-enters through the other: a new path.
  if (to.x >= lc.w) to.x -= lc.w, to.idx -= lc.w, to.start = true;
  if (to.x < 0) to.x += lc.w, to.idx += lc.w, to.start = true;
  if (KIND == kSteep && (to.y < 0 || to.y >= lc.h)) {
    to.y = to.y < 0 ? 0 : lc.h - 1;
    to.idx = to.y * lc.w + to.x;
    to.start = true;
    to.inside = false;
  }
}

template <int KIND, bool RUN, bool ADAPTIVE, int G, int SLOTS, typename CT>
__device__ __forceinline__ void aggregate(const vf_sgm_params& p, const line_ctx& lc,
                                          const pixel<SLOTS, CT>& px, int lane,
                                          uint32_t (&L)[SLOTS / 2], uint32_t& minx2,
                                          uint32_t* vol) {
  typedef layout<RUN, G, SLOTS> lay;
  constexpr int S = lay::kSlotStep;
  constexpr int W16 = SLOTS / 2;
  constexpr int D = G * SLOTS;
  if (KIND != kStraight && px.start) {  // a straight walk starts from the zeros of walk()
#pragma unroll
    for (int k = 0; k < W16; ++k) L[k] = 0;
    minx2 = 0;
  }
  uint32_t c[W16];
  // A run's groups share the warp, so their pixels skip the tests only when all of them may: one
  // vote a step, a branch every lane takes the same way (runs 752x480 / 64: 41.35 -> 35.67 M warp
  // instructions, 1452 -> 1380 us on an 8-SM partition). The interleaved 16-lane groups keep the
  // tests: with the vote they took 199 us on the whole H200 against 174, where few walks run and
  // a step's latency, not its instructions, sets the time.
  if (kSplitFull<G> ? px.full : RUN && kRunsVote && __all_sync(vf_sgm::kFull, px.full)) {
#pragma unroll
    for (int k = 0; k < W16; ++k) {
      c[k] = __byte_perm(vf_sgm::popc(px.cl ^ px.cr[2 * k]), vf_sgm::popc(px.cl ^ px.cr[2 * k + 1]),
                         0x5410);
    }
  } else {
    const int xbase = px.x - p.min_disparity - lay::first(lane);
#pragma unroll
    for (int k = 0; k < W16; ++k) {
      const uint32_t a =
          xbase - S * (2 * k) >= 0 ? vf_sgm::popc(px.cl ^ px.cr[2 * k]) : (uint32_t)p.max_cost;
      const uint32_t b = xbase - S * (2 * k + 1) >= 0 ? vf_sgm::popc(px.cl ^ px.cr[2 * k + 1])
                                                      : (uint32_t)p.max_cost;
      c[k] = __byte_perm(a, b, 0x5410);
    }
  }
  const uint32_t p2 = ADAPTIVE && !px.start
                          ? (uint32_t)vf_sgm_p2(p.p1, p.p2, 1, (int)px.i_here, (int)px.i_prev)
                          : (uint32_t)p.p2;
  const uint32_t p1x2 = (uint32_t)p.p1 * 0x00010001u, p2x2 = p2 * 0x00010001u;
  if (RUN) {
    minx2 = vf_sgm::path_step_run<G>(reinterpret_cast<uint32_t(&)[4]>(L), minx2,
                                     reinterpret_cast<const uint32_t(&)[4]>(c), p1x2, p2x2,
                                     lc.run_edges.x, lc.run_edges.y);
  } else {
    minx2 = vf_sgm::path_step<G, W16>(L, minx2, c, p1x2, p2x2, lane);
  }
  // Idle groups (past the last line) walk the last line again and store the same bytes there:
  // no test and no branch around the stores (4 instructions a step on sm_90).
  if (KIND != kSteep || px.inside) {
    // vol: this lane's first word of the path's volume; one wide multiply-add to the pixel's.
    if (RUN) {
      // The run's 8 bytes in one 8-byte store (vol is the lane's 8-byte aligned slot).
      reinterpret_cast<uint2*>(vol)[(size_t)(unsigned)px.idx * (D / 8)] =
          make_uint2(vf_sgm::pack_bytes(L[0], L[1]), vf_sgm::pack_bytes(L[2], L[3]));
    } else {
      uint32_t* o = vol + (size_t)(unsigned)px.idx * (D / 4);
#pragma unroll
      for (int m = 0; m < SLOTS / 4; ++m) o[m * G] = vf_sgm::pack_bytes(L[2 * m], L[2 * m + 1]);
    }
  }
}

// One walk of `steps` pixels from a: two pixels per iteration, each loaded while the other is
// aggregated.
template <int KIND, bool RUN, bool ADAPTIVE, int G, int SLOTS, typename CT>
__device__ __forceinline__ void walk_two(const vf_sgm_params& p, const line_ctx& lc,
                                         const CT* __restrict__ census_l,
                                         const CT* __restrict__ census_r, int lane, int steps,
                                         pixel<SLOTS, CT>& a, uint32_t* vol) {
  pixel<SLOTS, CT> b;
  uint32_t L[SLOTS / 2], minx2 = 0;
#pragma unroll
  for (int k = 0; k < SLOTS / 2; ++k) L[k] = 0;
  load<RUN, ADAPTIVE, G, SLOTS, CT>(lc, census_l, census_r, lane, a);
  for (int s = 0; s < steps; s += 2) {
    const bool has_b = s + 1 < steps;
    if (has_b) {
      advance<KIND>(lc, a, b);
      load<RUN, ADAPTIVE, G, SLOTS, CT>(lc, census_l, census_r, lane, b);
    }
    aggregate<KIND, RUN, ADAPTIVE, G, SLOTS, CT>(p, lc, a, lane, L, minx2, vol);
    if (!has_b) break;
    if (s + 2 < steps) {
      advance<KIND>(lc, b, a);
      load<RUN, ADAPTIVE, G, SLOTS, CT>(lc, census_l, census_r, lane, a);
    }
    aggregate<KIND, RUN, ADAPTIVE, G, SLOTS, CT>(p, lc, b, lane, L, minx2, vol);
  }
}

// The same with three pixels in flight, each loaded two steps before it is aggregated: one step
// ahead left the census loads' latency exposed where few walks run at once (752x480 with 64
// disparities and 4 paths: 231 -> 214 us). It costs registers, so it serves up to 4 slots a
// lane; with 8 (256 disparities: 1920x1080, 3840x2160) the lower occupancy lost 2-3%.
template <int KIND, bool RUN, bool ADAPTIVE, int G, int SLOTS, typename CT>
__device__ __forceinline__ void walk_three(const vf_sgm_params& p, const line_ctx& lc,
                                           const CT* __restrict__ census_l,
                                           const CT* __restrict__ census_r, int lane, int steps,
                                           pixel<SLOTS, CT>& a, uint32_t* vol) {
  pixel<SLOTS, CT> b, c;
  uint32_t L[SLOTS / 2], minx2 = 0;
#pragma unroll
  for (int k = 0; k < SLOTS / 2; ++k) L[k] = 0;
  load<RUN, ADAPTIVE, G, SLOTS, CT>(lc, census_l, census_r, lane, a);
  if (steps > 1) {
    advance<KIND>(lc, a, b);
    load<RUN, ADAPTIVE, G, SLOTS, CT>(lc, census_l, census_r, lane, b);
  }
  for (int s = 0; s < steps; s += 3) {
    if (s + 2 < steps) {
      advance<KIND>(lc, b, c);
      load<RUN, ADAPTIVE, G, SLOTS, CT>(lc, census_l, census_r, lane, c);
    }
    aggregate<KIND, RUN, ADAPTIVE, G, SLOTS, CT>(p, lc, a, lane, L, minx2, vol);
    if (s + 1 >= steps) break;
    if (s + 3 < steps) {
      advance<KIND>(lc, c, a);
      load<RUN, ADAPTIVE, G, SLOTS, CT>(lc, census_l, census_r, lane, a);
    }
    aggregate<KIND, RUN, ADAPTIVE, G, SLOTS, CT>(p, lc, b, lane, L, minx2, vol);
    if (s + 2 >= steps) break;
    if (s + 4 < steps) {
      advance<KIND>(lc, a, b);
      load<RUN, ADAPTIVE, G, SLOTS, CT>(lc, census_l, census_r, lane, b);
    }
    aggregate<KIND, RUN, ADAPTIVE, G, SLOTS, CT>(p, lc, c, lane, L, minx2, vol);
  }
}

template <int KIND, bool RUN, bool ADAPTIVE, int G, int SLOTS, typename CT>
__device__ __forceinline__ void walk(const vf_sgm_params& p, const line_ctx& lc,
                                     const CT* __restrict__ census_l,
                                     const CT* __restrict__ census_r, int lane, int steps,
                                     pixel<SLOTS, CT>& a, uint32_t* vol) {
  if (SLOTS <= 4 || RUN) {
    walk_three<KIND, RUN, ADAPTIVE, G, SLOTS, CT>(p, lc, census_l, census_r, lane, steps, a, vol);
  } else {
    walk_two<KIND, RUN, ADAPTIVE, G, SLOTS, CT>(p, lc, census_l, census_r, lane, steps, a, vol);
  }
}

// Blocks a multiprocessor must hold: what the kernels held before the changes that shortened
// their steps (sm_90: interleaved 56 registers, 9 blocks; runs 72, 7; full census and adaptive
// P2 a few more), which the compiler otherwise spent on the three pixels in flight (12 to 20
// registers more each, down to 5 blocks), losing the occupancy that hides a step's latency. No
// kernel spills within these bounds on sm_75, sm_87 or sm_90 (128-disparity runs take one block
// less: at 72 registers sm_87 spilled), and the steps keep their instructions. Before sm_70 (the
// TX2) the compiler's choice stands; VF_SGM_MIN_BLOCKS_OFF at build time drops the bounds
// (measurements).
constexpr int vf_min_blocks(bool run, int g, bool full, bool adaptive) {
#if (defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700) || defined(VF_SGM_MIN_BLOCKS_OFF)
  return (void)run, (void)g, (void)full, (void)adaptive, 1;
#else
  return (run ? (g == 16 ? 6 : 7) : 9) - (adaptive ? 1 : 0) - (full ? 2 : 0);
#endif
}

template <bool RUN, int G, int SLOTS, bool FULL, bool ADAPTIVE>
__global__ void __launch_bounds__(kWarps * 32, vf_min_blocks(RUN, G, FULL, ADAPTIVE))
    vf_paths_kernel(vf_sgm_params p, vf_sgm::walk_table t,
                    const typename vf_sgm::census_word<FULL>::type* __restrict__ census_l,
                    const typename vf_sgm::census_word<FULL>::type* __restrict__ census_r,
                    const uint8_t* __restrict__ left, size_t left_stride, uint8_t* volumes,
                    int shift_stride) {
  typedef typename vf_sgm::census_word<FULL>::type CT;
  constexpr int D = G * SLOTS;
  const int w = p.width, h = p.height;
  const int i = vf_sgm::walk_entry(t);
  line_ctx lc;
  vf_sgm_direction(t.path[i], &lc.dx, &lc.dy);
  lc.left = left;
  lc.left_stride = (int)left_stride;
  lc.w = w;
  lc.h = h;
  lc.step = lc.dy * w + lc.dx;
  lc.min_disparity = p.min_disparity;
  lc.full_from = p.min_disparity + D - 1;
  lc.shift_stride = shift_stride;
  const int lane = threadIdx.x % G;
  lc.run_first = p.min_disparity + SLOTS * lane + SLOTS - 1;
  lc.run_edges = vf_sgm::run_edges<G>(lane);
  uint32_t* vol = reinterpret_cast<uint32_t*>(volumes + (size_t)t.path[i] * w * h * D) +
                  (RUN ? SLOTS / 4 * lane : lane);
  // One 64-bit register pair for the lane's base: the compiler otherwise splits it into the
  // block's base and the lane's offset and rebuilds the address every step (3 instructions more
  // a store on sm_90 in the interleaved layout).
  vol = vf_sgm::opaque(vol);
  const int line = ((blockIdx.x - t.first_block[i]) * kWarps + threadIdx.x / 32) * (32 / G) +
                   (threadIdx.x % 32) / G;
  int lines, steps;  // steps: the same for every group of the block
  vf_sgm_walks(lc.dx, lc.dy, w, h, &lines, &steps);
  const int ln = line < lines ? line : lines - 1;  // idle groups shadow the last line
  pixel<SLOTS, CT> a;
  vf_sgm_walk_start(lc.dx, lc.dy, w, h, ln, &a.x, &a.y);
  a.idx = a.y * w + a.x;
  a.start = true;
  a.inside = true;
  // The direction is the same for the whole block: one branch, taken by every thread.
  if (lc.dy == 2 || lc.dy == -2) {
    walk<kSteep, RUN, ADAPTIVE, G, SLOTS, CT>(p, lc, census_l, census_r, lane, steps, a, vol);
  } else if (lc.dx != 0 && lc.dy != 0) {
    walk<kWrapping, RUN, ADAPTIVE, G, SLOTS, CT>(p, lc, census_l, census_r, lane, steps, a, vol);
  } else {
    walk<kStraight, RUN, ADAPTIVE, G, SLOTS, CT>(p, lc, census_l, census_r, lane, steps, a, vol);
  }
}

// The launch below, one fault-injection site for all its instantiations.
VF_CUDA_SITE(vf_launch_site);

template <bool RUN, int G, int SLOTS, bool FULL, bool ADAPTIVE>
int vf_launch(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, const uint8_t* left,
              size_t left_stride, cudaStream_t stream) {
  typedef typename vf_sgm::census_word<FULL>::type CT;
  vf_sgm::walk_table t;
  const int blocks = vf_sgm::make_walk_table(p, kWarps * (32 / G), &t);
  vf_paths_kernel<RUN, G, SLOTS, FULL, ADAPTIVE>
      <<<blocks, kWarps * 32, 0, stream>>>(*p, t, (const CT*)b->census_l, (const CT*)b->census_r,
                                           left, left_stride, b->volumes, (int)b->shift_stride);
  return VF_CUDA_LAUNCH_STATUS_AT(vf_launch_site);
}

// Adaptive P2 reads the left image at every step: without it the loads (and their address
// arithmetic, issued even when predicated off) are not compiled in.
template <bool RUN, int G, int SLOTS, bool FULL>
int vf_launch_p2(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, const uint8_t* left,
                 size_t left_stride, cudaStream_t s) {
  return p->adaptive_p2 ? vf_launch<RUN, G, SLOTS, FULL, true>(p, b, left, left_stride, s)
                        : vf_launch<RUN, G, SLOTS, FULL, false>(p, b, left, left_stride, s);
}

// The kernels of 64 disparities (runs: 8-lane groups) and of 128 (runs: 16-lane groups, up to 4
// paths). Runs read 32-bit census words only (vf_cuda_sgm_runs): a full census gets the
// interleaved kernels alone, so no runs kernel is instantiated that it cannot use.
template <bool FULL>
int vf_launch_runs(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, const uint8_t* left,
                   size_t left_stride, int runs, cudaStream_t s) {
  (void)runs;
  return p->disparities == 64 ? vf_launch_p2<false, 16, 4, FULL>(p, b, left, left_stride, s)
                              : vf_launch_p2<false, 32, 4, FULL>(p, b, left, left_stride, s);
}
template <>
int vf_launch_runs<false>(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, const uint8_t* left,
                          size_t left_stride, int runs, cudaStream_t s) {
  if (p->disparities == 64)
    return runs ? vf_launch_p2<true, 8, 8, false>(p, b, left, left_stride, s)
                : vf_launch_p2<false, 16, 4, false>(p, b, left, left_stride, s);
  return runs ? vf_launch_p2<true, 16, 8, false>(p, b, left, left_stride, s)
              : vf_launch_p2<false, 32, 4, false>(p, b, left, left_stride, s);
}

template <bool FULL>
int vf_dispatch(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, const uint8_t* left,
                size_t left_stride, int runs, cudaStream_t s) {
  if (p->disparities == 64 || p->disparities == 128)
    return vf_launch_runs<FULL>(p, b, left, left_stride, runs, s);
  return vf_launch_p2<false, 32, 8, FULL>(p, b, left, left_stride, s);
}

#ifndef VF_SGM_RUNS
// How many blocks of an interleaved kernel the device holds at once (0: unknown).
template <int G>
unsigned long long vf_interleaved_capacity(int dev) {
  int sms = 0, per_sm = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &per_sm, vf_paths_kernel<false, G, 4, false, false>, kWarps * 32, 0) != cudaSuccess) {
    (void)cudaGetLastError();  // a failed query is no launch error
    return 0;
  }
  return (unsigned long long)sms * (unsigned long long)per_sm;
}
#endif

}  // namespace

// VF_SGM_RUNS=0 or 1 at build time fixes the layout (measurements); by default, runs where the
// interleaved kernel's blocks (of all the SGMs that run at once: `concurrent`, e.g. a rig's
// pairs) exceed one wave of the device: the device is then busy with walks
// and the instructions decide (752x480 / 64 / 4 on an 8-multiprocessor partition), while a GPU
// with room to spare gains from the interleaved layout's extra warps (the same on the whole
// H200: 184 us interleaved against 249 in runs, docs/perf/stereo.md).
extern "C" int vf_cuda_sgm_runs_possible(const vf_sgm_params* p) {
  return !p->census_full && (p->disparities == 64 || (p->disparities == 128 && p->paths <= 4 &&
                                                      vf_cuda_sgm_select_pixel128_fits(p)));
}

extern "C" int vf_cuda_sgm_runs(const vf_sgm_params* p) { return vf_cuda_sgm_runs_at(p, 1); }

extern "C" int vf_cuda_sgm_runs_at(const vf_sgm_params* p, int concurrent) {
  if (!vf_cuda_sgm_runs_possible(p)) return 0;
#ifdef VF_SGM_RUNS
  return VF_SGM_RUNS;
#else
  // VF_SGM_LAYOUT=runs or interleaved fixes it at run time (the tests take both layouts on any
  // GPU; a user may pin one).
  const char* fixed = getenv("VF_SGM_LAYOUT");
  if (fixed != NULL && strcmp(fixed, "runs") == 0) return 1;
  if (fixed != NULL && strcmp(fixed, "interleaved") == 0) return 0;
  static std::atomic<unsigned long long> capacity16[vf_device_memo::kDevices];
  static std::atomic<unsigned long long> capacity32[vf_device_memo::kDevices];
  const bool d64 = p->disparities == 64;
  const unsigned long long fit = d64 ? vf_device_memo::get(capacity16, vf_interleaved_capacity<16>)
                                     : vf_device_memo::get(capacity32, vf_interleaved_capacity<32>);
  vf_sgm::walk_table t;
  const int blocks = vf_sgm::make_walk_table(p, kWarps * (d64 ? 2 : 1), &t);
  return fit > 0 && (unsigned long long)blocks * (unsigned)(concurrent > 1 ? concurrent : 1) > fit;
#endif
}

extern "C" int vf_cuda_sgm_paths(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b,
                                 const uint8_t* left, size_t left_stride, void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  return p->census_full ? vf_dispatch<true>(p, b, left, left_stride, b->runs, s)
                        : vf_dispatch<false>(p, b, left, left_stride, b->runs, s);
}

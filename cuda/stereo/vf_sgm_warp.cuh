// SPDX-License-Identifier: BSD-3-Clause
// Device building blocks of the CUDA SGM (after Hernandez-Juarez et al., ICCS 2016): a group
// of G lanes (a warp, or half a warp for 64 disparities) owns one path line; lane l keeps the
// disparity indices k = l + G * s (slot s < SLOTS = D / G), so that the right-census loads of
// one slot are contiguous across the group. In registers two slots share a 32-bit word as
// 16-bit halves (slot 2j low, 2j+1 high): __vminu2 is one instruction on sm_90 (VIMNMX.U16x2)
// where the byte-SIMD __vminu4/__vaddus4 are emulated with about six, and plain 32-bit adds
// cannot carry between halves because every value stays below 512. In memory the costs are
// bytes (four slots per word, slot 4m + b in byte b of word m): the configuration keeps
// cost + P2 <= 255, so the arithmetic equals src/stereo/cpu/vf_sgm_cpu.c bit for bit.
#ifndef VF_SGM_WARP_CUH
#define VF_SGM_WARP_CUH

#include <stdint.h>

#include "stereo/kernels/vf_sgm_rules.h"

namespace vf_sgm {

constexpr unsigned kFull = 0xffffffffu;

template <bool FULL>
struct census_word {
  typedef uint32_t type;
};
template <>
struct census_word<true> {
  typedef unsigned long long type;
};

__device__ __forceinline__ uint32_t popc(uint32_t v) { return (uint32_t)__popc(v); }
__device__ __forceinline__ uint32_t popc(unsigned long long v) { return (uint32_t)__popcll(v); }

// Minimum over the G lanes of this lane's group (every lane of the warp must call it): a
// butterfly of shuffles, or where the hardware has it one warp-wide reduction per group.
template <int G>
__device__ __forceinline__ uint32_t group_min_shfl(uint32_t v) {
#pragma unroll
  for (int o = G / 2; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(kFull, v, o, G));
  return v;
}

template <int G>
__device__ __forceinline__ uint32_t group_min(uint32_t v);

template <>
__device__ __forceinline__ uint32_t group_min<32>(uint32_t v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_min_sync(kFull, v);
#else
  return group_min_shfl<32>(v);
#endif
}

template <>
__device__ __forceinline__ uint32_t group_min<16>(uint32_t v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // upper: all ones in the warp's upper half-warp. Each reduction sees the other half as all
  // ones, and one three-input logic op keeps this half's result: ORs where the lane test and
  // three selects were rebuilt every step.
  const uint32_t upper = 0u - ((threadIdx.x >> 4) & 1u);
  const uint32_t lo = __reduce_min_sync(kFull, v | upper);
  const uint32_t hi = __reduce_min_sync(kFull, v | ~upper);
  return (lo | upper) & (hi | ~upper);
#else
  return group_min_shfl<16>(v);
#endif
}

// Eight lanes: the butterfly (three rounds). A warp-wide reduction per group (four REDUX and
// their selections) measured slower on an 8-multiprocessor H200 partition: 1662 against 1587 us
// for 752x480 / 64 / 4 (docs/perf/stereo.md).
template <>
__device__ __forceinline__ uint32_t group_min<8>(uint32_t v) {
  return group_min_shfl<8>(v);
}

// Per 16-bit half: min(a + b, c) (no half overflows here) and min(a, b, c). Hopper's DPX
// instructions (CUDA 12, sm_90) do each in one instruction, older targets in two.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDACC_VER_MAJOR__ >= 12
__device__ __forceinline__ uint32_t add_min_u16x2(uint32_t a, uint32_t b, uint32_t c) {
  return __viaddmin_u16x2(a, b, c);
}
__device__ __forceinline__ uint32_t min3_u16x2(uint32_t a, uint32_t b, uint32_t c) {
  return __vimin3_u16x2(a, b, c);
}
#else
__device__ __forceinline__ uint32_t add_min_u16x2(uint32_t a, uint32_t b, uint32_t c) {
  return __vminu2(a + b, c);
}
__device__ __forceinline__ uint32_t min3_u16x2(uint32_t a, uint32_t b, uint32_t c) {
  return __vminu2(__vminu2(a, b), c);
}
#endif

// One path step. L: the previous pixel's costs as 16-bit pairs (zeros at a path start), minx2
// their minimum in both halves; c: this pixel's matching costs as 16-bit pairs; p1x2 and p2x2:
// the penalties in both halves. Computes
//   L(p,k) = C + min(L(p-r,k), L(p-r,k+-1) + P1, min + P2) - min
// in place and returns the new minimum over the group, in both halves. Kept that way, the
// minimum is one add from the P2 bound and from the costs' offset (c - min), which the minima
// of the step need not wait for: a shorter dependent chain a step, which is what a long walk
// costs where few walks run at once (752x480 / 64 / 4: 193.5 against 195.8 us on the H100).
template <int G, int W16>
__device__ __forceinline__ uint32_t path_step(uint32_t (&L)[W16], uint32_t minx2,
                                              const uint32_t (&c)[W16], uint32_t p1x2,
                                              uint32_t p2x2, int lane) {
  uint32_t up[W16], dn[W16];
#pragma unroll
  for (int w = 0; w < W16; ++w) {
    up[w] = __shfl_sync(kFull, L[w], (lane + G - 1) % G, G);  // k - 1 (lane 0: fixed below)
    dn[w] = __shfl_sync(kFull, L[w], (lane + 1) % G, G);      // k + 1 (lane G-1: below)
  }
  const uint32_t lim = minx2 + p2x2;  // both halves below 2^16: no carry
  // Lane 0's k - 1 is one slot lower in lane G-1 (the previous word's high half for the low
  // half), lane G-1's k + 1 one slot higher in lane 0: one byte permutation per word, its
  // selector fixed per lane. Outside the range: 255, never below the minimum.
  const unsigned sel_up = lane == 0 ? 0x5432u : 0x7654u;
  const unsigned sel_dn = lane == G - 1 ? 0x5432u : 0x3210u;
#pragma unroll
  for (int w = 0; w < W16; ++w) {
    const uint32_t u = __byte_perm(w > 0 ? up[w - 1] : 0x00ff0000u, up[w], sel_up);
    const uint32_t d = __byte_perm(dn[w], w + 1 < W16 ? dn[w + 1] : 0x000000ffu, sel_dn);
    const uint32_t t = min3_u16x2(add_min_u16x2(u, p1x2, L[w]), d + p1x2, lim);
    // c - min may borrow between the halves, but t >= min in each half, so each half of the
    // 32-bit sum is C + t - min exactly.
    L[w] = t + (c[w] - minx2);
  }
  uint32_t local = L[0];
#pragma unroll
  for (int w = 1; w < W16; w += 2) {
    local = w + 1 < W16 ? min3_u16x2(local, L[w], L[w + 1]) : __vminu2(local, L[w]);
  }
  // The smaller half in both halves; the group's minimum of such words is one of them too.
  return group_min<G>(__vminu2(local, __byte_perm(local, 0u, 0x1032u)));
}

// The same step where lane l keeps a run of 8 disparities, 8 l .. 8 l + 7, as four 16-bit pairs
// (word w: 8 l + 2 w low, + 1 high): k - 1 and k + 1 are the lane's own words but at the run's
// ends, so a step takes two shuffles (the neighbours' end words) and a funnel shift a word where
// the interleaved layout above takes two shuffles a word; and with a whole warp of 4 groups, each
// step's fixed work (the group's minimum, the loads' addresses, the walk) serves twice the
// disparities. below_or / above_or (run_edges): lane 0 / G - 1 of the group has no neighbour
// below / above, and the half that stands for it is raised to 0x7fff by an OR (one instruction,
// where a lane test and a select took two a step): above every cost (< 512), like the 255 of
// path_step, and 0x7fff + P1 still fits its half.
template <int G>
__device__ __forceinline__ uint32_t path_step_run(uint32_t (&L)[4], uint32_t minx2,
                                                  const uint32_t (&c)[4], uint32_t p1x2,
                                                  uint32_t p2x2, uint32_t below_or,
                                                  uint32_t above_or) {
  // k = 8 l - 1 in the high half of below, k = 8 l + 8 in the low half of above.
  const uint32_t below = __shfl_up_sync(kFull, L[3], 1, G) | below_or;
  const uint32_t above = __shfl_down_sync(kFull, L[0], 1, G) | above_or;
  const uint32_t lim = minx2 + p2x2;
  uint32_t n[4];
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    const uint32_t u = __funnelshift_r(w > 0 ? L[w - 1] : below, L[w], 16);  // k - 1
    const uint32_t d = __funnelshift_r(L[w], w < 3 ? L[w + 1] : above, 16);  // k + 1
    const uint32_t t = min3_u16x2(add_min_u16x2(u, p1x2, L[w]), d + p1x2, lim);
    n[w] = t + (c[w] - minx2);  // as in path_step: each half exact
  }
#pragma unroll
  for (int w = 0; w < 4; ++w) L[w] = n[w];
  const uint32_t local = __vminu2(min3_u16x2(n[0], n[1], n[2]), n[3]);
  return group_min<G>(__vminu2(local, __byte_perm(local, 0u, 0x1032u)));
}

// path_step_run's ORs for lane l of a G-lane group: {below_or, above_or}.
template <int G>
__device__ __forceinline__ uint2 run_edges(int lane) {
  return make_uint2(lane == 0 ? 0x7fff0000u : 0u, lane == G - 1 ? 0x00007fffu : 0u);
}

// p itself, through an empty asm: the compiler keeps it as one 64-bit value instead of taking it
// apart into a uniform base and a lane's offset.
template <typename T>
__device__ __forceinline__ T* opaque(T* p) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  asm("" : "+l"(a));
  return reinterpret_cast<T*>(a);
}

// v itself, through an empty asm: the compiler cannot rewrite what is computed from it by what
// v was computed from.
__device__ __forceinline__ uint32_t opaque(uint32_t v) {
  asm("" : "+r"(v));
  return v;
}

// Two 16-bit words (slots 4m..4m+3) as one byte word.
__device__ __forceinline__ uint32_t pack_bytes(uint32_t lo, uint32_t hi) {
  return __byte_perm(lo, hi, 0x6420);
}

}  // namespace vf_sgm

#endif

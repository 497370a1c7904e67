// Device building blocks of the CUDA SGM (Hernandez-Juarez et al., ICCS 2016): one group of G
// lanes (a warp, or half a warp for 64 disparities) owns one path line; lane l keeps the
// disparity indices k = l + G * s (slot s = 4 * word + byte) as bytes of NW 32-bit words, so
// that loads of the right census for one slot are contiguous and the byte-SIMD intrinsics
// update four disparities at once. Arithmetic equals src/cpu/vf_sgm_cpu.c: the configuration
// keeps cost + P2 <= 255, so the saturating byte operations never saturate a kept value.
#ifndef VF_SGM_WARP_CUH
#define VF_SGM_WARP_CUH

#include <stdint.h>

#include "../src/vf_stereo_rules.h"

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

// Minimum over the G lanes of a group (every lane of the warp must call it).
template <int G>
__device__ __forceinline__ uint32_t group_min(uint32_t v) {
#pragma unroll
  for (int o = G / 2; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(kFull, v, o, G));
  return v;
}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// One warp-wide reduction instruction where the hardware has it.
template <>
__device__ __forceinline__ uint32_t group_min<32>(uint32_t v) {
  return __reduce_min_sync(kFull, v);
}
#endif

// Smallest byte of a word.
__device__ __forceinline__ uint32_t byte_min(uint32_t x) {
  uint32_t m = __vminu4(x, x >> 16);
  m = __vminu4(m, m >> 8);
  return m & 0xffu;
}

// Matching costs of one pixel: xbase = x - min_disparity - lane; row = right census row.
template <int G, int NW, typename CT>
__device__ __forceinline__ void costs(const CT* __restrict__ row, CT left, int xbase,
                                      uint32_t max_cost, uint32_t (&c)[NW]) {
#pragma unroll
  for (int w = 0; w < NW; ++w) {
    uint32_t word = 0;
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const int xr = xbase - G * (4 * w + b);
      const uint32_t v = xr >= 0 ? popc(left ^ __ldg(row + xr)) : max_cost;
      word |= v << (8 * b);
    }
    c[w] = word;
  }
}

// One step of the recurrence L(p,k) = C + min(L(p-r,k), L(p-r,k+-1) + P1, minL + P2) - minL.
// L and minL hold the previous pixel's values (zeros at a path start) and are updated.
template <int G, int NW>
__device__ __forceinline__ void path_step(uint32_t (&L)[NW], uint32_t& min_l,
                                          const uint32_t (&c)[NW], uint32_t p1x4, uint32_t p2,
                                          int lane) {
  uint32_t up[NW], dn[NW];
#pragma unroll
  for (int w = 0; w < NW; ++w) {
    up[w] = __shfl_sync(kFull, L[w], (lane + G - 1) % G, G);  // holds k - 1 (lane 0: see below)
    dn[w] = __shfl_sync(kFull, L[w], (lane + 1) % G, G);      // holds k + 1 (lane G-1: below)
  }
  const uint32_t lim = (min_l + p2) * 0x01010101u;
  const uint32_t minx4 = min_l * 0x01010101u;
  uint32_t local = 0xffu;
#pragma unroll
  for (int w = 0; w < NW; ++w) {
    // Lane 0's k - 1 sits one byte lower in lane G-1 (the previous word for byte 0); lane
    // G-1's k + 1 one byte higher in lane 0. Beyond the range: 0xff, never below the minimum.
    const uint32_t u = lane == 0 ? (up[w] << 8) | (w > 0 ? up[w - 1] >> 24 : 0xffu) : up[w];
    const uint32_t d =
        lane == G - 1 ? (dn[w] >> 8) | ((w + 1 < NW ? dn[w + 1] & 0xffu : 0xffu) << 24) : dn[w];
    uint32_t t = __vminu4(L[w], __vaddus4(u, p1x4));
    t = __vminu4(t, __vaddus4(d, p1x4));
    t = __vminu4(t, lim);
    L[w] = __vaddus4(c[w], __vsubus4(t, minx4));
    local = min(local, byte_min(L[w]));
  }
  min_l = group_min<G>(local);
}

}  // namespace vf_sgm

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* The CPU SGM sweep's per-pixel vector kernels (src/stereo/cpu/vf_sgm_cpu.c includes them): a
 * sweep's path steps at one pixel and the matching costs of its disparities, 16 a vector
 * (src/core/vf_simd16.h: SSE2, NEON or plain C) and, where the x86-64 CPU has AVX2, 32 a vector;
 * the same integers either way. */
#ifndef VF_SGM_STEPS_H
#define VF_SGM_STEPS_H

#include <string.h>

#include "core/vf_cpu_avx2.h"
#include "core/vf_simd16.h"
#include "stereo/kernels/vf_sgm_cpu.h"

/* A path's L_r at one pixel is a slot: D bytes with pad bytes of 255 either side, so that k - 1
 * and k + 1 need no test (255 >= min L_r + P2 - P1 never wins the minimum). */
#define VF_SLOT_PAD 16
#define VF_COST_BITS 6
/* A left census byte repeated over one vector: the costs load it, one instruction where an SSE2
 * broadcast takes four, once per plane and pixel. */
#define VF_REP 16

_Static_assert(VF_CENSUS_FULL_BITS < (1 << VF_COST_BITS), "a cost fits the low bits");
_Static_assert(((4 * 255) << VF_COST_BITS | 63) <= UINT16_MAX, "4 paths' sum and a cost fit");

/* A step function's VF_PATH(R) for each of its n paths (n constant once inlined). */
#define VF_EACH_PATH \
  VF_PATH(0)         \
  if (n > 1) {       \
    VF_PATH(1)       \
  }                  \
  if (n > 2) {       \
    VF_PATH(2)       \
    VF_PATH(3)       \
  }

/* One path's L_r at 16 cells from the previous pixel's slot around k: vf_sgm_cpu.c's step with
 * the minimum pm taken out of the minima, C + min(L(k), min(L(k-1), L(k+1), pm + P2 - P1) + P1)
 * - pm, where pmj = pm + P2 - P1. Exact in bytes: every L >= pm, pm <= C <= 255 - P2. */
static inline vf_u8x16 vf_step16(const uint8_t* pv, vf_u8x16 pm, vf_u8x16 pmj, vf_u8x16 pen,
                                 vf_u8x16 c) {
  vf_u8x16 n = vf_u8x16_min(vf_u8x16_load(pv - 1), vf_u8x16_load(pv + 1));
  n = vf_u8x16_add(vf_u8x16_min(n, pmj), pen);
  return vf_u8x16_add(vf_u8x16_sub(vf_u8x16_min(vf_u8x16_load(pv), n), pm), c);
}

/* The new slots' minima of n paths (lane-wise minima m_r of their vectors) in every lane of
 * *mn_r, for both step functions; the unused ones fold away once n is a constant. */
__attribute__((always_inline)) static inline void vf_path_minima(int n, vf_u8x16 m0, vf_u8x16 m1,
                                                                 vf_u8x16 m2, vf_u8x16 m3,
                                                                 vf_u8x16* mn0, vf_u8x16* mn1,
                                                                 vf_u8x16* mn2, vf_u8x16* mn3) {
  if (n == 1) {
    *mn0 = vf_u8x16_min_all(m0);
    return;
  }
  vf_u8x16 all = n > 2 ? vf_u8x16_min4(m0, m1, m2, m3) : vf_u8x16_min4(m0, m1, m0, m1);
  *mn0 = vf_u8x16_bcast(all, 0);
  *mn1 = vf_u8x16_bcast(all, 1);
  if (n > 2) {
    *mn2 = vf_u8x16_bcast(all, 2);
    *mn3 = vf_u8x16_bcast(all, 3);
  }
}

/* The steps of a sweep's n paths (1, 2 or 4; path 0 horizontal) at one pixel, fused so that the
 * costs are read and the sum written once: path r goes from slot pv_r (minimum pm_r in every
 * lane) into slot cv_r with pmj_r = pm_r + P2 - P1; *mn_r = min_k of the new slot in every lane.
 * The first sweep reads the costs from `cost` and stores sum << 6 | C into `packed`; the second
 * unpacks C and the first sweep's sum from `packed`, stores the complete sum into `tot` and
 * returns its minimum. Inlined with constant n and second, the tests fold away; one variable per
 * path (no arrays) keeps the vectors in registers. */
__attribute__((always_inline)) static inline int vf_steps(
    int n, int second, const uint8_t* cost, uint16_t* packed, int16_t* tot, const uint8_t* pv0,
    const uint8_t* pv1, const uint8_t* pv2, const uint8_t* pv3, uint8_t* cv0, uint8_t* cv1,
    uint8_t* cv2, uint8_t* cv3, vf_u8x16 pm0, vf_u8x16 pm1, vf_u8x16 pm2, vf_u8x16 pm3,
    vf_u8x16 pmj0, vf_u8x16 pmj1, vf_u8x16 pmj2, vf_u8x16 pmj3, vf_u8x16 pen, int D, vf_u8x16* mn0,
    vf_u8x16* mn1, vf_u8x16* mn2, vf_u8x16* mn3) {
  const vf_i16x8 low = vf_i16x8_set1((1 << VF_COST_BITS) - 1);
  vf_u8x16 m0 = vf_u8x16_set1(255), m1 = m0, m2 = m0, m3 = m0;
  vf_i16x8 best = vf_i16x8_set1(INT16_MAX); /* sums stay below VF_MAX_SUM */
  /* Blocks of 64 (D is a multiple), each unrolled: no per-vector loop counters. */
  for (int b = 0; b < D; b += 64) {
    _Pragma("GCC unroll 4") for (int k = b; k < b + 64; k += 16) {
      vf_u8x16 c, v;
      vf_i16x8 lo, hi;
      if (second) {
        vf_i16x8 in_lo = vf_i16x8_load(packed + k), in_hi = vf_i16x8_load(packed + k + 8);
        c = vf_u8x16_narrow(vf_i16x8_and(in_lo, low), vf_i16x8_and(in_hi, low));
        lo = vf_i16x8_shr(in_lo, VF_COST_BITS);
        hi = vf_i16x8_shr(in_hi, VF_COST_BITS);
      } else {
        c = vf_u8x16_load(cost + k);
        lo = vf_i16x8_set1(0);
        hi = lo;
      }
#define VF_PATH(R)                                 \
  v = vf_step16(pv##R + k, pm##R, pmj##R, pen, c); \
  vf_u8x16_store(cv##R + k, v);                    \
  m##R = vf_u8x16_min(m##R, v);                    \
  lo = vf_i16x8_add(lo, vf_u8x16_widen_lo(v));     \
  hi = vf_i16x8_add(hi, vf_u8x16_widen_hi(v));
      VF_EACH_PATH
#undef VF_PATH
      if (second) {
        vf_i16x8_store(tot + k, lo);
        vf_i16x8_store(tot + k + 8, hi);
        best = vf_i16x8_min(best, vf_i16x8_min(lo, hi));
      } else {
        vf_i16x8 out_lo = vf_i16x8_or(vf_i16x8_shl(lo, VF_COST_BITS), vf_u8x16_widen_lo(c));
        vf_i16x8 out_hi = vf_i16x8_or(vf_i16x8_shl(hi, VF_COST_BITS), vf_u8x16_widen_hi(c));
        if (n > 1) {
          vf_i16x8_stream(packed + k, out_lo);
          vf_i16x8_stream(packed + k + 8, out_hi);
        } else {
          vf_i16x8_store(packed + k, out_lo);
          vf_i16x8_store(packed + k + 8, out_hi);
        }
      }
    }
  }
  vf_path_minima(n, m0, m1, m2, m3, mn0, mn1, mn2, mn3);
  return second ? vf_i16x8_min_lanes(best) : 0;
}

/* Bit counts of each byte's two nibbles, each in its nibble (at most 4): SWAR, as the baseline
 * x86-64 ISA has neither a popcount nor a byte shuffle. */
static inline vf_u8x16 vf_nibble_counts(vf_u8x16 v) {
  v = vf_u8x16_sub(v, vf_u8x16_shr_and(v, 1, 0x55));
  return vf_u8x16_add(vf_u8x16_and(v, vf_u8x16_set1(0x33)), vf_u8x16_shr_and(v, 2, 0x33));
}

/* Each byte's count from nibble counts summed over up to 3 planes (at most 12 each). */
static inline vf_u8x16 vf_fold(vf_u8x16 v) {
  return vf_u8x16_add(vf_u8x16_and(v, vf_u8x16_set1(0x0F)), vf_u8x16_shr_and(v, 4, 0x0F));
}

/* Nibble counts of plane i: left bytes (repeated) at l + i * ls against right bytes r + i * ps. */
static inline vf_u8x16 vf_plane_counts(const uint8_t* l, size_t ls, const uint8_t* r, size_t ps,
                                       int i) {
  return vf_nibble_counts(vf_u8x16_xor(vf_u8x16_load(l + i * ls), vf_u8x16_load(r + i * ps)));
}

/* Costs of 16 disparities: Hamming distances between the left census planes (each byte
 * repeated VF_REP times, planes l + i * ls) and the right census planes at r + i * ps. */
static inline vf_u8x16 vf_costs16(int full, const uint8_t* l, size_t ls, const uint8_t* r,
                                  size_t ps) {
  vf_u8x16 a =
      vf_u8x16_add(vf_u8x16_add(vf_plane_counts(l, ls, r, ps, 0), vf_plane_counts(l, ls, r, ps, 1)),
                   vf_plane_counts(l, ls, r, ps, 2));
  if (!full) return vf_u8x16_add(vf_fold(a), vf_fold(vf_plane_counts(l, ls, r, ps, 3)));
  vf_u8x16 b =
      vf_u8x16_add(vf_u8x16_add(vf_plane_counts(l, ls, r, ps, 3), vf_plane_counts(l, ls, r, ps, 4)),
                   vf_plane_counts(l, ls, r, ps, 5));
  vf_u8x16 d = vf_u8x16_add(vf_plane_counts(l, ls, r, ps, 6), vf_plane_counts(l, ls, r, ps, 7));
  return vf_u8x16_add(vf_u8x16_add(vf_fold(a), vf_fold(b)), vf_fold(d));
}

static int vf_planes(const vf_sgm_params* p) { return p->census_full ? 8 : 4; }

#ifdef VF_AVX2
/* 32 disparities a vector where the CPU has AVX2 (asked at run time): vf_steps, vf_costs16 and
 * vf_costs with the same integers, so the same sums, costs and disparities. The minima leave in
 * 16-byte vectors, as vf_steps gives them. */
static inline VF_AVX2_TARGET __m256i vf_load32(const void* p) {
  return _mm256_loadu_si256((const __m256i*)p);
}

static inline VF_AVX2_TARGET __m256i vf_step32(const uint8_t* pv, __m256i pm, __m256i pmj,
                                               __m256i pen, __m256i c) {
  __m256i n = _mm256_min_epu8(vf_load32(pv - 1), vf_load32(pv + 1));
  n = _mm256_add_epi8(_mm256_min_epu8(n, pmj), pen);
  return _mm256_add_epi8(_mm256_sub_epi8(_mm256_min_epu8(vf_load32(pv), n), pm), c);
}

/* The two 16-byte halves' lane-wise minimum. */
static inline VF_AVX2_TARGET vf_u8x16 vf_fold32(__m256i v) {
  return _mm_min_epu8(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
}

static inline VF_AVX2_TARGET int vf_steps32(
    int n, int second, const uint8_t* cost, uint16_t* packed, int16_t* tot, const uint8_t* pv0,
    const uint8_t* pv1, const uint8_t* pv2, const uint8_t* pv3, uint8_t* cv0, uint8_t* cv1,
    uint8_t* cv2, uint8_t* cv3, vf_u8x16 pm0_, vf_u8x16 pm1_, vf_u8x16 pm2_, vf_u8x16 pm3_,
    vf_u8x16 pmj0_, vf_u8x16 pmj1_, vf_u8x16 pmj2_, vf_u8x16 pmj3_, vf_u8x16 pen_, int D,
    vf_u8x16* mn0, vf_u8x16* mn1, vf_u8x16* mn2, vf_u8x16* mn3) {
  const __m256i low = _mm256_set1_epi16((1 << VF_COST_BITS) - 1);
  const __m256i pm0 = _mm256_broadcastsi128_si256(pm0_), pm1 = _mm256_broadcastsi128_si256(pm1_),
                pm2 = _mm256_broadcastsi128_si256(pm2_), pm3 = _mm256_broadcastsi128_si256(pm3_);
  const __m256i pmj0 = _mm256_broadcastsi128_si256(pmj0_),
                pmj1 = _mm256_broadcastsi128_si256(pmj1_),
                pmj2 = _mm256_broadcastsi128_si256(pmj2_),
                pmj3 = _mm256_broadcastsi128_si256(pmj3_);
  const __m256i pen = _mm256_broadcastsi128_si256(pen_);
  __m256i m0 = _mm256_set1_epi8((char)255), m1 = m0, m2 = m0, m3 = m0;
  __m256i best = _mm256_set1_epi16(INT16_MAX);
  for (int b = 0; b < D; b += 64) {
    _Pragma("GCC unroll 2") for (int k = b; k < b + 64; k += 32) {
      __m256i c, v, lo, hi;
      if (second) {
        __m256i in_lo = vf_load32(packed + k), in_hi = vf_load32(packed + k + 16);
        /* The pack interleaves the halves' quarters; the permute puts them in order. */
        c = _mm256_permute4x64_epi64(
            _mm256_packus_epi16(_mm256_and_si256(in_lo, low), _mm256_and_si256(in_hi, low)),
            _MM_SHUFFLE(3, 1, 2, 0));
        lo = _mm256_srli_epi16(in_lo, VF_COST_BITS);
        hi = _mm256_srli_epi16(in_hi, VF_COST_BITS);
      } else {
        c = vf_load32(cost + k);
        lo = _mm256_setzero_si256();
        hi = lo;
      }
#define VF_PATH(R)                                                            \
  v = vf_step32(pv##R + k, pm##R, pmj##R, pen, c);                            \
  _mm256_storeu_si256((__m256i*)(cv##R + k), v);                              \
  m##R = _mm256_min_epu8(m##R, v);                                            \
  lo = _mm256_add_epi16(lo, _mm256_cvtepu8_epi16(_mm256_castsi256_si128(v))); \
  hi = _mm256_add_epi16(hi, _mm256_cvtepu8_epi16(_mm256_extracti128_si256(v, 1)));
      VF_EACH_PATH
#undef VF_PATH
      if (second) {
        _mm256_storeu_si256((__m256i*)(tot + k), lo);
        _mm256_storeu_si256((__m256i*)(tot + k + 16), hi);
        best = _mm256_min_epi16(best, _mm256_min_epi16(lo, hi));
      } else {
        __m256i out_lo = _mm256_or_si256(_mm256_slli_epi16(lo, VF_COST_BITS),
                                         _mm256_cvtepu8_epi16(_mm256_castsi256_si128(c)));
        __m256i out_hi = _mm256_or_si256(_mm256_slli_epi16(hi, VF_COST_BITS),
                                         _mm256_cvtepu8_epi16(_mm256_extracti128_si256(c, 1)));
        /* packed + k lies on 64 bytes: D is a multiple of 64, the sums on 128 bytes. */
        if (n > 1) {
          _mm256_stream_si256((__m256i*)(packed + k), out_lo);
          _mm256_stream_si256((__m256i*)(packed + k + 16), out_hi);
        } else {
          _mm256_storeu_si256((__m256i*)(packed + k), out_lo);
          _mm256_storeu_si256((__m256i*)(packed + k + 16), out_hi);
        }
      }
    }
  }
  vf_path_minima(n, vf_fold32(m0), vf_fold32(m1), vf_fold32(m2), vf_fold32(m3), mn0, mn1, mn2, mn3);
  if (!second) return 0;
  return vf_i16x8_min_lanes(
      _mm_min_epi16(_mm256_castsi256_si128(best), _mm256_extracti128_si256(best, 1)));
}

/* Bit counts of each byte (0..8) from a table of the nibbles' counts. */
static inline VF_AVX2_TARGET __m256i vf_popcount32(__m256i v) {
  const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2,
                                         1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  return _mm256_add_epi8(
      _mm256_shuffle_epi8(table, _mm256_and_si256(v, nibble)),
      _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble)));
}

/* vf_costs16 for 32 disparities: the Hamming distances summed plane by plane (at most 64). */
static inline VF_AVX2_TARGET __m256i vf_costs32(int planes, const uint8_t* l, size_t ls,
                                                const uint8_t* r, size_t ps) {
  __m256i sum = _mm256_setzero_si256();
  for (int i = 0; i < planes; ++i) {
    const __m256i left = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i*)(l + i * ls)));
    sum = _mm256_add_epi8(sum, vf_popcount32(_mm256_xor_si256(left, vf_load32(r + i * ps))));
  }
  return sum;
}

/* vf_costs' loop, 32 disparities a vector. */
static inline VF_AVX2_TARGET void vf_costs_loop32(int D, int planes, const uint8_t* l, size_t ls,
                                                  const uint8_t* r, size_t ps, uint8_t* c) {
  for (int k = 0; k < D; k += 32)
    _mm256_storeu_si256((__m256i*)(c + k), vf_costs32(planes, l, ls, r + k, ps));
}
#endif

/* Matching costs of left pixel (x, y) for every disparity index; rep: vf_repeat_row's row y;
 * wide: 32 disparities a vector (AVX2). */
__attribute__((always_inline)) static inline void vf_costs(const vf_sgm_params* p,
                                                           const uint8_t* rep, const uint8_t* rev,
                                                           int x, uint8_t* c, int wide) {
  int D = p->disparities, first_out = x - p->min_disparity + 1; /* k >= this: outside */
  if (first_out <= 0) {
    memset(c, p->max_cost, (size_t)D);
    return;
  }
  size_t w = (size_t)p->width, ps = w + (size_t)D, ls = w * VF_REP;
  const uint8_t* l = rep + (size_t)x * VF_REP;
  const uint8_t* r = rev + (w - (size_t)first_out);
  if (wide) {
#ifdef VF_AVX2
    vf_costs_loop32(D, vf_planes(p), l, ls, r, ps, c);
#endif
  } else if (p->census_full) {
    for (int k = 0; k < D; k += 16) vf_u8x16_store(c + k, vf_costs16(1, l, ls, r + k, ps));
  } else {
    for (int k = 0; k < D; k += 16) vf_u8x16_store(c + k, vf_costs16(0, l, ls, r + k, ps));
  }
  if (first_out < D) memset(c + first_out, p->max_cost, (size_t)(D - first_out));
}

#endif

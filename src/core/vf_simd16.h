// SPDX-License-Identifier: BSD-3-Clause
/* 16-byte integer vectors: 16 lanes of unsigned bytes (vf_u8x16) and 8 lanes of 16 bits
 * (vf_i16x8), for the CPU SGM aggregation (src/stereo/cpu/vf_sgm_cpu.c), FAST's segment test
 * (src/features/cpu/vf_fast_cpu.c) and the exact [1 2 1]
 * smoothing of the CPU refinement's window (src/features/cpu/vf_affine_cpu.c, whose 16-bit sums
 * go to floats as vf_simd4.h's vf_f4). SSE2 on x86-64 and NEON on AArch64, both baselines of
 * their ISA (no run-time dispatch); plain C elsewhere and wherever VF_SIMD4_PORTABLE is defined
 * (-DVF_SIMD_PORTABLE=ON), as for vf_simd4.h, whose path this one always matches. Integer
 * operations only (and exact conversions), so all three paths give the same bits. Why not leave
 * it to the vectorizer: the lane minima that SGM needs at every pixel cost GCC a dozen shuffles
 * and a trip through a stack slot each, and an all-lanes minimum needs none of that here. Byte
 * arithmetic wraps modulo 256; 16-bit lanes add modulo 2^16, compare as signed (vf_i16x8_min),
 * shift as unsigned and convert to float as unsigned (vf_i16x8_to_f4). */
#ifndef VF_SIMD16_H
#define VF_SIMD16_H

#include <stdint.h>
#include <string.h>

#include "core/vf_simd4.h"

#if defined(__SSE2__) && !defined(VF_SIMD4_PORTABLE)
#include <emmintrin.h>

typedef __m128i vf_u8x16;
typedef __m128i vf_i16x8;

/* Unaligned loads and stores. */
static inline vf_u8x16 vf_u8x16_load(const uint8_t* p) {
  return _mm_loadu_si128((const __m128i*)p);
}
static inline void vf_u8x16_store(uint8_t* p, vf_u8x16 v) { _mm_storeu_si128((__m128i*)p, v); }
static inline vf_u8x16 vf_u8x16_set1(uint8_t x) { return _mm_set1_epi8((char)x); }
static inline vf_u8x16 vf_u8x16_min(vf_u8x16 a, vf_u8x16 b) { return _mm_min_epu8(a, b); }
static inline vf_u8x16 vf_u8x16_add(vf_u8x16 a, vf_u8x16 b) { return _mm_add_epi8(a, b); }
static inline vf_u8x16 vf_u8x16_sub(vf_u8x16 a, vf_u8x16 b) { return _mm_sub_epi8(a, b); }
static inline vf_u8x16 vf_u8x16_and(vf_u8x16 a, vf_u8x16 b) { return _mm_and_si128(a, b); }
static inline vf_u8x16 vf_u8x16_xor(vf_u8x16 a, vf_u8x16 b) { return _mm_xor_si128(a, b); }
static inline vf_u8x16 vf_u8x16_or(vf_u8x16 a, vf_u8x16 b) { return _mm_or_si128(a, b); }
/* Saturating a + b and a - b (0..255). */
static inline vf_u8x16 vf_u8x16_adds(vf_u8x16 a, vf_u8x16 b) { return _mm_adds_epu8(a, b); }
static inline vf_u8x16 vf_u8x16_subs(vf_u8x16 a, vf_u8x16 b) { return _mm_subs_epu8(a, b); }
/* Bit i set where lane i is not 0. */
static inline unsigned vf_u8x16_nonzero_bits(vf_u8x16 v) {
  return ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) & 0xFFFFu;
}
/* (v >> n) & m in every byte, 0 <= n < 8: a 16-bit shift whose bits from the high byte the
 * mask clears. */
static inline vf_u8x16 vf_u8x16_shr_and(vf_u8x16 v, int n, uint8_t m) {
  return _mm_and_si128(_mm_srli_epi16(v, n), _mm_set1_epi8((char)(m & (0xFF >> n))));
}
/* The smallest lane in every lane: pairs of dwords, dwords, words, then bytes swapped. */
static inline vf_u8x16 vf_u8x16_min_all(vf_u8x16 v) {
  v = _mm_min_epu8(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
  v = _mm_min_epu8(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));
  v = _mm_min_epu8(v, _mm_shufflehi_epi16(_mm_shufflelo_epi16(v, _MM_SHUFFLE(2, 3, 0, 1)),
                                          _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_min_epu8(v, _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8)));
}
/* The smallest lanes of a, b, c and d in lanes 0, 1, 2 and 3 (and again in 4..7, 8..11,
 * 12..15): interleaving halves the candidates of all four at each step. */
static inline vf_u8x16 vf_u8x16_min4(vf_u8x16 a, vf_u8x16 b, vf_u8x16 c, vf_u8x16 d) {
  __m128i ab = _mm_min_epu8(_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b));
  __m128i cd = _mm_min_epu8(_mm_unpacklo_epi8(c, d), _mm_unpackhi_epi8(c, d));
  __m128i v = _mm_min_epu8(_mm_unpacklo_epi16(ab, cd), _mm_unpackhi_epi16(ab, cd));
  v = _mm_min_epu8(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
  return _mm_min_epu8(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));
}
/* Lane i (0..3) of v in every lane. */
static inline vf_u8x16 vf_u8x16_bcast(vf_u8x16 v, int i) {
  v = _mm_unpacklo_epi8(v, v);
  switch (i) { /* immediates */
    case 0: v = _mm_shufflelo_epi16(v, 0x00); break;
    case 1: v = _mm_shufflelo_epi16(v, 0x55); break;
    case 2: v = _mm_shufflelo_epi16(v, 0xAA); break;
    default: v = _mm_shufflelo_epi16(v, 0xFF); break;
  }
  return _mm_shuffle_epi32(v, 0);
}
/* Lanes 0..7 (lo) or 8..15 (hi) zero-extended to 16 bits. */
static inline vf_i16x8 vf_u8x16_widen_lo(vf_u8x16 v) {
  return _mm_unpacklo_epi8(v, _mm_setzero_si128());
}
static inline vf_i16x8 vf_u8x16_widen_hi(vf_u8x16 v) {
  return _mm_unpackhi_epi8(v, _mm_setzero_si128());
}
/* Lanes of lo then hi, each 0..255, as bytes. */
static inline vf_u8x16 vf_u8x16_narrow(vf_i16x8 lo, vf_i16x8 hi) {
  return _mm_packus_epi16(lo, hi);
}

static inline vf_i16x8 vf_i16x8_load(const void* p) { return _mm_loadu_si128((const __m128i*)p); }
static inline void vf_i16x8_store(void* p, vf_i16x8 v) { _mm_storeu_si128((__m128i*)p, v); }
/* p[0..7] zero-extended to 16 bits: reads exactly 8 bytes (a 16-byte load could cross into
 * memory the caller does not own). */
static inline vf_i16x8 vf_i16x8_from_u8(const uint8_t* p) {
  return _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i*)p), _mm_setzero_si128());
}
/* 16 bytes as 8 lanes, lane i = p[2i] + 256 p[2i + 1] (a byte pair per lane). */
static inline vf_i16x8 vf_i16x8_load_pairs(const uint8_t* p) {
  return _mm_loadu_si128((const __m128i*)p);
}
/* Lanes 0..3 (lo) and 4..7 (hi) read as unsigned, as floats (exact: below 2^24). */
static inline void vf_i16x8_to_f4(vf_i16x8 v, vf_f4* lo, vf_f4* hi) {
  const __m128i z = _mm_setzero_si128();
  *lo = _mm_cvtepi32_ps(_mm_unpacklo_epi16(v, z));
  *hi = _mm_cvtepi32_ps(_mm_unpackhi_epi16(v, z));
}
/* A store to 16-byte aligned p that bypasses the caches; vf_simd16_fence() before other threads
 * read it. */
static inline void vf_i16x8_stream(void* p, vf_i16x8 v) { _mm_stream_si128((__m128i*)p, v); }
static inline void vf_simd16_fence(void) { _mm_sfence(); }
static inline vf_i16x8 vf_i16x8_set1(int16_t x) { return _mm_set1_epi16(x); }
static inline vf_i16x8 vf_i16x8_add(vf_i16x8 a, vf_i16x8 b) { return _mm_add_epi16(a, b); }
static inline vf_i16x8 vf_i16x8_min(vf_i16x8 a, vf_i16x8 b) { return _mm_min_epi16(a, b); }
static inline vf_i16x8 vf_i16x8_and(vf_i16x8 a, vf_i16x8 b) { return _mm_and_si128(a, b); }
static inline vf_i16x8 vf_i16x8_or(vf_i16x8 a, vf_i16x8 b) { return _mm_or_si128(a, b); }
static inline vf_i16x8 vf_i16x8_shl(vf_i16x8 v, int n) { return _mm_slli_epi16(v, n); }
static inline vf_i16x8 vf_i16x8_shr(vf_i16x8 v, int n) { return _mm_srli_epi16(v, n); }
/* The smallest lane (signed); the last step needs only lane 0 right. */
static inline int vf_i16x8_min_lanes(vf_i16x8 v) {
  v = _mm_min_epi16(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
  v = _mm_min_epi16(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));
  v = _mm_min_epi16(v, _mm_shufflelo_epi16(v, _MM_SHUFFLE(2, 3, 0, 1)));
  return (int16_t)_mm_cvtsi128_si32(v);
}

#elif defined(__ARM_NEON) && defined(__aarch64__) && !defined(__ARM_BIG_ENDIAN) && \
    !defined(VF_SIMD4_PORTABLE)
#include <arm_neon.h>

typedef uint8x16_t vf_u8x16;
typedef int16x8_t vf_i16x8;

static inline vf_u8x16 vf_u8x16_load(const uint8_t* p) { return vld1q_u8(p); }
static inline void vf_u8x16_store(uint8_t* p, vf_u8x16 v) { vst1q_u8(p, v); }
static inline vf_u8x16 vf_u8x16_set1(uint8_t x) { return vdupq_n_u8(x); }
static inline vf_u8x16 vf_u8x16_min(vf_u8x16 a, vf_u8x16 b) { return vminq_u8(a, b); }
static inline vf_u8x16 vf_u8x16_add(vf_u8x16 a, vf_u8x16 b) { return vaddq_u8(a, b); }
static inline vf_u8x16 vf_u8x16_sub(vf_u8x16 a, vf_u8x16 b) { return vsubq_u8(a, b); }
static inline vf_u8x16 vf_u8x16_and(vf_u8x16 a, vf_u8x16 b) { return vandq_u8(a, b); }
static inline vf_u8x16 vf_u8x16_xor(vf_u8x16 a, vf_u8x16 b) { return veorq_u8(a, b); }
static inline vf_u8x16 vf_u8x16_or(vf_u8x16 a, vf_u8x16 b) { return vorrq_u8(a, b); }
static inline vf_u8x16 vf_u8x16_adds(vf_u8x16 a, vf_u8x16 b) { return vqaddq_u8(a, b); }
static inline vf_u8x16 vf_u8x16_subs(vf_u8x16 a, vf_u8x16 b) { return vqsubq_u8(a, b); }
/* Each lane's bit weighted 1..128 within its half, then each half summed. */
static inline unsigned vf_u8x16_nonzero_bits(vf_u8x16 v) {
  static const uint8_t w[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  const uint8x16_t b = vandq_u8(vtstq_u8(v, v), vld1q_u8(w));
  return (unsigned)vaddv_u8(vget_low_u8(b)) | (unsigned)vaddv_u8(vget_high_u8(b)) << 8;
}
static inline vf_u8x16 vf_u8x16_shr_and(vf_u8x16 v, int n, uint8_t m) {
  return vandq_u8(vshlq_u8(v, vdupq_n_s8((int8_t)-n)), vdupq_n_u8(m));
}
static inline vf_u8x16 vf_u8x16_min_all(vf_u8x16 v) { return vdupq_n_u8(vminvq_u8(v)); }
static inline vf_u8x16 vf_u8x16_min4(vf_u8x16 a, vf_u8x16 b, vf_u8x16 c, vf_u8x16 d) {
  uint32_t m = (uint32_t)vminvq_u8(a) | (uint32_t)vminvq_u8(b) << 8 | (uint32_t)vminvq_u8(c) << 16 |
               (uint32_t)vminvq_u8(d) << 24;
  return vreinterpretq_u8_u32(vdupq_n_u32(m));
}
static inline vf_u8x16 vf_u8x16_bcast(vf_u8x16 v, int i) {
  switch (i) { /* immediates */
    case 0: return vdupq_laneq_u8(v, 0);
    case 1: return vdupq_laneq_u8(v, 1);
    case 2: return vdupq_laneq_u8(v, 2);
    default: return vdupq_laneq_u8(v, 3);
  }
}
static inline vf_i16x8 vf_u8x16_widen_lo(vf_u8x16 v) {
  return vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(v)));
}
static inline vf_i16x8 vf_u8x16_widen_hi(vf_u8x16 v) {
  return vreinterpretq_s16_u16(vmovl_high_u8(v));
}
static inline vf_u8x16 vf_u8x16_narrow(vf_i16x8 lo, vf_i16x8 hi) {
  return vcombine_u8(vmovn_u16(vreinterpretq_u16_s16(lo)), vmovn_u16(vreinterpretq_u16_s16(hi)));
}

static inline vf_i16x8 vf_i16x8_load(const void* p) { return vld1q_s16((const int16_t*)p); }
static inline void vf_i16x8_store(void* p, vf_i16x8 v) { vst1q_s16((int16_t*)p, v); }
static inline vf_i16x8 vf_i16x8_from_u8(const uint8_t* p) {
  return vreinterpretq_s16_u16(vmovl_u8(vld1_u8(p)));
}
static inline vf_i16x8 vf_i16x8_load_pairs(const uint8_t* p) {
  return vreinterpretq_s16_u8(vld1q_u8(p)); /* little-endian lanes (no big-endian NEON path) */
}
static inline void vf_i16x8_to_f4(vf_i16x8 v, vf_f4* lo, vf_f4* hi) {
  const uint16x8_t u = vreinterpretq_u16_s16(v);
  *lo = vcvtq_f32_u32(vmovl_u16(vget_low_u16(u)));
  *hi = vcvtq_f32_u32(vmovl_high_u16(u));
}
static inline void vf_i16x8_stream(void* p, vf_i16x8 v) { vst1q_s16((int16_t*)p, v); }
static inline void vf_simd16_fence(void) {}
static inline vf_i16x8 vf_i16x8_set1(int16_t x) { return vdupq_n_s16(x); }
static inline vf_i16x8 vf_i16x8_add(vf_i16x8 a, vf_i16x8 b) { return vaddq_s16(a, b); }
static inline vf_i16x8 vf_i16x8_min(vf_i16x8 a, vf_i16x8 b) { return vminq_s16(a, b); }
static inline vf_i16x8 vf_i16x8_and(vf_i16x8 a, vf_i16x8 b) { return vandq_s16(a, b); }
static inline vf_i16x8 vf_i16x8_or(vf_i16x8 a, vf_i16x8 b) { return vorrq_s16(a, b); }
/* Shifts by a count in a register: the immediate forms need a literal. */
static inline vf_i16x8 vf_i16x8_shl(vf_i16x8 v, int n) {
  return vreinterpretq_s16_u16(vshlq_u16(vreinterpretq_u16_s16(v), vdupq_n_s16((int16_t)n)));
}
static inline vf_i16x8 vf_i16x8_shr(vf_i16x8 v, int n) {
  return vreinterpretq_s16_u16(vshlq_u16(vreinterpretq_u16_s16(v), vdupq_n_s16((int16_t)-n)));
}
static inline int vf_i16x8_min_lanes(vf_i16x8 v) { return vminvq_s16(v); }

#else

typedef struct vf_u8x16 {
  uint8_t v[16];
} vf_u8x16;
typedef struct vf_i16x8 {
  uint16_t v[8]; /* unsigned storage: wrapping adds and logical shifts without undefined cases */
} vf_i16x8;

static inline vf_u8x16 vf_u8x16_load(const uint8_t* p) {
  vf_u8x16 r;
  memcpy(r.v, p, sizeof r.v);
  return r;
}
static inline void vf_u8x16_store(uint8_t* p, vf_u8x16 v) { memcpy(p, v.v, sizeof v.v); }
static inline vf_u8x16 vf_u8x16_set1(uint8_t x) {
  vf_u8x16 r;
  memset(r.v, x, sizeof r.v);
  return r;
}
static inline vf_u8x16 vf_u8x16_min(vf_u8x16 a, vf_u8x16 b) {
  for (int i = 0; i < 16; ++i) a.v[i] = a.v[i] < b.v[i] ? a.v[i] : b.v[i];
  return a;
}
static inline vf_u8x16 vf_u8x16_add(vf_u8x16 a, vf_u8x16 b) {
  for (int i = 0; i < 16; ++i) a.v[i] = (uint8_t)(a.v[i] + b.v[i]);
  return a;
}
static inline vf_u8x16 vf_u8x16_sub(vf_u8x16 a, vf_u8x16 b) {
  for (int i = 0; i < 16; ++i) a.v[i] = (uint8_t)(a.v[i] - b.v[i]);
  return a;
}
static inline vf_u8x16 vf_u8x16_and(vf_u8x16 a, vf_u8x16 b) {
  for (int i = 0; i < 16; ++i) a.v[i] &= b.v[i];
  return a;
}
static inline vf_u8x16 vf_u8x16_xor(vf_u8x16 a, vf_u8x16 b) {
  for (int i = 0; i < 16; ++i) a.v[i] ^= b.v[i];
  return a;
}
static inline vf_u8x16 vf_u8x16_or(vf_u8x16 a, vf_u8x16 b) {
  for (int i = 0; i < 16; ++i) a.v[i] |= b.v[i];
  return a;
}
static inline vf_u8x16 vf_u8x16_adds(vf_u8x16 a, vf_u8x16 b) {
  for (int i = 0; i < 16; ++i) a.v[i] = (uint8_t)(a.v[i] + b.v[i] > 255 ? 255 : a.v[i] + b.v[i]);
  return a;
}
static inline vf_u8x16 vf_u8x16_subs(vf_u8x16 a, vf_u8x16 b) {
  for (int i = 0; i < 16; ++i) a.v[i] = (uint8_t)(a.v[i] > b.v[i] ? a.v[i] - b.v[i] : 0);
  return a;
}
static inline unsigned vf_u8x16_nonzero_bits(vf_u8x16 v) {
  unsigned m = 0;
  for (int i = 0; i < 16; ++i) m |= (v.v[i] != 0 ? 1u : 0u) << i;
  return m;
}
static inline vf_u8x16 vf_u8x16_shr_and(vf_u8x16 v, int n, uint8_t m) {
  for (int i = 0; i < 16; ++i) v.v[i] = (uint8_t)((v.v[i] >> n) & m);
  return v;
}
static inline vf_u8x16 vf_u8x16_min_all(vf_u8x16 v) {
  uint8_t m = v.v[0];
  for (int i = 1; i < 16; ++i) m = v.v[i] < m ? v.v[i] : m;
  return vf_u8x16_set1(m);
}
static inline vf_u8x16 vf_u8x16_min4(vf_u8x16 a, vf_u8x16 b, vf_u8x16 c, vf_u8x16 d) {
  vf_u8x16 r;
  for (int j = 0; j < 4; ++j) {
    const vf_u8x16* x = j == 0 ? &a : j == 1 ? &b : j == 2 ? &c : &d;
    uint8_t m = x->v[0];
    for (int i = 1; i < 16; ++i) m = x->v[i] < m ? x->v[i] : m;
    for (int i = j; i < 16; i += 4) r.v[i] = m;
  }
  return r;
}
static inline vf_u8x16 vf_u8x16_bcast(vf_u8x16 v, int i) { return vf_u8x16_set1(v.v[i]); }
static inline vf_i16x8 vf_u8x16_widen_lo(vf_u8x16 v) {
  vf_i16x8 r;
  for (int i = 0; i < 8; ++i) r.v[i] = v.v[i];
  return r;
}
static inline vf_i16x8 vf_u8x16_widen_hi(vf_u8x16 v) {
  vf_i16x8 r;
  for (int i = 0; i < 8; ++i) r.v[i] = v.v[8 + i];
  return r;
}
static inline vf_u8x16 vf_u8x16_narrow(vf_i16x8 lo, vf_i16x8 hi) {
  vf_u8x16 r;
  for (int i = 0; i < 8; ++i) {
    r.v[i] = (uint8_t)lo.v[i];
    r.v[8 + i] = (uint8_t)hi.v[i];
  }
  return r;
}

static inline vf_i16x8 vf_i16x8_load(const void* p) {
  vf_i16x8 r;
  memcpy(r.v, p, sizeof r.v);
  return r;
}
static inline void vf_i16x8_store(void* p, vf_i16x8 v) { memcpy(p, v.v, sizeof v.v); }
static inline vf_i16x8 vf_i16x8_from_u8(const uint8_t* p) {
  vf_i16x8 r;
  for (int i = 0; i < 8; ++i) r.v[i] = p[i];
  return r;
}
static inline vf_i16x8 vf_i16x8_load_pairs(const uint8_t* p) {
  vf_i16x8 r;
  for (int i = 0; i < 8; ++i) r.v[i] = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
  return r;
}
static inline void vf_i16x8_to_f4(vf_i16x8 v, vf_f4* lo, vf_f4* hi) {
  for (int i = 0; i < 4; ++i) {
    lo->v[i] = (float)v.v[i];
    hi->v[i] = (float)v.v[4 + i];
  }
}
static inline void vf_i16x8_stream(void* p, vf_i16x8 v) { memcpy(p, v.v, sizeof v.v); }
static inline void vf_simd16_fence(void) {}
static inline vf_i16x8 vf_i16x8_set1(int16_t x) {
  vf_i16x8 r;
  for (int i = 0; i < 8; ++i) r.v[i] = (uint16_t)x;
  return r;
}
static inline vf_i16x8 vf_i16x8_add(vf_i16x8 a, vf_i16x8 b) {
  for (int i = 0; i < 8; ++i) a.v[i] = (uint16_t)(a.v[i] + b.v[i]);
  return a;
}
static inline vf_i16x8 vf_i16x8_min(vf_i16x8 a, vf_i16x8 b) {
  for (int i = 0; i < 8; ++i) a.v[i] = (int16_t)a.v[i] < (int16_t)b.v[i] ? a.v[i] : b.v[i];
  return a;
}
static inline vf_i16x8 vf_i16x8_and(vf_i16x8 a, vf_i16x8 b) {
  for (int i = 0; i < 8; ++i) a.v[i] &= b.v[i];
  return a;
}
static inline vf_i16x8 vf_i16x8_or(vf_i16x8 a, vf_i16x8 b) {
  for (int i = 0; i < 8; ++i) a.v[i] |= b.v[i];
  return a;
}
static inline vf_i16x8 vf_i16x8_shl(vf_i16x8 v, int n) {
  for (int i = 0; i < 8; ++i) v.v[i] = (uint16_t)(v.v[i] << n);
  return v;
}
static inline vf_i16x8 vf_i16x8_shr(vf_i16x8 v, int n) {
  for (int i = 0; i < 8; ++i) v.v[i] = (uint16_t)(v.v[i] >> n);
  return v;
}
static inline int vf_i16x8_min_lanes(vf_i16x8 v) {
  int m = (int16_t)v.v[0];
  for (int i = 1; i < 8; ++i) m = (int16_t)v.v[i] < m ? (int16_t)v.v[i] : m;
  return m;
}

#endif

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* Eight bilinear samples at once for the CPU remap (src/geometry/cpu/vf_remap_cpu.c), in the
 * remap's integer arithmetic: top = a (256 - fx) + b fx, bottom the same one row down, then
 * (top (256 - fy) + bottom fy + 2^15) >> 16, with weights fx, fy in 0..256. The same paths as
 * vf_simd16.h (SSE2, NEON, plain C), all exact, so all three give the CUDA kernel's bits. Why
 * not the vectorizer: the source pairs sit at unrelated addresses (a gather), and SSE2 has no
 * 32-bit multiply, which this header replaces by two 16-bit multiply-adds. */
#ifndef VF_SIMD_BILINEAR_H
#define VF_SIMD_BILINEAR_H

#include <stdint.h>
#include <string.h>

#include "core/vf_simd16.h"

/* Two unaligned bytes as one little-endian 16-bit word. */
static inline uint16_t vf_load_pair(const uint8_t* p) { return (uint16_t)(p[0] | (p[1] << 8)); }

#if defined(__SSE2__) && !defined(VF_SIMD4_PORTABLE)

/* Bytes base[off[i]] and base[off[i] + 1] in lanes 2i and 2i + 1, i = 0..7. */
static inline vf_u8x16 vf_u8x16_gather_pairs(const uint8_t* base, const int32_t* off) {
  return _mm_setr_epi16((short)vf_load_pair(base + off[0]), (short)vf_load_pair(base + off[1]),
                        (short)vf_load_pair(base + off[2]), (short)vf_load_pair(base + off[3]),
                        (short)vf_load_pair(base + off[4]), (short)vf_load_pair(base + off[5]),
                        (short)vf_load_pair(base + off[6]), (short)vf_load_pair(base + off[7]));
}
/* p[0..7] in lanes 0..7 (8 bytes read), lanes 8..15 zero. */
static inline vf_u8x16 vf_u8x16_load_lo8(const uint8_t* p) {
  return _mm_loadl_epi64((const __m128i*)p);
}
static inline void vf_u8x16_store_lo8(uint8_t* p, vf_u8x16 v) { _mm_storel_epi64((__m128i*)p, v); }
/* Lanes of a where mask is 0xFF, of b where it is 0. */
static inline vf_u8x16 vf_u8x16_select(vf_u8x16 mask, vf_u8x16 a, vf_u8x16 b) {
  return _mm_or_si128(_mm_and_si128(mask, a), _mm_andnot_si128(mask, b));
}
/* Four samples: t, b are the rows' 32-bit blends (< 2^16), wy the (256 - fy, fy) pairs.
 * t = 256 t_hi + t_lo, so t (256 - fy) + b fy = 256 madd(hi bytes) + madd(lo bytes). */
static inline __m128i vf_bilinear4_sse2(__m128i t, __m128i b, __m128i wy) {
  const __m128i tb = _mm_or_si128(t, _mm_slli_epi32(b, 16));
  const __m128i hi = _mm_madd_epi16(_mm_srli_epi16(tb, 8), wy);
  const __m128i lo = _mm_madd_epi16(_mm_and_si128(tb, _mm_set1_epi16(255)), wy);
  const __m128i sum =
      _mm_add_epi32(_mm_add_epi32(_mm_slli_epi32(hi, 8), lo), _mm_set1_epi32(32768));
  return _mm_srli_epi32(sum, 16);
}
/* The 8 samples of the pairs top (row y0) and bot (row y0 + 1) in lanes 0..7. */
static inline vf_u8x16 vf_u8x16_bilinear8(vf_u8x16 top, vf_u8x16 bot, vf_i16x8 fx, vf_i16x8 fy) {
  const __m128i z = _mm_setzero_si128(), k256 = _mm_set1_epi16(256);
  const __m128i wx0 = _mm_sub_epi16(k256, fx), wy0 = _mm_sub_epi16(k256, fy);
  const __m128i wx_lo = _mm_unpacklo_epi16(wx0, fx), wx_hi = _mm_unpackhi_epi16(wx0, fx);
  const __m128i t_lo = _mm_madd_epi16(_mm_unpacklo_epi8(top, z), wx_lo);
  const __m128i t_hi = _mm_madd_epi16(_mm_unpackhi_epi8(top, z), wx_hi);
  const __m128i b_lo = _mm_madd_epi16(_mm_unpacklo_epi8(bot, z), wx_lo);
  const __m128i b_hi = _mm_madd_epi16(_mm_unpackhi_epi8(bot, z), wx_hi);
  const __m128i r_lo = vf_bilinear4_sse2(t_lo, b_lo, _mm_unpacklo_epi16(wy0, fy));
  const __m128i r_hi = vf_bilinear4_sse2(t_hi, b_hi, _mm_unpackhi_epi16(wy0, fy));
  const __m128i r16 = _mm_packs_epi32(r_lo, r_hi);
  return _mm_packus_epi16(r16, r16);
}

#elif defined(__ARM_NEON) && defined(__aarch64__) && !defined(__ARM_BIG_ENDIAN) && \
    !defined(VF_SIMD4_PORTABLE)

static inline vf_u8x16 vf_u8x16_gather_pairs(const uint8_t* base, const int32_t* off) {
  uint16_t w[8];
  for (int i = 0; i < 8; ++i) w[i] = vf_load_pair(base + off[i]);
  return vreinterpretq_u8_u16(vld1q_u16(w));
}
static inline vf_u8x16 vf_u8x16_load_lo8(const uint8_t* p) {
  return vcombine_u8(vld1_u8(p), vdup_n_u8(0));
}
static inline void vf_u8x16_store_lo8(uint8_t* p, vf_u8x16 v) { vst1_u8(p, vget_low_u8(v)); }
static inline vf_u8x16 vf_u8x16_select(vf_u8x16 mask, vf_u8x16 a, vf_u8x16 b) {
  return vbslq_u8(mask, a, b);
}
/* One row's blends: a (256 - fx) + b fx for pixels 0..3 (lo) and 4..7 (hi). */
static inline void vf_bilinear_row_neon(vf_u8x16 pairs, uint16x8_t w0, uint16x8_t w1,
                                        uint32x4_t* lo, uint32x4_t* hi) {
  const uint16x8_t a = vmovl_u8(vget_low_u8(vuzp1q_u8(pairs, pairs)));
  const uint16x8_t b = vmovl_u8(vget_low_u8(vuzp2q_u8(pairs, pairs)));
  *lo = vmlal_u16(vmull_u16(vget_low_u16(a), vget_low_u16(w0)), vget_low_u16(b), vget_low_u16(w1));
  *hi = vmlal_high_u16(vmull_high_u16(a, w0), b, w1);
}
static inline vf_u8x16 vf_u8x16_bilinear8(vf_u8x16 top, vf_u8x16 bot, vf_i16x8 fx, vf_i16x8 fy) {
  const uint16x8_t k256 = vdupq_n_u16(256);
  const uint16x8_t wx1 = vreinterpretq_u16_s16(fx), wy1 = vreinterpretq_u16_s16(fy);
  const uint16x8_t wx0 = vsubq_u16(k256, wx1), wy0 = vsubq_u16(k256, wy1);
  uint32x4_t t_lo, t_hi, b_lo, b_hi;
  vf_bilinear_row_neon(top, wx0, wx1, &t_lo, &t_hi);
  vf_bilinear_row_neon(bot, wx0, wx1, &b_lo, &b_hi);
  const uint32x4_t half = vdupq_n_u32(32768);
  uint32x4_t r_lo = vmulq_u32(t_lo, vmovl_u16(vget_low_u16(wy0)));
  r_lo = vmlaq_u32(r_lo, b_lo, vmovl_u16(vget_low_u16(wy1)));
  uint32x4_t r_hi = vmulq_u32(t_hi, vmovl_high_u16(wy0));
  r_hi = vmlaq_u32(r_hi, b_hi, vmovl_high_u16(wy1));
  r_lo = vshrq_n_u32(vaddq_u32(r_lo, half), 16);
  r_hi = vshrq_n_u32(vaddq_u32(r_hi, half), 16);
  const uint8x8_t r = vmovn_u16(vcombine_u16(vmovn_u32(r_lo), vmovn_u32(r_hi)));
  return vcombine_u8(r, vdup_n_u8(0));
}

#else

static inline vf_u8x16 vf_u8x16_gather_pairs(const uint8_t* base, const int32_t* off) {
  vf_u8x16 r;
  for (int i = 0; i < 8; ++i) {
    r.v[2 * i] = base[off[i]];
    r.v[2 * i + 1] = base[off[i] + 1];
  }
  return r;
}
static inline vf_u8x16 vf_u8x16_load_lo8(const uint8_t* p) {
  vf_u8x16 r;
  memset(r.v, 0, sizeof r.v);
  memcpy(r.v, p, 8);
  return r;
}
static inline void vf_u8x16_store_lo8(uint8_t* p, vf_u8x16 v) { memcpy(p, v.v, 8); }
static inline vf_u8x16 vf_u8x16_select(vf_u8x16 mask, vf_u8x16 a, vf_u8x16 b) {
  for (int i = 0; i < 16; ++i) a.v[i] = (uint8_t)((mask.v[i] & a.v[i]) | (~mask.v[i] & b.v[i]));
  return a;
}
static inline vf_u8x16 vf_u8x16_bilinear8(vf_u8x16 top, vf_u8x16 bot, vf_i16x8 fx, vf_i16x8 fy) {
  vf_u8x16 r;
  memset(r.v, 0, sizeof r.v);
  for (int i = 0; i < 8; ++i) {
    const int32_t wx = fx.v[i], wy = fy.v[i];
    const int32_t t = top.v[2 * i] * (256 - wx) + top.v[2 * i + 1] * wx;
    const int32_t b = bot.v[2 * i] * (256 - wx) + bot.v[2 * i + 1] * wx;
    r.v[i] = (uint8_t)((t * (256 - wy) + b * wy + 32768) >> 16);
  }
  return r;
}

#endif

#endif

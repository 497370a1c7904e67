// SPDX-License-Identifier: BSD-3-Clause
/* Sums of absolute differences on vf_simd16.h's 8 lanes of 16 bits, for the CPU sparse stereo
 * search (src/features/cpu/vf_stereo_match_run_cpu.c): max(a - b, 0) of unsigned lanes, a == b
 * as a lane mask, and the dot product of two vectors of signed lanes as one 32-bit integer. SSE2
 * on x86-64, NEON on AArch64, plain C elsewhere and wherever VF_SIMD4_PORTABLE is defined, the
 * path vf_simd16.h takes. Integer operations only, so all three paths give the same bits; the
 * dot product is exact while its sum fits 32 bits. */
#ifndef VF_SIMD16_SAD_H
#define VF_SIMD16_SAD_H

#include <stdint.h>

#include "core/vf_simd16.h"

#if defined(__SSE2__) && !defined(VF_SIMD4_PORTABLE)
#define VF_SIMD16_SAD_PATH "SSE2" /* the path taken, for the tests' logs */

/* a - b where a > b, else 0 (lanes unsigned). */
static inline vf_i16x8 vf_i16x8_subs_u(vf_i16x8 a, vf_i16x8 b) { return _mm_subs_epu16(a, b); }
/* All bits set where a == b, else 0. */
static inline vf_i16x8 vf_i16x8_eq(vf_i16x8 a, vf_i16x8 b) { return _mm_cmpeq_epi16(a, b); }
static inline int32_t vf_i16x8_dot(vf_i16x8 a, vf_i16x8 b) {
  __m128i s = _mm_madd_epi16(a, b);
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_cvtsi128_si32(s);
}

#elif defined(__ARM_NEON) && defined(__aarch64__) && !defined(__ARM_BIG_ENDIAN) && \
    !defined(VF_SIMD4_PORTABLE)
#define VF_SIMD16_SAD_PATH "NEON"

static inline vf_i16x8 vf_i16x8_subs_u(vf_i16x8 a, vf_i16x8 b) {
  return vreinterpretq_s16_u16(vqsubq_u16(vreinterpretq_u16_s16(a), vreinterpretq_u16_s16(b)));
}
static inline vf_i16x8 vf_i16x8_eq(vf_i16x8 a, vf_i16x8 b) {
  return vreinterpretq_s16_u16(vceqq_s16(a, b));
}
static inline int32_t vf_i16x8_dot(vf_i16x8 a, vf_i16x8 b) {
  const int32x4_t lo = vmull_s16(vget_low_s16(a), vget_low_s16(b));
  return vaddvq_s32(vmlal_high_s16(lo, a, b));
}

#else
#define VF_SIMD16_SAD_PATH "plain C"

static inline vf_i16x8 vf_i16x8_subs_u(vf_i16x8 a, vf_i16x8 b) {
  for (int i = 0; i < 8; ++i) a.v[i] = (uint16_t)(a.v[i] > b.v[i] ? a.v[i] - b.v[i] : 0);
  return a;
}
static inline vf_i16x8 vf_i16x8_eq(vf_i16x8 a, vf_i16x8 b) {
  for (int i = 0; i < 8; ++i) a.v[i] = a.v[i] == b.v[i] ? 0xFFFFu : 0u;
  return a;
}
static inline int32_t vf_i16x8_dot(vf_i16x8 a, vf_i16x8 b) {
  int32_t s = 0;
  for (int i = 0; i < 8; ++i) s += (int32_t)(int16_t)a.v[i] * (int16_t)b.v[i];
  return s;
}

#endif

#endif

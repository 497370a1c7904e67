// SPDX-License-Identifier: BSD-3-Clause
/* Sums of absolute differences on vf_simd16.h's 8 lanes of 16 bits, for the CPU sparse stereo
 * search (src/features/cpu/vf_stereo_match_run_cpu.c): max(a - b, 0) of unsigned lanes, a == b
 * as a lane mask, and products of signed lanes summed in pairs into 4 lanes of 32 bits
 * (vf_i32x4), those summed, and the dot product. SSE2 on x86-64, NEON on AArch64, plain C
 * elsewhere and wherever VF_SIMD4_PORTABLE is defined, the path vf_simd16.h takes. Integer
 * operations only, so all three paths give the same bits; the 32-bit sums are exact while they
 * fit 32 bits. */
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
typedef __m128i vf_i32x4;
/* Lane i: a[2 i] b[2 i] + a[2 i + 1] b[2 i + 1]. */
static inline vf_i32x4 vf_i16x8_madd(vf_i16x8 a, vf_i16x8 b) { return _mm_madd_epi16(a, b); }
static inline vf_i32x4 vf_i32x4_zero(void) { return _mm_setzero_si128(); }
static inline vf_i32x4 vf_i32x4_add(vf_i32x4 a, vf_i32x4 b) { return _mm_add_epi32(a, b); }
static inline int32_t vf_i32x4_sum(vf_i32x4 s) {
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
typedef int32x4_t vf_i32x4;
static inline vf_i32x4 vf_i16x8_madd(vf_i16x8 a, vf_i16x8 b) {
  return vpaddq_s32(vmull_s16(vget_low_s16(a), vget_low_s16(b)), vmull_high_s16(a, b));
}
static inline vf_i32x4 vf_i32x4_zero(void) { return vdupq_n_s32(0); }
static inline vf_i32x4 vf_i32x4_add(vf_i32x4 a, vf_i32x4 b) { return vaddq_s32(a, b); }
static inline int32_t vf_i32x4_sum(vf_i32x4 s) { return vaddvq_s32(s); }

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
typedef struct vf_i32x4 {
  uint32_t v[4]; /* unsigned storage: wrapping adds */
} vf_i32x4;
static inline vf_i32x4 vf_i16x8_madd(vf_i16x8 a, vf_i16x8 b) {
  vf_i32x4 r;
  for (int i = 0; i < 4; ++i)
    r.v[i] = (uint32_t)((int32_t)(int16_t)a.v[2 * i] * (int16_t)b.v[2 * i]) +
             (uint32_t)((int32_t)(int16_t)a.v[2 * i + 1] * (int16_t)b.v[2 * i + 1]);
  return r;
}
static inline vf_i32x4 vf_i32x4_zero(void) {
  const vf_i32x4 z = {{0, 0, 0, 0}};
  return z;
}
static inline vf_i32x4 vf_i32x4_add(vf_i32x4 a, vf_i32x4 b) {
  for (int i = 0; i < 4; ++i) a.v[i] += b.v[i];
  return a;
}
static inline int32_t vf_i32x4_sum(vf_i32x4 s) {
  return (int32_t)(s.v[0] + s.v[1] + s.v[2] + s.v[3]);
}

#endif

/* The sum of a[i] b[i]. */
static inline int32_t vf_i16x8_dot(vf_i16x8 a, vf_i16x8 b) {
  return vf_i32x4_sum(vf_i16x8_madd(a, b));
}

#endif

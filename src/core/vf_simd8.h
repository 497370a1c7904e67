// SPDX-License-Identifier: BSD-3-Clause
/* Eight-lane float arithmetic for the CPU tracker's patch loops where the x86-64 CPU has AVX2
 * (vf_cpu_avx2.h: every function here is compiled for AVX2 alone, VF_SIMD8_TARGET, and may run
 * only where vf_simd8_available says so). A loop in 8 lanes does per lane the IEEE
 * single-precision operations of vf_simd4.h's 4 lanes, in the same order, none fused (no FMA
 * target: the library builds with -ffp-contract=off), and keeps each lane's running sum on the
 * same samples as the 4-lane loop: the results are the same bits. Defined where VF_AVX2 is;
 * VF_SIMD8 says whether it is. vf_f8: 8 floats; vf_m8: 8 lane masks. */
#ifndef VF_SIMD8_H
#define VF_SIMD8_H

#include "core/vf_cpu_avx2.h"
#include "core/vf_simd4.h"

#ifdef VF_AVX2
#define VF_SIMD8 1
#define VF_SIMD8_TARGET VF_AVX2_TARGET

typedef __m256 vf_f8;
typedef __m256 vf_m8; /* all bits set = true */

static inline int vf_simd8_available(void) { return vf_cpu_avx2(); }

static inline VF_SIMD8_TARGET vf_f8 vf_f8_set1(float x) { return _mm256_set1_ps(x); }
static inline VF_SIMD8_TARGET vf_f8 vf_f8_zero(void) { return _mm256_setzero_ps(); }
/* Loads and stores need no alignment. */
static inline VF_SIMD8_TARGET vf_f8 vf_f8_load(const float* p) { return _mm256_loadu_ps(p); }
static inline VF_SIMD8_TARGET void vf_f8_store(float* p, vf_f8 x) { _mm256_storeu_ps(p, x); }
static inline VF_SIMD8_TARGET vf_f8 vf_f8_add(vf_f8 a, vf_f8 b) { return _mm256_add_ps(a, b); }
static inline VF_SIMD8_TARGET vf_f8 vf_f8_sub(vf_f8 a, vf_f8 b) { return _mm256_sub_ps(a, b); }
static inline VF_SIMD8_TARGET vf_f8 vf_f8_mul(vf_f8 a, vf_f8 b) { return _mm256_mul_ps(a, b); }
/* p[0..7] as floats (reads exactly 8 bytes). */
static inline VF_SIMD8_TARGET vf_f8 vf_f8_from_u8(const uint8_t* p) {
  return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i*)p)));
}
/* lo <= x <= hi (false for NaN), as vf_f4_in_range. */
static inline VF_SIMD8_TARGET vf_m8 vf_f8_in_range(vf_f8 x, float lo, float hi) {
  return _mm256_and_ps(_mm256_cmp_ps(x, _mm256_set1_ps(lo), _CMP_GE_OQ),
                       _mm256_cmp_ps(x, _mm256_set1_ps(hi), _CMP_LE_OQ));
}
/* x where m, else +0. */
static inline VF_SIMD8_TARGET vf_f8 vf_f8_select(vf_m8 m, vf_f8 x) { return _mm256_and_ps(m, x); }
/* Lanes 0..3 and 4..7 as 4-lane vectors. */
static inline VF_SIMD8_TARGET vf_f4 vf_f8_lo(vf_f8 x) { return _mm256_castps256_ps128(x); }
static inline VF_SIMD8_TARGET vf_f4 vf_f8_hi(vf_f8 x) { return _mm256_extractf128_ps(x, 1); }

/* lo in lanes 0..3 and hi in 4..7; the same from two 4-float places, and back to two. */
static inline VF_SIMD8_TARGET vf_f8 vf_f8_halves(vf_f4 lo, vf_f4 hi) {
  return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}
static inline VF_SIMD8_TARGET vf_f8 vf_f8_pair(float lo, float hi) {
  return vf_f8_halves(_mm_set1_ps(lo), _mm_set1_ps(hi));
}
static inline VF_SIMD8_TARGET vf_f8 vf_f8_load_halves(const float* lo, const float* hi) {
  return vf_f8_halves(_mm_loadu_ps(lo), _mm_loadu_ps(hi));
}
static inline VF_SIMD8_TARGET void vf_f8_store_halves(float* lo, float* hi, vf_f8 x) {
  _mm_storeu_ps(lo, vf_f8_lo(x));
  _mm_storeu_ps(hi, vf_f8_hi(x));
}

/* x and y truncated towards zero as floats (fx, fy), and (int y << shift) + int x of each lane
 * in idx (as vf_f4_trunc_index, 8 lanes). */
static inline VF_SIMD8_TARGET void vf_f8_trunc_index(vf_f8 x, vf_f8 y, int shift, vf_f8* fx,
                                                     vf_f8* fy, uint32_t idx[8]) {
  const __m256i ix = _mm256_cvttps_epi32(x), iy = _mm256_cvttps_epi32(y);
  *fx = _mm256_cvtepi32_ps(ix);
  *fy = _mm256_cvtepi32_ps(iy);
  _mm256_storeu_si256((__m256i*)idx,
                      _mm256_add_epi32(_mm256_sll_epi32(iy, _mm_cvtsi32_si128(shift)), ix));
}

static inline VF_SIMD8_TARGET vf_m8 vf_m8_none(void) { return _mm256_setzero_ps(); }
static inline VF_SIMD8_TARGET vf_m8 vf_m8_load(const uint32_t* p) {
  return _mm256_loadu_ps((const float*)p);
}
static inline VF_SIMD8_TARGET void vf_m8_store(uint32_t* p, vf_m8 m) {
  _mm256_storeu_ps((float*)p, m);
}
/* Lanes 0 .. n - 1 set. */
static inline VF_SIMD8_TARGET vf_m8 vf_m8_first(int n) {
  return _mm256_castsi256_ps(
      _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
}
static inline VF_SIMD8_TARGET vf_m8 vf_m8_and(vf_m8 a, vf_m8 b) { return _mm256_and_ps(a, b); }
static inline VF_SIMD8_TARGET vf_m8 vf_m8_or(vf_m8 a, vf_m8 b) { return _mm256_or_ps(a, b); }
/* a and not b. */
static inline VF_SIMD8_TARGET vf_m8 vf_m8_and_not(vf_m8 a, vf_m8 b) {
  return _mm256_andnot_ps(b, a);
}
static inline VF_SIMD8_TARGET int vf_m8_bits(vf_m8 m) { return _mm256_movemask_ps(m); }

#endif

#endif

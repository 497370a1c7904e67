// SPDX-License-Identifier: BSD-3-Clause
/* The CPU tracker's patch sums (src/features/kernels/vf_lk_rules.h's model): the right-hand side of
 * each Gauss-Newton step in one pass over the current samples, 4 lanes at a time, the current
 * image's saturation as a mask; and the share of H of the samples saturated in the current
 * image (which leave H), followed from one iteration to the next. */
#include <string.h>

#include "core/vf_simd4.h"
#include "core/vf_simd8.h"
#include "features/cpu/vf_lk_cpu_patch.h"

/* Columns col0, col0 + 4, ...: the sums into d[0..4], the saturation into *sat. Each lane sums
 * its column top to bottom in float; the columns go into d in order. */
static inline void vf_lk_patch_sums4_from(const vf_lk_patch* tp, const float* cur, float c,
                                          float inv_a, int col0, vf_d4 d[5], vf_m4* sat) {
  const int end = tp->size * tp->width;
  const vf_f4 c4 = vf_f4_set1(c), inv_a4 = vf_f4_set1(inv_a);
  vf_d4 d0 = d[0], d1 = d[1], d2 = d[2], d3 = d[3], d4 = d[4];
  vf_m4 saturated = *sat;
  for (int col = col0; col < tp->width; col += 4) {
    vf_f4 a0 = vf_f4_zero(), a1 = a0, a2 = a0, a3 = a0, a4 = a0;
    for (int i = col; i < end; i += tp->width) {
      const vf_f4 v = vf_f4_load(cur + i), t = vf_f4_load(tp->t + i);
      const vf_m4 use = vf_m4_load(tp->use + i);
      const vf_m4 ok = vf_m4_and(use, vf_f4_in_range(v, 1.0f, 254.0f));
      saturated = vf_m4_or(saturated, vf_m4_and_not(use, ok));
      const vf_f4 e = vf_f4_select(ok, vf_f4_sub(vf_f4_mul(vf_f4_sub(v, c4), inv_a4), t));
      a0 = vf_f4_add(a0, vf_f4_mul(vf_f4_load(tp->tx + i), e));
      a1 = vf_f4_add(a1, vf_f4_mul(vf_f4_load(tp->ty + i), e));
      a2 = vf_f4_add(a2, vf_f4_mul(t, e));
      a3 = vf_f4_add(a3, e);
      a4 = vf_f4_add(a4, vf_f4_mul(e, e));
    }
    vf_d4_add_f4(&d0, a0);
    vf_d4_add_f4(&d1, a1);
    vf_d4_add_f4(&d2, a2);
    vf_d4_add_f4(&d3, a3);
    vf_d4_add_f4(&d4, a4);
  }
  d[0] = d0;
  d[1] = d1;
  d[2] = d2;
  d[3] = d3;
  d[4] = d4;
  *sat = saturated;
}

static int vf_lk_patch_sums_end(const vf_d4 d[5], vf_m4 saturated, double s[5]) {
  for (int k = 0; k < 5; ++k) s[k] = vf_d4_sum(d[k]);
  return vf_m4_bits(saturated) != 0;
}

int vf_lk_patch_sums4(const vf_lk_patch* tp, const float* cur, float c, float inv_a, double s[5]) {
  vf_d4 d[5];
  for (int k = 0; k < 5; ++k) d[k] = vf_d4_zero();
  vf_m4 saturated = vf_m4_none();
  vf_lk_patch_sums4_from(tp, cur, c, inv_a, 0, d, &saturated);
  return vf_lk_patch_sums_end(d, saturated, s);
}

#ifdef VF_SIMD8
/* Two columns at once: lanes 0..3 are column col's, 4..7 column col + 4's, each summed top to
 * bottom as in 4 lanes, and added to d in that order. */
VF_SIMD8_TARGET int vf_lk_patch_sums8(const vf_lk_patch* tp, const float* cur, float c, float inv_a,
                                      double s[5]) {
  const int end = tp->size * tp->width;
  const vf_f8 c8 = vf_f8_set1(c), inv_a8 = vf_f8_set1(inv_a);
  vf_d4 d[5];
  for (int k = 0; k < 5; ++k) d[k] = vf_d4_zero();
  vf_m8 saturated8 = vf_m8_none();
  int col = 0;
  for (; col + 8 <= tp->width; col += 8) {
    vf_f8 a[5];
    for (int k = 0; k < 5; ++k) a[k] = vf_f8_zero();
    for (int i = col; i < end; i += tp->width) {
      const vf_f8 v = vf_f8_load(cur + i), t = vf_f8_load(tp->t + i);
      const vf_m8 use = vf_m8_load(tp->use + i);
      const vf_m8 ok = vf_m8_and(use, vf_f8_in_range(v, 1.0f, 254.0f));
      saturated8 = vf_m8_or(saturated8, vf_m8_and_not(use, ok));
      const vf_f8 e = vf_f8_select(ok, vf_f8_sub(vf_f8_mul(vf_f8_sub(v, c8), inv_a8), t));
      a[0] = vf_f8_add(a[0], vf_f8_mul(vf_f8_load(tp->tx + i), e));
      a[1] = vf_f8_add(a[1], vf_f8_mul(vf_f8_load(tp->ty + i), e));
      a[2] = vf_f8_add(a[2], vf_f8_mul(t, e));
      a[3] = vf_f8_add(a[3], e);
      a[4] = vf_f8_add(a[4], vf_f8_mul(e, e));
    }
    for (int k = 0; k < 5; ++k) {
      vf_d4_add_f4(&d[k], vf_f8_lo(a[k]));
      vf_d4_add_f4(&d[k], vf_f8_hi(a[k]));
    }
  }
  vf_m4 saturated = vf_m4_or(vf_f8_lo(saturated8), vf_f8_hi(saturated8));
  vf_lk_patch_sums4_from(tp, cur, c, inv_a, col, d, &saturated);
  return vf_lk_patch_sums_end(d, saturated, s);
}
#endif

int vf_lk_patch_sums(const vf_lk_patch* tp, const float* cur, float c, float inv_a, double s[5]) {
#ifdef VF_SIMD8
  if (vf_simd8_available()) return vf_lk_patch_sums8(tp, cur, c, inv_a, s);
#endif
  return vf_lk_patch_sums4(tp, cur, c, inv_a, s);
}

void vf_lk_patch_saturated_set(const vf_lk_patch* tp, const float* cur,
                               uint64_t set[VF_LK_SET_WORDS]) {
  memset(set, 0, VF_LK_SET_WORDS * sizeof *set);
  for (int i = 0; i < tp->size * tp->width; i += 4) {
    const vf_m4 ok = vf_f4_in_range(vf_f4_load(cur + i), 1.0f, 254.0f);
    const uint64_t bits = (uint64_t)vf_m4_bits(vf_m4_and_not(vf_m4_load(tp->use + i), ok));
    set[i / 64] |= bits << (i % 64);
  }
}

/* Index of the lowest set bit of x != 0. */
static inline int vf_lk_lowest_bit(uint64_t x) {
#if defined(__GNUC__)
  return __builtin_ctzll(x);
#else
  int b = 0;
  for (; !(x & 1u); x >>= 1) ++b;
  return b;
#endif
}

void vf_lk_patch_leave(vf_lk_patch* tp, const uint64_t more[VF_LK_SET_WORDS],
                       uint64_t left_out[VF_LK_SET_WORDS], double h_out[10]) {
  for (int w = 0; w < VF_LK_SET_WORDS; ++w) {
    for (uint64_t add = more[w] & ~left_out[w]; add != 0; add &= add - 1) {
      const int i = 64 * w + vf_lk_lowest_bit(add);
      float terms[10];
      vf_lk_hessian_terms(tp->tx[i], tp->ty[i], tp->t[i], terms);
      for (int j = 0; j < 10; ++j) h_out[j] += terms[j];
      tp->use[i] = 0;
    }
    left_out[w] |= more[w];
  }
}

// SPDX-License-Identifier: BSD-3-Clause
/* The CPU tracker's patch sums (src/features/kernels/vf_lk_rules.h's model): the right-hand side of
 * each Gauss-Newton step in one pass over the current samples, 4 lanes at a time, the current
 * image's saturation as a mask; and the share of H of the samples saturated in the current
 * image (which leave H), followed from one iteration to the next. */
#include <string.h>

#include "core/vf_simd4.h"
#include "features/cpu/vf_lk_cpu_patch.h"

int vf_lk_patch_sums(const vf_lk_patch* tp, const float* cur, float c, float inv_a, double s[5]) {
  const int end = tp->size * tp->width;
  const vf_f4 c4 = vf_f4_set1(c), inv_a4 = vf_f4_set1(inv_a);
  vf_d4 d0 = vf_d4_zero(), d1 = d0, d2 = d0, d3 = d0, d4 = d0;
  vf_m4 saturated = vf_m4_none();
  for (int col = 0; col < tp->width; col += 4) {
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
  s[0] = vf_d4_sum(d0);
  s[1] = vf_d4_sum(d1);
  s[2] = vf_d4_sum(d2);
  s[3] = vf_d4_sum(d3);
  s[4] = vf_d4_sum(d4);
  return vf_m4_bits(saturated) != 0;
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

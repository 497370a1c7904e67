// SPDX-License-Identifier: BSD-3-Clause
/* The CPU tracker's template of one level (vf_lk_patch): sampled from the previous image or a
 * first-observation slot, then centred, masked and summed into H once per level, so that the
 * iterations' loop (vf_lk_cpu_sums.c) needs no per-sample decisions of its own. */
#include <string.h>

#include "core/vf_simd4.h"
#include "core/vf_simd8.h"
#include "features/cpu/vf_lk_cpu_patch.h"

void vf_lk_patch_extract(vf_lk_patch* tp, const uint8_t* img, size_t stride,
                         const vf_lk_sampler* s) {
  const int n = tp->size, w = tp->width;
  /* Sample (r, c) of the window is the bilinear image at sample (r - 1, c - 1) of the patch:
   * T and its central differences (vf_lk_template_pixel) read it at the same float values. */
  const uint8_t* corner = img + (size_t)(s->y0 - 1) * stride + (size_t)(s->x0 - 1);
  /* In 4 lanes even where 8 exist: the centring reads the window at odd offsets right after,
   * and a read across two 32-byte stores waits for both to leave the store buffer (with 8 lanes
   * here vf_bench's tracker was slower than with 4 throughout; docs/perf/tracker.md). */
  vf_lk_cpu_resample4(corner, stride, s, n + 2, w + 2, n + 3, tp->win, w + 4);
  tp->windowed = 1;
}

void vf_lk_patch_store(const vf_lk_patch* tp, float* slot) {
  const int n = tp->size, area = n * n, ws = tp->width + 4;
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      const float* q = tp->win + (r + 1) * ws + c + 1;
      const int i = r * n + c;
      slot[i] = q[0];
      slot[area + i] = 0.5f * (q[1] - q[-1]);
      slot[2 * area + i] = 0.5f * (q[ws] - q[-ws]);
    }
  }
}

void vf_lk_patch_load(vf_lk_patch* tp, const float* slot) {
  const int n = tp->size, area = n * n;
  /* Padded lanes must hold numbers (vf_lk_patch_prepare zeroes them). */
  memset(tp->t, 0, sizeof tp->t);
  memset(tp->tx, 0, sizeof tp->tx);
  memset(tp->ty, 0, sizeof tp->ty);
  for (int r = 0; r < n; ++r) {
    const size_t bytes = (size_t)n * sizeof(float);
    memcpy(tp->t + r * tp->width, slot + r * n, bytes);
    memcpy(tp->tx + r * tp->width, slot + area + r * n, bytes);
    memcpy(tp->ty + r * tp->width, slot + 2 * area + r * n, bytes);
  }
}

/* Use masks (unsaturated T inside the patch) of columns c0 on, their count and the sum of the
 * used T added to *count and *sum; T of sample (r, c) at src[r * src_stride + c]. */
static void vf_lk_patch_mask_from(vf_lk_patch* tp, const float* src, int src_stride, int c0,
                                  vf_d4* sum, vf_d4* count) {
  /* Sizes and rows in locals: the vector stores may alias the struct, which would reload them. */
  const int width = tp->width, size = tp->size;
  uint32_t* tu = tp->use;
  const vf_f4 one = vf_f4_set1(1.0f);
  for (int c = c0; c < width; c += 4) {
    const vf_m4 inside = vf_m4_first(size - c);
    vf_f4 acc = vf_f4_zero(), n = vf_f4_zero();
    for (int r = 0; r < size; ++r) {
      const vf_f4 t = vf_f4_loadu(src + r * src_stride + c);
      const vf_m4 use = vf_m4_and(inside, vf_f4_in_range(t, 1.0f, 254.0f));
      vf_m4_store(tu + r * width + c, use);
      acc = vf_f4_add(acc, vf_f4_select(use, t));
      n = vf_f4_add(n, vf_f4_select(use, one));
    }
    vf_d4_add_f4(sum, acc);
    vf_d4_add_f4(count, n);
  }
}

/* One group of the centring: t - mu, tx, ty where used, else 0, stored at i; H's sums. */
static inline void vf_lk_patch_center_group(vf_lk_patch* tp, int i, vf_m4 use, vf_f4 t0, vf_f4 tx0,
                                            vf_f4 ty0, vf_f4 m, vf_f4 a[9]) {
  const vf_f4 t = vf_f4_select(use, vf_f4_sub(t0, m));
  const vf_f4 tx = vf_f4_select(use, tx0);
  const vf_f4 ty = vf_f4_select(use, ty0);
  vf_f4_store(tp->t + i, t);
  vf_f4_store(tp->tx + i, tx);
  vf_f4_store(tp->ty + i, ty);
  a[0] = vf_f4_add(a[0], vf_f4_mul(tx, tx));
  a[1] = vf_f4_add(a[1], vf_f4_mul(tx, ty));
  a[2] = vf_f4_add(a[2], vf_f4_mul(ty, ty));
  a[3] = vf_f4_add(a[3], vf_f4_mul(tx, t));
  a[4] = vf_f4_add(a[4], vf_f4_mul(ty, t));
  a[5] = vf_f4_add(a[5], vf_f4_mul(t, t));
  a[6] = vf_f4_add(a[6], tx);
  a[7] = vf_f4_add(a[7], ty);
  a[8] = vf_f4_add(a[8], t);
}

/* t -= mu on the used samples, t, tx, ty = 0 elsewhere, and H = sum J J^T over them
 * (vf_lk_hessian_terms, 4 samples at a time), from t, tx, ty or from the window: columns c0 on,
 * added to h (the sums of the columns before c0), then into tp->h. */
static void vf_lk_patch_center_from(vf_lk_patch* tp, float mu, int c0, vf_d4 h[9]) {
  const int width = tp->width, size = tp->size, ws = width + 4;
  const uint32_t* pu = tp->use;
  const vf_f4 m = vf_f4_set1(mu), half = vf_f4_set1(0.5f);
  for (int c = c0; c < width; c += 4) {
    vf_f4 a[9];
    for (int j = 0; j < 9; ++j) a[j] = vf_f4_zero();
    if (tp->windowed) {
      for (int r = 0; r < size; ++r) {
        const int i = r * width + c;
        const float* q = tp->win + (r + 1) * ws + c + 1;
        const vf_f4 dx = vf_f4_sub(vf_f4_loadu(q + 1), vf_f4_loadu(q - 1));
        const vf_f4 dy = vf_f4_sub(vf_f4_loadu(q + ws), vf_f4_loadu(q - ws));
        vf_lk_patch_center_group(tp, i, vf_m4_load(pu + i), vf_f4_loadu(q), vf_f4_mul(half, dx),
                                 vf_f4_mul(half, dy), m, a);
      }
    } else {
      for (int r = 0; r < size; ++r) {
        const int i = r * width + c;
        vf_lk_patch_center_group(tp, i, vf_m4_load(pu + i), vf_f4_load(tp->t + i),
                                 vf_f4_load(tp->tx + i), vf_f4_load(tp->ty + i), m, a);
      }
    }
    for (int j = 0; j < 9; ++j) vf_d4_add_f4(&h[j], a[j]);
  }
  for (int j = 0; j < 9; ++j) tp->h[j] = vf_d4_sum(h[j]);
  tp->windowed = 0;
}

#ifdef VF_SIMD8
/* vf_lk_patch_mask and vf_lk_patch_center with columns c and c + 4 in one 8-lane vector (lanes
 * 4..7 the second column's), while two fit; the last 4 columns of a width of 12 as in 4 lanes.
 * Each lane sums down its column as in 4 lanes, and the columns go into the double sums in the
 * same order: the same bits. */
static VF_SIMD8_TARGET int vf_lk_patch_mask8(vf_lk_patch* tp, const float* src, int src_stride,
                                             double* sum_t) {
  const int width = tp->width, size = tp->size;
  uint32_t* tu = tp->use;
  const vf_f8 one = vf_f8_set1(1.0f);
  vf_d4 sum = vf_d4_zero(), count = vf_d4_zero();
  int c = 0;
  for (; c + 8 <= width; c += 8) {
    const vf_m8 inside = vf_m8_first(size - c);
    vf_f8 acc = vf_f8_zero(), n = vf_f8_zero();
    for (int r = 0; r < size; ++r) {
      const vf_f8 t = vf_f8_load(src + r * src_stride + c);
      const vf_m8 use = vf_m8_and(inside, vf_f8_in_range(t, 1.0f, 254.0f));
      vf_m8_store(tu + r * width + c, use);
      acc = vf_f8_add(acc, vf_f8_select(use, t));
      n = vf_f8_add(n, vf_f8_select(use, one));
    }
    vf_d4_add_f4(&sum, vf_f8_lo(acc));
    vf_d4_add_f4(&sum, vf_f8_hi(acc));
    vf_d4_add_f4(&count, vf_f8_lo(n));
    vf_d4_add_f4(&count, vf_f8_hi(n));
  }
  vf_lk_patch_mask_from(tp, src, src_stride, c, &sum, &count);
  *sum_t = vf_d4_sum(sum);
  return (int)vf_d4_sum(count);
}

static inline VF_SIMD8_TARGET void vf_lk_patch_center_group8(vf_lk_patch* tp, int i, vf_m8 use,
                                                             vf_f8 t0, vf_f8 tx0, vf_f8 ty0,
                                                             vf_f8 m, vf_f8 a[9]) {
  const vf_f8 t = vf_f8_select(use, vf_f8_sub(t0, m));
  const vf_f8 tx = vf_f8_select(use, tx0);
  const vf_f8 ty = vf_f8_select(use, ty0);
  vf_f8_store(tp->t + i, t);
  vf_f8_store(tp->tx + i, tx);
  vf_f8_store(tp->ty + i, ty);
  a[0] = vf_f8_add(a[0], vf_f8_mul(tx, tx));
  a[1] = vf_f8_add(a[1], vf_f8_mul(tx, ty));
  a[2] = vf_f8_add(a[2], vf_f8_mul(ty, ty));
  a[3] = vf_f8_add(a[3], vf_f8_mul(tx, t));
  a[4] = vf_f8_add(a[4], vf_f8_mul(ty, t));
  a[5] = vf_f8_add(a[5], vf_f8_mul(t, t));
  a[6] = vf_f8_add(a[6], tx);
  a[7] = vf_f8_add(a[7], ty);
  a[8] = vf_f8_add(a[8], t);
}

static VF_SIMD8_TARGET void vf_lk_patch_center8(vf_lk_patch* tp, float mu) {
  const int width = tp->width, size = tp->size, ws = width + 4;
  const uint32_t* pu = tp->use;
  const vf_f8 m = vf_f8_set1(mu), half = vf_f8_set1(0.5f);
  vf_d4 h[9];
  for (int j = 0; j < 9; ++j) h[j] = vf_d4_zero();
  int c = 0;
  for (; c + 8 <= width; c += 8) {
    vf_f8 a[9];
    for (int j = 0; j < 9; ++j) a[j] = vf_f8_zero();
    for (int r = 0; r < size; ++r) {
      const int i = r * width + c;
      const vf_m8 use = vf_m8_load(pu + i);
      if (tp->windowed) {
        const float* q = tp->win + (r + 1) * ws + c + 1;
        const vf_f8 dx = vf_f8_sub(vf_f8_load(q + 1), vf_f8_load(q - 1));
        const vf_f8 dy = vf_f8_sub(vf_f8_load(q + ws), vf_f8_load(q - ws));
        vf_lk_patch_center_group8(tp, i, use, vf_f8_load(q), vf_f8_mul(half, dx),
                                  vf_f8_mul(half, dy), m, a);
      } else {
        vf_lk_patch_center_group8(tp, i, use, vf_f8_load(tp->t + i), vf_f8_load(tp->tx + i),
                                  vf_f8_load(tp->ty + i), m, a);
      }
    }
    for (int j = 0; j < 9; ++j) {
      vf_d4_add_f4(&h[j], vf_f8_lo(a[j]));
      vf_d4_add_f4(&h[j], vf_f8_hi(a[j]));
    }
  }
  vf_lk_patch_center_from(tp, mu, c, h);
}
#endif

/* The 4-lane mask and centring, whole. */
static int vf_lk_patch_mask(vf_lk_patch* tp, const float* src, int src_stride, double* sum_t) {
  vf_d4 sum = vf_d4_zero(), count = vf_d4_zero();
  vf_lk_patch_mask_from(tp, src, src_stride, 0, &sum, &count);
  *sum_t = vf_d4_sum(sum);
  return (int)vf_d4_sum(count);
}

static void vf_lk_patch_center(vf_lk_patch* tp, float mu) {
  vf_d4 h[9];
  for (int j = 0; j < 9; ++j) h[j] = vf_d4_zero();
  vf_lk_patch_center_from(tp, mu, 0, h);
}

#ifndef VF_SIMD8
#define vf_lk_patch_mask8 vf_lk_patch_mask
#define vf_lk_patch_center8 vf_lk_patch_center
#endif

int vf_lk_patch_prepare_lanes(vf_lk_patch* tp, int center, int wide) {
  const int ws = tp->width + 4;
  const float* src = tp->windowed ? tp->win + ws + 1 : tp->t;
  const int stride = tp->windowed ? ws : tp->width;
  double sum_t;
  tp->count =
      wide ? vf_lk_patch_mask8(tp, src, stride, &sum_t) : vf_lk_patch_mask(tp, src, stride, &sum_t);
  if (tp->count == 0) return 0;
  tp->mu = center ? (float)(sum_t / tp->count) : 0.0f;
  if (wide) {
    vf_lk_patch_center8(tp, tp->mu);
  } else {
    vf_lk_patch_center(tp, tp->mu);
  }
  tp->h[9] = tp->count;
  return tp->count;
}

int vf_lk_patch_prepare(vf_lk_patch* tp, int center) {
#ifdef VF_SIMD8
  return vf_lk_patch_prepare_lanes(tp, center, vf_simd8_available());
#else
  return vf_lk_patch_prepare_lanes(tp, center, 0);
#endif
}

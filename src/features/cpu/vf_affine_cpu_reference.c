// SPDX-License-Identifier: BSD-3-Clause
/* The CPU refinement's references: samples and gradients of a new reference from one grid of
 * bilinear reads of the smoothed previous image, and H by rows. The model is in
 * src/features/kernels/vf_affine_rules.h; cuda/features/vf_affine.cu takes references alike. */
#include "features/cpu/vf_affine_cpu_reference.h"

#include <string.h>

/* The reference's T, Tx, Ty (vf_affine_pixel at every sample) from one grid: the samples and
 * their central differences all lie at the sub-pixel phase of (x, y), so each is one bilinear
 * read of the smoothed image at whole pixels, with the same weights (the smoothed sampler's
 * value, its 16 taps summed in another order), instead of 5 x 16 taps a sample. The caller
 * keeps the patch and one more pixel each side inside (vf_affine_inside, margin 1), so every
 * pixel read lies in the image. */
#define VF_AFFINE_CPU_GRID (VF_TRACKER_MAX_REF_PATCH + 3)

static void vf_affine_cpu_reference(const vf_affine_params* p, float x, float y, float* t,
                                    float* tx, float* ty) {
  const int patch = p->patch, half = patch / 2, ns = patch + 3, ng = patch + 2;
  const float fx = floorf(x), fy = floorf(y), ax = x - fx, ay = y - fy;
  /* Smoothed pixels from column fx - half - 1 and row fy - half - 1 on (ns x ns), the row pass
   * one row more each side; exact in float, as in the window. */
  float rows[VF_AFFINE_CPU_GRID + 2][VF_AFFINE_CPU_GRID],
      sm[VF_AFFINE_CPU_GRID][VF_AFFINE_CPU_GRID];
  float g[VF_AFFINE_CPU_GRID][VF_AFFINE_CPU_GRID];
  for (int r = 0; r < ns + 2; ++r) {
    const uint8_t* q =
        p->prev + (size_t)((int)fy - half - 2 + r) * p->prev_stride + (size_t)((int)fx - half - 1);
    for (int c = 0; c < ns; ++c) {
      rows[r][c] = 0.25f * ((float)q[c - 1] + (float)q[c + 1]) + 0.5f * (float)q[c];
    }
  }
  for (int r = 0; r < ns; ++r) {
    for (int c = 0; c < ns; ++c) {
      sm[r][c] = 0.25f * (rows[r][c] + rows[r + 2][c]) + 0.5f * rows[r + 1][c];
    }
  }
  /* g[l][k]: the sample at offset (k - half - 1, l - half - 1) from (x, y). */
  for (int l = 0; l < ng; ++l) {
    for (int k = 0; k < ng; ++k) {
      const float top = sm[l][k] + ax * (sm[l][k + 1] - sm[l][k]);
      const float bot = sm[l + 1][k] + ax * (sm[l + 1][k + 1] - sm[l + 1][k]);
      g[l][k] = top + ay * (bot - top);
    }
  }
  for (int r = 0; r < patch; ++r) {
    for (int c = 0; c < patch; ++c) {
      const int i = r * patch + c;
      t[i] = g[r + 1][c + 1];
      tx[i] = 0.5f * (g[r + 1][c + 2] - g[r + 1][c]);
      ty[i] = 0.5f * (g[r + 2][c + 1] - g[r][c + 1]);
    }
  }
}

/* Adds to h the packed sum of J J^T over the samples of row r in the columns `cols` (bits), by
 * row sums: within a row the offset sy is fixed, so every entry is sy^k times a row sum of
 * products of tx, ty, t - mu and powers of sx (20 sums a sample instead of 36 products). Double
 * throughout. For a reference's H (all used samples) and for the samples that saturate later. */
void vf_affine_cpu_h_row(int patch, const float* t, float mu, int r, uint32_t cols,
                         double h[VF_AFFINE_PACKED]) {
  const int n = patch * patch;
  /* The normalised offsets as the iterations compute them (float). */
  const float half = VF_AFFINE_HALF(patch), inv_half = 1.0f / half;
  /* Row sums: tx^2, tx ty, ty^2 times sx^0..2; tx tc, ty tc times sx^0..1; tc^2; tx, ty times
   * sx^0..1; tc; the count. */
  enum { XX0, XX1, XX2, XY0, XY1, XY2, YY0, YY1, YY2, XC0, XC1 };
  enum { YC0 = XC1 + 1, YC1, CC, X0, X1, Y0, Y1, C, N };
  double m[N + 1] = {0};
  for (uint32_t b = cols; b != 0; b &= b - 1) {
    const int c = __builtin_ctz(b), i = r * patch + c;
    const double sx = (double)(((float)c - half) * inv_half);
    const double x = t[n + i], y = t[2 * n + i], tc = (double)(t[i] - mu);
    const double xx = x * x, xy = x * y, yy = y * y, xc = x * tc, yc = y * tc;
    m[XX0] += xx, m[XX1] += xx * sx, m[XX2] += xx * sx * sx;
    m[XY0] += xy, m[XY1] += xy * sx, m[XY2] += xy * sx * sx;
    m[YY0] += yy, m[YY1] += yy * sx, m[YY2] += yy * sx * sx;
    m[XC0] += xc, m[XC1] += xc * sx, m[YC0] += yc, m[YC1] += yc * sx, m[CC] += tc * tc;
    m[X0] += x, m[X1] += x * sx, m[Y0] += y, m[Y1] += y * sx, m[C] += tc, m[N] += 1.0;
  }
  const double sy = (double)(((float)r - half) * inv_half), sy2 = sy * sy;
  /* J = [tx sx, tx sy, ty sx, ty sy, tx, ty, tc, 1]; row a of the packed lower triangle. */
  const double rows[VF_AFFINE_PACKED] = {
      m[XX2],                                                                             /* 0 */
      sy * m[XX1], sy2 * m[XX0],                                                          /* 1 */
      m[XY2],      sy * m[XY1],  m[YY2],                                                  /* 2 */
      sy * m[XY1], sy2 * m[XY0], sy * m[YY1], sy2 * m[YY0],                               /* 3 */
      m[XX1],      sy * m[XX0],  m[XY1],      sy * m[XY0],  m[XX0],                       /* 4 */
      m[XY1],      sy * m[XY0],  m[YY1],      sy * m[YY0],  m[XY0], m[YY0],               /* 5 */
      m[XC1],      sy * m[XC0],  m[YC1],      sy * m[YC0],  m[XC0], m[YC0], m[CC],        /* 6 */
      m[X1],       sy * m[X0],   m[Y1],       sy * m[Y0],   m[X0],  m[Y0],  m[C],  m[N]}; /* 7 */
  for (int k = 0; k < VF_AFFINE_PACKED; ++k) h[k] += rows[k];
}

/* H = sum J J^T over the used samples (t >= 0) of a reference. */
static void vf_affine_cpu_reference_h(int patch, const float* t, float mu,
                                      double h[VF_AFFINE_PACKED]) {
  for (int k = 0; k < VF_AFFINE_PACKED; ++k) h[k] = 0.0;
  for (int r = 0; r < patch; ++r) {
    uint32_t cols = 0;
    for (int c = 0; c < patch; ++c) cols |= (uint32_t)(t[r * patch + c] >= 0.0f) << c;
    vf_affine_cpu_h_row(patch, t, mu, r, cols, h);
  }
}

void vf_affine_cpu_capture(const vf_affine_params* p, const vf_track_request* r) {
  vf_affine_slot* s = &p->slot[r->slot];
  const float identity[4] = {1.0f, 0.0f, 0.0f, 1.0f};
  memset(s, 0, sizeof *s);
  memcpy(s->shape, identity, sizeof identity);
  s->gain = 1.0f;
  vf_affine_slot_reset_warp(s, r->x, r->y);
  s->valid = VF_AFFINE_OUTSIDE;
  /* One pixel more each side for the central differences. */
  if (!vf_affine_inside(r->x, r->y, identity, p->patch, 1, p->width, p->height)) return;
  const int n = p->patch * p->patch;
  float* t = vf_affine_cpu_samples(p, r->slot);
  float *tx = t + n, *ty = t + 2 * n;
  double sum = 0.0;
  int used = 0;
  vf_affine_cpu_reference(p, r->x, r->y, t, tx, ty);
  for (int i = 0; i < n; ++i) {
    if (!vf_lk_unsaturated(t[i])) {
      t[i] = -1.0f;
      continue;
    }
    sum += t[i];
    ++used;
  }
  if (used < 8) {
    s->valid = VF_AFFINE_FLAT;
    return;
  }
  s->used = used;
  s->mu = (float)(sum / used);
  double h[VF_AFFINE_PACKED], l[VF_AFFINE_PACKED];
  vf_affine_cpu_reference_h(p->patch, t, s->mu, h);
  vf_affine_add_prior(h, p->shape_prior, s->prior);
  const int ok = vf_affine_factor(h, l);
  for (int k = 0; k < VF_AFFINE_PACKED; ++k) s->h[k] = (float)h[k];
  vf_affine_inverse(l, s->inv);
  s->valid = ok ? VF_AFFINE_USABLE : VF_AFFINE_FLAT;
}

// SPDX-License-Identifier: BSD-3-Clause
/* What the CPU (src/features/cpu/vf_sample_cpu.c) and CUDA (cuda/features/vf_sample.cu) disparity
 * refinement share: the matching of one point.
 *
 * Why: SGM's disparity at a feature is biased in two ways that persist along a track, which a
 * backend reads as a wrong depth (docs/estimator.md): the sub-pixel fit of the aggregated costs
 * pulls disparities towards whole pixels (by up to 0.1 px), and the smoothness penalties pull
 * them by a few hundredths of a pixel depending on the surface (on vf_synth, +0.04 px at 8 px of
 * disparity, -0.08 px at 20). So the left window around the feature's own sub-pixel position is
 * matched in the right image along the row, from SGM's disparity: a 1-D shift plus gain and bias,
 * inverse compositional (Baker and Matthews 2004, section 3.2): with t = T - mu the steepest
 * descent vector is J = [Tx, t, 1], H = sum J J^T is the window's, and each step moves the right
 * position xr by -d0 (d = H^-1 sum J e, e = (R(xr + o) - c) / gain - t). Both images are read
 * through the [1 2 1] / 4 binomial, as the tracker's refinement reads them (vf_affine_sample says
 * why). Scalars as in the tracker (vf_lk_real: double on the CPU, float on the GPU), so the
 * backends agree within a small tolerance, not bit for bit. */
#ifndef VF_DISPARITY_RULES_H
#define VF_DISPARITY_RULES_H

#include <math.h>

#include "features/kernels/vf_affine_rules.h"
#include "viofront/vf_sampler.h"

/* The largest window radius and change: the window's samples and the smoothed pixels under
 * both windows are kept per point (on the GPU in local memory). */
#define VF_DISPARITY_REFINE_MAX_RADIUS 10
#define VF_DISPARITY_REFINE_MAX_CHANGE 2.0f
#define VF_DR_SIDE (2 * VF_DISPARITY_REFINE_MAX_RADIUS + 1)
#define VF_DR_ROWS (VF_DR_SIDE + 1)
#define VF_DR_COLS (VF_DR_SIDE + 7) /* the right strip: the window, +-max_change, bilinear */
/* px: a step below this ends the iterations */
#define VF_DISPARITY_REFINE_MIN_STEP 0.002f

/* The [1 2 1] / 4 binomial in x and y of the raw image at pixel (x, y) (vf_affine_sample's
 * smoothed image; the caller keeps its 3 x 3 pixels inside). */
VF_LK_FN float vf_disparity_smoothed(const uint8_t* img, size_t stride, int x, int y) {
  const uint8_t* p = img + (size_t)(y - 1) * stride + (size_t)(x - 1);
  float v = 0.0f;
  for (int r = 0; r < 3; ++r, p += stride) {
    const float row = 0.25f * ((float)p[0] + (float)p[2]) + 0.5f * (float)p[1];
    v += (r == 1 ? 0.5f : 0.25f) * row;
  }
  return v;
}

/* Bilinear with weights (ax, ay) from the 2 x 2 values at q (row stride `stride` floats). */
VF_LK_FN float vf_disparity_bilerp(const float* q, int stride, float ax, float ay) {
  const float top = q[0] + ax * (q[1] - q[0]);
  const float bot = q[stride] + ax * (q[stride + 1] - q[stride]);
  return top + ay * (bot - top);
}

/* A probe's map value as a disparity in px (fractions 1 / units), NAN where it is `invalid`:
 * the start of the matching when it takes the probes' values. */
VF_LK_FN float vf_disparity_from_map(uint16_t value, uint16_t invalid, float units) {
  return value == invalid ? NAN : (float)value / units;
}

/* Where the matching of point (x, y) from d0 reads (the CPU and CUDA matchings share it, and so
 * their refusals): the left window's pixel (fx, fy) and sub-pixel phase (ax, ay); the shifts
 * [lo, hi] = x - d0 -+ max_change and the right strip's columns c0 .. c0 + cols - 1, which hold
 * every bilinear read of those shifts (each smoothed pixel reads one raw pixel more). 0 when d0
 * or the point is not finite, or a window of radius r leaves an image. */
typedef struct vf_disparity_reach {
  int fx, fy, c0, cols;
  float ax, ay, lo, hi;
} vf_disparity_reach;

VF_LK_FN int vf_disparity_refine_reach(int width, int height, float x, float y, float d0, int r,
                                       float max_change, vf_disparity_reach* at) {
  if (!(d0 == d0) || !(x == x) || !(y == y) || !(x - (float)r >= 2.0f) ||
      !(x + (float)r < (float)(width - 3)) || !(y - (float)r >= 2.0f) ||
      !(y + (float)r < (float)(height - 3)))
    return 0;
  at->fx = (int)floorf(x);
  at->fy = (int)floorf(y);
  at->ax = x - (float)at->fx;
  at->ay = y - (float)at->fy;
  at->lo = x - d0 - max_change;
  at->hi = x - d0 + max_change;
  if (!(at->lo - (float)r >= 2.0f) || !(at->hi + (float)r < (float)(width - 3))) return 0;
  at->c0 = (int)floorf(at->lo) - r;
  at->cols = (int)floorf(at->hi) + r + 2 - at->c0;
  return 1;
}

/* The matching from the smoothed pixels under the left window (sl: rows fy - r .. fy + r + 1,
 * columns fx - r - 1 .. fx + r + 2) and the right strip (sr: the same rows, columns at->c0 ..
 * at->c0 + at->cols - 1) that vf_disparity_refine_point describes; the CPU's
 * (src/features/cpu/vf_disparity_refine_cpu.c) smooths them with integer vectors instead, the
 * same floats. Each sample's floating-point operations, and the order of every sum, are the
 * rules'; the per-sample values are computed a row ahead of the sums (loops a compiler may
 * vectorize). */
VF_LK_FN float vf_disparity_refine_solve(const float (*sl)[VF_DR_SIDE + 3],
                                         const float (*sr)[VF_DR_COLS],
                                         const vf_disparity_reach* at, float x, float d0,
                                         const vf_disparity_refine_config* c) {
  const int r = c->radius, side = 2 * r + 1, n = side * side;
  const int c0 = at->c0;
  const float ax = at->ax, ay = at->ay, lo = at->lo, hi = at->hi;
  float t[VF_DR_SIDE * VF_DR_SIDE], tx[VF_DR_SIDE * VF_DR_SIDE];
  vf_lk_real mu = 0;
  for (int i = 0; i < side; ++i) {
    float g[VF_DR_SIDE + 2]; /* the window's row at offsets -r - 1 .. r + 1 */
    for (int k = 0; k < side + 2; ++k)
      g[k] = vf_disparity_bilerp(&sl[i][k], VF_DR_SIDE + 3, ax, ay);
    for (int k = 0; k < side; ++k) {
      t[i * side + k] = g[k + 1];
      tx[i * side + k] = 0.5f * (g[k + 2] - g[k]);
      mu += (vf_lk_real)g[k + 1];
    }
  }
  mu /= (vf_lk_real)n;
  /* The template's zero-mean values and gradients in the sums' precision, once. */
  vf_lk_real tc[VF_DR_SIDE * VF_DR_SIDE], txr[VF_DR_SIDE * VF_DR_SIDE];
  for (int k = 0; k < n; ++k) {
    tc[k] = (vf_lk_real)t[k] - mu;
    txr[k] = (vf_lk_real)tx[k];
  }
  /* H (symmetric 3x3) and its inverse by cofactors. */
  vf_lk_real h00 = 0, h01 = 0, h02 = 0, h11 = 0, h12 = 0, h22 = (vf_lk_real)n;
  for (int k = 0; k < n; ++k) {
    const vf_lk_real g = txr[k];
    h00 += g * g;
    h01 += g * tc[k];
    h02 += g;
    h11 += tc[k] * tc[k];
    h12 += tc[k];
  }
  const vf_lk_real c00 = h11 * h22 - h12 * h12, c01 = h02 * h12 - h01 * h22,
                   c02 = h01 * h12 - h02 * h11, c11 = h00 * h22 - h02 * h02,
                   c12 = h01 * h02 - h00 * h12, c22 = h00 * h11 - h01 * h01;
  const vf_lk_real det = h00 * c00 + h01 * c01 + h02 * c02;
  /* A window without texture along the row (or without contrast) has no disparity to find. */
  if (!(h00 > 0) || !(h11 > 0) || !(det > (vf_lk_real)1e-6 * h00 * h11 * h22)) return NAN;
  const vf_lk_real inv_det = (vf_lk_real)1 / det;
  float xr = x - d0;
  vf_lk_real gain = 1, off = mu;
  int converged = 0;
  for (int it = 0; it < c->max_iterations && !converged; ++it) {
    /* Beyond max_change the match is refused anyway; the strip ends there. */
    if (!(xr >= lo && xr <= hi)) return NAN;
    const int fr = (int)floorf(xr);
    const float axr = xr - (float)fr;
    const int k0 = fr - r - c0;
    vf_lk_real b0 = 0, b1 = 0, b2 = 0;
    /* A multiply a sample, as the CUDA twin: a division a sample was a tenth of the CPU's time. */
    const vf_lk_real inv_gain = (vf_lk_real)1 / gain;
    for (int i = 0; i < side; ++i) {
      float v[VF_DR_SIDE];
      vf_lk_real e[VF_DR_SIDE];
      for (int k = 0; k < side; ++k)
        v[k] = vf_disparity_bilerp(&sr[i][k0 + k], VF_DR_COLS, axr, ay);
      for (int k = 0; k < side; ++k) e[k] = ((vf_lk_real)v[k] - off) * inv_gain - tc[i * side + k];
      for (int k = 0; k < side; ++k) {
        b0 += txr[i * side + k] * e[k];
        b1 += tc[i * side + k] * e[k];
        b2 += e[k];
      }
    }
    const vf_lk_real d0s = (c00 * b0 + c01 * b1 + c02 * b2) * inv_det;
    const vf_lk_real d1 = (c01 * b0 + c11 * b1 + c12 * b2) * inv_det;
    const vf_lk_real d2 = (c02 * b0 + c12 * b1 + c22 * b2) * inv_det;
    xr -= (float)d0s;
    off += gain * d2;
    gain *= 1 + d1;
    if (!(gain > (vf_lk_real)0.3 && gain < (vf_lk_real)3)) return NAN;
    converged = (d0s < 0 ? -d0s : d0s) < (vf_lk_real)VF_DISPARITY_REFINE_MIN_STEP;
  }
  const float d = x - xr;
  return converged && fabsf(d - d0) <= c->max_change ? d : NAN;
}

/* The disparity at left pixel (x, y) matched from d0 (NAN when it fails: start not finite,
 * window outside an image, a flat window, no convergence, or a result farther than max_change
 * from d0). Every sample of a window lies at one sub-pixel phase, so the smoothed pixels under
 * it are computed once (the left window's, and the right strip that every shift within
 * max_change reads) and each sample is one bilinear read: the smoothed sampler's value, its taps
 * summed in another order. */
VF_LK_FN float vf_disparity_refine_point(const uint8_t* left, size_t left_stride,
                                         const uint8_t* right, size_t right_stride, int width,
                                         int height, float x, float y, float d0,
                                         const vf_disparity_refine_config* c) {
  const int r = c->radius, side = 2 * r + 1;
  vf_disparity_reach at;
  if (!vf_disparity_refine_reach(width, height, x, y, d0, r, c->max_change, &at)) return NAN;
  /* Smoothed pixels: rows fy - r .. fy + r + 1; the left window's columns fx - r - 1 ..
   * fx + r + 2 (the gradient's neighbours too), the strip's c0 .. c0 + cols - 1. */
  float sl[VF_DR_ROWS][VF_DR_SIDE + 3], sr[VF_DR_ROWS][VF_DR_COLS];
  for (int i = 0; i < side + 1; ++i) {
    const int yy = at.fy - r + i;
    for (int k = 0; k < side + 3; ++k)
      sl[i][k] = vf_disparity_smoothed(left, left_stride, at.fx - r - 1 + k, yy);
    for (int k = 0; k < at.cols; ++k)
      sr[i][k] = vf_disparity_smoothed(right, right_stride, at.c0 + k, yy);
  }
  return vf_disparity_refine_solve(sl, sr, &at, x, d0, c);
}

#endif

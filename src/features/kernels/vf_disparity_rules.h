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
 * through the [1 2 1] / 4 binomial (vf_affine_sample): bilinear reads of raw pixels favour whole-
 * pixel shifts themselves. Scalars as in the tracker (vf_lk_real: double on the CPU, float on the
 * GPU), so the backends agree within a small tolerance, not bit for bit. */
#ifndef VF_DISPARITY_RULES_H
#define VF_DISPARITY_RULES_H

#include <math.h>

#include "features/kernels/vf_affine_rules.h"
#include "viofront/vf_sampler.h"

/* The largest window radius: the window's samples are kept per point (on the GPU in local
 * memory). */
#define VF_DISPARITY_REFINE_MAX_RADIUS 10
#define VF_DISPARITY_REFINE_MAX_SAMPLES \
  ((2 * VF_DISPARITY_REFINE_MAX_RADIUS + 1) * (2 * VF_DISPARITY_REFINE_MAX_RADIUS + 1))
/* px: a step below this ends the iterations */
#define VF_DISPARITY_REFINE_MIN_STEP 0.002f

/* Nonzero when the window of radius r around x, and the smoothed sampler's pixels and the
 * gradient's, lie inside a row of width w. */
VF_LK_FN int vf_disparity_window_fits(float x, int r, int w) {
  return x - (float)r >= 2.0f && x + (float)r < (float)(w - 3);
}

/* The disparity at left pixel (x, y) matched from d0 (NAN when it fails: start not finite,
 * window outside an image, a flat window, no convergence, or a result farther than max_change
 * from d0). */
VF_LK_FN float vf_disparity_refine_point(const uint8_t* left, size_t left_stride,
                                         const uint8_t* right, size_t right_stride, int width,
                                         int height, float x, float y, float d0,
                                         const vf_disparity_refine_config* c) {
  const int r = c->radius;
  if (!(d0 == d0) || !(x == x) || !(y == y) || !vf_disparity_window_fits(x, r, width) ||
      !(y - (float)r >= 2.0f && y + (float)r < (float)(height - 3)))
    return NAN;
  float t[VF_DISPARITY_REFINE_MAX_SAMPLES], tx[VF_DISPARITY_REFINE_MAX_SAMPLES];
  const int side = 2 * r + 1, n = side * side;
  vf_lk_real mu = 0;
  for (int k = 0; k < n; ++k) {
    const float ox = (float)(k % side - r), oy = (float)(k / side - r);
    t[k] = vf_affine_sample(left, left_stride, x + ox, y + oy);
    tx[k] = 0.5f * (vf_affine_sample(left, left_stride, x + ox + 1.0f, y + oy) -
                    vf_affine_sample(left, left_stride, x + ox - 1.0f, y + oy));
    mu += (vf_lk_real)t[k];
  }
  mu /= (vf_lk_real)n;
  /* H (symmetric 3x3) and its inverse by cofactors. */
  vf_lk_real h00 = 0, h01 = 0, h02 = 0, h11 = 0, h12 = 0, h22 = (vf_lk_real)n;
  for (int k = 0; k < n; ++k) {
    const vf_lk_real g = tx[k], tc = (vf_lk_real)t[k] - mu;
    h00 += g * g;
    h01 += g * tc;
    h02 += g;
    h11 += tc * tc;
    h12 += tc;
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
    if (!vf_disparity_window_fits(xr, r, width)) return NAN;
    vf_lk_real b0 = 0, b1 = 0, b2 = 0;
    for (int k = 0; k < n; ++k) {
      const float ox = (float)(k % side - r), oy = (float)(k / side - r);
      const vf_lk_real v = vf_affine_sample(right, right_stride, xr + ox, y + oy);
      const vf_lk_real tc = (vf_lk_real)t[k] - mu;
      const vf_lk_real e = (v - off) / gain - tc;
      b0 += (vf_lk_real)tx[k] * e;
      b1 += tc * e;
      b2 += e;
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

#endif

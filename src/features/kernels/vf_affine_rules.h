// SPDX-License-Identifier: BSD-3-Clause
/* What the CPU (src/features/cpu/vf_affine_cpu.c) and CUDA (cuda/features/vf_affine.cu) reference
 * refinement share: the parameter block, the per-slot state and the scalar mathematics of one
 * feature.
 *
 * Why: a translation (plus gain and bias) matched against a track's first observation slides a
 * little further each frame as the view changes (scale, rotation, perspective): a bias that a
 * backend sees as a moving point. Each track therefore keeps a reference patch, and every
 * frame's frame-to-frame result is refined against it with an affine warp and gain/bias:
 *   current(p + A x) = gain * T(x) + bias,  x = offset of a reference sample from its centre.
 * Inverse compositional (Baker and Matthews 2004, "Lucas-Kanade 20 years on", section 3.2;
 * photometric part as in Bartoli 2008): with s = x / half (offsets normalised, for a
 * well-conditioned H), the steepest-descent vector of a sample is
 *   J = [Tx sx, Tx sy, Ty sx, Ty sy, Tx, Ty, T - mu, 1]
 * and H = sum J J^T is fixed by the reference, so it is factored once, when the reference is
 * taken. The step d = H^-1 sum J e, e = (I(p + A x) - c) / gain - (T - mu), c = bias + gain mu,
 * composes as W <- W o W(d)^-1: A <- A (I + D)^-1, p <- p - A (I + D)^-1 t with
 * D = [d0 d1; d2 d3] / half, t = (d4, d5).
 *
 * The warp is the affine one times a projective factor: current = p + (1 - g . x) A x. An affine
 * fit to a curved warp moves the centre by the curvature times the patch's spread (for a 21 px
 * patch under a yaw that moved the point by m px, about m <x^2> / f^2: 0.05 px ahead of the point
 * after 230 px), so tracks led their points along their motion. The curvature of the camera's
 * rotation since the reference is known from the gyroscope: g is the projective part of that
 * rotation's homography at the reference point (to second order in x, which is all that moves
 * the centre: the third-order terms are odd in x). Not estimated, so H stays as it is.
 *
 * Scalars after the patch sums are `vf_lk_real` (double on the CPU, float on the GPU) as in the
 * frame-to-frame tracker (src/features/kernels/vf_lk_rules.h). */
#ifndef VF_AFFINE_RULES_H
#define VF_AFFINE_RULES_H

#include "features/kernels/vf_lk_rules.h"

/* Fully unrolled on the GPU, so that the small matrices stay in registers (device pass only:
 * the host compiler does not know the pragma). */
#if defined(__CUDA_ARCH__)
#define VF_AFFINE_UNROLL _Pragma("unroll")
#else
#define VF_AFFINE_UNROLL
#endif

#define VF_AFFINE_PARAMS 8
#define VF_AFFINE_PACKED 36 /* packed lower triangle of the 8x8 H */
#define VF_AFFINE_IDX(i, j) ((i) * ((i) + 1) / 2 + (j))
/* Sums per iteration: J^T e (8), e^2, and t, t^2 (t = T - mu) over the samples used, which
 * with J^T e give the correlation over exactly those samples. */
#define VF_AFFINE_SUMS 11

/* The state of one reference slot. The samples themselves (T, Tx, Ty of patch^2 samples; an
 * unused sample has T < 0) lie at vf_affine_params.samples + slot * 3 * patch^2. */
typedef struct vf_affine_slot {
  float h[VF_AFFINE_PACKED];   /* H (prior included), for the samples that saturate later */
  float inv[VF_AFFINE_PACKED]; /* H^-1 (packed): a step is one product, not two triangular
                                  solves (a chain of dependent steps) */
  float shape[4];              /* A: reference offset -> current offset, row-major 2x2 */
  float prior[4];              /* weights of the shape prior on d0..d3 (added to H's diagonal) */
  float gain, bias;            /* current = gain * reference + bias */
  float mu;                    /* mean of the used reference samples */
  float warp[9];      /* the camera rotation's homography, reference image -> current image */
  float ref_x, ref_y; /* the reference's centre in its image */
  int used;           /* samples in use */
  int valid;          /* nonzero: captured inside the image, H factored */
} vf_affine_slot;

typedef struct vf_affine_params {
  int enabled;
  int patch;          /* reference side (odd) */
  int max_iterations; /* per frame */
  float min_update;   /* px: converged when a step moves the centre less; when the iterations
                         run out, a last step under VF_AFFINE_SETTLED times this is accepted */
  float min_ncc;      /* below: the track no longer matches its reference; 0 = off */
  float max_scale;    /* re-anchor when a singular value of A leaves [1/max_scale, max_scale] */
  float max_shift;    /* px: the refinement may move the frame-to-frame result at most this */
  float shape_prior;  /* weight of the prior that the shape changes little within a frame */
  int has_rotation;   /* nonzero: rotation holds the homography of the frame's camera rotation */
  float rotation[9];  /* row-major, previous-image pixel -> current-image pixel */
  float min_gain, max_gain;
  int width, height; /* level 0 */
  size_t prev_stride, cur_stride;
  const uint8_t* prev;
  const uint8_t* cur;
  int slots;
  vf_affine_slot* slot; /* slots entries, in the backend's memory */
  float* samples;       /* slots * 3 * patch^2 floats, in the backend's memory */
  /* CUDA: the frame-to-frame results in device memory (vf_lk_params.result_copy), read instead
   * of the results in mapped host memory; NULL: those. The CPU backend ignores it. */
  const vf_track_result* lk_results;
} vf_affine_params;

/* Iterations that run out with a last step below this many min_update have settled (the shape
 * may still creep along a weak direction, the position no longer does). */
#define VF_AFFINE_SETTLED 4

/* vf_affine_slot.valid */
enum { VF_AFFINE_NONE = 0, VF_AFFINE_USABLE, VF_AFFINE_OUTSIDE, VF_AFFINE_FLAT };

#define VF_AFFINE_HALF(patch) (0.5f * (float)((patch)-1))

/* Offset of sample i (row-major) from the patch centre, in level-0 pixels. */
VF_LK_FN void vf_affine_offset(int i, int patch, float* ox, float* oy) {
  const float half = VF_AFFINE_HALF(patch);
  *oy = (float)(i / patch) - half;
  *ox = (float)(i - (i / patch) * patch) - half;
}

/* The image seen through a [1 2 1] / 4 binomial in x and y, sampled bilinearly at (x, y): the
 * 4 x 4 pixels around it with separable weights. Why: bilinear interpolation attenuates fine
 * texture by an amount that depends on the sub-pixel phase, and under an affine warp every
 * sample has its own phase; against a reference taken on the pixel grid that mismatch pulls the
 * warp (a tenth of a pixel on sharp photographs). Smoothed first, the texture the phases see
 * differently is gone. The caller keeps (x, y) in [1, w - 2) x [1, h - 2). */
VF_LK_FN float vf_affine_sample(const uint8_t* img, size_t stride, float x, float y) {
  const float fx = floorf(x), fy = floorf(y);
  const float ax = x - fx, ay = y - fy;
  /* Weights of pixels -1..2 around floor(x): [1 2 1]/4 convolved with [1 - a, a]. */
  const float wx[4] = {0.25f * (1.0f - ax), 0.25f * (2.0f - ax), 0.25f * (1.0f + ax), 0.25f * ax};
  const float wy[4] = {0.25f * (1.0f - ay), 0.25f * (2.0f - ay), 0.25f * (1.0f + ay), 0.25f * ay};
  const uint8_t* p = img + (size_t)(fy - 1.0f) * stride + (size_t)(fx - 1.0f);
  float v = 0.0f;
  for (int r = 0; r < 4; ++r, p += stride) {
    const float row =
        wx[0] * (float)p[0] + wx[1] * (float)p[1] + wx[2] * (float)p[2] + wx[3] * (float)p[3];
    v += wy[r] * row;
  }
  return v;
}

/* Reference value and central-difference gradient of the bilinear image at (x, y). */
VF_LK_FN void vf_affine_pixel(const uint8_t* img, size_t stride, float x, float y, float* t,
                              float* tx, float* ty) {
  *t = vf_affine_sample(img, stride, x, y);
  *tx = 0.5f *
        (vf_affine_sample(img, stride, x + 1.0f, y) - vf_affine_sample(img, stride, x - 1.0f, y));
  *ty = 0.5f *
        (vf_affine_sample(img, stride, x, y + 1.0f) - vf_affine_sample(img, stride, x, y - 1.0f));
}

/* Nonzero when every sample of the patch warped by (p, A) can be read bilinearly with `margin`
 * more pixels each side: the warped patch is a parallelogram, so its corners decide. NaN: 0. */
VF_LK_FN int vf_affine_inside(float px, float py, const float a[4], int patch, int margin, int w,
                              int h) {
  const float half = VF_AFFINE_HALF(patch);
  const float rx = half * (fabsf(a[0]) + fabsf(a[1])), ry = half * (fabsf(a[2]) + fabsf(a[3]));
  /* The smoothed sampler reads one pixel left/above and two right/below of floor(x). */
  const float lo = (float)(margin + 1);
  return px - rx >= lo && py - ry >= lo && px + rx < (float)(w - 2 - margin) &&
         py + ry < (float)(h - 2 - margin);
}

/* The steepest-descent vector of one sample (model above); t is already centred (T - mu). */
VF_LK_FN void vf_affine_jacobian(float t, float tx, float ty, float sx, float sy, float j[8]) {
  j[0] = tx * sx;
  j[1] = tx * sy;
  j[2] = ty * sx;
  j[3] = ty * sy;
  j[4] = tx;
  j[5] = ty;
  j[6] = t;
  j[7] = 1.0f;
}

/* Cholesky factor of the 8x8 H (packed), 1 / L_ii on the diagonal so that solving takes no
 * division. Returns 0 when a pivot falls below 1e-5 of its diagonal (a patch without texture
 * in some direction: the affine parameters are not observable). */
VF_LK_FN int vf_affine_factor(const vf_lk_real h[VF_AFFINE_PACKED],
                              vf_lk_real l[VF_AFFINE_PACKED]) {
  int ok = 1;
  VF_AFFINE_UNROLL
  for (int i = 0; i < VF_AFFINE_PARAMS; ++i) {
    VF_AFFINE_UNROLL
    for (int j = 0; j <= i; ++j) {
      vf_lk_real v = h[VF_AFFINE_IDX(i, j)];
      VF_AFFINE_UNROLL
      for (int k = 0; k < j; ++k) v -= l[VF_AFFINE_IDX(i, k)] * l[VF_AFFINE_IDX(j, k)];
      if (j < i) {
        l[VF_AFFINE_IDX(i, j)] = v * l[VF_AFFINE_IDX(j, j)];
      } else {
        const vf_lk_real diag = h[VF_AFFINE_IDX(i, i)];
        ok &= diag > 0 && v > (vf_lk_real)1e-5 * diag;
        l[VF_AFFINE_IDX(i, i)] = VF_LK_RSQRT(v > 0 ? v : (vf_lk_real)1);
      }
    }
  }
  return ok;
}

/* H^-1 (packed) from the factor of H = L L^T: M = L^-1 (lower triangular, packed), then
 * H^-1 = M^T M. A third of the multiplications of one solve per unit vector, and shorter chains
 * (the CPU recomputes it whenever samples saturate). */
VF_LK_FN void vf_affine_inverse(const vf_lk_real l[VF_AFFINE_PACKED], float inv[VF_AFFINE_PACKED]) {
  vf_lk_real m[VF_AFFINE_PACKED];
  VF_AFFINE_UNROLL
  for (int i = 0; i < 8; ++i) {
    m[VF_AFFINE_IDX(i, i)] = l[VF_AFFINE_IDX(i, i)];
    VF_AFFINE_UNROLL
    for (int j = 0; j < i; ++j) {
      vf_lk_real v = 0;
      VF_AFFINE_UNROLL
      for (int k = j; k < i; ++k) v += l[VF_AFFINE_IDX(i, k)] * m[VF_AFFINE_IDX(k, j)];
      m[VF_AFFINE_IDX(i, j)] = -v * l[VF_AFFINE_IDX(i, i)];
    }
  }
  VF_AFFINE_UNROLL
  for (int i = 0; i < 8; ++i) {
    VF_AFFINE_UNROLL
    for (int j = 0; j <= i; ++j) {
      vf_lk_real v = 0;
      VF_AFFINE_UNROLL
      for (int k = i; k < 8; ++k) v += m[VF_AFFINE_IDX(k, i)] * m[VF_AFFINE_IDX(k, j)];
      inv[VF_AFFINE_IDX(i, j)] = (float)v;
    }
  }
}

/* The shape prior: within one frame the patch's shape changes little (a few percent of its size
 * between video frames), while a patch whose blur differs from its reference's (motion, focus,
 * interpolation) fits better with a spurious stretch, which drags the translation along
 * (a sharp photograph moved by half a pixel: 12% of spurious stretch, 0.15 px of error without
 * it). So the shape steps of a frame are pulled towards zero with weights w H_ii (w = the
 * prior's weight relative to the data): H gains them on its diagonal once, at capture, and each
 * iteration's right-hand side loses weight times the shape moved so far in this frame. */
VF_LK_FN void vf_affine_add_prior(vf_lk_real h[VF_AFFINE_PACKED], float w, float prior[4]) {
  for (int i = 0; i < 4; ++i) {
    const vf_lk_real add = (vf_lk_real)w * h[VF_AFFINE_IDX(i, i)];
    prior[i] = (float)add;
    h[VF_AFFINE_IDX(i, i)] += add;
  }
}

/* The state of one refinement. */
typedef struct vf_affine_state {
  vf_lk_real px, py;
  vf_lk_real moved[4]; /* sum of the shape steps d0..d3 taken in this frame */
  vf_lk_real a[4];     /* A */
  vf_lk_real gain;
  vf_lk_real c; /* bias + gain * mu */
  float gx, gy; /* projective factor 1 - (gx, gy) . x of the warp, from the rotation */
} vf_affine_state;

/* The rotation since the slot's reference, this frame's included: the frame's homography after
 * the slot's (the slot's alone without a rotation this frame). */
VF_LK_FN void vf_affine_compose_warp(const vf_affine_params* p, const vf_affine_slot* s,
                                     float out[9]) {
  const float* r = p->rotation;
  const float* o = s->warp;
  VF_AFFINE_UNROLL
  for (int i = 0; i < 3; ++i) {
    VF_AFFINE_UNROLL
    for (int k = 0; k < 3; ++k) {
      out[3 * i + k] = p->has_rotation
                           ? r[3 * i] * o[k] + r[3 * i + 1] * o[3 + k] + r[3 * i + 2] * o[6 + k]
                           : o[3 * i + k];
    }
  }
}

/* Half-extents of the patch warped by the state: A's parallelogram times the largest projective
 * factor over the patch. */
VF_LK_FN void vf_affine_extent(const vf_affine_state* st, int patch, float* rx, float* ry) {
  const float half = VF_AFFINE_HALF(patch);
  const float m = half * (1.0f + half * (fabsf(st->gx) + fabsf(st->gy)));
  *rx = m * (fabsf((float)st->a[0]) + fabsf((float)st->a[1]));
  *ry = m * (fabsf((float)st->a[2]) + fabsf((float)st->a[3]));
}

/* vf_affine_inside for the state's warp (margin 0). */
VF_LK_FN int vf_affine_state_inside(const vf_affine_state* st, int patch, int w, int h) {
  float rx, ry;
  vf_affine_extent(st, patch, &rx, &ry);
  const float px = (float)st->px, py = (float)st->py;
  return px - rx >= 1.0f && py - ry >= 1.0f && px + rx < (float)(w - 2) && py + ry < (float)(h - 2);
}

/* The current-image position of reference offset (ox, oy) under the state's warp. */
VF_LK_FN void vf_affine_warp_point(const vf_affine_state* st, float ox, float oy, float* x,
                                   float* y) {
  const float m = 1.0f - st->gx * ox - st->gy * oy;
  *x = (float)st->px + ((float)st->a[0] * ox + (float)st->a[1] * oy) * m;
  *y = (float)st->py + ((float)st->a[2] * ox + (float)st->a[3] * oy) * m;
}

/* The slot's state for a new reference at (x, y): no rotation yet. */
VF_LK_FN void vf_affine_slot_reset_warp(vf_affine_slot* s, float x, float y) {
  for (int k = 0; k < 9; ++k) s->warp[k] = k % 4 == 0 ? 1.0f : 0.0f;
  s->ref_x = x;
  s->ref_y = y;
}

/* The right-hand side of the step: the iteration's sums J^T e less the shape prior's pull,
 * b - prior * moved. */
VF_LK_FN void vf_affine_step_rhs(const vf_affine_slot* s, const vf_affine_state* st,
                                 const vf_lk_real b_in[8], vf_lk_real b[8]) {
  VF_AFFINE_UNROLL
  for (int j = 0; j < 8; ++j)
    b[j] = j < 4 ? b_in[j] - (vf_lk_real)s->prior[j] * st->moved[j] : b_in[j];
}

/* Component i of the step H^-1 b (the CUDA kernel has lane i compute it). */
VF_LK_FN vf_lk_real vf_affine_step_row(const float* inv, const vf_lk_real b[8], int i) {
  vf_lk_real v = 0;
  VF_AFFINE_UNROLL
  for (int j = 0; j < 8; ++j)
    v += (vf_lk_real)inv[i >= j ? VF_AFFINE_IDX(i, j) : VF_AFFINE_IDX(j, i)] * b[j];
  return v;
}

/* The step from the iteration's sums J^T e: H^-1 (b - prior * moved), with inv = H^-1 (the
 * slot's, or one without the samples saturated in the current image). */
VF_LK_FN void vf_affine_step(const vf_affine_slot* s, const float* inv, const vf_affine_state* st,
                             const vf_lk_real b_in[8], vf_lk_real d[8]) {
  vf_lk_real b[8];
  vf_affine_step_rhs(s, st, b_in, b);
  VF_AFFINE_UNROLL
  for (int i = 0; i < 8; ++i) d[i] = vf_affine_step_row(inv, b, i);
}

/* Samples saturated in the current image break the photometric model and are left out of the
 * sums; with a fixed H they would still pull the step, so they leave H too: the inverse of H less
 * their terms h_out (packed J J^T). A sample that saturates stays out for the rest of the call
 * (as in the frame-to-frame tracker), so this runs only when more saturate. Returns 0 when what
 * is left is singular. */
VF_LK_FN int vf_affine_downdate(const vf_affine_slot* s, const vf_lk_real h_out[VF_AFFINE_PACKED],
                                float inv_out[VF_AFFINE_PACKED]) {
  vf_lk_real h[VF_AFFINE_PACKED], l[VF_AFFINE_PACKED];
  VF_AFFINE_UNROLL
  for (int k = 0; k < VF_AFFINE_PACKED; ++k) h[k] = (vf_lk_real)s->h[k] - h_out[k];
  const int ok = vf_affine_factor(h, l);
  vf_affine_inverse(l, inv_out);
  return ok;
}

/* Adds the packed J J^T of one sample to h. */
VF_LK_FN void vf_affine_outer(const float j[8], vf_lk_real h[VF_AFFINE_PACKED]) {
  VF_AFFINE_UNROLL
  for (int a = 0; a < 8; ++a) VF_AFFINE_UNROLL
  for (int b = 0; b <= a; ++b) h[VF_AFFINE_IDX(a, b)] += (vf_lk_real)j[a] * (vf_lk_real)j[b];
}

/* Applies the step d (inverse compositional, model above); returns how far the step moved the
 * patch centre (the largest coordinate, in pixels). The shape is a nuisance here: it converges
 * more slowly along weakly textured directions that barely move the centre, and the iterations
 * stop on the position alone. */
VF_LK_FN vf_lk_real vf_affine_update(vf_affine_state* st, const vf_lk_real d[8], int patch) {
  const vf_lk_real inv_half = VF_LK_RCP((vf_lk_real)VF_AFFINE_HALF(patch));
  const vf_lk_real e0 = 1 + d[0] * inv_half, e1 = d[1] * inv_half, e2 = d[2] * inv_half,
                   e3 = 1 + d[3] * inv_half;
  const vf_lk_real inv_det = VF_LK_RCP(e0 * e3 - e1 * e2);
  /* (I + D)^-1 */
  const vf_lk_real i0 = e3 * inv_det, i1 = -e1 * inv_det, i2 = -e2 * inv_det, i3 = e0 * inv_det;
  const vf_lk_real* a = st->a;
  const vf_lk_real n0 = a[0] * i0 + a[1] * i2, n1 = a[0] * i1 + a[1] * i3;
  const vf_lk_real n2 = a[2] * i0 + a[3] * i2, n3 = a[2] * i1 + a[3] * i3;
  const vf_lk_real mx = n0 * d[4] + n1 * d[5], my = n2 * d[4] + n3 * d[5];
  st->px -= mx;
  st->py -= my;
  st->a[0] = n0;
  st->a[1] = n1;
  st->a[2] = n2;
  st->a[3] = n3;
  st->c += st->gain * d[7];
  st->gain *= 1 + d[6];
  VF_AFFINE_UNROLL
  for (int i = 0; i < 4; ++i) st->moved[i] += d[i];
  return fabs(mx) > fabs(my) ? fabs(mx) : fabs(my);
}

/* Largest factor by which A stretches or shrinks the patch in any direction (max(s1, 1/s2) of
 * its singular values s1 >= s2); infinite for a singular A. */
VF_LK_FN float vf_affine_deformation(const float a[4]) {
  const float e = a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3];
  const float det = fabsf(a[0] * a[3] - a[1] * a[2]);
  const float disc = sqrtf(fmaxf(e * e - 4.0f * det * det, 0.0f));
  const float s1 = sqrtf(0.5f * (e + disc));
  const float s2 = det / (s1 > 0.0f ? s1 : 1.0f);
  return s2 > 0.0f ? fmaxf(s1, 1.0f / s2) : INFINITY;
}

/* Zero-normalised cross-correlation of the warped current patch with the reference over the n
 * samples used, from the iteration's sums: with u = (I - c) / gain = e + t (correlation is
 * blind to gain and offset), sum u = sum e + sum t, sum u^2 = sum e^2 + 2 sum t e + sum t^2,
 * sum u t = sum t e + sum t^2 (sum t e and sum e are J^T e's photometric rows). */
VF_LK_FN float vf_affine_ncc(const vf_lk_real* sums, int n) {
  if (n <= 1) return 0.0f;
  const vf_lk_real inv_n = (vf_lk_real)1 / (vf_lk_real)n;
  const vf_lk_real st = sums[9], stt = sums[10], se = sums[7], ste = sums[6], see = sums[8];
  const vf_lk_real mt = st * inv_n, mu = (se + st) * inv_n;
  const vf_lk_real vt = stt * inv_n - mt * mt;
  const vf_lk_real vu = (see + 2 * ste + stt) * inv_n - mu * mu;
  if (!(vt > 0) || !(vu > 0)) return 0.0f;
  const vf_lk_real cov = (ste + stt) * inv_n - mu * mt;
  return (float)(cov / sqrt(vt * vu));
}

/* The track's status when its slot holds no usable reference. */
VF_LK_FN int vf_affine_unusable_status(int valid) {
  return valid == VF_AFFINE_OUTSIDE ? VF_TRACK_OUT_OF_IMAGE
         : valid == VF_AFFINE_FLAT  ? VF_TRACK_DIVERGED
                                    : VF_TRACK_INVALID;
}

/* Starts from the frame-to-frame result (x, y) with the slot's last warp and photometry; with a
 * camera rotation, the shape is carried through its homography's local linear map at the
 * previous position (px0, py0). */
VF_LK_FN void vf_affine_state_init(const vf_affine_params* p, const vf_affine_slot* s, float px0,
                                   float py0, float x, float y, vf_affine_state* st) {
  st->px = x;
  st->py = y;
  float j[4] = {1.0f, 0.0f, 0.0f, 1.0f};
  if (p->has_rotation) {
    const float* h = p->rotation;
    const float w = h[6] * px0 + h[7] * py0 + h[8];
    if (w > 1e-6f) {
      const float inv_w = 1.0f / w;
      const float u = (h[0] * px0 + h[1] * py0 + h[2]) * inv_w;
      const float v = (h[3] * px0 + h[4] * py0 + h[5]) * inv_w;
      j[0] = (h[0] - u * h[6]) * inv_w;
      j[1] = (h[1] - u * h[7]) * inv_w;
      j[2] = (h[3] - v * h[6]) * inv_w;
      j[3] = (h[4] - v * h[7]) * inv_w;
    }
  }
  st->a[0] = j[0] * s->shape[0] + j[1] * s->shape[2];
  st->a[1] = j[0] * s->shape[1] + j[1] * s->shape[3];
  st->a[2] = j[2] * s->shape[0] + j[3] * s->shape[2];
  st->a[3] = j[2] * s->shape[1] + j[3] * s->shape[3];
  VF_AFFINE_UNROLL
  for (int i = 0; i < 4; ++i) st->moved[i] = 0;
  st->gain = s->gain;
  st->c = (vf_lk_real)s->bias + st->gain * (vf_lk_real)s->mu;
  /* The rotation since the reference; its projective part at the reference point, per pixel of
   * reference offset: g = (h6, h7) / w. */
  float h[9];
  vf_affine_compose_warp(p, s, h);
  const float w = h[6] * s->ref_x + h[7] * s->ref_y + h[8];
  st->gx = st->gy = 0.0f;
  if (w > 1e-6f) {
    const float gx = h[6] / w, gy = h[7] / w;
    /* Beyond a factor of 1 +- 0.25 over the patch the second-order model is poor: affine only. */
    if (VF_AFFINE_HALF(p->patch) * (fabsf(gx) + fabsf(gy)) <= 0.25f) {
      st->gx = gx;
      st->gy = gy;
    }
  }
}

/* What the refinement decides once the iterations end (VF_TRACK_* status; the position, gain
 * and correlation as found): the frame-to-frame status when it stands, else why it fails. */
VF_LK_FN int vf_affine_verdict(const vf_affine_params* p, const vf_affine_state* st, float x0,
                               float y0, float ncc, int converged) {
  const float dx = (float)st->px - x0, dy = (float)st->py - y0;
  if (!converged || !(dx * dx + dy * dy <= p->max_shift * p->max_shift)) return VF_TRACK_DIVERGED;
  if (!(st->gain >= (vf_lk_real)p->min_gain && st->gain <= (vf_lk_real)p->max_gain)) {
    return VF_TRACK_DIVERGED;
  }
  if (p->min_ncc > 0.0f && !(ncc >= p->min_ncc)) return VF_TRACK_INCONSISTENT;
  return VF_TRACK_CONVERGED;
}

/* The result and the slot after the iterations: a refined track takes the refined position,
 * photometry and warp (kept in the slot for the next frame) and asks for a new reference once the
 * patch has deformed past max_scale; a failed one gets the verdict's status. residual: RMS of e
 * over the samples used. */
VF_LK_FN void vf_affine_finish(const vf_affine_params* p, vf_affine_slot* s,
                               const vf_affine_state* st, float ncc, int converged, float residual,
                               vf_track_result* out) {
  out->ncc = ncc;
  const int status = vf_affine_verdict(p, st, out->x, out->y, ncc, converged);
  if (status != VF_TRACK_CONVERGED) {
    out->status = (vf_track_status)status;
    return;
  }
  out->frame_x = out->x;
  out->frame_y = out->y;
  out->x = (float)st->px;
  out->y = (float)st->py;
  out->gain = (float)st->gain;
  out->bias = (float)(st->c - st->gain * (vf_lk_real)s->mu);
  out->residual = residual;
  for (int i = 0; i < 4; ++i) out->shape[i] = s->shape[i] = (float)st->a[i];
  float h[9];
  vf_affine_compose_warp(p, s, h);
  for (int i = 0; i < 9; ++i) s->warp[i] = h[i];
  s->gain = out->gain;
  s->bias = out->bias;
  out->flags = VF_TRACK_REFINED |
               (vf_affine_deformation(out->shape) > p->max_scale ? VF_TRACK_REANCHOR : 0u);
}

#endif

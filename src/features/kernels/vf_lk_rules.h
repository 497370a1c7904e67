// SPDX-License-Identifier: BSD-3-Clause
/* What the CPU (src/features/cpu/vf_lk_cpu.c) and CUDA (cuda/features/vf_lk.cu) trackers share: the
 * parameter block and the scalar mathematics of one feature, compiled as host code in C and as
 * host/device code by nvcc. Scalars after the patch sums are `vf_lk_real`: double on the CPU,
 * float on the GPU; pixel sampling is float on both.
 *
 * Model (Bartoli 2008, inverse-compositional photometric registration): with the template T
 * centred by mu (its mean when the bias is estimated, else 0) and c = bias + gain * mu,
 *   e(x) = (I(p + x) - c) / gain - (T(x) - mu),   J(x) = [Tx, Ty, T(x) - mu, 1],
 * the step d = H^-1 sum J e with the constant H = sum J J^T, then p -= d[0..1],
 * c += gain * d[3], gain *= 1 + d[2]. Disabled parameters get a unit row in H and a zero
 * right-hand side, so their step is 0. */
#ifndef VF_LK_RULES_H
#define VF_LK_RULES_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "viofront/vf_tracker.h"

#ifdef __CUDACC__
#define VF_LK_FN static __host__ __device__ __forceinline__
typedef float vf_lk_real;
#else
#define VF_LK_FN static inline
typedef double vf_lk_real;
#endif

/* Reciprocal, reciprocal square root and square root of a positive value. The GPU takes the
 * hardware's approximations (about 1 ulp of float): IEEE division and square root guard a rare
 * slow path with a branch that cuts the kernel's dependent chain into blocks the compiler cannot
 * interleave, and a feature's warp waits on every such chain (docs/perf/tracker.md). */
#if defined(__CUDACC__) && defined(__CUDA_ARCH__)
#define VF_LK_RCP(x) __fdividef(1.0f, (x))
#define VF_LK_RSQRT(x) rsqrtf(x)
#define VF_LK_SQRT(x) ((x)*rsqrtf(x))
#else
#define VF_LK_RCP(x) ((vf_lk_real)1 / (x))
#define VF_LK_RSQRT(x) ((vf_lk_real)1 / sqrt(x))
#define VF_LK_SQRT(x) sqrt(x)
#endif

/* Bit 31 of a slot's level mask: the slot holds a template (bits 0..7: levels inside). */
#define VF_LK_SLOT_CAPTURED (1u << 31)

/* A slot's level k: the template's samples (T, Tx, Ty: 3 patch^2 floats, rounded up to a
 * multiple of 4), then VF_LK_LEVEL_CACHE floats in which the CUDA tracker keeps the level's
 * set-up that depends on the template alone (samples in use, centre, H, its factor and moments:
 * cuda/features/vf_lk_warp.cuh, vf_level_cache); the CPU leaves them unused. */
#define VF_LK_LEVEL_CACHE 32
VF_LK_FN size_t vf_lk_level_samples(int patch) {
  return (3 * (size_t)patch * (size_t)patch + 3) & ~(size_t)3;
}
VF_LK_FN size_t vf_lk_level_floats(int patch) {
  return vf_lk_level_samples(patch) + VF_LK_LEVEL_CACHE;
}

typedef struct vf_lk_params {
  int levels;
  int patch[VF_PYRAMID_MAX_LEVELS];
  int width[VF_PYRAMID_MAX_LEVELS];
  int height[VF_PYRAMID_MAX_LEVELS];
  size_t prev_stride[VF_PYRAMID_MAX_LEVELS];
  size_t cur_stride[VF_PYRAMID_MAX_LEVELS];
  const uint8_t* prev[VF_PYRAMID_MAX_LEVELS];
  const uint8_t* cur[VF_PYRAMID_MAX_LEVELS];
  int max_iterations;    /* level 0 */
  int coarse_iterations; /* each coarser level */
  float min_update;      /* level pixels */
  float min_update_sq;   /* its square */
  float max_residual;    /* 0 = off */
  float min_gain, max_gain;
  int param_mask; /* bit 2: gain estimated, bit 3: bias estimated (bits 0, 1: translation) */
  int first_observation;
  int slots;
  int slot_limit; /* requests' slots must be -1..slot_limit-1 (templates or references); 0: any */
  /* First-observation templates: slot s, level k: T, Tx, Ty (n = patch^2 floats each) at
   * templates + s * slot_floats + level_offset[k] (vf_lk_level_floats each, multiples of 4
   * floats); slot_levels[s]: VF_LK_SLOT_CAPTURED plus a
   * bit per level whose template lay inside the image. */
  float* templates;
  uint32_t* slot_levels;
  size_t slot_floats;
  size_t level_offset[VF_PYRAMID_MAX_LEVELS];
  /* CUDA, one warp per feature: lane l owns a run of `run_span[k]` consecutive samples of one
   * row of level k's patch, `run_groups[k]` runs a row; run_magic[k] = ceil(2^16 / groups) makes
   * l / groups a multiply and a shift (exact for l < 32). Set by vf_lk_set_runs. */
  int run_span[VF_PYRAMID_MAX_LEVELS];
  int run_groups[VF_PYRAMID_MAX_LEVELS];
  int run_magic[VF_PYRAMID_MAX_LEVELS];
  /* CUDA: where the results are written a second time, in device memory, for the reference
   * refinement that reads them next (the results themselves lie in mapped host memory, a
   * PCIe round trip away); NULL: not written twice. The CPU backend ignores it. */
  vf_track_result* result_copy;
  /* Per request (indexed like the requests), the pyramid levels its descent starts from: 1..levels,
   * 0 = all; NULL: all for every request. A request that does not converge from fewer levels is
   * tracked again from the top (vf_lk_retry), so fewer levels cost a track only where the shorter
   * descent converges elsewhere. */
  const uint8_t* start_levels;
} vf_lk_params;

/* The coarsest level request i's descent starts on (start_levels read once). */
VF_LK_FN int vf_lk_top_level(const vf_lk_params* p, int i) {
  const int n = p->start_levels != NULL ? (int)p->start_levels[i] : 0;
  return (n >= 1 && n < p->levels ? n : p->levels) - 1;
}

/* The lane runs of vf_lk_params for a patch of `size` <= 32: the shortest span s that cuts the
 * patch rows into no more than 32 runs of at most s samples (8 for sizes 15 and 16, 2 for 8). */
VF_LK_FN void vf_lk_set_runs(vf_lk_params* p, int k, int size) {
  int s = (size * size + 31) / 32;
  while (s < size && size * ((size + s - 1) / s) > 32) ++s;
  const int g = (size + s - 1) / s;
  p->run_span[k] = s;
  p->run_groups[k] = g;
  p->run_magic[k] = (65536 + g - 1) / g;
}

/* Level-k coordinate of a level-0 coordinate (2x2 box pyramid, pixel centres at integers). */
VF_LK_FN float vf_lk_to_level(float v0, int k) { return (v0 + 0.5f) / (float)(1 << k) - 0.5f; }
VF_LK_FN float vf_lk_to_finer(float v) { return 2.0f * v + 0.5f; }
VF_LK_FN float vf_lk_to_level0(float v, int k) { return (v + 0.5f) * (float)(1 << k) - 0.5f; }

/* Samples of a patch sit at offsets -patch/2 .. patch - 1 - patch/2 from the feature: on the
 * pixel grid for a feature at integer coordinates, so such a template is the image itself, not
 * an interpolated (blurred) copy. */
VF_LK_FN float vf_lk_half(int patch) { return 0.5f * (float)(patch - 1); }

/* Bilinear interpolation at sub-pixel phase g shifts the signal by an error that grows like
 * g (1 - g) (1 - 2 g), so a template sampled at phase g and a current patch at phase g + f
 * (f: the sub-pixel part of the motion) disagree by a few hundredths of a pixel. Moving the
 * template centre c and the current estimate p by the same phi changes neither the motion nor
 * the answer; phi with c + p + 2 phi = 1/2 (mod 1) puts the two phases symmetric about 1/4
 * (g = 1/4 - f/2, g + f = 1/4 + f/2), where those errors nearly cancel. |phi| <= 1/4. */
VF_LK_FN float vf_lk_phase_shift(float c, float p) {
  const float t = 0.25f - 0.5f * (p + c);
  return t - 0.5f * rintf(2.0f * t);
}

/* Nonzero when the patch of side `patch` at (x, y) and `margin` more pixels each side can be
 * sampled bilinearly on a w x h level (NaN gives 0). */
VF_LK_FN int vf_lk_patch_inside(float x, float y, int patch, int margin, int w, int h) {
  const float half = vf_lk_half(patch);
  const float qx = x - half, qy = y - half;
  return qx >= (float)margin && qy >= (float)margin && qx < (float)(w - patch - margin) &&
         qy < (float)(h - patch - margin);
}

/* Integer corner and bilinear weights of the patch's top-left sample: a translation moves every
 * sample by the same sub-pixel fraction, so one set of weights serves the whole patch. */
typedef struct vf_lk_sampler {
  int x0, y0;
  float w00, w01, w10, w11;
} vf_lk_sampler;

VF_LK_FN vf_lk_sampler vf_lk_sampler_at(float x, float y, int patch) {
  const float half = vf_lk_half(patch);
  const float qx = x - half, qy = y - half;
  vf_lk_sampler s;
  s.x0 = (int)floorf(qx);
  s.y0 = (int)floorf(qy);
  const float fx = qx - (float)s.x0, fy = qy - (float)s.y0;
  s.w00 = (1.0f - fx) * (1.0f - fy);
  s.w01 = fx * (1.0f - fy);
  s.w10 = (1.0f - fx) * fy;
  s.w11 = fx * fy;
  return s;
}

VF_LK_FN float vf_lk_bilinear(const uint8_t* p, size_t stride, const vf_lk_sampler* s) {
  return (s->w00 * (float)p[0] + s->w01 * (float)p[1]) +
         (s->w10 * (float)p[stride] + s->w11 * (float)p[stride + 1]);
}

/* Template value and central-difference gradient of the bilinear image at one sample. */
VF_LK_FN void vf_lk_template_pixel(const uint8_t* p, size_t stride, const vf_lk_sampler* s,
                                   float* t, float* tx, float* ty) {
  *t = vf_lk_bilinear(p, stride, s);
  *tx = 0.5f * (vf_lk_bilinear(p + 1, stride, s) - vf_lk_bilinear(p - 1, stride, s));
  *ty = 0.5f * (vf_lk_bilinear(p + stride, stride, s) - vf_lk_bilinear(p - stride, stride, s));
}

/* Saturated samples (interpolated value outside [1, 254], in the template or the current image)
 * break the affine photometric model: they are left out of every sum. A sample that saturates
 * in the current image during a level's iterations stays out until the level ends, so the set
 * in use only shrinks: steps along a clipped edge would otherwise flip samples in and out, which
 * makes the estimate oscillate and changes H (a new factorization) at every iteration. */
VF_LK_FN int vf_lk_unsaturated(float v) { return v >= 1.0f && v <= 254.0f; }

/* Packed lower triangle of the symmetric 4x4 H: 00, 10, 11, 20, 21, 22, 30, 31, 32, 33. */
#define VF_LK_IDX(i, j) ((i) * ((i) + 1) / 2 + (j))

/* The terms of H for one template sample, in packed order: J_i J_j, J = [tx, ty, t, 1]. */
VF_LK_FN void vf_lk_hessian_terms(float tx, float ty, float t, float h[10]) {
  h[0] = tx * tx;
  h[1] = tx * ty;
  h[2] = ty * ty;
  h[3] = tx * t;
  h[4] = ty * t;
  h[5] = t * t;
  h[6] = tx;
  h[7] = ty;
  h[8] = t;
  h[9] = 1.0f;
}

/* Cholesky factor of H with the parameters outside `mask` replaced by unit rows; the diagonal
 * holds 1 / L_ii, so that solving takes no division. Returns 0 when a pivot falls below 1e-4
 * of its diagonal (flat or edge-only template); l is then meaningless. No early exit, so that
 * the GPU overlaps the factorisation with other work instead of branching on every pivot. */
VF_LK_FN int vf_lk_factor(const vf_lk_real h_in[10], int mask, vf_lk_real l[10]) {
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j <= i; ++j) {
      const int on = ((mask >> i) & 1) && ((mask >> j) & 1);
      l[VF_LK_IDX(i, j)] = on ? h_in[VF_LK_IDX(i, j)] : (vf_lk_real)(i == j);
    }
  }
  int ok = 1;
  for (int i = 0; i < 4; ++i) {
    const vf_lk_real diag = l[VF_LK_IDX(i, i)];
    for (int j = 0; j <= i; ++j) {
      vf_lk_real v = l[VF_LK_IDX(i, j)];
      for (int k = 0; k < j; ++k) v -= l[VF_LK_IDX(i, k)] * l[VF_LK_IDX(j, k)];
      if (j < i) {
        l[VF_LK_IDX(i, j)] = v * l[VF_LK_IDX(j, j)];
      } else {
        ok &= diag > 0 && v > (vf_lk_real)1e-4 * diag;
        l[VF_LK_IDX(i, i)] = VF_LK_RSQRT(v > 0 ? v : (vf_lk_real)1);
      }
    }
  }
  return ok;
}

VF_LK_FN void vf_lk_solve(const vf_lk_real l[10], const vf_lk_real b[4], vf_lk_real x[4]) {
  vf_lk_real y[4];
  for (int i = 0; i < 4; ++i) {
    vf_lk_real v = b[i];
    for (int k = 0; k < i; ++k) v -= l[VF_LK_IDX(i, k)] * y[k];
    y[i] = v * l[VF_LK_IDX(i, i)];
  }
  for (int i = 3; i >= 0; --i) {
    vf_lk_real v = y[i];
    for (int k = i + 1; k < 4; ++k) v -= l[VF_LK_IDX(k, i)] * x[k];
    x[i] = v * l[VF_LK_IDX(i, i)];
  }
}

/* Iterations allowed on level k: max_iterations on level 0, coarse_iterations on the coarser
 * levels, which only have to land level 0 in its basin. Tracks that use up an allowance
 * oscillate or crawl over weak texture (level 0's end as diverged); more iterations rarely change
 * the outcome but set the GPU kernel's time, its slowest warp's (docs/perf/tracker.md). */
VF_LK_FN int vf_lk_level_iterations(const vf_lk_params* p, int k) {
  return k > 0 ? p->coarse_iterations : p->max_iterations;
}

/* RMS of the photometrically normalised residual from sum e^2 over n samples. */
VF_LK_FN float vf_lk_residual(vf_lk_real sum_e2, int n) {
  return (float)sqrt(sum_e2 / (vf_lk_real)n);
}

/* The state of one feature on one level. */
typedef struct vf_lk_state {
  float px, py;      /* position on the level */
  vf_lk_real a;      /* gain */
  vf_lk_real c;      /* bias + gain * mu, mu = this level's template centring */
  vf_lk_real dx, dy; /* the previous translation step (0 at the start of a level) */
  int level;
} vf_lk_state;

/* How a level ended. */
enum {
  VF_LK_LEVEL_DONE = 0,    /* iterations used up */
  VF_LK_LEVEL_CONVERGED,   /* translation step below min_update */
  VF_LK_LEVEL_NO_TEMPLATE, /* template outside the previous image (or never kept) */
  VF_LK_LEVEL_FLAT,        /* singular H */
  VF_LK_LEVEL_OUT,         /* the patch left the current image (state restored) */
  VF_LK_LEVEL_BAD_GAIN     /* gain left [min_gain, max_gain] or became NaN */
};

/* The joint Gauss-Newton step of all four parameters (the model above). */
VF_LK_FN void vf_lk_step_joint(const vf_lk_real l[10], int mask, const vf_lk_real s[5],
                               vf_lk_state* st, vf_lk_real d[2]) {
  vf_lk_real b[4], x[4];
  for (int i = 0; i < 4; ++i) b[i] = ((mask >> i) & 1) ? s[i] : (vf_lk_real)0;
  vf_lk_solve(l, b, x);
  st->c += st->a * x[3];
  st->a *= (vf_lk_real)1 + x[2];
  d[0] = x[0];
  d[1] = x[1];
}

/* What the moment step needs of the template alone (over the n samples used): computed once a
 * level, and again only when samples drop out. 0 in inv_vt / inv_h5 marks a template without
 * variance / energy (the gain then stays). */
typedef struct vf_lk_moments {
  vf_lk_real inv_n, mt, inv_vt, inv_h5, inv_det;
} vf_lk_moments;

VF_LK_FN void vf_lk_moments_prepare(const vf_lk_real h[10], int n, vf_lk_moments* m) {
  m->inv_n = VF_LK_RCP((vf_lk_real)n);
  m->mt = h[8] * m->inv_n;
  const vf_lk_real vt = h[5] * m->inv_n - m->mt * m->mt;
  m->inv_vt = vt > 0 ? VF_LK_RCP(vt) : (vf_lk_real)0;
  m->inv_h5 = h[5] > 0 ? VF_LK_RCP(h[5]) : (vf_lk_real)0;
  m->inv_det = VF_LK_RCP(h[0] * h[2] - h[1] * h[1]);
}

/* Coarse levels start far from the answer, where the least-squares gain (the correlation of
 * two misaligned patches) collapses towards 0 and drags the translation off. There the
 * photometric parameters come from the patch moments instead (gain = ratio of standard
 * deviations, bias from the means), which misalignment barely changes, and the translation
 * takes a Gauss-Newton step with them. With u = e + t: current - c = a u, so every moment
 * follows from the sums s and the template sums in h. */
VF_LK_FN void vf_lk_step_moments(const vf_lk_real h[10], const vf_lk_moments* m, int mask,
                                 const vf_lk_real s[5], vf_lk_state* st, vf_lk_real d[2]) {
  const vf_lk_real a = st->a, c = st->c;
  const vf_lk_real su = s[3] + h[8], suu = s[4] + 2 * s[2] + h[5];
  vf_lk_real a2 = a, c2 = c;
  if ((mask & 12) == 12) {
    const vf_lk_real mu = su * m->inv_n, vu = suu * m->inv_n - mu * mu;
    if (vu > 0 && m->inv_vt > 0) a2 = a * VF_LK_SQRT(vu * m->inv_vt);
    c2 = c + a * mu - a2 * m->mt;
  } else if (mask & 4) {
    if (suu > 0 && m->inv_h5 > 0) a2 = a * VF_LK_SQRT(suu * m->inv_h5);
  } else if (mask & 8) {
    c2 = c + a * s[3] * m->inv_n;
  }
  /* sum T_x ((current - c2) / a2 - t), from the sums taken with (a, c). */
  const vf_lk_real inv_a2 = VF_LK_RCP(a2);
  const vf_lk_real rx = a * inv_a2 * (s[0] + h[3]) + (c - c2) * inv_a2 * h[6] - h[3];
  const vf_lk_real ry = a * inv_a2 * (s[1] + h[4]) + (c - c2) * inv_a2 * h[7] - h[4];
  d[0] = (h[2] * rx - h[1] * ry) * m->inv_det;
  d[1] = (h[0] * ry - h[1] * rx) * m->inv_det;
  st->a = a2;
  st->c = c2;
}

/* One iteration after the sums s = {sum tx e, sum ty e, sum t e, sum e, sum e^2} over the
 * samples used, with h = sum J J^T over the same samples, l its factor and m its moments: the
 * step; 0 to go on, else how the level ends. Level 0 does not read s[4] (the GPU sums it once,
 * for the residual, when the level ends). */
VF_LK_FN int vf_lk_iterate(const vf_lk_real h[10], const vf_lk_real l[10], const vf_lk_moments* m,
                           const vf_lk_params* p, const vf_lk_real s[5], vf_lk_state* st) {
  vf_lk_real d[2];
  if (st->level > 0) {
    vf_lk_step_moments(h, m, p->param_mask, s, st, d);
    /* A coarse level only needs a rough gain; clamping keeps it usable. */
    if (st->a < (vf_lk_real)p->min_gain) st->a = p->min_gain;
    if (st->a > (vf_lk_real)p->max_gain) st->a = p->max_gain;
  } else {
    vf_lk_step_joint(l, p->param_mask, s, st, d);
  }
  const vf_lk_real step_sq = d[0] * d[0] + d[1] * d[1];
  if (!(st->a >= (vf_lk_real)p->min_gain && st->a <= (vf_lk_real)p->max_gain) ||
      !(step_sq == step_sq)) {
    return VF_LK_LEVEL_BAD_GAIN;
  }
  /* A step that undoes the previous one is an oscillation about the answer: stop halfway. */
  const vf_lk_real tol = (vf_lk_real)p->min_update;
  if (fabs(d[0] + st->dx) < tol && fabs(d[1] + st->dy) < tol) {
    st->px -= (float)(0.5 * d[0]);
    st->py -= (float)(0.5 * d[1]);
    return VF_LK_LEVEL_CONVERGED;
  }
  st->px -= (float)d[0];
  st->py -= (float)d[1];
  st->dx = d[0];
  st->dy = d[1];
  /* Coarse levels only have to land level 0 in its basin: they stop at 4 x min_update. */
  const vf_lk_real limit = (vf_lk_real)p->min_update_sq * (st->level > 0 ? 16 : 1);
  return step_sq < limit ? VF_LK_LEVEL_CONVERGED : 0;
}

/* After level k ended with `outcome`: -1 to go on with the next finer level, else the feature's
 * final status. Coarse levels that cannot help (template outside, flat, patch leaving the
 * image) are skipped; level 0 decides. */
VF_LK_FN int vf_lk_after_level(int outcome, int k, float residual, const vf_lk_params* p) {
  if (outcome == VF_LK_LEVEL_BAD_GAIN) return VF_TRACK_DIVERGED;
  if (k > 0) return -1;
  switch (outcome) {
    case VF_LK_LEVEL_NO_TEMPLATE:
    case VF_LK_LEVEL_OUT: return VF_TRACK_OUT_OF_IMAGE;
    case VF_LK_LEVEL_FLAT:
    case VF_LK_LEVEL_DONE: return VF_TRACK_DIVERGED;
    default: break;
  }
  if (p->max_residual > 0.0f && !(residual <= p->max_residual)) return VF_TRACK_RESIDUAL_TOO_LARGE;
  return VF_TRACK_CONVERGED;
}

VF_LK_FN int vf_lk_request_valid(const vf_track_request* r, const vf_lk_params* p) {
  const int finite = isfinite(r->x) && isfinite(r->y) && isfinite(r->guess_x) &&
                     isfinite(r->guess_y) && isfinite(r->gain) && isfinite(r->bias);
  const int slot_ok = p->slot_limit == 0 || (r->slot >= -1 && r->slot < p->slot_limit);
  return finite && r->gain > 0.0f && slot_ok;
}

/* Where the template comes from: 0 = the previous image, 1 = the previous image, kept in the
 * slot first, 2 = the slot. */
VF_LK_FN int vf_lk_template_source(const vf_track_request* r, const vf_lk_params* p) {
  if (!p->first_observation || r->slot < 0) return 0;
  return r->new_template ? 1 : 2;
}

/* The final status: a track that ends farther from its guess than the coarsest patch spans
 * (patch x 2^(levels-1) px) has wandered over flat texture and counts as diverged. */
VF_LK_FN vf_track_status vf_lk_final_status(int status, const vf_lk_params* p,
                                            const vf_track_request* r, float x, float y) {
  if (status != VF_TRACK_CONVERGED && status != VF_TRACK_RESIDUAL_TOO_LARGE) {
    return (vf_track_status)status;
  }
  const float reach = (float)(p->patch[p->levels - 1] << (p->levels - 1));
  const float dx = x - r->guess_x, dy = y - r->guess_y;
  return dx * dx + dy * dy <= reach * reach ? (vf_track_status)status : VF_TRACK_DIVERGED;
}

/* Whether a descent from level top < the coarsest ended short of converging (a step that
 * diverged, a residual too large, a patch pushed out of the image): then it is run again from the
 * coarsest level, as if it had started there. */
VF_LK_FN int vf_lk_retry(int top, const vf_lk_params* p, int status) {
  return top < p->levels - 1 && status != VF_TRACK_CONVERGED && status != VF_TRACK_INVALID;
}

/* The pyramid levels a track needs whose guess is expected within `error` px of the answer:
 * two levels while error <= radius, a level more each time it doubles, all of `levels` past
 * that or when error is unknown (not finite, or radius <= 0). Never level 0 alone: started there,
 * a descent stops (steps under min_update) a few hundredths of a pixel from where one from level 1
 * stops, and on vf_synth the records' tail grew (docs/perf/tracker.md). */
VF_LK_FN int vf_lk_levels_for(float error, float radius, int levels) {
  if (!(radius > 0.0f) || !(error >= 0.0f) || !(error < 1e6f) || levels <= 2) return levels;
  int n = 2;
  float reach = radius;
  while (n < levels && error > reach) {
    ++n;
    reach *= 2.0f;
  }
  return n;
}

/* Where the frame-to-frame step of a result ended: before any refinement moved it. */
VF_LK_FN void vf_lk_frame_position(const vf_track_result* r, float* x, float* y) {
  const int refined = (r->flags & VF_TRACK_REFINED) != 0;
  *x = refined ? r->frame_x : r->x;
  *y = refined ? r->frame_y : r->y;
}

/* The forward-backward check's request for a forward result fw of request rq: back from the
 * frame-to-frame step's position (before any refinement) to the previous image, with a template
 * from the current one (no slot), starting there or, with from_guess, moved back by the offset
 * the request's guess gave the forward step. */
VF_LK_FN vf_track_request vf_lk_back_request(const vf_track_request* rq, const vf_track_result* fw,
                                             int from_guess) {
  vf_track_request b;
  vf_lk_frame_position(fw, &b.x, &b.y);
  b.guess_x = from_guess ? b.x - (rq->guess_x - rq->x) : b.x;
  b.guess_y = from_guess ? b.y - (rq->guess_y - rq->y) : b.y;
  b.gain = 1.0f;
  b.bias = 0.0f;
  b.slot = -1;
  b.new_template = 0;
  return b;
}

/* A result that echoes the request (what an untracked feature reports). */
VF_LK_FN vf_track_result vf_lk_result_init(const vf_track_request* r) {
  vf_track_result out;
  out.x = r->guess_x;
  out.y = r->guess_y;
  out.gain = r->gain;
  out.bias = r->bias;
  out.residual = 0.0f;
  out.iterations = 0;
  out.status = VF_TRACK_INVALID;
  out.flags = 0;
  out.ncc = 0.0f;
  out.frame_x = out.x;
  out.frame_y = out.y;
  out.shape[0] = out.shape[3] = 1.0f;
  out.shape[1] = out.shape[2] = 0.0f;
  return out;
}

#endif

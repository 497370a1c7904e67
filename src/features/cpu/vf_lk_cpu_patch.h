// SPDX-License-Identifier: BSD-3-Clause
/* The CPU tracker's patch loops (src/features/cpu/vf_lk_cpu_resample.c, _template.c, _sums.c): the
 * template and the current samples of a patch as float rows padded to a multiple of 4 samples,
 * so that every loop runs 4 lanes at a time without branches (src/core/vf_simd4.h).
 *
 * Precision: per-sample arithmetic in float, operation for operation as vf_tracker_lk.h (and
 * the GPU kernel) writes it; sums in float over one patch column (at most 16 samples a lane),
 * those partial sums added in double (the GPU sums everything in float). */
#ifndef VF_LK_CPU_PATCH_H
#define VF_LK_CPU_PATCH_H

#include "features/kernels/vf_lk_rules.h"

/* Padded row of the largest patch (VF_TRACKER_MAX_PATCH is a multiple of 4) and its area. */
#define VF_LK_ROW_MAX VF_TRACKER_MAX_PATCH
#define VF_LK_AREA_MAX (VF_LK_ROW_MAX * VF_LK_ROW_MAX)
/* A set of samples of a patch: bit i of word i / 64 for sample i of the padded rows. */
#define VF_LK_SET_WORDS (VF_LK_AREA_MAX / 64)
/* The bilinear image under the patch and one pixel each side, rows of width + 4 floats. */
#define VF_LK_WINDOW_MAX ((VF_LK_ROW_MAX + 2) * (VF_LK_ROW_MAX + 4))

/* One level's template. After vf_lk_patch_load: t = T, tx, ty as sampled. After
 * vf_lk_patch_extract the samples are still in win (T at sample (r, c) is win[(r + 1) (width +
 * 4) + c + 1], the gradients its central differences): vf_lk_patch_prepare reads them there
 * once, instead of a pass that copies them to t, tx, ty first. After vf_lk_patch_prepare:
 * t = T - mu where used, and t, tx, ty = 0 where not (padding lanes included), so that only the
 * current image's saturation needs a mask. */
typedef struct vf_lk_patch {
  int size;     /* patch side */
  int width;    /* row stride: size rounded up to 4 */
  int count;    /* samples used (unsaturated template) */
  int windowed; /* nonzero: the samples are in win, not yet in t, tx, ty */
  float mu;     /* centring subtracted from t */
  double h[10];
  _Alignas(16) float t[VF_LK_AREA_MAX];
  _Alignas(16) float tx[VF_LK_AREA_MAX];
  _Alignas(16) float ty[VF_LK_AREA_MAX];
  _Alignas(16) uint32_t use[VF_LK_AREA_MAX]; /* lane masks: sample used */
  _Alignas(16) float win[VF_LK_WINDOW_MAX];
} vf_lk_patch;

static inline void vf_lk_patch_init(vf_lk_patch* tp, int size) {
  tp->size = size;
  tp->width = (size + 3) & ~3;
  tp->windowed = 0;
}

/* Bilinear samples with s's weights of the window whose top-left pixel is p: out[r * out_stride
 * + c] for r < rows and c < cols rounded up to 4 (out 16-byte aligned, out_stride a multiple of
 * 4). Reads rows + 1 rows of `bytes` bytes from p, never more: samples beyond read zeros. */
void vf_lk_cpu_resample(const uint8_t* p, size_t stride, const vf_lk_sampler* s, int rows, int cols,
                        int bytes, float* out, int out_stride);
/* The same in 4 lanes everywhere, and (where vf_simd8.h defines VF_SIMD8, on a CPU with AVX2)
 * in 8 lanes: the same bits; vf_lk_cpu_resample picks. */
void vf_lk_cpu_resample4(const uint8_t* p, size_t stride, const vf_lk_sampler* s, int rows,
                         int cols, int bytes, float* out, int out_stride);
void vf_lk_cpu_resample8(const uint8_t* p, size_t stride, const vf_lk_sampler* s, int rows,
                         int cols, int bytes, float* out, int out_stride);

/* The template T, Tx, Ty (vf_lk_template_pixel for every sample) of the patch whose top-left
 * sample s places on img, as the window they are read from (tp->win); the patch and one more
 * pixel each side must lie inside the image. */
void vf_lk_patch_extract(vf_lk_patch* tp, const uint8_t* img, size_t stride,
                         const vf_lk_sampler* s);

/* A first-observation slot (T, Tx, Ty: size^2 floats each) from an extracted patch's window,
 * and to the padded rows. */
void vf_lk_patch_store(const vf_lk_patch* tp, float* slot);
void vf_lk_patch_load(vf_lk_patch* tp, const float* slot);

/* Use masks, centring (mu = mean of the used T when `center`, else 0) and H; returns the count
 * of samples used (0: none, the rest is then meaningless). */
int vf_lk_patch_prepare(vf_lk_patch* tp, int center);
/* The same in 4 lanes (wide 0) or 8 (wide 1: only where VF_SIMD8 and the CPU has AVX2): the
 * same bits; vf_lk_patch_prepare picks. */
int vf_lk_patch_prepare_lanes(vf_lk_patch* tp, int center, int wide);

/* One iteration's sums over the current samples cur (rows of tp->width): s = {sum tx e, sum ty
 * e, sum t e, sum e, sum e^2}, e = (cur - c) * inv_a - t, over the used samples whose cur is
 * unsaturated. Returns nonzero when some used sample's cur is saturated. */
int vf_lk_patch_sums(const vf_lk_patch* tp, const float* cur, float c, float inv_a, double s[5]);
/* The same in 4 and in 8 lanes (as vf_lk_cpu_resample4 / 8). */
int vf_lk_patch_sums4(const vf_lk_patch* tp, const float* cur, float c, float inv_a, double s[5]);
int vf_lk_patch_sums8(const vf_lk_patch* tp, const float* cur, float c, float inv_a, double s[5]);

/* The used samples whose cur is saturated, as a set. */
void vf_lk_patch_saturated_set(const vf_lk_patch* tp, const float* cur,
                               uint64_t set[VF_LK_SET_WORDS]);

/* Takes the samples of `more` out of use for the rest of the level (vf_tracker_lk.h's
 * saturation rule): adds them to `left_out` and their H terms to h_out (the sum, in double,
 * sample by sample, of the terms of the samples in left_out), and clears their use masks. */
void vf_lk_patch_leave(vf_lk_patch* tp, const uint64_t more[VF_LK_SET_WORDS],
                       uint64_t left_out[VF_LK_SET_WORDS], double h_out[10]);

#endif

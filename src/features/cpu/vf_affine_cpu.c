// SPDX-License-Identifier: BSD-3-Clause
/* CPU reference refinement: one feature at a time, features split across threads. Mirrors
 * cuda/features/vf_affine.cu step for step; the mathematics is
 * src/features/kernels/vf_affine_rules.h. As on the GPU, the current image is smoothed once per
 * feature into a window under the warped patch (rebuilt only when the patch leaves it), so that a
 * sample is one bilinear read; an iteration takes 4 samples of a patch row at a time
 * (src/core/vf_simd4.h), float sums per row, double totals. The window is smoothed in 16-bit
 * integers, 8 pixels at a time (src/core/vf_simd16.h). */
#include "features/kernels/vf_affine_cpu.h"
#include "features/kernels/vf_lk_cpu.h"

#include <stdint.h>
#include <string.h>

#include "core/vf_parallel.h"
#include "core/vf_simd16.h"
#include "core/vf_simd4.h"
#include "core/vf_simd8.h"
#include "features/cpu/vf_affine_cpu_reference.h"
#include "features/cpu/vf_smooth_cpu.h"

/* The smoothed current image over [x0, x0 + w) x [y0, y0 + h), row stride VF_AFFINE_CPU_WIN, as
 * cuda/features/vf_affine.cu builds it in shared memory: the [1 2 1] / 4 binomial along rows, then
 * down the columns (exact in float: quarters and halves of small integers), so that a sample is one
 * bilinear read of 4 values instead of the smoothed sampler's 16 taps. w = 0: the warped patch
 * does not fit, samples take the smoothed sampler. */
#define VF_AFFINE_CPU_WIN_SHIFT 6
#define VF_AFFINE_CPU_WIN (1 << VF_AFFINE_CPU_WIN_SHIFT)

typedef struct vf_affine_cpu_window {
  int x0, y0, w, h;
  _Alignas(16) float win[VF_AFFINE_CPU_WIN * VF_AFFINE_CPU_WIN];
} vf_affine_cpu_window;

/* Nonzero when every bilinear read of the warped patch lies inside the window, with a thousandth
 * of a pixel to spare for the rounding of the sample positions. */
static int vf_affine_cpu_holds(const vf_affine_params* p, const vf_affine_cpu_window* wd,
                               const vf_affine_state* st) {
  const float slack = 1e-3f;
  float rx, ry;
  vf_affine_extent(st, p->patch, &rx, &ry);
  const float px = (float)st->px, py = (float)st->py;
  return wd->w > 0 && px - rx >= (float)wd->x0 + slack && py - ry >= (float)wd->y0 + slack &&
         px + rx < (float)(wd->x0 + wd->w - 1) - slack &&
         py + ry < (float)(wd->y0 + wd->h - 1) - slack;
}

/* The window for the patch warped by st with two pixels to spare each side (it usually serves
 * every iteration of the feature), as the GPU places it; w = 0 where it cannot hold the patch. */
static void vf_affine_cpu_window_build(const vf_affine_params* p, const vf_affine_state* st,
                                       vf_affine_cpu_window* wd) {
  const int margin = 2;
  float rx, ry;
  vf_affine_extent(st, p->patch, &rx, &ry);
  const float px = (float)st->px, py = (float)st->py;
  const int x0 = (int)floorf(px - rx) - margin, y0 = (int)floorf(py - ry) - margin;
  const int x1 = (int)floorf(px + rx) + 2 + margin, y1 = (int)floorf(py + ry) + 2 + margin;
  wd->x0 = x0 > 1 ? x0 : 1;
  wd->y0 = y0 > 1 ? y0 : 1;
  wd->w = (x1 < p->width - 2 ? x1 : p->width - 2) - wd->x0;
  wd->h = (y1 < p->height - 2 ? y1 : p->height - 2) - wd->y0;
  /* Too large, or (within a pixel of the right or bottom border) cut by the image: the sampler. */
  if (wd->w > VF_AFFINE_CPU_WIN || wd->h > VF_AFFINE_CPU_WIN || !vf_affine_cpu_holds(p, wd, st)) {
    wd->w = 0;
    return;
  }
  /* The binomial in integers (vf_smooth_cpu.h), whole vectors of 8 pixels: bytes are read up to
   * x0 + w + 7 = x1 + 7 <= width + 5, which lie in the next image row (the last row read is
   * y1 <= height - 2). */
  _Alignas(16) int16_t sums[VF_AFFINE_CPU_WIN + 2][VF_AFFINE_CPU_WIN];
  const int w = (wd->w + 7) & ~7, h = wd->h;
  const uint8_t* q = p->cur + (size_t)(wd->y0 - 1) * p->cur_stride + (size_t)(wd->x0 - 1);
  for (int r = 0; r < h + 2; ++r, q += p->cur_stride) vf_cpu_smooth_row(q, w, sums[r]);
  for (int r = 0; r < h; ++r)
    vf_cpu_smooth_column(sums[r], sums[r + 1], sums[r + 2], w, wd->win + r * VF_AFFINE_CPU_WIN);
}

/* The smoothed sampler at 4 lanes' level-0 positions (no window: rare, kept out of line). */
static vf_f4 vf_affine_cpu_read_sampler(const vf_affine_params* p, vf_f4 x, vf_f4 y) {
  _Alignas(16) float xs[4], ys[4], v[4];
  vf_f4_store(xs, x);
  vf_f4_store(ys, y);
  for (int l = 0; l < 4; ++l) v[l] = vf_affine_sample(p->cur, p->cur_stride, xs[l], ys[l]);
  return vf_f4_load(v);
}

/* The current image at 4 lanes' positions in window coordinates (level-0 pixels less
 * (x0, y0)): bilinear in the window, or the smoothed sampler without one (x0 = y0 = 0 then). */
static inline vf_f4 vf_affine_cpu_read(const vf_affine_params* p, const float* win, vf_f4 x,
                                       vf_f4 y) {
  if (win == NULL) return vf_affine_cpu_read_sampler(p, x, y);
  /* Window coordinates are >= 0 (vf_affine_cpu_holds), so truncation is floor. */
  uint32_t idx[4];
  vf_f4 fx, fy;
  vf_f4_trunc_index(x, y, VF_AFFINE_CPU_WIN_SHIFT, &fx, &fy, idx);
  const vf_f4 ax = vf_f4_sub(x, fx), ay = vf_f4_sub(y, fy);
  vf_f4 a, b, c, d;
  vf_f4_gather2(win, idx, &a, &b);
  vf_f4_gather2(win + VF_AFFINE_CPU_WIN, idx, &c, &d);
  const vf_f4 top = vf_f4_add(a, vf_f4_mul(ax, vf_f4_sub(b, a)));
  const vf_f4 bot = vf_f4_add(c, vf_f4_mul(ax, vf_f4_sub(d, c)));
  return vf_f4_add(top, vf_f4_mul(ay, vf_f4_sub(bot, top)));
}

/* How a patch row is cut into groups of 4 lanes: groups start at 0, 4, ... When the side leaves
 * one column over (side = 4 k + 1, as the default 21), that last column is taken 4 rows at a
 * time instead (vf_affine_cpu_column): a group for one sample a row would be a sixth of the work
 * for a 21st of the samples. Otherwise the last group starts at side - 4 with the lanes already
 * covered off (no read past the row, no padded copy). sx: the columns' normalised offsets. */
typedef struct vf_affine_cpu_rows {
  int groups;
  int column; /* nonzero: the last column goes by vf_affine_cpu_column */
  int start[(VF_TRACKER_MAX_REF_PATCH + 3) / 4];
  uint32_t lanes[(VF_TRACKER_MAX_REF_PATCH + 3) / 4]; /* bit l: lane l counts */
  float ox[VF_TRACKER_MAX_REF_PATCH], sx[VF_TRACKER_MAX_REF_PATCH];
} vf_affine_cpu_rows;

static void vf_affine_cpu_rows_make(int patch, vf_affine_cpu_rows* rows) {
  const float half = VF_AFFINE_HALF(patch), inv_half = 1.0f / half;
  for (int c = 0; c < patch; ++c) {
    rows->ox[c] = (float)c - half;
    rows->sx[c] = rows->ox[c] * inv_half;
  }
  rows->column = patch % 4 == 1;
  const int cols = rows->column ? patch - 1 : patch;
  rows->groups = 0;
  for (int c = 0; c < cols; c += 4) {
    const int start = c + 4 <= cols ? c : cols - 4;
    rows->start[rows->groups] = start;
    rows->lanes[rows->groups++] = (15u << (c - start)) & 15u;
  }
}

/* The reference's last column as rows of 4 lanes (rows padded to a multiple of 4 with unused
 * samples at the last row's offset), copied once per call so that its groups load like a row's. */
#define VF_AFFINE_CPU_COLUMN (VF_TRACKER_MAX_REF_PATCH + 3)

typedef struct vf_affine_cpu_column {
  _Alignas(16) float t[VF_AFFINE_CPU_COLUMN], tx[VF_AFFINE_CPU_COLUMN], ty[VF_AFFINE_CPU_COLUMN];
  _Alignas(16) float oy[VF_AFFINE_CPU_COLUMN], sy[VF_AFFINE_CPU_COLUMN];
} vf_affine_cpu_column;

static void vf_affine_cpu_column_make(int patch, const float* t, vf_affine_cpu_column* col) {
  const int n = patch * patch;
  const float half = VF_AFFINE_HALF(patch), inv_half = 1.0f / half;
  for (int r = 0; r < (patch + 3) / 4 * 4; ++r) {
    const int i = r * patch + patch - 1, real = r < patch;
    col->t[r] = real ? t[i] : -1.0f;
    col->tx[r] = real ? t[n + i] : 0.0f;
    col->ty[r] = real ? t[2 * n + i] : 0.0f;
    col->oy[r] = (float)(real ? r : patch - 1) - half;
    col->sy[r] = col->oy[r] * inv_half;
  }
}

/* Lane masks of 4-bit sets. */
static _Alignas(16) const uint32_t vf_affine_cpu_masks[16][4] = {
    {0, 0, 0, 0},     {~0u, 0, 0, 0},     {0, ~0u, 0, 0},     {~0u, ~0u, 0, 0},
    {0, 0, ~0u, 0},   {~0u, 0, ~0u, 0},   {0, ~0u, ~0u, 0},   {~0u, ~0u, ~0u, 0},
    {0, 0, 0, ~0u},   {~0u, 0, 0, ~0u},   {0, ~0u, 0, ~0u},   {~0u, ~0u, 0, ~0u},
    {0, 0, ~0u, ~0u}, {~0u, 0, ~0u, ~0u}, {0, ~0u, ~0u, ~0u}, {~0u, ~0u, ~0u, ~0u}};

/* Which samples count, per call, as lane masks in the groups' layout: row r's group g at
 * row[r][4 g], the last column's rows r..r+3 (rows->column) at column[r]. A sample counts when
 * its lane belongs to the group and its reference sample is used (used samples are in [1, 254],
 * unused ones -1: vf_affine_cpu_capture, so the sign decides); one that saturates in the current
 * image leaves its mask for the rest of the call. One load a group instead of a mask built from
 * bits and a test of the reference. */
#define VF_AFFINE_CPU_LANES (4 * ((VF_TRACKER_MAX_REF_PATCH + 3) / 4))

typedef struct vf_affine_cpu_use {
  _Alignas(16) uint32_t row[VF_TRACKER_MAX_REF_PATCH][VF_AFFINE_CPU_LANES];
  _Alignas(16) uint32_t column[VF_AFFINE_CPU_LANES];
} vf_affine_cpu_use;

static void vf_affine_cpu_use_make(int patch, const vf_affine_cpu_rows* rows,
                                   const vf_affine_cpu_column* column, const float* t,
                                   vf_affine_cpu_use* use) {
  for (int r = 0; r < patch; ++r) {
    for (int g = 0; g < rows->groups; ++g) {
      const vf_m4 lanes = vf_m4_load(vf_affine_cpu_masks[rows->lanes[g]]);
      const vf_f4 tv = vf_f4_loadu(t + r * patch + rows->start[g]);
      vf_m4_store(use->row[r] + 4 * g, vf_m4_and(lanes, vf_f4_at_least(tv, 0.0f)));
    }
  }
  /* The column's padding rows hold unused samples. */
  for (int r = 0; rows->column && r < patch; r += 4) {
    vf_m4_store(use->column + r, vf_f4_at_least(vf_f4_load(column->t + r), 0.0f));
  }
}

/* The residuals of a pass in the groups' layout (as vf_affine_cpu_use). Sum e^2 serves only the
 * correlation and the residual of the last pass, so it is summed once the iterations end, from
 * these, in the order a pass would have summed it (vf_affine_cpu_sum_e2). */
typedef struct vf_affine_cpu_errors {
  _Alignas(16) float row[VF_TRACKER_MAX_REF_PATCH][VF_AFFINE_CPU_LANES];
  _Alignas(16) float column[VF_AFFINE_CPU_LANES];
} vf_affine_cpu_errors;

/* The residuals e of 4 samples: current values v, reference values tv (*tc = tv - mu), the
 * lanes in use at *in. Lanes that saturate in the current image leave *in and go to *fresh. */
static inline vf_f4 vf_affine_cpu_residuals(vf_f4 v, vf_f4 tv, uint32_t* in, vf_f4 c,
                                            vf_f4 inv_gain, vf_f4 mu, vf_f4* tc, int* fresh) {
  vf_m4 use = vf_m4_load(in);
  const vf_m4 ok = vf_f4_in_range(v, 1.0f, 254.0f);
  *fresh = vf_m4_bits(vf_m4_and_not(use, ok));
  if (*fresh != 0) {
    use = vf_m4_and(use, ok);
    vf_m4_store(in, use);
  }
  *tc = vf_f4_sub(tv, mu);
  return vf_f4_select(use, vf_f4_sub(vf_f4_mul(vf_f4_sub(v, c), inv_gain), *tc));
}

/* What the rows of one pass share: the state's warp in window coordinates, the reference, the
 * masks and residuals it updates, and per row the columns that saturate in it (their terms go to
 * h_out by rows after the pass). */
typedef struct vf_affine_cpu_pass {
  const vf_affine_cpu_rows* rows;
  const float* t;
  const vf_affine_params* p;
  const float* win; /* NULL: the smoothed sampler */
  int patch, n;
  float half, inv_half, a1, a3, gy;
  vf_f4 c, inv_gain, va0, va2, vmu, vpx, vpy, vgx;
  vf_affine_cpu_use* use;
  vf_affine_cpu_errors* err;
  uint32_t* added;
} vf_affine_cpu_pass;

/* Row r: its residuals, then its sums into f (two short loops: in one, the accumulators
 * spilled). */
static inline void vf_affine_cpu_row(const vf_affine_cpu_pass* q, int r, float (*f)[4]) {
  const vf_affine_cpu_rows* rows = q->rows;
  const float oy = (float)r - q->half, sy = oy * q->inv_half;
  /* Sample (ox, oy) lies at p + (1 - gx ox - gy oy) A (ox, oy) (vf_affine_warp_point). */
  const vf_f4 bx = vf_f4_set1(q->a1 * oy), by = vf_f4_set1(q->a3 * oy);
  const vf_f4 bm = vf_f4_set1(1.0f - q->gy * oy);
  uint32_t* use_row = q->use->row[r];
  float* e_row = q->err->row[r];
  for (int g = 0; g < rows->groups; ++g) {
    const int col = rows->start[g];
    const vf_f4 ox = vf_f4_loadu(rows->ox + col);
    const vf_f4 m = vf_f4_sub(bm, vf_f4_mul(q->vgx, ox));
    const vf_f4 x = vf_f4_add(q->vpx, vf_f4_mul(vf_f4_add(vf_f4_mul(q->va0, ox), bx), m));
    const vf_f4 y = vf_f4_add(q->vpy, vf_f4_mul(vf_f4_add(vf_f4_mul(q->va2, ox), by), m));
    const vf_f4 v = vf_affine_cpu_read(q->p, q->win, x, y);
    vf_f4 tc;
    int fresh;
    const vf_f4 e =
        vf_affine_cpu_residuals(v, vf_f4_loadu(q->t + r * q->patch + col), use_row + 4 * g, q->c,
                                q->inv_gain, q->vmu, &tc, &fresh);
    if (fresh != 0) q->added[r] |= (uint32_t)fresh << col;
    vf_f4_store(e_row + 4 * g, e);
  }
  /* Row sums of tx e sx, tx e, ty e sx, ty e, tc e, e (tc = T - mu). */
  vf_f4 acc[6];
  for (int k = 0; k < 6; ++k) acc[k] = vf_f4_zero();
  for (int g = 0; g < rows->groups; ++g) {
    const int col = rows->start[g], i = r * q->patch + col;
    const vf_f4 sx = vf_f4_loadu(rows->sx + col), e = vf_f4_load(e_row + 4 * g);
    const vf_f4 tc = vf_f4_sub(vf_f4_loadu(q->t + i), q->vmu);
    const vf_f4 txe = vf_f4_mul(vf_f4_loadu(q->t + q->n + i), e);
    const vf_f4 tye = vf_f4_mul(vf_f4_loadu(q->t + 2 * q->n + i), e);
    acc[0] = vf_f4_add(acc[0], vf_f4_mul(txe, sx));
    acc[1] = vf_f4_add(acc[1], txe);
    acc[2] = vf_f4_add(acc[2], vf_f4_mul(tye, sx));
    acc[3] = vf_f4_add(acc[3], tye);
    acc[4] = vf_f4_add(acc[4], vf_f4_mul(tc, e));
    acc[5] = vf_f4_add(acc[5], e);
  }
  const vf_f4 vsy = vf_f4_set1(sy);
  vf_f4_store(f[0], acc[0]);
  vf_f4_store(f[1], vf_f4_mul(acc[1], vsy));
  vf_f4_store(f[2], acc[2]);
  vf_f4_store(f[3], vf_f4_mul(acc[3], vsy));
  vf_f4_store(f[4], acc[1]);
  vf_f4_store(f[5], acc[3]);
  vf_f4_store(f[6], acc[4]);
  vf_f4_store(f[7], acc[5]);
}

#ifdef VF_SIMD8
/* vf_affine_cpu_read's window read for 8 lanes. */
static inline VF_SIMD8_TARGET vf_f8 vf_affine_cpu_read8(const float* win, vf_f8 x, vf_f8 y) {
  uint32_t idx[8];
  vf_f8 fx, fy;
  vf_f8_trunc_index(x, y, VF_AFFINE_CPU_WIN_SHIFT, &fx, &fy, idx);
  vf_f4 a0, b0, c0, d0, a1, b1, c1, d1;
  vf_f4_gather2(win, idx, &a0, &b0);
  vf_f4_gather2(win + VF_AFFINE_CPU_WIN, idx, &c0, &d0);
  vf_f4_gather2(win, idx + 4, &a1, &b1);
  vf_f4_gather2(win + VF_AFFINE_CPU_WIN, idx + 4, &c1, &d1);
  const vf_f8 a = vf_f8_halves(a0, a1), b = vf_f8_halves(b0, b1);
  const vf_f8 c = vf_f8_halves(c0, c1), d = vf_f8_halves(d0, d1);
  const vf_f8 ax = vf_f8_sub(x, fx), ay = vf_f8_sub(y, fy);
  const vf_f8 top = vf_f8_add(a, vf_f8_mul(ax, vf_f8_sub(b, a)));
  const vf_f8 bot = vf_f8_add(c, vf_f8_mul(ax, vf_f8_sub(d, c)));
  return vf_f8_add(top, vf_f8_mul(ay, vf_f8_sub(bot, top)));
}

/* Rows r and r + 1 at once, row r in lanes 0..3 and r + 1 in 4..7: per lane the operations of
 * vf_affine_cpu_row in its order, so the same bits; the window only (no sampler). */
static VF_SIMD8_TARGET void vf_affine_cpu_row_pair(const vf_affine_cpu_pass* q, int r,
                                                   float (*f0)[4], float (*f1)[4]) {
  const vf_affine_cpu_rows* rows = q->rows;
  const float oy0 = (float)r - q->half, oy1 = (float)(r + 1) - q->half;
  const vf_f8 bx = vf_f8_pair(q->a1 * oy0, q->a1 * oy1), by = vf_f8_pair(q->a3 * oy0, q->a3 * oy1);
  const vf_f8 bm = vf_f8_pair(1.0f - q->gy * oy0, 1.0f - q->gy * oy1);
  const vf_f8 vgx = vf_f8_halves(q->vgx, q->vgx), va0 = vf_f8_halves(q->va0, q->va0);
  const vf_f8 va2 = vf_f8_halves(q->va2, q->va2), vpx = vf_f8_halves(q->vpx, q->vpx);
  const vf_f8 vpy = vf_f8_halves(q->vpy, q->vpy), vmu = vf_f8_halves(q->vmu, q->vmu);
  const vf_f8 c = vf_f8_halves(q->c, q->c), inv_gain = vf_f8_halves(q->inv_gain, q->inv_gain);
  uint32_t *use0 = q->use->row[r], *use1 = q->use->row[r + 1];
  float *e0 = q->err->row[r], *e1 = q->err->row[r + 1];
  const float *t0 = q->t + r * q->patch, *t1 = t0 + q->patch;
  for (int g = 0; g < rows->groups; ++g) {
    const int col = rows->start[g];
    const vf_f4 ox4 = vf_f4_loadu(rows->ox + col);
    const vf_f8 ox = vf_f8_halves(ox4, ox4);
    const vf_f8 m = vf_f8_sub(bm, vf_f8_mul(vgx, ox));
    const vf_f8 x = vf_f8_add(vpx, vf_f8_mul(vf_f8_add(vf_f8_mul(va0, ox), bx), m));
    const vf_f8 y = vf_f8_add(vpy, vf_f8_mul(vf_f8_add(vf_f8_mul(va2, ox), by), m));
    const vf_f8 v = vf_affine_cpu_read8(q->win, x, y);
    /* vf_affine_cpu_residuals */
    vf_m8 use = vf_f8_load_halves((const float*)(use0 + 4 * g), (const float*)(use1 + 4 * g));
    const vf_m8 ok = vf_f8_in_range(v, 1.0f, 254.0f);
    const int fresh = vf_m8_bits(vf_m8_and_not(use, ok));
    if (fresh != 0) {
      use = vf_m8_and(use, ok);
      vf_f8_store_halves((float*)(use0 + 4 * g), (float*)(use1 + 4 * g), use);
      q->added[r] |= (uint32_t)(fresh & 15) << col;
      q->added[r + 1] |= (uint32_t)(fresh >> 4) << col;
    }
    const vf_f8 tc = vf_f8_sub(vf_f8_load_halves(t0 + col, t1 + col), vmu);
    const vf_f8 e = vf_f8_select(use, vf_f8_sub(vf_f8_mul(vf_f8_sub(v, c), inv_gain), tc));
    vf_f8_store_halves(e0 + 4 * g, e1 + 4 * g, e);
  }
  vf_f8 acc[6];
  for (int k = 0; k < 6; ++k) acc[k] = vf_f8_zero();
  for (int g = 0; g < rows->groups; ++g) {
    const int col = rows->start[g];
    const vf_f4 sx4 = vf_f4_loadu(rows->sx + col);
    const vf_f8 sx = vf_f8_halves(sx4, sx4), e = vf_f8_load_halves(e0 + 4 * g, e1 + 4 * g);
    const vf_f8 tc = vf_f8_sub(vf_f8_load_halves(t0 + col, t1 + col), vmu);
    const vf_f8 txe = vf_f8_mul(vf_f8_load_halves(t0 + q->n + col, t1 + q->n + col), e);
    const vf_f8 tye = vf_f8_mul(vf_f8_load_halves(t0 + 2 * q->n + col, t1 + 2 * q->n + col), e);
    acc[0] = vf_f8_add(acc[0], vf_f8_mul(txe, sx));
    acc[1] = vf_f8_add(acc[1], txe);
    acc[2] = vf_f8_add(acc[2], vf_f8_mul(tye, sx));
    acc[3] = vf_f8_add(acc[3], tye);
    acc[4] = vf_f8_add(acc[4], vf_f8_mul(tc, e));
    acc[5] = vf_f8_add(acc[5], e);
  }
  const vf_f8 vsy = vf_f8_pair(oy0 * q->inv_half, oy1 * q->inv_half);
  const vf_f8 out[8] = {
      acc[0], vf_f8_mul(acc[1], vsy), acc[2], vf_f8_mul(acc[3], vsy), acc[1], acc[3], acc[4],
      acc[5]};
  for (int k = 0; k < 8; ++k) vf_f8_store_halves(f0[k], f1[k], out[k]);
}
#endif

/* The sums of one iteration at the state's warp (VF_AFFINE_SUMS, order in the header; all but
 * e^2, whose residuals go to err): 4 lanes along each row (with `wide` and a window, two rows in
 * 8 lanes), float sums per row (J's second and fourth entries are the row's offset times the
 * fifth and sixth), double totals; the last column (rows->column) 4 rows at a time, float sums
 * over the column. Only the samples in `use` count; one that saturates in the current image
 * leaves it, its terms go to h_out, and *grew counts it. The sums of t and t^2 over the samples
 * used, and their count, need no pass: they are H's entries (6, 7), (6, 6) and (7, 7) less
 * h_out's. */
static void vf_affine_cpu_sums(const vf_affine_params* p, const vf_affine_cpu_rows* rows,
                               const vf_affine_cpu_column* column, const float* t,
                               const vf_affine_slot* s, const vf_affine_cpu_window* wd,
                               const vf_affine_state* st, int wide, double sums[VF_AFFINE_SUMS],
                               vf_affine_cpu_use* use, vf_affine_cpu_errors* err,
                               double h_out[VF_AFFINE_PACKED], int* grew) {
  const int patch = p->patch;
  const float* win = wd->w > 0 ? wd->win : NULL;
  /* The centre in window coordinates (exact: an integer off a float of larger magnitude). */
  const float px = (float)st->px - (win ? (float)wd->x0 : 0.0f);
  const float py = (float)st->py - (win ? (float)wd->y0 : 0.0f);
  const float a0 = (float)st->a[0], a1 = (float)st->a[1], a2 = (float)st->a[2],
              a3 = (float)st->a[3];
  /* Per row: the columns that saturate in this pass. */
  uint32_t added[VF_AFFINE_CPU_COLUMN] = {0};
  vf_affine_cpu_pass q;
  q.rows = rows;
  q.t = t;
  q.p = p;
  q.win = win;
  q.patch = patch;
  q.n = patch * patch;
  q.half = VF_AFFINE_HALF(patch);
  q.inv_half = 1.0f / q.half;
  q.a1 = a1;
  q.a3 = a3;
  q.gy = st->gy;
  q.c = vf_f4_set1((float)st->c);
  q.inv_gain = vf_f4_set1((float)(1.0 / st->gain));
  q.va0 = vf_f4_set1(a0);
  q.va2 = vf_f4_set1(a2);
  q.vmu = vf_f4_set1(s->mu);
  q.vpx = vf_f4_set1(px);
  q.vpy = vf_f4_set1(py);
  q.vgx = vf_f4_set1(st->gx);
  q.use = use;
  q.err = err;
  q.added = added;
  /* The float sums of each row (and of the column), added in double after the pass, straight
   * from memory: in the rows' loop the conversions took the shuffle port that the gathers need
   * (measured about 2% of the call faster on the VM, for 2% more instructions). */
  _Alignas(16) float part[VF_TRACKER_MAX_REF_PATCH + 1][8][4];
  int parts = 0, r = 0;
#ifdef VF_SIMD8
  for (; wide && win != NULL && r + 2 <= patch; r += 2, parts += 2)
    vf_affine_cpu_row_pair(&q, r, part[parts], part[parts + 1]);
#else
  (void)wide;
#endif
  for (; r < patch; ++r) vf_affine_cpu_row(&q, r, part[parts++]);
  if (rows->column) {
    /* Column sums of tx e, tx e sy, ty e, ty e sy, tc e, e; sx is the column's. */
    const int last = patch - 1;
    const float ox = rows->ox[last];
    const vf_f4 cx = vf_f4_set1(a0 * ox), cy = vf_f4_set1(a2 * ox);
    const vf_f4 va1 = vf_f4_set1(a1), va3 = vf_f4_set1(a3), vgy = vf_f4_set1(st->gy);
    const vf_f4 cm = vf_f4_set1(1.0f - st->gx * ox);
    vf_f4 acc[6];
    for (int k = 0; k < 6; ++k) acc[k] = vf_f4_zero();
    for (int rr = 0; rr < patch; rr += 4) {
      const vf_f4 oy = vf_f4_load(column->oy + rr), sy = vf_f4_load(column->sy + rr);
      vf_f4 tc;
      int fresh;
      /* The same positions as a row's group, lane by lane. */
      const vf_f4 m = vf_f4_sub(cm, vf_f4_mul(vgy, oy));
      const vf_f4 v = vf_affine_cpu_read(
          p, win, vf_f4_add(q.vpx, vf_f4_mul(vf_f4_add(vf_f4_mul(va1, oy), cx), m)),
          vf_f4_add(q.vpy, vf_f4_mul(vf_f4_add(vf_f4_mul(va3, oy), cy), m)));
      const vf_f4 e = vf_affine_cpu_residuals(v, vf_f4_load(column->t + rr), use->column + rr, q.c,
                                              q.inv_gain, q.vmu, &tc, &fresh);
      for (int l = 0; fresh != 0 && l < 4; ++l)
        added[rr + l] |= (uint32_t)((fresh >> l) & 1) << last;
      const vf_f4 txe = vf_f4_mul(vf_f4_load(column->tx + rr), e);
      const vf_f4 tye = vf_f4_mul(vf_f4_load(column->ty + rr), e);
      acc[0] = vf_f4_add(acc[0], txe);
      acc[1] = vf_f4_add(acc[1], vf_f4_mul(txe, sy));
      acc[2] = vf_f4_add(acc[2], tye);
      acc[3] = vf_f4_add(acc[3], vf_f4_mul(tye, sy));
      acc[4] = vf_f4_add(acc[4], vf_f4_mul(tc, e));
      acc[5] = vf_f4_add(acc[5], e);
      vf_f4_store(err->column + rr, e);
    }
    const vf_f4 vsx = vf_f4_set1(rows->sx[last]);
    float(*f)[4] = part[parts++];
    vf_f4_store(f[0], vf_f4_mul(acc[0], vsx));
    vf_f4_store(f[1], acc[1]);
    vf_f4_store(f[2], vf_f4_mul(acc[2], vsx));
    vf_f4_store(f[3], acc[3]);
    vf_f4_store(f[4], acc[0]);
    vf_f4_store(f[5], acc[2]);
    vf_f4_store(f[6], acc[4]);
    vf_f4_store(f[7], acc[5]);
  }
  for (int k = 0; k < 8; ++k) {
    vf_d4 tot = vf_d4_zero();
    for (int i = 0; i < parts; ++i) vf_d4_add_f4_at(&tot, part[i][k]);
    sums[k] = vf_d4_sum(tot);
  }
  for (int rr = 0; rr < patch; ++rr) {
    if (added[rr] == 0) continue;
    vf_affine_cpu_h_row(patch, t, s->mu, rr, added[rr], h_out);
    *grew += __builtin_popcount(added[rr]);
  }
  sums[9] = (double)s->h[VF_AFFINE_IDX(7, 6)] - h_out[VF_AFFINE_IDX(7, 6)];
  sums[10] = (double)s->h[VF_AFFINE_IDX(6, 6)] - h_out[VF_AFFINE_IDX(6, 6)];
}

/* Sum e^2 of the pass that left err, as that pass would have summed it: float sums per row
 * (and over the column), added in double. */
static double vf_affine_cpu_sum_e2(int patch, const vf_affine_cpu_rows* rows,
                                   const vf_affine_cpu_errors* err) {
  vf_d4 tot = vf_d4_zero();
  for (int r = 0; r < patch; ++r) {
    vf_f4 acc = vf_f4_zero();
    for (int g = 0; g < rows->groups; ++g) {
      const vf_f4 e = vf_f4_load(err->row[r] + 4 * g);
      acc = vf_f4_add(acc, vf_f4_mul(e, e));
    }
    vf_d4_add_f4(&tot, acc);
  }
  if (rows->column) {
    vf_f4 acc = vf_f4_zero();
    for (int r = 0; r < patch; r += 4) {
      const vf_f4 e = vf_f4_load(err->column + r);
      acc = vf_f4_add(acc, vf_f4_mul(e, e));
    }
    vf_d4_add_f4(&tot, acc);
  }
  return vf_d4_sum(tot);
}

void vf_affine_cpu_refine(const vf_affine_params* p, const vf_track_request* r,
                          vf_track_result* out, int wide) {
  if (r->slot < 0 || r->slot >= p->slots) return;
  if (r->new_template && out->status != VF_TRACK_INVALID) vf_affine_cpu_capture(p, r);
  if (out->status != VF_TRACK_CONVERGED) return;
  vf_affine_slot* s = &p->slot[r->slot];
  if (s->valid != VF_AFFINE_USABLE) {
    out->status = vf_affine_unusable_status(s->valid);
    return;
  }
  const float* t = vf_affine_cpu_samples(p, r->slot);
  vf_affine_cpu_rows rows;
  vf_affine_cpu_rows_make(p->patch, &rows);
  vf_affine_cpu_column column;
  if (rows.column) vf_affine_cpu_column_make(p->patch, t, &column);
  vf_affine_cpu_window wd_buf; /* 16 KiB on the stack */
  vf_affine_cpu_window* wd = &wd_buf;
  vf_affine_cpu_use use; /* 4 KiB */
  vf_affine_cpu_use_make(p->patch, &rows, &column, t, &use);
  vf_affine_cpu_errors err; /* 4 KiB */
  vf_affine_state st;
  vf_affine_state_init(p, s, r->x, r->y, out->x, out->y, &st);
  double sums[VF_AFFINE_SUMS] = {0}, h_out[VF_AFFINE_PACKED] = {0};
  float inv_sat[VF_AFFINE_PACKED];
  int used = 0, converged = 0, left_out = 0, have_window = 0;
  const int iterations0 = out->iterations; /* the frame-to-frame iterations */
  double last_step = INFINITY;
  for (int it = 0; it < p->max_iterations && !converged; ++it) {
    if (!vf_affine_state_inside(&st, p->patch, p->width, p->height)) {
      out->status = VF_TRACK_OUT_OF_IMAGE;
      return;
    }
    if (!have_window || !vf_affine_cpu_holds(p, wd, &st)) {
      vf_affine_cpu_window_build(p, &st, wd);
      have_window = 1;
    }
    int grew = 0;
    vf_affine_cpu_sums(p, &rows, &column, t, s, wd, &st, wide, sums, &use, &err, h_out, &grew);
    used = s->used - left_out - grew;
    ++out->iterations;
    if (used < s->used / 2) break; /* mostly saturated now: not a match to trust */
    if (grew > 0 && !vf_affine_downdate(s, h_out, inv_sat)) break;
    left_out += grew;
    double d[8];
    vf_affine_step(s, left_out > 0 ? inv_sat : s->inv, &st, sums, d);
    last_step = vf_affine_update(&st, d, p->patch);
    converged = last_step < p->min_update;
  }
  if (out->iterations > iterations0) sums[8] = vf_affine_cpu_sum_e2(p->patch, &rows, &err);
  converged |= last_step < VF_AFFINE_SETTLED * p->min_update;
  const float ncc = vf_affine_ncc(sums, used);
  const float residual = used > 0 ? (float)sqrt(sums[8] / used) : 0.0f;
  vf_affine_finish(p, s, &st, ncc, converged, residual, out);
}

/* One pass for both steps: a thread start and a wait for the slowest thread once per call, not
 * twice. Features go to the threads two at a time from a shared counter: a feature costs about
 * 10 us (frame to frame and refinement), so a larger block would leave one thread idle that much
 * longer at the end. */
typedef struct vf_affine_cpu_job {
  const vf_lk_params* lk;
  const vf_affine_params* p;
  const vf_track_request* requests;
  vf_track_result* results;
  int wide;
} vf_affine_cpu_job;

static void vf_affine_cpu_item(int i, void* arg) {
  const vf_affine_cpu_job* j = arg;
  j->results[i] = vf_lk_cpu_track_one(j->lk, &j->requests[i], i);
  vf_affine_cpu_refine(j->p, &j->requests[i], &j->results[i], j->wide);
}

void vf_affine_cpu_track(const vf_lk_params* lk, const vf_affine_params* p,
                         const vf_track_request* requests, vf_track_result* results, int count,
                         vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  int wide = 0;
#ifdef VF_SIMD8
  wide = vf_simd8_available();
#endif
  vf_affine_cpu_job job = {lk, p, requests, results, wide};
  /* A thread start costs about 20 us: 8 features a thread at least. */
  const int useful = count / 8;
  threads = useful < threads ? useful : threads;
  vf_parallel_items(pool, count, threads, 2, vf_affine_cpu_item, &job);
}

// SPDX-License-Identifier: BSD-3-Clause
/* One point's sparse stereo match, whole-pixel part (src/features/kernels/vf_stereo_match_rules.h
 * says why it works this way). Its searches, correlations and texture tests go through
 * VF_MATCH_RUN, VF_MATCH_ZNCC and VF_MATCH_TEXTURED (the rules' functions by default, the CPU's
 * vector versions in src/features/cpu), the depth step's cells through VF_MATCH_CELLS;
 * cuda/features/vf_stereo_match.cu defines its own as the same sums on a warp (each lane a share
 * of the pixels and disparities), so that both backends take one control flow. */
#ifndef VF_STEREO_MATCH_POINT_H
#define VF_STEREO_MATCH_POINT_H

#include "features/kernels/vf_stereo_match_rules.h"

#ifndef VF_MATCH_RUN
#define VF_MATCH_RUN(f, fs, m, ms, width, xf, y, sign, lo, hi, w, lane) \
  vf_match_run(f, fs, m, ms, width, xf, y, sign, lo, hi, w)
#define VF_MATCH_ZNCC(a, sa, xa, b, sb, xb, y, w, lane) vf_match_zncc(a, sa, xa, b, sb, xb, y, w)
#define VF_MATCH_TEXTURED(img, stride, x, y, r, lane) vf_match_textured(img, stride, x, y, r)
#endif

/* The whole-pixel part of one point's match (everything but the sub-pixel refinement, which
 * the backends run with their own vf_disparity_refine_point code): fills out's zncc and result,
 * and for a result still VF_STEREO_MATCH_OK the refinement's start in *start and the cells'
 * depth step (vf_match_cells_step). Integer steps: both backends
 * agree bit for bit on everything this returns. */
#ifndef VF_MATCH_FN
#define VF_MATCH_FN VF_LK_FN
#endif

/* Cell k (0..8, rows of 3) of the depth step's 3 x 3 cells of radius cr, `step` pixels apart,
 * around (xi, yi). */
VF_LK_FN void vf_match_cell_centre(int xi, int yi, int step, int k, int* cx, int* cy) {
  *cx = xi + (k % 3 - 1) * step;
  *cy = yi + (k / 3 - 1) * step;
}

/* Cell k's centre (*cx, *cy) and its search within d -+ VF_STEREO_MATCH_STEP_REACH, before its
 * costs: the disparities the image allows (vf_match_begin). */
VF_LK_FN vf_match_search vf_match_cell_search(int width, int xi, int yi, int d, int cr, int k,
                                              int* cx, int* cy) {
  const vf_match_rect w = {-cr, cr, -cr, cr};
  vf_match_cell_centre(xi, yi, 2 * cr + 1, k, cx, cy);
  return vf_match_begin(width, *cx, 1, d - VF_STEREO_MATCH_STEP_REACH,
                        d + VF_STEREO_MATCH_STEP_REACH, &w);
}

/* The zero-mean SAD of cell k at disparity e (a place in d - VF_STEREO_MATCH_STEP_REACH ..
 * d + VF_STEREO_MATCH_STEP_REACH), or -1 where the image cuts the cell's search there; what
 * vf_match_run's search of the cell computes for that disparity. */
VF_LK_FN int32_t vf_match_cell_cost(const uint8_t* left, size_t ls, const uint8_t* right, size_t rs,
                                    int width, int xi, int yi, int d, int cr, int k, int e) {
  const int de = d - VF_STEREO_MATCH_STEP_REACH + e;
  const vf_match_rect w = {-cr, cr, -cr, cr};
  int cx, cy;
  const vf_match_search b = vf_match_cell_search(width, xi, yi, d, cr, k, &cx, &cy);
  if (de < b.lo || de > b.hi) return -1;
  const int xm = cx - de;
  return vf_match_zsad(left, ls, cx, right, rs, xm, cy, &w, vf_match_sum(left, ls, cx, cy, &w),
                       vf_match_sum(right, rs, xm, cy, &w));
}

/* Cell k's disparity from its costs (cost[e] as vf_match_cell_cost gives them): the best whole
 * pixel and its parabola's vertex, as vf_match_run's search of the cell picks them; 0 (no
 * disparity) where the cell has no texture (a flat cell matches anywhere) or no search. */
VF_LK_FN int vf_match_cell_pick(const uint8_t* left, size_t ls, int width, int xi, int yi, int d,
                                int cr, int k, const int32_t* cost, float* cell) {
  int cx, cy;
  vf_match_search s = vf_match_cell_search(width, xi, yi, d, cr, k, &cx, &cy);
  *cell = 0.0f;
  if (!vf_match_textured(left, ls, cx, cy, cr) || s.lo > s.hi) return 0;
  vf_match_pick(cost + (s.lo - (d - VF_STEREO_MATCH_STEP_REACH)), &s);
  *cell = (float)s.d + vf_match_vertex(s.cm, s.cost, s.cp);
  return 1;
}

/* The cells' disparities one after another, each a search of its own (the CPU's vector searches
 * and texture tests: VF_MATCH_RUN, VF_MATCH_TEXTURED); the CUDA matcher spreads the cells' costs
 * over the warp's lanes instead (VF_MATCH_CELLS, with vf_match_cell_cost and _pick: the same
 * integers and picks). */
#ifndef VF_MATCH_CELLS
VF_MATCH_FN void vf_match_cells(const uint8_t* left, size_t ls, const uint8_t* right, size_t rs,
                                int width, int xi, int yi, int d, int cr, float cell[9],
                                int valid[9], int lane) {
  const vf_match_rect w = {-cr, cr, -cr, cr};
  for (int k = 0; k < 9; ++k) {
    int cx, cy;
    vf_match_cell_centre(xi, yi, 2 * cr + 1, k, &cx, &cy);
    valid[k] = VF_MATCH_TEXTURED(left, ls, cx, cy, cr, lane);
    cell[k] = 0.0f;
    if (!valid[k]) continue;
    const vf_match_search cs =
        VF_MATCH_RUN(left, ls, right, rs, width, cx, cy, 1, d - VF_STEREO_MATCH_STEP_REACH,
                     d + VF_STEREO_MATCH_STEP_REACH, &w, lane);
    valid[k] = cs.lo <= cs.hi;
    cell[k] = (float)cs.d + vf_match_vertex(cs.cm, cs.cost, cs.cp);
  }
}
#define VF_MATCH_CELLS(left, ls, right, rs, width, xi, yi, d, cr, cell, valid, lane) \
  vf_match_cells(left, ls, right, rs, width, xi, yi, d, cr, cell, valid, lane)
#endif

/* The depth step under a point matched at whole-pixel disparity d: the window of radius R split
 * into 3 x 3 cells of radius R / 3, each matched alone within d -+ 2 (its parabola's vertex); a
 * surface that is a plane gives cells whose disparities change linearly, so each row's and each
 * column's second difference d_a - 2 d_b + d_c is 0, while a step in depth between two cells
 * gives the step. Returns the largest |second difference| over the rows and columns whose three
 * cells have texture, NAN when none has. Only additions of the same floats on both backends. */
VF_MATCH_FN float vf_match_cells_step(const uint8_t* left, size_t ls, const uint8_t* right,
                                      size_t rs, int width, int height, int xi, int yi, int d,
                                      int R, int lane) {
  const int cr = R / 3;
  /* The outer cells reach 3 cr + 1 pixels from the centre (R + 1 when R is a multiple of 3). */
  if (cr < 1 || !vf_match_inside(width, height, xi, yi, 3 * cr + 1)) return NAN;
  float cell[9];
  int valid[9];
  VF_MATCH_CELLS(left, ls, right, rs, width, xi, yi, d, cr, cell, valid, lane);
  float worst = -1.0f;
  for (int line = 0; line < 6; ++line) {
    /* rows 0..2, then columns 0..2: cells a, b, c in order */
    const int a = line < 3 ? 3 * line : line - 3, inc = line < 3 ? 1 : 3;
    if (!valid[a] || !valid[a + inc] || !valid[a + 2 * inc]) continue;
    const float second = (cell[a] - cell[a + inc]) - (cell[a + inc] - cell[a + 2 * inc]);
    const float mag = second < 0.0f ? -second : second;
    worst = mag > worst ? mag : worst;
  }
  return worst < 0.0f ? NAN : worst;
}

VF_MATCH_FN void vf_match_point_whole(const uint8_t* left, size_t ls, const uint8_t* right,
                                      size_t rs, int width, int height, float x, float y,
                                      float prior, const vf_stereo_match_config* c,
                                      vf_stereo_match* out, float* start, int lane) {
  out->disparity = NAN;
  out->zncc = NAN;
  out->spread = NAN;
  out->result = VF_STEREO_MATCH_NONE;
  *start = NAN;
  if (!(x > -0.5f && x < (float)width - 0.5f && y > -0.5f && y < (float)height - 0.5f)) return;
  const int xi = (int)floorf(x + 0.5f), yi = (int)floorf(y + 0.5f), r = c->search_radius;
  if (!vf_match_inside(width, height, xi, yi, r)) return;
  const vf_match_rect w = {-r, r, -r, r};
  vf_match_search s;
  s.d = 0;
  s.lo = 1;
  s.hi = 0;
  /* Two attempts: the prior's window first where there is a prior, then, when its minimum lies
   * at an end of the window (the disparity may have moved farther) or it fails a check (a false
   * minimum inside the window), the whole range. */
  const int has_prior = prior == prior && prior > (float)(c->min_disparity - c->prior_range) &&
                        prior < (float)(c->max_disparity + c->prior_range);
  for (int attempt = has_prior ? 0 : 1; attempt < 2; ++attempt) {
    const int near = attempt == 0;
    int lo = c->min_disparity, hi = c->max_disparity;
    if (near) {
      const int p = (int)floorf(prior + 0.5f);
      lo = p - c->prior_range > lo ? p - c->prior_range : lo;
      hi = p + c->prior_range < hi ? p + c->prior_range : hi;
    }
    s = VF_MATCH_RUN(left, ls, right, rs, width, xi, yi, 1, lo, hi, &w, lane);
    if (near && (s.lo > s.hi || (s.d == s.lo && s.lo > c->min_disparity) ||
                 (s.d == s.hi && s.hi < c->max_disparity)))
      continue;
    out->result = VF_STEREO_MATCH_NONE;
    /* A minimum where the image cut the range short may lie beyond the image: no match. */
    if (s.lo > s.hi || (s.d == s.lo && s.lo > lo) || (s.d == s.hi && s.hi < hi)) return;
    const float zncc = VF_MATCH_ZNCC(left, ls, xi, right, rs, xi - s.d, yi, &w, lane);
    out->zncc = zncc;
    if (!(zncc == zncc)) return; /* a window without contrast */
    /* Repeated texture is a risk of the whole range; a prior's window lies inside the basin the
     * previous frame's unique match left. */
    /* <=: two exact copies (both costs 0) are ambiguous too; uniqueness 0 turns the test off. */
    if (!near && c->uniqueness > 0 && s.second >= 0 &&
        (int64_t)s.second * (100 - c->uniqueness) <= (int64_t)s.cost * 100) {
      out->result = VF_STEREO_MATCH_AMBIGUOUS;
      return;
    }
    if (c->max_lr_diff >= 0) {
      /* The right window's own best match in the left image, over the same disparities. */
      const vf_match_search b =
          VF_MATCH_RUN(right, rs, left, ls, width, xi - s.d, yi, -1, s.lo, s.hi, &w, lane);
      const int diff = b.d > s.d ? b.d - s.d : s.d - b.d;
      out->result =
          b.lo > b.hi || diff > c->max_lr_diff ? VF_STEREO_MATCH_LEFT_RIGHT : VF_STEREO_MATCH_OK;
    } else {
      out->result = VF_STEREO_MATCH_OK;
    }
    /* The prior's window skips the uniqueness test and its left-right check sees only the
     * window: a false minimum inside it (a prior far off) must correlate as a true match does,
     * else the whole range decides. */
    const float least =
        near && c->min_zncc < VF_STEREO_MATCH_NEAR_ZNCC ? VF_STEREO_MATCH_NEAR_ZNCC : c->min_zncc;
    if (out->result == VF_STEREO_MATCH_OK && zncc < least)
      out->result = VF_STEREO_MATCH_CORRELATION;
    if (out->result == VF_STEREO_MATCH_OK) break;
    if (!near) return;
  }
  if (out->result != VF_STEREO_MATCH_OK) return;
  out->result = VF_STEREO_MATCH_OK;
  *start = (float)s.d + vf_match_vertex(s.cm, s.cost, s.cp);
  if (c->step_radius > 0)
    out->spread =
        vf_match_cells_step(left, ls, right, rs, width, height, xi, yi, s.d, c->step_radius, lane);
}

/* The sub-pixel step of a point whose whole-pixel result is VF_STEREO_MATCH_OK: its disparity
 * from the refinement's result d. Where the refinement fails the match is refused (NONE): on
 * vf_synth most such whole-pixel matches were wrong (records over 1 px: 0.44% -> 1.51% when the
 * parabola's value was kept instead). */
VF_LK_FN void vf_match_point_finish(float d, vf_stereo_match* out) {
  if (out->result != VF_STEREO_MATCH_OK) return;
  if (d == d) {
    out->disparity = d;
  } else {
    out->result = VF_STEREO_MATCH_NONE;
  }
}

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* One point's sparse stereo match, whole-pixel part (src/features/kernels/vf_stereo_match_rules.h
 * says why it works this way). Its searches go through VF_MATCH_RUN: vf_match_run on the CPU;
 * cuda/features/vf_stereo_match.cu defines it, before including this file, as the same search on
 * a warp (each lane a share of the disparities), so that both backends take one control flow. */
#ifndef VF_STEREO_MATCH_POINT_H
#define VF_STEREO_MATCH_POINT_H

#include "features/kernels/vf_stereo_match_rules.h"

#ifndef VF_MATCH_RUN
#define VF_MATCH_RUN(f, fs, m, ms, width, xf, y, sign, lo, hi, w, lane) \
  vf_match_run(f, fs, m, ms, width, xf, y, sign, lo, hi, w)
#endif

/* The whole-pixel part of one point's match (everything but the sub-pixel refinement, which
 * the backends run with their own vf_disparity_refine_point code): fills out's zncc and result,
 * and for a result still VF_STEREO_MATCH_OK the refinement's start in *start and the corner
 * spread (px, from the corners' whole-pixel costs and parabolas). Integer steps: both backends
 * agree bit for bit on everything this returns. */
#ifndef VF_MATCH_FN
#define VF_MATCH_FN VF_LK_FN
#endif

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
    if (s.lo > s.hi) return;
    const float zncc = vf_match_zncc(left, ls, xi, right, rs, xi - s.d, yi, &w);
    out->zncc = zncc;
    if (!(zncc == zncc)) return; /* a window without contrast */
    /* Repeated texture is a risk of the whole range; a prior's window lies inside the basin the
     * previous frame's unique match left. */
    if (!near && s.second >= 0 &&
        (int64_t)s.second * (100 - c->uniqueness) < (int64_t)s.cost * 100) {
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
    if (out->result == VF_STEREO_MATCH_OK && zncc < c->min_zncc)
      out->result = VF_STEREO_MATCH_CORRELATION;
    if (out->result == VF_STEREO_MATCH_OK) break;
    if (!near) return;
  }
  if (out->result != VF_STEREO_MATCH_OK) return;
  out->result = VF_STEREO_MATCH_OK;
  *start = (float)s.d + vf_match_vertex(s.cm, s.cost, s.cp);
  const int cr = c->corner_radius;
  if (cr <= 0 || !vf_match_inside(width, height, xi, yi, cr)) return;
  float dmin = 0.0f, dmax = 0.0f;
  int corners = 0;
  for (int k = 0; k < 4; ++k) {
    const vf_match_rect q = vf_match_corner(k, cr);
    const vf_match_search cs =
        VF_MATCH_RUN(left, ls, right, rs, width, xi, yi, 1, s.d - VF_STEREO_MATCH_CORNER_REACH,
                     s.d + VF_STEREO_MATCH_CORNER_REACH, &q, lane);
    if (cs.lo > cs.hi || cs.cost <= 0) continue; /* outside, or a flat (or exact) corner */
    const float d = (float)cs.d + vf_match_vertex(cs.cm, cs.cost, cs.cp);
    dmin = corners == 0 || d < dmin ? d : dmin;
    dmax = corners == 0 || d > dmax ? d : dmax;
    ++corners;
  }
  if (corners >= 2) out->spread = dmax - dmin;
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

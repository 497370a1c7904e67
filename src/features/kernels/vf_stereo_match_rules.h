// SPDX-License-Identifier: BSD-3-Clause
/* What the CPU (src/features/cpu/vf_stereo_match_cpu.c) and CUDA (cuda/features/vf_stereo_match.cu)
 * sparse stereo matchers share: the matching of one point of a rectified pair.
 *
 * Why this way: a VIO backend needs the right-camera match of its features, not a dense map. In a
 * rectified pair that match lies on the same row, so a 1-D search suffices: a whole-pixel search
 * of the zero-mean SAD (gain-invariant to first order, integer, so both backends agree bit for
 * bit), seeded by the track's previous disparity where it has one (a few pixels searched instead
 * of the range), then the checks a dense matcher makes (uniqueness, left-right, correlation), then
 * the sub-pixel matching the dense frontend already applies at its features
 * (vf_disparity_refine_point: 1-D shift with gain and bias), so that both modes give the same
 * sub-pixel accuracy where they find the same whole pixel. The depth-edge flag that the map gave
 * comes from 3 x 3 cells of the window matched alone near the match: on one surface (a plane)
 * their disparities change linearly, a depth edge steps between two cells. */
#ifndef VF_STEREO_MATCH_RULES_H
#define VF_STEREO_MATCH_RULES_H

#include <math.h>
#include <stdint.h>

#include "features/kernels/vf_disparity_rules.h"
#include "viofront/vf_sampler.h"

#define VF_STEREO_MATCH_MAX_DISPARITY 1024
#define VF_STEREO_MATCH_MAX_RADIUS VF_STEREO_MATCH_RADIUS_MAX
#define VF_STEREO_MATCH_MAX_STEP VF_STEREO_MATCH_STEP_MAX
#define VF_STEREO_MATCH_MAX_PRIOR VF_STEREO_MATCH_PRIOR_MAX
/* The least correlation of a match found in a prior's window (else the whole range is searched). */
#define VF_STEREO_MATCH_NEAR_ZNCC 0.9f
/* Whole pixels each side of the match that a cell of the depth-step check searches. */
#define VF_STEREO_MATCH_STEP_REACH 2

/* A window relative to its centre pixel: columns x0..x1, rows y0..y1 (inclusive). */
typedef struct vf_match_rect {
  int x0, x1, y0, y1;
} vf_match_rect;

VF_LK_FN int vf_match_rect_size(const vf_match_rect* w) {
  return (w->x1 - w->x0 + 1) * (w->y1 - w->y0 + 1);
}

/* The sum of a window of img centred at (x, y). */
VF_LK_FN int32_t vf_match_sum(const uint8_t* img, size_t stride, int x, int y,
                              const vf_match_rect* w) {
  int32_t s = 0;
  for (int j = w->y0; j <= w->y1; ++j) {
    const uint8_t* p = img + (size_t)(y + j) * stride;
    for (int i = w->x0; i <= w->x1; ++i) s += p[x + i];
  }
  return s;
}

/* The zero-mean SAD of the window of f at (xf, y) and of m at (xm, y), times the window's size
 * n (integer): sum |n (f - m) - (sum f - sum m)|. sf, sm: the windows' sums. */
VF_LK_FN int32_t vf_match_zsad(const uint8_t* f, size_t sf_stride, int xf, const uint8_t* m,
                               size_t sm_stride, int xm, int y, const vf_match_rect* w, int32_t sf,
                               int32_t sm) {
  const int32_t n = vf_match_rect_size(w);
  const int32_t off = sf - sm;
  int32_t cost = 0;
  for (int j = w->y0; j <= w->y1; ++j) {
    const uint8_t* pf = f + (size_t)(y + j) * sf_stride + xf;
    const uint8_t* pm = m + (size_t)(y + j) * sm_stride + xm;
    for (int i = w->x0; i <= w->x1; ++i) {
      const int32_t e = n * ((int32_t)pf[i] - (int32_t)pm[i]) - off;
      cost += e < 0 ? -e : e;
    }
  }
  return cost;
}

/* The whole-pixel search over disparities lo..hi: the window of f at column xf against m at
 * column xf - sign d (sign +1: f is the left image, -1: f is the right one). */
typedef struct vf_match_search {
  int lo, hi;     /* the disparities searched (the requested ones the images allow) */
  int d;          /* the best (the smallest on ties); lo - 1 when nothing was searched */
  int32_t cost;   /* its cost */
  int32_t cm, cp; /* the costs at d - 1 and d + 1, -1 where not searched */
  int32_t second; /* the least cost of a local minimum more than one pixel from d, -1: none */
} vf_match_search;

/* Clamps lo..hi to the disparities whose moving window stays inside the image (columns
 * 0..width-1). */
VF_LK_FN void vf_match_clamp(int width, int xf, int sign, const vf_match_rect* w, int* lo,
                             int* hi) {
  /* moving centre xm = xf - sign d must satisfy xm + x0 >= 0 and xm + x1 <= width - 1 */
  int dmin, dmax;
  if (sign > 0) {
    dmin = xf + w->x1 - (width - 1);
    dmax = xf + w->x0;
  } else {
    dmin = -(xf + w->x0);
    dmax = (width - 1) - (xf + w->x1);
  }
  if (*lo < dmin) *lo = dmin;
  if (*hi > dmax) *hi = dmax;
}

/* Whether disparity d (cost c, neighbours' costs cm and cp, -1 beyond the range) competes with
 * the best, at `best`, in the uniqueness test: a local minimum more than a pixel away. Only local
 * minima: a broad basin around the best (smooth texture) is no second match. */
VF_LK_FN int vf_match_second_candidate(int d, int best, int32_t c, int32_t cm, int32_t cp) {
  return (d < best - 1 || d > best + 1) && (cm < 0 || c <= cm) && (cp < 0 || c <= cp);
}

/* A search before its costs: the disparities lo..hi that the image allows, nothing found yet. */
VF_LK_FN vf_match_search vf_match_begin(int width, int xf, int sign, int lo, int hi,
                                        const vf_match_rect* w) {
  vf_match_search s;
  vf_match_clamp(width, xf, sign, w, &lo, &hi);
  s.lo = lo;
  s.hi = hi;
  s.d = lo - 1;
  s.cost = s.cm = s.cp = s.second = -1;
  return s;
}

/* The choices of a search from the costs of its disparities s->lo..s->hi (cost[d - s->lo]): the
 * best, its neighbours' costs and the second (the CPU's vector search makes the same ones). */
VF_LK_FN void vf_match_pick(const int32_t* cost, vf_match_search* s) {
  const int lo = s->lo, hi = s->hi;
  for (int d = lo; d <= hi; ++d) {
    const int32_t c = cost[d - lo];
    if (s->cost < 0 || c < s->cost) {
      s->d = d;
      s->cost = c;
    }
  }
  s->cm = s->d > lo ? cost[s->d - 1 - lo] : -1;
  s->cp = s->d < hi ? cost[s->d + 1 - lo] : -1;
  for (int d = lo; d <= hi; ++d) {
    const int32_t c = cost[d - lo];
    if (vf_match_second_candidate(d, s->d, c, d > lo ? cost[d - 1 - lo] : -1,
                                  d < hi ? cost[d + 1 - lo] : -1) &&
        (s->second < 0 || c < s->second))
      s->second = c;
  }
}

VF_LK_FN vf_match_search vf_match_run(const uint8_t* f, size_t f_stride, const uint8_t* m,
                                      size_t m_stride, int width, int xf, int y, int sign, int lo,
                                      int hi, const vf_match_rect* w) {
  vf_match_search s = vf_match_begin(width, xf, sign, lo, hi, w);
  lo = s.lo;
  hi = s.hi;
  if (lo > hi) return s;
  const int32_t sf = vf_match_sum(f, f_stride, xf, y, w);
  /* The moving windows' sums from prefix sums of column sums over the columns they span (one
   * pass over the band instead of a window's sum per disparity). */
  const int c0 = (sign > 0 ? xf - hi : xf + lo) + w->x0,
            c1 = (sign > 0 ? xf - lo : xf + hi) + w->x1;
  int32_t prefix[VF_STEREO_MATCH_MAX_DISPARITY + 2 * VF_STEREO_MATCH_MAX_RADIUS + 2];
  prefix[0] = 0;
  for (int c = c0; c <= c1; ++c) {
    int32_t column = 0;
    for (int j = w->y0; j <= w->y1; ++j) column += m[(size_t)(y + j) * m_stride + (size_t)c];
    prefix[c - c0 + 1] = prefix[c - c0] + column;
  }
  int32_t cost[VF_STEREO_MATCH_MAX_DISPARITY + 1];
  for (int d = lo; d <= hi; ++d) {
    const int xm = xf - sign * d;
    const int32_t sm = prefix[xm + w->x1 - c0 + 1] - prefix[xm + w->x0 - c0];
    cost[d - lo] = vf_match_zsad(f, f_stride, xf, m, m_stride, xm, y, w, sf, sm);
  }
  vf_match_pick(cost, &s);
  return s;
}

/* The parabola's vertex through the costs at -1, 0, +1 (px, within -0.5..0.5); 0 when a side is
 * missing or the costs are not convex. Double on both backends: IEEE division, same bits. */
VF_LK_FN float vf_match_vertex(int32_t cm, int32_t c0, int32_t cp) {
  if (cm < 0 || cp < 0) return 0.0f;
  const int64_t den = (int64_t)cm - 2 * (int64_t)c0 + (int64_t)cp;
  if (den <= 0) return 0.0f;
  double v = (double)((int64_t)cm - (int64_t)cp) / (2.0 * (double)den);
  v = v < -0.5 ? -0.5 : v > 0.5 ? 0.5 : v;
  return (float)v;
}

/* The correlation from the windows' sums (n pixels each): of a, b, a^2, b^2 and ab. */
VF_LK_FN float vf_match_zncc_sums(int64_t n, int64_t s_a, int64_t s_b, int64_t s_aa, int64_t s_bb,
                                  int64_t s_ab) {
  const int64_t va = n * s_aa - s_a * s_a, vb = n * s_bb - s_b * s_b;
  if (va <= 0 || vb <= 0) return NAN;
  return (float)((double)(n * s_ab - s_a * s_b) / sqrt((double)va * (double)vb));
}

/* Zero-mean normalized correlation of the windows of a at xa and b at xb (row y); NAN when
 * either has no contrast. Integer sums, then double: same bits on both backends. */
VF_LK_FN float vf_match_zncc(const uint8_t* a, size_t sa, int xa, const uint8_t* b, size_t sb,
                             int xb, int y, const vf_match_rect* w) {
  int64_t s_a = 0, s_b = 0, s_aa = 0, s_bb = 0, s_ab = 0;
  for (int j = w->y0; j <= w->y1; ++j) {
    const uint8_t* pa = a + (size_t)(y + j) * sa + xa;
    const uint8_t* pb = b + (size_t)(y + j) * sb + xb;
    for (int i = w->x0; i <= w->x1; ++i) {
      const int64_t u = pa[i], v = pb[i];
      s_a += u;
      s_b += v;
      s_aa += u * u;
      s_bb += v * v;
      s_ab += u * v;
    }
  }
  return vf_match_zncc_sums(vf_match_rect_size(w), s_a, s_b, s_aa, s_bb, s_ab);
}

/* Whether n pixels of sum s1 and sum of squares s2 spread more than about 2 grey levels around
 * their mean (variance over 4). */
VF_LK_FN int vf_match_textured_sums(int64_t n, int64_t s1, int64_t s2) {
  return n * s2 - s1 * s1 > 4 * n * n;
}

/* Whether the square of radius r at (x, y) has texture (vf_match_textured_sums); a flat cell
 * matches anywhere. Integer: same on both backends. */
VF_LK_FN int vf_match_textured(const uint8_t* img, size_t stride, int x, int y, int r) {
  const int64_t n = (int64_t)(2 * r + 1) * (2 * r + 1);
  int64_t s1 = 0, s2 = 0;
  for (int j = -r; j <= r; ++j)
    for (int i = -r; i <= r; ++i) {
      const int64_t v = img[(size_t)(y + j) * stride + (size_t)(x + i)];
      s1 += v;
      s2 += v * v;
    }
  return vf_match_textured_sums(n, s1, s2);
}

/* Whether a window of radius r at (x, y) lies inside a width x height image. */
VF_LK_FN int vf_match_inside(int width, int height, int x, int y, int r) {
  return x - r >= 0 && y - r >= 0 && x + r < width && y + r < height;
}

#endif

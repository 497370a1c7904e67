// SPDX-License-Identifier: BSD-3-Clause
/* The integer rules of hierarchical SGM (Fu, "Dense matching GPU implementation", Stuttgart;
 * after Rothermel et al.'s tSGM) that the CPU reference and the CUDA kernels share: the levels,
 * the per-pixel disparity range taken from the coarser level, the layout of the dynamic cost
 * cube and the path recurrence over ranges that differ from pixel to pixel. Included by C (src/)
 * and by CUDA (cuda/). */
#ifndef VF_HSGM_RULES_H
#define VF_HSGM_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "stereo/kernels/vf_sgm_rules.h"

#define VF_HSGM_MAX_LEVELS 4

/* A validated HSGM configuration. sgm holds the level-0 (full resolution) settings. */
typedef struct vf_hsgm_params {
  vf_sgm_params sgm;
  int levels; /* 1..VF_HSGM_MAX_LEVELS; 1 = plain SGM over the full range */
  int radius; /* half side of the window of the coarser map the range is taken from */
  int margin; /* pixels added below and above the upscaled range */
  /* ZNCC + SGM (one level, min_disparity 0): the matching cost from the ZNCC cost volume of
   * src/stereo/kernels/vf_local_rules.h instead of the census. */
  int zncc;
  int zncc_radius;   /* ZNCC window half side */
  int zncc_integral; /* window sums from summed-area tables */
} vf_hsgm_params;

/* ZNCC + SGM: a 16-bit ZNCC cost code u = 32768 + round(-ZNCC 2^14) as an SGM matching cost from
 * 0 (ZNCC 1) to VF_ZNCC_SGM_MAX_COST (ZNCC -1), rounded half up; an uninformative window (code
 * 32768) costs the middle. */
#define VF_ZNCC_SGM_MAX_COST 63
VF_HD int vf_zncc_sgm_cost(uint32_t code) {
  int s = (int)code - 16384;
  s = s < 0 ? 0 : s > 32768 ? 32768 : s;
  return (s * VF_ZNCC_SGM_MAX_COST + 16384) >> 15;
}

/* The settings of level l (0 = full resolution): size w >> l by h >> l (the 2x2 pyramid rounds
 * down), disparities min >> l .. (min + D) >> l, whole pixels and no median but at level 0. */
VF_HD vf_sgm_params vf_hsgm_level(const vf_hsgm_params* hp, int l) {
  vf_sgm_params p = hp->sgm;
  p.width >>= l;
  p.height >>= l;
  p.min_disparity >>= l;
  p.disparities >>= l;
  if (l > 0) p.subpixel = p.median = 0;
  return p;
}

/* A pixel's range as one word: first disparity index (from the level's min_disparity) in the low
 * half, count in the high half. */
VF_HD uint32_t vf_hsgm_range_pack(int lo, int n) { return (uint32_t)lo | ((uint32_t)n << 16); }
VF_HD int vf_hsgm_range_lo(uint32_t r) { return (int)(r & 0xffffu); }
VF_HD int vf_hsgm_range_n(uint32_t r) { return (int)(r >> 16); }

/* The range of pixel (x, y) of a level from the coarser level's map (`coarse`, cw x ch, whole
 * pixels, VF_STEREO_INVALID = none; coarse_min its min_disparity): the valid disparities in the
 * (2r+1)^2 window around (x/2, y/2) span [dmin, dmax], which upscale to [2 dmin, 2 dmax + 1];
 * `margin` widens that, and the level's range [min, min + D) clips it. No valid disparity in the
 * window: the full range. */
VF_HD uint32_t vf_hsgm_range_at(const uint16_t* coarse, int cw, int ch, int x, int y, int radius,
                                int margin, int min_disparity, int disparities) {
  const int cx = (x >> 1) < cw - 1 ? x >> 1 : cw - 1, cy = (y >> 1) < ch - 1 ? y >> 1 : ch - 1;
  int dmin = 0x7fffffff, dmax = -1;
  for (int j = cy - radius; j <= cy + radius; ++j) {
    if (j < 0 || j >= ch) continue;
    for (int i = cx - radius; i <= cx + radius; ++i) {
      if (i < 0 || i >= cw) continue;
      const int d = coarse[(size_t)j * cw + i];
      if (d == 0xFFFF) continue;
      dmin = d < dmin ? d : dmin;
      dmax = d > dmax ? d : dmax;
    }
  }
  if (dmax < 0) return vf_hsgm_range_pack(0, disparities);
  int lo = 2 * dmin - margin - min_disparity, hi = 2 * dmax + 1 + margin - min_disparity;
  lo = lo < 0 ? 0 : lo;
  hi = hi > disparities - 1 ? disparities - 1 : hi;
  return vf_hsgm_range_pack(lo, hi - lo + 1);
}

/* One step of a path over per-pixel ranges: the aggregated cost at disparity index k of a pixel
 * with matching cost c, from the previous pixel's costs prev[] over its range [plo, plo + pn)
 * (anything outside that range is no candidate) and their minimum pmin:
 *   L(k) = c + min(L'(k), L'(k +- 1) + P1, pmin + P2) - pmin.
 * With full ranges this is the SGM recurrence of src/stereo/cpu/vf_sgm_cpu.c. Stays below 256. */
VF_HD int vf_hsgm_step(int c, int k, const uint8_t* prev, int plo, int pn, int pmin, int p1,
                       int p2) {
  int best = pmin + p2;
  const int i = k - plo;
  if (i >= 0 && i < pn && prev[k] < best) best = prev[k];
  if (i >= 1 && i <= pn && prev[k - 1] + p1 < best) best = prev[k - 1] + p1;
  if (i >= -1 && i < pn - 1 && prev[k + 1] + p1 < best) best = prev[k + 1] + p1;
  return c + best - pmin;
}

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* Validation of the hierarchical SGM and the ZNCC + SGM configurations: the fields they share
 * with SGM (vf_stereo_config.c) and their own, each named in the message. */
#include "stereo/vf_hsgm.h"
#include "stereo/vf_stereo_internal.h"

/* ZNCC + SGM: one level over the full range with the ZNCC cost. */
static vf_status vf_zncc_sgm_params(const vf_stereo_config* c, vf_hsgm_params* hp,
                                    const char* what) {
  const int limit = 255 - VF_ZNCC_SGM_MAX_COST;
  if (c->p1 > limit || c->p2 > limit) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: %s %d exceeds %d (255 - the ZNCC + SGM cost range, so costs fit 8 bits)",
                   what, c->p1 > limit ? "p1" : "p2", c->p1 > limit ? c->p1 : c->p2, limit);
  }
  if (c->min_disparity != 0) {
    return vf_fail(NULL, VF_ERR_UNSUPPORTED,
                   "%s: min_disparity %d: ZNCC + SGM searches from disparity 0", what,
                   c->min_disparity);
  }
  if (c->zncc.window < 3 || c->zncc.window > 15 || c->zncc.window % 2 == 0) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: zncc.window %d must be odd, 3..15", what,
                   c->zncc.window);
  }
  if (c->zncc.sums != VF_ZNCC_SUMS_AUTO && c->zncc.sums != VF_ZNCC_SUMS_DIRECT &&
      c->zncc.sums != VF_ZNCC_SUMS_INTEGRAL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: zncc.sums %d is unknown", what,
                   (int)c->zncc.sums);
  }
  hp->sgm.max_cost = VF_ZNCC_SGM_MAX_COST;
  hp->levels = 1;
  hp->radius = hp->margin = 0;
  hp->zncc_radius = c->zncc.window / 2;
  /* As the ZNCC + FastDT stage: up to 7x7 direct sums beat building the tables. */
  hp->zncc_integral = c->zncc.sums == VF_ZNCC_SUMS_INTEGRAL ||
                      (c->zncc.sums == VF_ZNCC_SUMS_AUTO && c->zncc.window > 7);
  return VF_OK;
}

vf_status vf_hsgm_params_from_config(const vf_stereo_config* c, vf_hsgm_params* hp,
                                     const char* what) {
  vf_status st = vf_stereo_params_from_config(c, &hp->sgm, what);
  if (st != VF_OK) return st;
  hp->zncc = c->method == VF_STEREO_ZNCC_SGM;
  if (hp->zncc) return vf_zncc_sgm_params(c, hp, what);
  const vf_hsgm_config* g = &c->hsgm;
  if (g->levels < 1 || g->levels > VF_HSGM_MAX_LEVELS) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: hsgm.levels %d is outside 1..%d", what, g->levels,
                   VF_HSGM_MAX_LEVELS);
  }
  if (g->window < 1 || g->window > 15 || g->window % 2 == 0) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: hsgm.window %d must be odd, 1..15", what,
                   g->window);
  }
  if (g->margin < 0 || g->margin > 64) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: hsgm.margin %d is outside 0..64", what,
                   g->margin);
  }
  const int scale = 1 << (g->levels - 1);
  if (c->min_disparity % scale != 0) {
    return vf_fail(NULL, VF_ERR_UNSUPPORTED,
                   "%s: min_disparity %d must be a multiple of %d with hsgm.levels %d", what,
                   c->min_disparity, scale, g->levels);
  }
  if (c->height < scale) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: height %d is below 2^(hsgm.levels - 1) = %d",
                   what, c->height, scale);
  }
  hp->levels = g->levels;
  hp->radius = g->window / 2;
  hp->margin = g->margin;
  return VF_OK;
}

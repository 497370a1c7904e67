// SPDX-License-Identifier: BSD-3-Clause
/* vf_stereo configuration: defaults and validation, every field checked with a message naming
 * it. The accepted ranges keep every aggregated cost within 8 bits (cost + P2 <= 255) and every
 * output within 16 bits. */
#include <math.h>

#include "core/vf_error.h"
#include "stereo/vf_stereo_internal.h"
#include "stereo/vf_stereo_local.h"

vf_stereo_config vf_stereo_config_default(void) {
  vf_stereo_config c;
  c.method = VF_STEREO_SGM;
  c.width = 752;
  c.height = 480;
  c.min_disparity = 0;
  c.disparities = 64;
  c.census = VF_CENSUS_CS_9X7;
  c.p1 = 10;
  c.p2 = 120;
  c.adaptive_p2 = 0;
  c.paths = 4;
  c.uniqueness = 0.95f;
  c.lr_check = 1;
  c.lr_max_diff = 1;
  c.subpixel = 1;
  c.median = 1;
  c.hsgm.levels = 3;
  c.hsgm.window = 7;
  c.hsgm.margin = 2;
  vf_stereo_local_defaults(&c.zncc, &c.fastdt, &c.cyclops);
  return c;
}

vf_stereo_config vf_stereo_config_default_for(vf_stereo_method method) {
  vf_stereo_config c = vf_stereo_config_default();
  if (method == VF_STEREO_SGM) return c;
  if (method == VF_STEREO_HSGM) {
    c.method = method;
    c.paths = 8;
    return c;
  }
  if (method == VF_STEREO_ZNCC_SGM) {
    /* The ZNCC cost spans 0..63, twice the CS census: lower penalties (chosen on Cones). */
    c.method = method;
    c.zncc.window = 3;
    c.p1 = 7;
    c.p2 = 60;
    return c;
  }
  /* The other methods have no sub-pixel, left-right or uniqueness stage (vf_stereo.h). */
  c.method = method;
  c.subpixel = 0;
  c.lr_check = 0;
  c.uniqueness = 1.0f;
  c.median = method == VF_STEREO_CYCLOPS2;
  return c;
}

static int vf_is_flag(int v) { return v == 0 || v == 1; }

vf_status vf_stereo_params_from_config(const vf_stereo_config* c, vf_sgm_params* p,
                                       const char* what) {
  if (c->method != VF_STEREO_SGM && c->method != VF_STEREO_HSGM &&
      c->method != VF_STEREO_ZNCC_SGM) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: method %d is unknown", what, (int)c->method);
  }
  if (c->width <= 0 || c->height <= 0 || c->width > 4096 || c->height > 4096) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: width x height %dx%d is outside 1..4096", what,
                   c->width, c->height);
  }
  if (c->disparities != 64 && c->disparities != 128 && c->disparities != 256) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: disparities %d must be 64, 128 or 256", what,
                   c->disparities);
  }
  if (c->min_disparity < 0 || c->min_disparity + c->disparities > 4095) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: min_disparity %d must be >= 0 with min_disparity + disparities <= 4095",
                   what, c->min_disparity);
  }
  if (c->width < c->min_disparity + c->disparities) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: width %d is smaller than min_disparity + disparities = %d", what, c->width,
                   c->min_disparity + c->disparities);
  }
  if (c->census != VF_CENSUS_CS_9X7 && c->census != VF_CENSUS_FULL_9X7) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: census %d is unknown", what, (int)c->census);
  }
  int max_cost = c->census == VF_CENSUS_CS_9X7 ? VF_CENSUS_CS_BITS : VF_CENSUS_FULL_BITS;
  if (c->p1 < 0 || c->p1 > 255 - max_cost) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: p1 %d is outside 0..%d", what, c->p1,
                   255 - max_cost);
  }
  if (c->p2 < c->p1) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: p2 %d is smaller than p1 %d", what, c->p2, c->p1);
  }
  if (c->p2 > 255 - max_cost) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: p2 %d exceeds %d (255 - the census cost range, so costs fit 8 bits)", what,
                   c->p2, 255 - max_cost);
  }
  if (c->paths != 2 && c->paths != 4 && c->paths != 8 && c->paths != 16) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: paths %d must be 2, 4, 8 or 16", what, c->paths);
  }
  if (!(c->uniqueness > 0.0f && c->uniqueness <= 1.0f)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: uniqueness %g is outside (0, 1]", what,
                   (double)c->uniqueness);
  }
  if (!vf_is_flag(c->adaptive_p2) || !vf_is_flag(c->lr_check) || !vf_is_flag(c->subpixel) ||
      !vf_is_flag(c->median)) {
    const char* name = !vf_is_flag(c->adaptive_p2) ? "adaptive_p2"
                       : !vf_is_flag(c->lr_check)  ? "lr_check"
                       : !vf_is_flag(c->subpixel)  ? "subpixel"
                                                   : "median";
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: %s must be 0 or 1", what, name);
  }
  if (c->lr_max_diff < 0 || c->lr_max_diff > 255) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: lr_max_diff %d is outside 0..255", what,
                   c->lr_max_diff);
  }
  p->width = c->width;
  p->height = c->height;
  p->min_disparity = c->min_disparity;
  p->disparities = c->disparities;
  p->census_full = c->census == VF_CENSUS_FULL_9X7;
  p->max_cost = max_cost;
  p->p1 = c->p1;
  p->p2 = c->p2;
  p->adaptive_p2 = c->adaptive_p2;
  p->paths = c->paths;
  p->uniqueness_q = (int)lrintf(c->uniqueness * VF_UNIQUENESS_ONE);
  p->lr_check = c->lr_check;
  p->lr_max_diff = c->lr_max_diff;
  p->subpixel = c->subpixel;
  p->median = c->median;
  return VF_OK;
}

/* Validation of the hierarchical SGM configuration: the fields HSGM shares with SGM
 * (vf_stereo_config.c) and its own, each named in the message. */
#include "vf_hsgm.h"
#include "vf_stereo_internal.h"

vf_status vf_hsgm_params_from_config(const vf_stereo_config* c, vf_hsgm_params* hp,
                                     const char* what) {
  vf_status st = vf_stereo_params_from_config(c, &hp->sgm, what);
  if (st != VF_OK) return st;
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

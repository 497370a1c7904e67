// SPDX-License-Identifier: BSD-3-Clause
/* Sparse stereo (frontend.stereo: sparse): each feature is matched alone along its rectified row
 * (vf_sampler_match_stereo) instead of reading a dense map, from its previous disparity where the
 * track has one. What the map gave besides the disparity comes from the match: the left-right
 * check (an occlusion) and the depth step of the window's cells (a depth edge under the
 * feature). */
#include <math.h>

#include "frontend/vf_frontend_internal.h"

vf_status vf_frontend_match_points(vf_frontend* fe, int m, int priors) {
  vf_status s =
      vf_sampler_match_stereo(fe->sampler, &fe->rectified[0], &fe->rectified[1], fe->xy,
                              priors ? fe->priors : NULL, m, &fe->cfg.sparse, fe->matches);
  return s == VF_OK ? VF_OK
                    : vf_fail(&fe->err, s, "sparse stereo: %s", vf_sampler_last_error(fe->sampler));
}

/* The birth check's rule of the dense map (vf_frontend_births.c) on the cells' depth step: a
 * relative depth change over the ratio, with the absolute floor (no step measured: no edge). */
int vf_frontend_sparse_on_edge(const vf_frontend* fe, const vf_stereo_match* m) {
  if (m->result == VF_STEREO_MATCH_LEFT_RIGHT) return 1;
  if (m->result != VF_STEREO_MATCH_OK) return 0;
  float max_jump = fe->cfg.birth_max_jump;
  const float relative = fe->cfg.birth_max_jump_ratio * m->disparity;
  if (relative > max_jump) max_jump = relative;
  return m->spread > max_jump;
}

vf_status vf_frontend_match_tracks(vf_frontend* fe, const vf_track* tr, int n) {
  int j = 0;
  for (int i = 0; i < n; ++i) {
    fe->xy[2 * i] = tr[i].x;
    fe->xy[2 * i + 1] = tr[i].y;
    const vf_frontend_motion* m = vf_frontend_previous_motion(fe, &j, tr[i].id);
    fe->priors[i] = m != NULL ? m->disparity : NAN;
  }
  vf_status s = vf_frontend_match_points(fe, n, 1);
  if (s != VF_OK) return s;
  for (int i = 0; i < n; ++i) fe->disparities[i] = fe->matches[i].disparity;
  return VF_OK;
}

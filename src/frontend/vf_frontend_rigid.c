// SPDX-License-Identifier: BSD-3-Clause
/* The rigid-motion check (frontend.slide_max): a static scene's points move with the camera, and
 * the tracks of a frame share one motion that their previous disparities fix up to noise. A track
 * on the junction of two surfaces at different depths (its patch holds a depth step) slides over
 * both as the view changes, a little each frame and mostly the same way, until it is pixels off
 * the point it started on; no single frame shows it, and the birth check cannot see steps that
 * the disparity map smooths. Each frame's motion is fitted robustly to the tracks
 * (vf_rigid_motion_residuals), every track's residual is added to its running sum, and a track
 * whose sum grows past slide_max is ended. The sum of a track that follows its point stays near
 * its current error: consecutive residuals share a position and their errors cancel. */
#include <math.h>

#include "frontend/vf_frontend_internal.h"

/* Every live track's sum so far, and the points of those with a previous disparity. */
static int vf_rigid_gather(vf_frontend* fe, const vf_track* tr, int n) {
  int m = 0, j = 0;
  for (int i = 0; i < n; ++i) {
    const vf_frontend_motion* p = vf_frontend_previous_motion(fe, &j, tr[i].id);
    fe->slide[2 * i] = p != NULL ? p->slide_u : 0.0f;
    fe->slide[2 * i + 1] = p != NULL ? p->slide_v : 0.0f;
    if (p == NULL || !(p->disparity > 0.0f) || !isfinite(p->disparity) || !isfinite(p->u) ||
        !isfinite(p->v))
      continue;
    const vf_rigid_point q = {p->u, p->v, p->disparity, tr[i].x, tr[i].y};
    fe->rigid[m] = q;
    fe->rigid_track[m++] = i;
  }
  return m;
}

void vf_frontend_rigid_assess(vf_frontend* fe) {
  const int n = vf_feature_set_count(fe->set);
  const vf_track* tr = vf_feature_set_features(fe->set);
  fe->slide_count = n;
  fe->slid_count = 0;
  if (fe->cfg.slide_max <= 0.0f || !fe->cfg.stereo_enabled) {
    for (int i = 0; i < 2 * n; ++i) fe->slide[i] = 0.0f;
    return;
  }
  const int m = vf_rigid_gather(fe, tr, n);
  /* Too few points, or points that do not fix the motion: no check this frame, the sums wait. */
  if (m < VF_RIGID_MIN_POINTS) return;
  vf_saved_message saved;
  vf_thread_message_save(&saved);
  vf_status s = vf_rigid_motion_residuals(fe->K, fe->frame_R_valid ? fe->frame_R : NULL, fe->rigid,
                                          m, fe->rigid_residual, fe->rigid_scratch);
  vf_thread_message_restore(&saved);
  if (s != VF_OK) return;
  const float limit = fe->cfg.slide_max;
  int k = 0;
  for (int p = 0; p < m; ++p) {
    const float* r = &fe->rigid_residual[2 * p];
    if (isnan(r[0])) continue;
    float* sum = &fe->slide[2 * fe->rigid_track[p]];
    sum[0] += r[0];
    sum[1] += r[1];
    if (hypotf(sum[0], sum[1]) > limit) fe->slid[k++] = tr[fe->rigid_track[p]].id;
  }
  fe->slid_count = k;
}

vf_status vf_frontend_rigid_apply(vf_frontend* fe, int* ended) {
  *ended = 0;
  const int k = fe->slid_count, n = fe->slide_count;
  fe->slid_count = 0;
  if (k == 0) return VF_OK;
  /* The assessed tracks lead the set, in their order (new ones are appended after them), and the
   * set keeps its order when it drops tracks: the sums follow the same way. */
  const vf_track* tr = vf_feature_set_features(fe->set);
  int keep = 0;
  for (int i = 0, q = 0; i < n; ++i) {
    if (q < k && tr[i].id == fe->slid[q]) {
      ++q;
      continue;
    }
    fe->slide[2 * keep] = fe->slide[2 * i];
    fe->slide[2 * keep + 1] = fe->slide[2 * i + 1];
    ++keep;
  }
  int removed = 0;
  vf_status s = vf_feature_set_remove(fe->set, fe->slid, k, &removed);
  if (s != VF_OK)
    return vf_fail(&fe->err, s, "rigid-motion check: %s", vf_feature_set_last_error(fe->set));
  fe->slide_count = keep;
  fe->frame_committed = 1;
  *ended = removed;
  return VF_OK;
}

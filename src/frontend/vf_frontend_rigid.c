// SPDX-License-Identifier: BSD-3-Clause
/* The rigid-motion check (frontend.slide_max): a static scene's points move with the camera, and
 * the tracks of a frame share one motion that their previous disparities fix up to noise. A track
 * on the junction of two surfaces at different depths (its patch holds a depth step) slides over
 * both as the view changes, a little each frame and mostly the same way, until it is pixels off
 * the point it started on; no single frame shows it, and the birth check cannot see steps that
 * the disparity map smooths. Each frame's motion is fitted robustly to the tracks
 * (vf_rigid_motion_residuals), every track's residual is added to its running sum, and a track
 * whose sum grows past slide_max is ended. The sum of a track that follows its point stays near
 * its current error: consecutive residuals share a position and their errors cancel. The check
 * of a frame runs at the start of the next, on the host while the GPU rectifies and builds the
 * pyramid, so that it adds nothing to the frame's time on CUDA: a track is ended one frame after
 * its sum passed the limit, before it is tracked again. */
#include <math.h>

#include "frontend/vf_frontend_internal.h"

/* The points of the latest frame's tracks (fe->motion) that had a disparity in the frame before
 * (fe->motion_next): both lists keep the set's order, new tracks appended. */
static int vf_rigid_gather(vf_frontend* fe) {
  int m = 0, j = 0;
  for (int i = 0; i < fe->motion_count; ++i) {
    const vf_frontend_motion* e = &fe->motion[i];
    while (j < fe->motion_next_count && fe->motion_next[j].id != e->id) ++j;
    if (j == fe->motion_next_count) break; /* the rest are new */
    const vf_frontend_motion* p = &fe->motion_next[j];
    if (!(p->disparity > 0.0f) || !isfinite(p->disparity) || !isfinite(p->u) || !isfinite(p->v) ||
        !isfinite(e->u) || !isfinite(e->v))
      continue;
    const vf_rigid_point q = {p->u, p->v, p->disparity, e->u, e->v};
    fe->rigid[m] = q;
    fe->rigid_track[m++] = i;
  }
  return m;
}

vf_status vf_frontend_check_rigid(vf_frontend* fe, int* ended) {
  *ended = 0;
  if (fe->cfg.slide_max <= 0.0f || !fe->cfg.stereo_enabled || !fe->motion_pair) return VF_OK;
  fe->motion_pair = 0; /* one check a pair of frames */
  const int m = vf_rigid_gather(fe);
  /* Too few points, or points that do not fix the motion: no check this frame, the sums wait. */
  if (m < VF_RIGID_MIN_POINTS) return VF_OK;
  vf_saved_message saved;
  vf_thread_message_save(&saved);
  vf_status s = vf_rigid_motion_residuals(fe->K, fe->frame_R_valid ? fe->frame_R : NULL, fe->rigid,
                                          m, fe->rigid_residual, fe->rigid_scratch);
  vf_thread_message_restore(&saved);
  if (s != VF_OK) return VF_OK;
  const float limit = fe->cfg.slide_max;
  int k = 0;
  for (int p = 0; p < m; ++p) {
    const float* r = &fe->rigid_residual[2 * p];
    if (isnan(r[0])) continue;
    vf_frontend_motion* e = &fe->motion[fe->rigid_track[p]];
    e->slide_u += r[0];
    e->slide_v += r[1];
    if (hypotf(e->slide_u, e->slide_v) > limit) fe->slid[k++] = e->id;
  }
  if (k == 0) return VF_OK;
  /* Tracks the backend removed since are not in the set: their ids are ignored. */
  int removed = 0;
  s = vf_feature_set_remove(fe->set, fe->slid, k, &removed);
  if (s != VF_OK)
    return vf_fail(&fe->err, s, "rigid-motion check: %s", vf_feature_set_last_error(fe->set));
  if (removed > 0) fe->frame_committed = 1;
  *ended = removed;
  return VF_OK;
}

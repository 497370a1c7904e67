// SPDX-License-Identifier: BSD-3-Clause
/* The birth check: new tracks whose first frame's disparity map shows a depth edge under their
 * reference patch are not kept (sparse stereo: their match's cells step, or it correlates worse
 * than the recent births do), and while few tracks are alive a cell whose best corner is refused
 * gets its next candidates instead. */
#include <string.h>

#include "frontend/vf_frontend_internal.h"

/* A corner whose reference patch straddles a depth edge is a junction of two surfaces, not a
 * 3-D point: as the view changes its image slides over both, and the refinement follows it
 * (docs/perf/drift_tail.md). The disparity map of its first frame decides. A step between
 * neighbouring pixels is a relative depth change (dZ / Z = dd / d), so the same surface seen
 * nearer steps more: the threshold grows with the centre's disparity (a slanted floor close by
 * is not an edge), with a floor for the map's sub-pixel noise on far surfaces. */
int vf_frontend_checks_births(const vf_frontend_config* c) {
  return c->stereo_enabled && c->birth_edge_radius > 0;
}

int vf_frontend_tries_candidates(const vf_frontend_config* c) {
  return vf_frontend_checks_births(c) && c->birth_candidates > 1;
}

static int vf_frontend_on_edge(const vf_frontend* fe, int i) {
  if (vf_frontend_sparse(&fe->cfg))
    return vf_frontend_sparse_on_edge(fe, &fe->matches[i]) ||
           !vf_frontend_birth_correlates(fe, &fe->matches[i]);
  const vf_disparity_probe* p = &fe->probes[i];
  const int bits = fe->cfg.stereo.subpixel ? VF_STEREO_SUBPIXEL_BITS : 0;
  float max_jump = fe->cfg.birth_max_jump * (float)(1 << bits);
  if (p->value != VF_STEREO_INVALID && fe->cfg.birth_max_jump_ratio * (float)p->value > max_jump)
    max_jump = fe->cfg.birth_max_jump_ratio * (float)p->value;
  const int max_holes = fe->cfg.birth_max_holes;
  return (max_holes >= 0 && p->holes > max_holes) || (float)p->jump > max_jump;
}

/* What the map shows around the m points of fe->xy, into fe->probes; in sparse mode their
 * matches into fe->matches (the depth step over sparse.step_radius, which covers the birth
 * check's window). */
static vf_status vf_frontend_probe_births(vf_frontend* fe, int m) {
  if (vf_frontend_sparse(&fe->cfg)) {
    vf_status s = vf_frontend_match_points(fe, m, 0);
    if (s == VF_OK) vf_frontend_remember_births(fe, m);
    return s;
  }
  const int bits = fe->cfg.stereo.subpixel ? VF_STEREO_SUBPIXEL_BITS : 0;
  const vf_disparity_probe_config pc = {fe->cfg.birth_edge_radius, 0, bits, VF_STEREO_INVALID};
  vf_status s = vf_sampler_probe_disparity(fe->sampler, &fe->disparity, fe->xy, m, &pc, fe->probes);
  if (s != VF_OK)
    return vf_fail(&fe->err, s, "disparity at new tracks: %s", vf_sampler_last_error(fe->sampler));
  return VF_OK;
}

/* A first frame has only new corners, and one per cell is often refused (two of three on
 * vf_synth's first frame). Below min_features each cell's bands of rows give a corner each (the
 * cell's best is the best of them, so nothing else changes); they wait for the map, and the
 * best that passes becomes the cell's track. */
vf_status vf_frontend_hold_candidates(vf_frontend* fe) {
  const vf_grid* g = &fe->grid;
  const int k = fe->cfg.birth_candidates;
  for (int row = 0; row < fe->band_grid.rows; ++row)
    memcpy(fe->band_occupancy + (size_t)row * (size_t)g->cols,
           fe->occupancy + (size_t)(row / k) * (size_t)g->cols, (size_t)g->cols);
  vf_status s = vf_detector_detect(fe->band_detector, fe->pyramid[fe->cur], fe->band_occupancy,
                                   VF_MEMORY_HOST);
  const vf_keypoint* kp = NULL;
  int count = 0;
  if (s == VF_OK) s = vf_detector_keypoints(fe->band_detector, &kp, &count);
  if (s != VF_OK) return vf_fail(&fe->err, s, "detection: %s", vf_last_error_message());
  if (count > 0) memcpy(fe->held, kp, (size_t)count * sizeof *kp);
  fe->held_count = count;
  return VF_OK;
}

vf_status vf_frontend_settle_births(vf_frontend* fe, int* dropped, int* added) {
  *dropped = 0;
  *added = 0;
  if (!vf_frontend_checks_births(&fe->cfg)) return VF_OK;
  const int n = vf_feature_set_count(fe->set);
  const vf_track* tr = vf_feature_set_features(fe->set);
  int m = 0;
  vf_status s = VF_OK;
  if (vf_frontend_sparse(&fe->cfg)) {
    /* The births' matches come with the records' (vf_frontend_queue_matches). */
    s = vf_frontend_match_live(fe, &m);
  } else {
    for (int i = 0; i < n; ++i) {
      if (tr[i].age != 0) continue;
      fe->xy[2 * m] = tr[i].x;
      fe->xy[2 * m + 1] = tr[i].y;
      fe->births[m++] = tr[i].id;
    }
    if (m > 0) s = vf_frontend_probe_births(fe, m);
  }
  if (s == VF_OK && vf_frontend_sparse(&fe->cfg)) vf_frontend_birth_losses(fe, fe->matches, m);
  int refused = 0;
  for (int i = 0; i < m && s == VF_OK; ++i)
    if (vf_frontend_on_edge(fe, i)) fe->births[refused++] = fe->births[i];
  if (s == VF_OK && refused > 0) {
    s = vf_feature_set_refuse(fe->set, fe->births, refused, dropped);
    if (s != VF_OK)
      return vf_fail(&fe->err, s, "new tracks on depth edges: %s",
                     vf_feature_set_last_error(fe->set));
  }
  if (s != VF_OK || fe->held_count == 0) return s;
  /* The held candidates: those off depth edges go to the feature set, which keeps the best of
   * each empty cell. */
  const int h = fe->held_count;
  fe->held_count = 0;
  for (int i = 0; i < h; ++i) {
    fe->xy[2 * i] = fe->held[i].x;
    fe->xy[2 * i + 1] = fe->held[i].y;
  }
  s = vf_frontend_probe_births(fe, h);
  if (s != VF_OK) return s;
  if (vf_frontend_sparse(&fe->cfg)) vf_frontend_birth_losses(fe, fe->matches, h);
  int kept = 0;
  for (int i = 0; i < h; ++i)
    if (!vf_frontend_on_edge(fe, i)) fe->held[kept++] = fe->held[i];
  fe->frame_committed = 1;
  s = vf_feature_set_add(fe->set, fe->held, kept, added);
  if (s != VF_OK) return vf_fail(&fe->err, s, "new tracks: %s", vf_feature_set_last_error(fe->set));
  return VF_OK;
}

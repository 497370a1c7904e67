// SPDX-License-Identifier: BSD-3-Clause
/* Sparse stereo (frontend.stereo: sparse): each feature is matched alone along its rectified row
 * (vf_sampler_match_stereo) instead of reading a dense map, from its previous disparity where the
 * track has one. What the map gave besides the disparity comes from the match: the left-right
 * check (an occlusion) and the depth step of the window's cells (a depth edge under the
 * feature). */
#include <math.h>

#include "features/vf_sampler_internal.h"
#include "features/vf_tracker_internal.h"
#include "frontend/vf_frontend_internal.h"

/* No right image this frame: no match, and no depth step (no birth is refused). */
static void vf_frontend_no_matches(vf_stereo_match* out, int n) {
  const vf_stereo_match none = {NAN, NAN, NAN, VF_STEREO_MATCH_NONE};
  for (int i = 0; i < n; ++i) out[i] = none;
}

vf_status vf_frontend_match_points(vf_frontend* fe, int m, int priors) {
  /* The sampler's buffers hold the queued matches until they are collected. */
  vf_status q = vf_frontend_wait_matches(fe);
  if (q != VF_OK) return q;
  if (fe->right_absent) {
    vf_frontend_no_matches(fe->matches, m);
    return VF_OK;
  }
  vf_status s =
      vf_sampler_match_stereo(fe->sampler, &fe->rectified[0], &fe->rectified[1], fe->xy,
                              priors ? fe->priors : NULL, m, &fe->cfg.sparse, fe->matches);
  return s == VF_OK ? VF_OK
                    : vf_fail(&fe->err, s, "sparse stereo: %s", vf_sampler_last_error(fe->sampler));
}

/* The birth check's rule of the dense map (vf_frontend_births.c) on the cells' depth step: a
 * relative depth change over the ratio (no step measured: no edge). The floor is the records'
 * sparse_edge_max_step, not the map's birth_max_jump: the cells lie 7 px apart and their
 * sub-pixel disparities are noisy, so over 0.5 px they refused 76% of the births off depth steps
 * and 78% of those on one (vf_synth, docs/estimator.md, fifteenth session). */
int vf_frontend_sparse_on_edge(const vf_frontend* fe, const vf_stereo_match* m) {
  if (m->result == VF_STEREO_MATCH_LEFT_RIGHT) return 1;
  if (m->result != VF_STEREO_MATCH_OK) return 0;
  float max_jump = fe->cfg.sparse_edge_max_step;
  const float relative = fe->cfg.birth_max_jump_ratio * m->disparity;
  if (relative > max_jump) max_jump = relative;
  return m->spread > max_jump;
}

void vf_frontend_forget_births(vf_frontend* fe) {
  fe->born_count = 0;
  fe->born_by_id = 0;
}

/* After the queued live tracks' (vf_frontend_queue_matches): at most the frame's live tracks and
 * held candidates (2 points each, allocated at create). */
void vf_frontend_remember_births(vf_frontend* fe, int m) {
  for (int i = 0; i < m; ++i) {
    const int k = fe->born_count++;
    fe->born_xy[2 * k] = fe->xy[2 * i];
    fe->born_xy[2 * k + 1] = fe->xy[2 * i + 1];
    fe->born[k] = fe->matches[i];
    fe->born_id[k] = UINT64_MAX;
  }
}

/* The set's tracks into the list to match: positions, ids and priors (their previous disparities;
 * none for a birth, age 0, unless `tracked`: every track is being tracked). Returns the count. */
static int vf_frontend_list_tracks(vf_frontend* fe, int tracked) {
  const int n = vf_feature_set_count(fe->set);
  const vf_track* tr = vf_feature_set_features(fe->set);
  int j = 0;
  for (int i = 0; i < n; ++i) {
    const vf_frontend_motion* mo =
        tracked || tr[i].age != 0 ? vf_frontend_previous_motion(fe, &j, tr[i].id) : NULL;
    fe->xy[2 * i] = tr[i].x;
    fe->xy[2 * i + 1] = tr[i].y;
    fe->priors[i] = mo != NULL ? mo->disparity : NAN;
    fe->born_id[i] = tr[i].id;
  }
  return n;
}

vf_status vf_frontend_queue_tracked_matches(vf_frontend* fe) {
  fe->live_queued = 0;
  if (fe->birth_sampler == NULL || !fe->tracking || fe->right_absent) return VF_OK;
  vf_frontend_forget_births(fe);
  fe->match_pending = 0;
  /* The set is as before the tracking: its tracks are the tracker's requests, in order, and
   * each (even one born last frame) is being tracked. */
  const int n = vf_frontend_list_tracks(fe, 1);
  vf_status s = vf_sampler_match_tracked_submit(fe->sampler, &fe->rectified[0], &fe->rectified[1],
                                                vf_tracker_kernel_results(fe->tracker), fe->priors,
                                                n, &fe->cfg.sparse, fe->born);
  if (s != VF_OK)
    return vf_fail(&fe->err, s, "sparse stereo: %s", vf_sampler_last_error(fe->sampler));
  vf_tracker_note_work_behind(fe->tracker);
  fe->match_pending = 1;
  fe->live_queued = 1;
  fe->live_count = fe->match_count = n;
  return VF_OK;
}

/* After the tracked tracks' matches: the births' (the set's tracks of age 0, appended after the
 * tracked ones) behind them in the list, on the births' stream, beside the tracked ones'. */
static vf_status vf_frontend_queue_birth_matches(vf_frontend* fe) {
  const int n = vf_feature_set_count(fe->set);
  const vf_track* tr = vf_feature_set_features(fe->set);
  const int first = fe->live_count;
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (tr[i].age != 0) continue;
    fe->xy[2 * m] = tr[i].x;
    fe->xy[2 * m + 1] = tr[i].y;
    fe->born_id[first + m++] = tr[i].id;
  }
  if (m == 0) return VF_OK;
  vf_status s =
      vf_sampler_match_stereo_submit(fe->birth_sampler, &fe->rectified[0], &fe->rectified[1],
                                     fe->xy, NULL, m, &fe->cfg.sparse, fe->born + first);
  if (s != VF_OK)
    return vf_fail(&fe->err, s, "sparse stereo: %s", vf_sampler_last_error(fe->birth_sampler));
  fe->births_pending = 1;
  fe->match_count = first + m;
  return VF_OK;
}

vf_status vf_frontend_queue_matches(vf_frontend* fe) {
  if (!vf_frontend_sparse(&fe->cfg)) {
    vf_frontend_forget_births(fe);
    fe->match_pending = 0;
    return VF_OK;
  }
  if (fe->live_queued) return vf_frontend_queue_birth_matches(fe);
  vf_frontend_forget_births(fe);
  fe->match_pending = 0;
  const int n = vf_frontend_list_tracks(fe, 0);
  fe->match_count = n;
  if (n == 0) return VF_OK;
  if (fe->right_absent) {
    vf_frontend_no_matches(fe->born, n);
    fe->born_count = fe->born_by_id = n;
    return VF_OK;
  }
  vf_status s = vf_sampler_match_stereo_submit(fe->sampler, &fe->rectified[0], &fe->rectified[1],
                                               fe->xy, fe->priors, n, &fe->cfg.sparse, fe->born);
  if (s != VF_OK)
    return vf_fail(&fe->err, s, "sparse stereo: %s", vf_sampler_last_error(fe->sampler));
  fe->match_pending = 1;
  return VF_OK;
}

vf_status vf_frontend_wait_matches(vf_frontend* fe) {
  if (!fe->match_pending && !fe->births_pending) return VF_OK;
  vf_status s = VF_OK;
  const char* msg = "";
  if (fe->match_pending) {
    fe->match_pending = 0;
    s = vf_sampler_match_stereo_collect(fe->sampler);
    if (s != VF_OK) msg = vf_sampler_last_error(fe->sampler);
  }
  if (fe->births_pending) {
    fe->births_pending = 0;
    vf_status b = vf_sampler_match_stereo_collect(fe->birth_sampler);
    if (s == VF_OK && b != VF_OK) {
      s = b;
      msg = vf_sampler_last_error(fe->birth_sampler);
    }
  }
  fe->live_queued = 0;
  if (s != VF_OK) return vf_fail(&fe->err, s, "sparse stereo: %s", msg);
  fe->born_count = fe->born_by_id = fe->match_count;
  return VF_OK;
}

void vf_frontend_drop_matches(vf_frontend* fe) {
  /* A failure of these waits adds nothing to the frame's error. */
  if (fe->match_pending) vf_sampler_match_stereo_collect(fe->sampler);
  if (fe->births_pending) vf_sampler_match_stereo_collect(fe->birth_sampler);
  fe->match_pending = fe->births_pending = fe->live_queued = 0;
}

vf_status vf_frontend_match_live(vf_frontend* fe, int* m) {
  *m = 0;
  vf_status s = vf_frontend_wait_matches(fe);
  if (s != VF_OK) return s;
  /* The births' points, ids and matches for the check, in the set's order (the queued list's:
   * the set keeps its order when it drops tracks). */
  const int n = vf_feature_set_count(fe->set);
  const vf_track* tr = vf_feature_set_features(fe->set);
  int b = 0, k = 0;
  for (int i = 0; i < n; ++i) {
    if (tr[i].age != 0) continue;
    while (k < fe->born_by_id && fe->born_id[k] != tr[i].id) ++k;
    if (k == fe->born_by_id) break; /* not queued (cannot happen: births come before the queue) */
    fe->xy[2 * b] = tr[i].x;
    fe->xy[2 * b + 1] = tr[i].y;
    fe->matches[b] = fe->born[k];
    fe->births[b++] = tr[i].id;
  }
  *m = b;
  return VF_OK;
}

/* A track's place among the remembered matches: by id among the live tracks' (*k walks them in
 * the set's order, which the set keeps), else, without a prior, by position among the held
 * candidates'; -1 for none. */
static int vf_frontend_born_match(const vf_frontend* fe, int* k, const vf_track* t, float prior) {
  int at = *k;
  while (at < fe->born_by_id && fe->born_id[at] != t->id) ++at;
  if (at < fe->born_by_id) {
    *k = at + 1;
    return at;
  }
  if (prior == prior) return -1;
  for (int i = fe->born_by_id; i < fe->born_count; ++i)
    if (fe->born_xy[2 * i] == t->x && fe->born_xy[2 * i + 1] == t->y) return i;
  return -1;
}

vf_status vf_frontend_match_tracks(vf_frontend* fe, const vf_track* tr, int n) {
  vf_status s = vf_frontend_wait_matches(fe);
  if (s != VF_OK) return s;
  int j = 0, k = 0, todo = 0;
  for (int i = 0; i < n; ++i) {
    const vf_frontend_motion* m = vf_frontend_previous_motion(fe, &j, tr[i].id);
    const float prior = m != NULL ? m->disparity : NAN;
    fe->born_at[i] = vf_frontend_born_match(fe, &k, &tr[i], prior);
    if (fe->born_at[i] >= 0) continue;
    fe->xy[2 * todo] = tr[i].x;
    fe->xy[2 * todo + 1] = tr[i].y;
    fe->priors[todo++] = prior;
  }
  s = todo > 0 ? vf_frontend_match_points(fe, todo, 1) : VF_OK;
  if (s != VF_OK) return s;
  /* The new matches to their tracks' places, from the last (a place is never before its match's),
   * then the remembered ones. */
  for (int i = n - 1; i >= 0; --i)
    if (fe->born_at[i] < 0) fe->matches[i] = fe->matches[--todo];
  for (int i = 0; i < n; ++i) {
    if (fe->born_at[i] >= 0) fe->matches[i] = fe->born[fe->born_at[i]];
    fe->disparities[i] = fe->matches[i].disparity;
  }
  return VF_OK;
}

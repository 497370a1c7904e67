// SPDX-License-Identifier: BSD-3-Clause
/* The tracking and detection steps of a frame: each track's initial guess (gyroscope rotation,
 * then the backend's predictions), tracking with its checks, new tracks in empty cells, and the
 * removal of those born on a depth edge. */
#include <math.h>

#include "frontend/vf_frontend_internal.h"

/* The initial guesses of this frame's tracks: the gyroscope's rotation when the IMU covers the
 * frame interval, replaced by the backend's prediction where it gave one; NULL when there is
 * neither (the tracks start at their previous positions). */
static const float* vf_frontend_guesses(vf_frontend* fe, int64_t t_ns) {
  const int n = vf_feature_set_count(fe->set);
  const vf_track* tr = vf_feature_set_features(fe->set);
  int gyro = 0;
  if (fe->cfg.gyro_seeding && n > 0) {
    for (int i = 0; i < n; ++i) {
      fe->xy[2 * i] = tr[i].x;
      fe->xy[2 * i + 1] = tr[i].y;
    }
    /* A failure (no coverage, an IMU gap) leaves the previous positions as guesses. */
    vf_saved_message saved;
    vf_thread_message_save(&saved);
    double R[9];
    vf_status imu = vf_tracker_gyro_rotation(fe->imu, fe->last_t_ns, t_ns, fe->R_b_c, R);
    /* IMU is being fed but does not serve this interval: the user hears of it, once a frame. */
    if (imu != VF_OK && vf_imu_buffer_size(fe->imu) > 0) {
      vf_log(fe->ctx, VF_LOG_WARN, "frame %lld ns: no gyroscope seeding: %s", (long long)t_ns,
             vf_last_error_message());
    }
    gyro = imu == VF_OK && vf_tracker_predict_rotation(fe->K, R, fe->xy, n, fe->guess) == VF_OK;
    /* The same rotation is the refinement's prior of each patch's shape. */
    if (gyro) gyro = vf_tracker_set_rotation(fe->tracker, fe->K, R) == VF_OK;
    if (!gyro) vf_thread_message_restore(&saved);
  }
  if (!gyro) vf_tracker_set_rotation(fe->tracker, NULL, NULL);
  if (!gyro) {
    for (int i = 0; i < 2 * n; ++i) fe->guess[i] = NAN;
  }
  int predicted = fe->prediction_count > 0;
  vf_frontend_apply_predictions(fe);
  return gyro || predicted ? fe->guess : NULL;
}

/* Tracking with the feature set: forward, backward check, border check, lost tracks dropped. */
vf_status vf_frontend_track_all(vf_frontend* fe, int64_t t_ns, int* lost) {
  *lost = 0;
  if (!fe->have_previous || vf_feature_set_count(fe->set) == 0) return VF_OK;
  const float* guess = vf_frontend_guesses(fe, t_ns);
  vf_track_stats st;
  fe->frame_committed = 1;
  vf_status s = vf_feature_set_track(fe->set, fe->tracker, fe->pyramid[!fe->cur],
                                     fe->pyramid[fe->cur], guess, &st);
  if (s != VF_OK) {
    return vf_fail(&fe->err, s, "tracking: %s", vf_feature_set_last_error(fe->set));
  }
  *lost = st.out_of_image + st.diverged + st.residual + st.invalid + st.inconsistent + st.backward +
          st.border;
  return VF_OK;
}

/* New tracks in the cells without one, when detection is due (every detect_every frames, or
 * below min_features). */
vf_status vf_frontend_replenish(vf_frontend* fe, int* added) {
  *added = 0;
  if (!vf_feature_set_detection_due(fe->set, fe->sequence)) return VF_OK;
  const int cells = fe->grid.cols * fe->grid.rows;
  vf_status s = vf_feature_set_occupancy(fe->set, fe->occupancy, cells);
  if (s == VF_OK)
    s = vf_detector_detect(fe->detector, fe->pyramid[fe->cur], fe->occupancy, VF_MEMORY_HOST);
  const vf_keypoint* kp = NULL;
  int count = 0;
  if (s == VF_OK) s = vf_detector_keypoints(fe->detector, &kp, &count);
  if (s != VF_OK) return vf_fail(&fe->err, s, "detection: %s", vf_last_error_message());
  fe->frame_committed = 1;
  s = vf_feature_set_add(fe->set, kp, count, added);
  if (s != VF_OK) return vf_fail(&fe->err, s, "new tracks: %s", vf_feature_set_last_error(fe->set));
  return VF_OK;
}

/* A corner whose reference patch straddles a depth edge is a junction of two surfaces, not a
 * 3-D point: as the view changes its image slides over both, and the refinement follows it
 * (docs/perf/drift_tail.md). The disparity map of its first frame decides. A step between
 * neighbouring pixels is a relative depth change (dZ / Z = dd / d), so the same surface seen
 * nearer steps more: the threshold grows with the centre's disparity (a slanted floor close by
 * is not an edge), with a floor for the map's sub-pixel noise on far surfaces. */
int vf_frontend_checks_births(const vf_frontend* fe) {
  return fe->cfg.stereo_enabled && fe->cfg.birth_edge_radius > 0;
}

vf_status vf_frontend_drop_edge_births(vf_frontend* fe, int* dropped) {
  *dropped = 0;
  if (!vf_frontend_checks_births(fe)) return VF_OK;
  const int n = vf_feature_set_count(fe->set);
  const vf_track* tr = vf_feature_set_features(fe->set);
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (tr[i].age != 0) continue;
    fe->xy[2 * m] = tr[i].x;
    fe->xy[2 * m + 1] = tr[i].y;
    fe->births[m++] = tr[i].id;
  }
  if (m == 0) return VF_OK;
  const int bits = fe->cfg.stereo.subpixel ? VF_STEREO_SUBPIXEL_BITS : 0;
  const vf_disparity_probe_config pc = {fe->cfg.birth_edge_radius, 0, bits, VF_STEREO_INVALID};
  vf_status s = vf_sampler_probe_disparity(fe->sampler, &fe->disparity, fe->xy, m, &pc, fe->probes);
  if (s != VF_OK)
    return vf_fail(&fe->err, s, "disparity at new tracks: %s", vf_sampler_last_error(fe->sampler));
  const float floor_jump = fe->cfg.birth_max_jump * (float)(1 << bits);
  const int max_holes = fe->cfg.birth_max_holes;
  int k = 0;
  for (int i = 0; i < m; ++i) {
    const vf_disparity_probe* p = &fe->probes[i];
    float max_jump = floor_jump;
    if (p->value != VF_STEREO_INVALID && fe->cfg.birth_max_jump_ratio * (float)p->value > max_jump)
      max_jump = fe->cfg.birth_max_jump_ratio * (float)p->value;
    if ((max_holes >= 0 && p->holes > max_holes) || (float)p->jump > max_jump)
      fe->births[k++] = fe->births[i];
  }
  s = vf_feature_set_refuse(fe->set, fe->births, k, dropped);
  if (s != VF_OK)
    return vf_fail(&fe->err, s, "new tracks on depth edges: %s",
                   vf_feature_set_last_error(fe->set));
  return VF_OK;
}

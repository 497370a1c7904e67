// SPDX-License-Identifier: BSD-3-Clause
/* The tracking and detection steps of a frame: each track's initial guess (gyroscope rotation,
 * then the backend's predictions), tracking with its checks, and new tracks in empty cells. */
#include <math.h>
#include <stdio.h>

#include "features/vf_feature_set_internal.h"
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
    /* The interval between the frames on the IMU's clock (imu_timeshift_s). */
    const int64_t t0_imu = vf_frontend_imu_time(fe, fe->last_t_ns);
    const int64_t t1_imu = vf_frontend_imu_time(fe, t_ns);
    vf_status imu = vf_tracker_gyro_rotation(fe->imu, t0_imu, t1_imu, fe->R_b_c, R);
    /* IMU is being fed but does not serve this interval: the user hears of it, once a frame,
     * with the IMU's time when it is not the frame's. */
    if (imu != VF_OK && vf_imu_buffer_size(fe->imu) > 0) {
      char imu_time[48] = "";
      if (fe->imu_offset_ns != 0)
        snprintf(imu_time, sizeof imu_time, " (IMU time %lld ns)", (long long)t1_imu);
      vf_log(fe->ctx, VF_LOG_WARN, "frame %lld ns%s: no gyroscope seeding: %s", (long long)t_ns,
             imu_time, vf_last_error_message());
    }
    gyro = imu == VF_OK && vf_tracker_predict_rotation(fe->K, R, fe->xy, n, fe->guess) == VF_OK;
    if (gyro) {
      for (int i = 0; i < 9; ++i) fe->frame_R[i] = R[i];
      fe->frame_R_valid = 1;
    }
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

/* Tracking with the feature set, queued: the guesses, then the forward and backward passes. */
vf_status vf_frontend_track_submit(vf_frontend* fe, int64_t t_ns) {
  fe->slide_count = 0;
  fe->frame_R_valid = 0;
  fe->tracking = 0;
  if (!fe->have_previous || vf_feature_set_count(fe->set) == 0) return VF_OK;
  const float* guess = vf_frontend_guesses(fe, t_ns);
  /* Fewer levels only where the gyroscope guessed this frame and the last (each track's last miss
   * is then of the same kind of guess). */
  vf_feature_set_plan_levels(fe->set, fe->frame_R_valid);
  fe->frame_committed = 1;
  vf_status s = vf_feature_set_track_submit(fe->set, fe->tracker, fe->pyramid[!fe->cur],
                                            fe->pyramid[fe->cur], guess);
  if (s != VF_OK) {
    return vf_fail(&fe->err, s, "tracking: %s", vf_feature_set_last_error(fe->set));
  }
  fe->tracking = 1;
  return VF_OK;
}

/* The tracking's results: backward check, border check, lost tracks dropped. */
vf_status vf_frontend_track_finish(vf_frontend* fe, int* lost) {
  *lost = 0;
  if (!fe->tracking) return VF_OK;
  fe->tracking = 0;
  vf_track_stats st;
  vf_status s = vf_feature_set_track_finish(fe->set, fe->tracker, &st);
  if (s != VF_OK) {
    return vf_fail(&fe->err, s, "tracking: %s", vf_feature_set_last_error(fe->set));
  }
  *lost = st.out_of_image + st.diverged + st.residual + st.invalid + st.inconsistent + st.backward +
          st.border;
  return VF_OK;
}

vf_status vf_frontend_detect_early(vf_frontend* fe, int batched) {
  fe->early_pending = 0;
  if (fe->early_detector == NULL || !vf_feature_set_detection_due(fe->set, fe->sequence))
    return VF_OK;
  /* A rig submitted it with its other cameras' (vf_frontend_early_job). */
  if (batched) {
    fe->early_pending = 1;
    return VF_OK;
  }
  /* A cell's keypoint does not depend on the other cells (the detector's one a cell), so every
   * cell now and the empty ones kept later are the empty cells' detection. */
  vf_status s = vf_stream_link_signal(&fe->pyramid_ready);
  if (s == VF_OK)
    s = vf_detector_submit(fe->early_detector, fe->pyramid[fe->cur], NULL, VF_MEMORY_HOST);
  if (s != VF_OK) return vf_fail(&fe->err, s, "detection: %s", vf_last_error_message());
  fe->early_pending = 1;
  return VF_OK;
}

/* The early detection's keypoints in the cells that occupancy leaves empty, in cell order (as a
 * detection with that mask lists them). */
static vf_status vf_frontend_collect_early(vf_frontend* fe, const vf_keypoint** kp, int* count) {
  const vf_keypoint* all = NULL;
  int n = 0;
  vf_status s = vf_detector_collect(fe->early_detector);
  if (s == VF_OK) s = vf_detector_keypoints(fe->early_detector, &all, &n);
  if (s != VF_OK) return s;
  int kept = 0;
  for (int i = 0; i < n; ++i)
    if (fe->occupancy[all[i].cell] == 0) fe->early_kept[kept++] = all[i];
  *kp = fe->early_kept;
  *count = kept;
  return VF_OK;
}

/* New tracks in the cells without one, when detection is due (every detect_every frames, or
 * below min_features); below min_features with the birth check, candidates held for it
 * instead (src/frontend/vf_frontend_births.c). The rigid-motion check's arithmetic runs here
 * while the GPU detects, if it does (*assessed: 1), else later beside the sparse matching. */
vf_status vf_frontend_replenish(vf_frontend* fe, int* added, int* assessed) {
  *added = 0;
  *assessed = 0;
  fe->held_count = 0;
  const int early = fe->early_pending;
  fe->early_pending = 0;
  vf_status s = VF_OK;
  if (!vf_feature_set_detection_due(fe->set, fe->sequence)) {
    /* (Not reached with an early detection: the tracking only lowers the count.) */
    if (early) s = vf_detector_collect(fe->early_detector);
    return s == VF_OK ? VF_OK : vf_fail(&fe->err, s, "detection: %s", vf_last_error_message());
  }
  const int cells = fe->grid.cols * fe->grid.rows;
  s = vf_feature_set_occupancy(fe->set, fe->occupancy, cells);
  if (s == VF_OK && fe->band_detector != NULL && vf_feature_set_needs_detection(fe->set)) {
    /* The early detection, if any, is not needed: the band cells' candidates are. */
    if (early) s = vf_detector_collect(fe->early_detector);
    if (s != VF_OK) return vf_fail(&fe->err, s, "detection: %s", vf_last_error_message());
    return vf_frontend_hold_candidates(fe);
  }
  if (s == VF_OK && vf_feature_set_count(fe->set) >= fe->cfg.features.max_features) {
    /* No free place, so no keypoint could become a track: no detection. The set still counts
     * the call for its refill back-off, as a detection whose keypoints all found no place. */
    if (early) s = vf_detector_collect(fe->early_detector);
    if (s != VF_OK) return vf_fail(&fe->err, s, "detection: %s", vf_last_error_message());
    fe->frame_committed = 1;
    s = vf_feature_set_add(fe->set, NULL, 0, added);
    if (s != VF_OK)
      return vf_fail(&fe->err, s, "new tracks: %s", vf_feature_set_last_error(fe->set));
    return VF_OK;
  }
  const vf_keypoint* kp = NULL;
  int count = 0;
  if (s == VF_OK && early) {
    s = vf_frontend_collect_early(fe, &kp, &count);
  } else {
    if (s == VF_OK)
      s = vf_detector_submit(fe->detector, fe->pyramid[fe->cur], fe->occupancy, VF_MEMORY_HOST);
    vf_frontend_rigid_assess(fe);
    *assessed = 1;
    if (s == VF_OK) s = vf_detector_collect(fe->detector);
    if (s == VF_OK) s = vf_detector_keypoints(fe->detector, &kp, &count);
  }
  if (s != VF_OK) return vf_fail(&fe->err, s, "detection: %s", vf_last_error_message());
  fe->frame_committed = 1;
  s = vf_feature_set_add(fe->set, kp, count, added);
  if (s != VF_OK) return vf_fail(&fe->err, s, "new tracks: %s", vf_feature_set_last_error(fe->set));
  return VF_OK;
}

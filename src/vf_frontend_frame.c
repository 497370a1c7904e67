/* One frame of the frontend: rectify, pyramid, track (forward and backward), replenish, stereo,
 * feature records. The order keeps the GPU busy with one stream: everything is queued in
 * sequence and the host waits only where it needs results (tracking, detection, the feature
 * records). */
#include <math.h>
#include <string.h>

#include "vf_frontend_internal.h"
#include "vf_stage_clock.h"

/* The initial guesses of this frame's tracks: the backend's prediction where it gave one,
 * else the gyroscope's rotation when the IMU covers the frame interval, else the previous
 * position. */
static void vf_frontend_guesses(vf_frontend* fe, int64_t t_ns, int n) {
  vf_track_request* rq = fe->requests;
  int gyro = 0;
  if (fe->cfg.gyro_seeding && n > 0) {
    for (int i = 0; i < n; ++i) {
      fe->xy[2 * i] = rq[i].x;
      fe->xy[2 * i + 1] = rq[i].y;
    }
    /* Fails (no coverage, an IMU gap) leave the guesses at the previous positions. */
    vf_saved_message saved;
    vf_thread_message_save(&saved);
    gyro = vf_tracker_predict_gyro(fe->imu, fe->last_t_ns, t_ns, fe->R_b_c, fe->K, fe->xy, n,
                                   fe->xy) == VF_OK;
    if (!gyro) vf_thread_message_restore(&saved);
  }
  for (int i = 0; i < n; ++i) {
    rq[i].guess_x = gyro ? fe->xy[2 * i] : rq[i].x;
    rq[i].guess_y = gyro ? fe->xy[2 * i + 1] : rq[i].y;
  }
  fe->frame_gyro_seeded = gyro;
  vf_frontend_apply_predictions(fe, n);
}

/* Forward tracking, then backward from the results: a track survives when both converge and
 * the backward result lands within fb_threshold_px of where the track started. */
static vf_status vf_frontend_track_all(vf_frontend* fe, int64_t t_ns, int* lost) {
  int n = vf_frontend_tracks_requests(fe, fe->requests);
  *lost = 0;
  if (n == 0 || !fe->have_previous) return VF_OK;
  vf_frontend_guesses(fe, t_ns, n);
  const vf_pyramid *prev = fe->pyramid[!fe->cur], *cur = fe->pyramid[fe->cur];
  vf_status s = vf_tracker_track(fe->tracker, prev, cur, fe->requests, n, fe->results);
  if (s != VF_OK) return vf_fail(&fe->err, s, "tracking: %s", vf_tracker_last_error(fe->tracker));
  const float fb = fe->cfg.features.fb_threshold_px;
  if (fb > 0) {
    for (int i = 0; i < n; ++i) {
      const vf_track_result* r = &fe->results[i];
      vf_track_request* b = &fe->back_requests[i];
      *b = vf_track_request_make(r->x, r->y, -1);
      b->guess_x = fe->requests[i].x;
      b->guess_y = fe->requests[i].y;
    }
    s = vf_tracker_track(fe->tracker, cur, prev, fe->back_requests, n, fe->back_results);
    if (s != VF_OK) {
      return vf_fail(&fe->err, s, "backward tracking: %s", vf_tracker_last_error(fe->tracker));
    }
  }
  fe->frame_committed = 1;
  *lost =
      vf_frontend_tracks_update(fe, fe->requests, fe->results, fb > 0 ? fe->back_results : NULL, n);
  return VF_OK;
}

/* New tracks in the cells without one, when the live tracks are fewer than the minimum. */
static vf_status vf_frontend_replenish(vf_frontend* fe, int* added) {
  *added = 0;
  if (vf_frontend_tracks_live(fe) >= fe->cfg.features.min_tracks) return VF_OK;
  vf_frontend_tracks_occupancy(fe, fe->occupancy);
  vf_status s =
      vf_detector_detect(fe->detector, fe->pyramid[fe->cur], fe->occupancy, VF_MEMORY_HOST);
  const vf_keypoint* kp = NULL;
  int count = 0;
  if (s == VF_OK) s = vf_detector_keypoints(fe->detector, &kp, &count);
  if (s != VF_OK)
    return vf_fail(&fe->err, s, "detection: %s", vf_detector_last_error(fe->detector));
  fe->frame_committed = 1;
  *added = vf_frontend_tracks_add(fe, kp, count);
  return VF_OK;
}

vf_status vf_frontend_run_frame(vf_frontend* fe, int64_t t_ns, const vf_image* left,
                                const vf_image* right, vf_stage_times* times) {
  vf_stage_clock* clk = &fe->clock;
  vf_stage_clock_reset(clk);
  vf_stage_clock_mark(clk, VF_STAGE_RECTIFY);
  vf_status s = vf_remap_apply(fe->remap[0], left, &fe->rectified[0]);
  if (s == VF_OK) s = vf_remap_apply(fe->remap[1], right, &fe->rectified[1]);
  if (s != VF_OK) return vf_fail(&fe->err, s, "rectification: %s", vf_last_error_message());
  vf_stage_clock_mark(clk, VF_STAGE_PYRAMID);
  s = vf_pyramid_build(fe->pyramid[fe->cur], &fe->rectified[0]);
  if (s != VF_OK) return vf_fail(&fe->err, s, "pyramid: %s", vf_last_error_message());

  int lost = 0, added = 0;
  vf_stage_clock_mark(clk, VF_STAGE_TRACK);
  s = vf_frontend_track_all(fe, t_ns, &lost);
  vf_stage_clock_mark(clk, VF_STAGE_DETECT);
  if (s == VF_OK) s = vf_frontend_replenish(fe, &added);
  vf_stage_clock_mark(clk, VF_STAGE_STEREO);
  if (s == VF_OK && fe->cfg.stereo_enabled) {
    s = vf_stereo_compute(fe->stereo, &fe->rectified[0], &fe->rectified[1], &fe->disparity, NULL);
    if (s != VF_OK) s = vf_fail(&fe->err, s, "stereo: %s", vf_stereo_last_error(fe->stereo));
  }
  vf_stage_clock_mark(clk, VF_STAGE_FEATURES);
  if (s == VF_OK) s = vf_frontend_build_records(fe, t_ns);
  vf_stage_clock_mark(clk, VF_STAGE_COUNT);
  double ms[VF_STAGE_CLOCK_MAX_MARKS];
  if (s == VF_OK) s = vf_stage_clock_read(clk, ms);
  if (s != VF_OK) return s;
  memset(times, 0, sizeof *times);
  times->rectify_ms = ms[VF_STAGE_RECTIFY];
  times->pyramid_ms = ms[VF_STAGE_PYRAMID];
  times->track_ms = ms[VF_STAGE_TRACK];
  times->detect_ms = ms[VF_STAGE_DETECT];
  times->stereo_ms = ms[VF_STAGE_STEREO];
  times->features_ms = ms[VF_STAGE_FEATURES];
  fe->frame_lost = lost;
  fe->frame_added = added;
  return VF_OK;
}

// SPDX-License-Identifier: BSD-3-Clause
/* The rig frontend's handle (vf_rig_frontend.h): its units (one vf_frontend per stereo pair and
 * per camera in no pair), their callbacks, and the IMU samples they all get. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_env.h"
#include "core/vf_fault.h"
#include "features/vf_detector_batch.h"
#include "frontend/vf_frontend_internal.h"
#include "frontend/vf_rig_frontend_internal.h"
#include "stereo/vf_stereo_internal.h"

/* Where a mono unit's stand-in right camera sits: along its own x axis, so that the
 * rectification keeps the camera's orientation (R1 the identity) and the rectified image is the
 * undistorted one. vf_frontend needs a pair to rectify; with stereo off the right side gives
 * nothing but this geometry. */
#define VF_RIG_MONO_BASELINE_M 0.1

static vf_camera vf_rig_mono_right(const vf_camera* cam) {
  vf_camera right = *cam;
  for (int i = 0; i < 3; ++i) right.T_BS[4 * i + 3] += VF_RIG_MONO_BASELINE_M * cam->T_BS[4 * i];
  return right;
}

/* Pairs first in the rig's order, then the cameras in no pair in camera order. */
static void vf_rig_frontend_plan(vf_rig_frontend* fe) {
  const vf_rig* rig = &fe->rig;
  int in_pair[VF_RIG_MAX_CAMERAS] = {0};
  for (int p = 0; p < rig->pair_count; ++p) {
    vf_rig_unit u = {rig->pairs[p].left, rig->pairs[p].right, p};
    fe->units[fe->unit_count++].info = u;
    in_pair[u.camera] = in_pair[u.right_camera] = 1;
  }
  for (int c = 0; c < rig->camera_count; ++c) {
    if (in_pair[c]) continue;
    vf_rig_unit u = {c, -1, -1};
    fe->units[fe->unit_count++].info = u;
  }
}

static vf_status vf_rig_unit_make(vf_rig_frontend* fe, vf_rig_slot* u,
                                  const vf_frontend_config* config) {
  const vf_rig* rig = &fe->rig;
  vf_frontend_config c = *config;
  c.cam0 = rig->cameras[u->info.camera];
  /* The tracked camera's clock: a pair's right camera shares the left one's (checked). */
  c.imu_timeshift_s = rig->timeshift_s[u->info.camera];
  if (u->info.pair >= 0) {
    c.cam1 = rig->cameras[u->info.right_camera];
  } else {
    c.cam1 = vf_rig_mono_right(&c.cam0);
    c.stereo_enabled = 0;
    c.right_features = 0;
  }
  vf_status s = vf_context_create_stream_view(
      fe->ctx, fe->ctx->log_fn != NULL ? vf_rig_unit_on_log : NULL, u, &u->view);
  /* Several pairs: their stereo streams at normal priority, beside the units' tracking
   * (docs/perf/rig.md). */
  if (s == VF_OK && rig->pair_count > 1) u->view->calm_siblings = 1;
  if (s == VF_OK) s = vf_stream_link_init(&u->fork, fe->ctx, u->view);
  if (s == VF_OK) s = vf_stream_link_init(&u->join, u->view, fe->ctx);
  vf_frontend_callbacks cb = {vf_rig_unit_on_features, vf_rig_unit_on_disparity, u};
  if (s == VF_OK) s = vf_frontend_create(u->view, &c, &cb, &u->fe);
  /* The pairs' dense stereo runs at once, each on its unit's stream: together they fill the
   * device (the SGM's path layout for a full device; 4 pairs: docs/perf/rig.md). */
  if (s == VF_OK && u->info.pair >= 0) vf_stereo_expect_concurrent(u->fe->stereo, rig->pair_count);
  /* A frame holds at most a left and a right record a track (create checked the cap). */
  if (s == VF_OK) {
    u->records = vf_calloc(2 * (size_t)c.features.max_features, sizeof *u->records);
    if (u->records == NULL) s = vf_fail(NULL, VF_ERR_NOMEM, "out of memory");
  }
  return s;
}

/* A pair's images are matched as taken at one instant: its cameras must share a clock (Kalibr's
 * shifts of hardware-synchronized cameras differ by the estimate's noise only). */
static vf_status vf_rig_check_pair_shifts(const vf_rig* rig) {
  for (int p = 0; p < rig->pair_count; ++p) {
    const int l = rig->pairs[p].left, r = rig->pairs[p].right;
    const double dl = rig->timeshift_s[l], dr = rig->timeshift_s[r];
    if (fabs(dl - dr) <= VF_RIG_FRONTEND_MAX_PAIR_SKEW_S) continue;
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_rig_frontend_create: pair %d (%s, %s): the cameras' time shifts differ by "
                   "%g ms (%s %g s, %s %g s; at most %g ms): a stereo pair must be "
                   "hardware-synchronized; give both one timeshift_cam_imu, or leave the pair out "
                   "of stereo_pairs to track the two as mono cameras",
                   p, rig->names[l], rig->names[r], fabs(dl - dr) * 1e3, rig->names[l], dl,
                   rig->names[r], dr, VF_RIG_FRONTEND_MAX_PAIR_SKEW_S * 1e3);
  }
  return VF_OK;
}

/* "unit 1 (pair 0: cam2, cam3)" or "unit 2 (camera 4: cam4)". */
void vf_rig_unit_name(const vf_rig_frontend* fe, int k, char* out, size_t size) {
  const vf_rig_unit* u = &fe->units[k].info;
  if (u->pair >= 0) {
    snprintf(out, size, "unit %d (pair %d: %s, %s)", k, u->pair, fe->rig.names[u->camera],
             fe->rig.names[u->right_camera]);
  } else {
    snprintf(out, size, "unit %d (camera %d: %s)", k, u->camera, fe->rig.names[u->camera]);
  }
}

vf_status vf_rig_frontend_create(vf_context* ctx, const vf_rig* rig,
                                 const vf_frontend_config* config, vf_rig_frontend** out) {
  VF_CHECK_ARG_NOT_NULL(NULL, out);
  *out = NULL;
  VF_CHECK_ARG_NOT_NULL(NULL, ctx);
  VF_CHECK_ARG_NOT_NULL(NULL, rig);
  VF_CHECK_ARG_NOT_NULL(NULL, config);
  if (vf_rig_check(rig) != VF_OK) {
    char m[VF_ERROR_MESSAGE_MAX];
    snprintf(m, sizeof m, "%s", vf_last_error_message());
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_rig_frontend_create: %s", m);
  }
  vf_status checked = vf_rig_check_pair_shifts(rig);
  if (checked != VF_OK) return checked;
  /* Each unit takes its shift from the rig; one in the configuration would be lost unseen. */
  if (config->imu_timeshift_s != 0.0) {
    vf_log(ctx, VF_LOG_WARN,
           "vf_rig_frontend_create: the configuration's imu_timeshift_s %g s is not used: each "
           "unit takes its camera's shift from the rig (vf_rig.timeshift_s)",
           config->imu_timeshift_s);
  }
  vf_rig_frontend* fe = vf_calloc(1, sizeof *fe);
  if (fe == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_rig_frontend_create: out of memory");
  fe->ctx = ctx;
  fe->rig = *rig;
  /* CUDA: the units' rectifications and pyramids in one launch each (vf_rig_frontend_batch.c);
   * VF_RIG_BATCH=0 gives each unit its own (measurements: docs/perf/rig.md). */
  fe->batch = ctx->backend == VF_BACKEND_CUDA && vf_env_digit("VF_RIG_BATCH", 0, 1) != 0;
  /* With it, the units' trackings queued from the rig's thread before the units' threads start
   * (vf_frontend_track_ahead); VF_RIG_TRACK_AHEAD=0 leaves them to the units' frames. */
  fe->track_ahead = fe->batch && vf_env_digit("VF_RIG_TRACK_AHEAD", 0, 1) != 0;
  if (fe->batch) {
    vf_status s = vf_detector_batch_create(ctx, &fe->early);
    if (s != VF_OK) {
      char m[VF_ERROR_MESSAGE_MAX];
      snprintf(m, sizeof m, "%s", vf_last_error_message());
      free(fe);
      return vf_fail(NULL, s, "vf_rig_frontend_create: %s", m);
    }
  }
  vf_rig_frontend_plan(fe);
  for (int k = 0; k < fe->unit_count; ++k) {
    fe->units[k].index = k;
    vf_status s = vf_rig_unit_make(fe, &fe->units[k], config);
    if (s != VF_OK) {
      char m[VF_ERROR_MESSAGE_MAX], name[96];
      snprintf(m, sizeof m, "%s", vf_last_error_message());
      vf_rig_unit_name(fe, k, name, sizeof name);
      vf_rig_frontend_destroy(fe);
      return vf_fail(NULL, s, "vf_rig_frontend_create: %s: %s", name, m);
    }
    const int64_t lead = vf_frontend_imu_lead_ns(fe->units[k].fe);
    if (lead > fe->imu_lead_ns) fe->imu_lead_ns = lead;
  }
  *out = fe;
  return VF_OK;
}

void vf_rig_frontend_destroy(vf_rig_frontend* fe) {
  if (fe == NULL) return;
  for (int k = 0; k < fe->unit_count; ++k) {
    vf_frontend_destroy(fe->units[k].fe);
    vf_stream_link_release(&fe->units[k].fork);
    vf_stream_link_release(&fe->units[k].join);
    vf_context_destroy(fe->units[k].view);
    free(fe->units[k].records);
  }
  vf_detector_batch_destroy(fe->early);
  free(fe);
}

vf_status vf_rig_frontend_set_callbacks(vf_rig_frontend* fe,
                                        const vf_rig_frontend_callbacks* callbacks) {
  VF_CHECK_ARG_NOT_NULL(NULL, fe);
  if (fe->in_callback) {
    return vf_fail(&fe->err, VF_ERR_STATE,
                   "vf_rig_frontend_set_callbacks: called from inside a rig frontend callback");
  }
  memset(&fe->cb, 0, sizeof fe->cb);
  if (callbacks != NULL) fe->cb = *callbacks;
  return VF_OK;
}

int vf_rig_frontend_unit_count(const vf_rig_frontend* fe) {
  return fe != NULL ? fe->unit_count : 0;
}

vf_status vf_rig_frontend_unit(const vf_rig_frontend* fe, int unit, vf_rig_unit* out) {
  VF_CHECK_ARG_NOT_NULL(NULL, fe);
  VF_CHECK_ARG_NOT_NULL(NULL, out);
  if (unit < 0 || unit >= fe->unit_count) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_rig_frontend_unit: unit %d is outside 0..%d", unit,
                   fe->unit_count - 1);
  }
  *out = fe->units[unit].info;
  return VF_OK;
}

vf_status vf_rig_frontend_add_imu(vf_rig_frontend* fe, int64_t t_ns, const double gyro[3],
                                  const double acc[3]) {
  VF_CHECK_ARG_NOT_NULL(NULL, fe);
  VF_CHECK_ARG_NOT_NULL(&fe->err, gyro);
  VF_CHECK_ARG_NOT_NULL(&fe->err, acc);
  /* Every unit holds the same samples (a unit only drops those older than its frames), so the
   * first unit's check is every unit's: a sample it refuses changes none, one it takes all take.
   * A buffer each, not one shared: a failed integration writes its buffer's error slot, which
   * units running at once would write together. */
  for (int k = 0; k < fe->unit_count; ++k) {
    vf_status s = vf_frontend_push_imu(fe->units[k].fe, t_ns, gyro, acc);
    if (s != VF_OK) {
      return vf_fail(&fe->err, s, "vf_rig_frontend_add_imu: %s",
                     vf_frontend_last_error(fe->units[k].fe));
    }
  }
  return VF_OK;
}

int64_t vf_rig_frontend_imu_lead_ns(const vf_rig_frontend* fe) {
  return fe != NULL ? fe->imu_lead_ns : 0;
}

const char* vf_rig_frontend_last_error(const vf_rig_frontend* fe) {
  return fe != NULL ? fe->err.message : "vf_rig_frontend_last_error: fe is NULL";
}

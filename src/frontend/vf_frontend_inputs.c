// SPDX-License-Identifier: BSD-3-Clause
/* What a user hands the frontend between frames: IMU samples, the backend's predictions (kept
 * until the next frame turns them into tracking guesses) and rejections. */
#include <math.h>

#include "frontend/vf_frontend_internal.h"

vf_status vf_frontend_push_imu(vf_frontend* fe, int64_t t_ns, const double gyro[3],
                               const double acc[3]) {
  VF_CHECK_ARG_NOT_NULL(NULL, fe);
  VF_CHECK_ARG_NOT_NULL(&fe->err, gyro);
  VF_CHECK_ARG_NOT_NULL(&fe->err, acc);
  vf_imu_sample smp = {t_ns, {gyro[0], gyro[1], gyro[2]}, {acc[0], acc[1], acc[2]}};
  vf_status s = vf_imu_buffer_push(fe->imu, &smp);
  if (s != VF_OK) return vf_fail(&fe->err, s, "%s", vf_imu_buffer_last_error(fe->imu));
  return VF_OK;
}

vf_status vf_frontend_predict(vf_frontend* fe, const uint64_t* ids, const float* uv, int count) {
  VF_CHECK_ARG_NOT_NULL(NULL, fe);
  if (count < 0) return vf_fail(&fe->err, VF_ERR_INVALID_ARG, "vf_frontend_predict: count < 0");
  if (count == 0) return VF_OK;
  VF_CHECK_ARG_NOT_NULL(&fe->err, ids);
  VF_CHECK_ARG_NOT_NULL(&fe->err, uv);
  for (int i = 0; i < count; ++i) {
    if (!isfinite(uv[2 * i]) || !isfinite(uv[2 * i + 1])) {
      return vf_fail(&fe->err, VF_ERR_INVALID_ARG, "vf_frontend_predict: uv[%d] is not finite", i);
    }
  }
  /* Later predictions of an id replace earlier ones; at most one per live track is kept. */
  for (int i = 0; i < count && fe->prediction_count < fe->cfg.features.max_features; ++i) {
    int slot = fe->prediction_count;
    for (int j = 0; j < fe->prediction_count; ++j)
      if (fe->predictions[j].id == ids[i]) slot = j;
    vf_frontend_prediction p = {ids[i], uv[2 * i], uv[2 * i + 1]};
    fe->predictions[slot] = p;
    if (slot == fe->prediction_count) fe->prediction_count++;
  }
  return VF_OK;
}

void vf_frontend_apply_predictions(vf_frontend* fe) {
  const vf_stereo_rectification* rc = &fe->rect;
  const int n = vf_feature_set_count(fe->set);
  const vf_track* tr = vf_feature_set_features(fe->set);
  vf_saved_message saved;
  vf_thread_message_save(&saved);
  for (int j = 0; j < fe->prediction_count; ++j) {
    const vf_frontend_prediction* p = &fe->predictions[j];
    double raw[2] = {p->u, p->v}, rect[2];
    /* The backend predicts raw pixels; tracking runs in the rectified image. A prediction
     * behind the camera is ignored. */
    if (vf_rectify_point(&fe->cfg.cam0, rc->R1, rc->P1, raw, rect) != VF_OK) {
      vf_thread_message_restore(&saved);
      continue;
    }
    for (int i = 0; i < n; ++i) {
      if (tr[i].id != p->id) continue;
      fe->guess[2 * i] = (float)rect[0];
      fe->guess[2 * i + 1] = (float)rect[1];
    }
  }
  fe->prediction_count = 0;
}

vf_status vf_frontend_reject(vf_frontend* fe, const uint64_t* ids, int count) {
  VF_CHECK_ARG_NOT_NULL(NULL, fe);
  if (count < 0) return vf_fail(&fe->err, VF_ERR_INVALID_ARG, "vf_frontend_reject: count < 0");
  if (count == 0) return VF_OK;
  VF_CHECK_ARG_NOT_NULL(&fe->err, ids);
  /* Safe inside a callback: the frame's records are a copy, the tracks are not walked again. */
  vf_status s = vf_feature_set_remove(fe->set, ids, count, NULL);
  return s == VF_OK
             ? VF_OK
             : vf_fail(&fe->err, s, "vf_frontend_reject: %s", vf_feature_set_last_error(fe->set));
}

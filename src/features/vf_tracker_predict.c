// SPDX-License-Identifier: BSD-3-Clause
/* Initial guesses for tracking from a camera rotation: a pure rotation moves every pixel by the
 * homography K R^T K^-1 whatever the depth, so the gyroscope predicts where features go. */
#include <cglm/cglm.h>
#include <math.h>

#include "core/vf_error.h"
#include "viofront/vf_tracker.h"

/* Row-major double 3x3 to cglm's column-major float matrix. */
static void vf_mat3_from_rows(const double r[9], mat3 out) {
  for (int row = 0; row < 3; ++row) {
    for (int col = 0; col < 3; ++col) out[col][row] = (float)r[row * 3 + col];
  }
}

static vf_status vf_predict_check(const double K[4], const double R[9], const char* r_name,
                                  const float* xy_in, int count, const float* xy_out,
                                  const char* fn) {
  if (K == NULL || R == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: %s is NULL", fn, K == NULL ? "K" : r_name);
  }
  if (count < 0) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: count %d is negative", fn, count);
  if (count > 0 && (xy_in == NULL || xy_out == NULL)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: %s is NULL", fn,
                   xy_in == NULL ? "xy_in" : "xy_out");
  }
  if (!(K[0] > 0 && K[1] > 0 && isfinite(K[0]) && isfinite(K[1]) && isfinite(K[2]) &&
        isfinite(K[3]))) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: K must hold finite fx > 0, fy > 0, cx, cy", fn);
  }
  for (int i = 0; i < 9; ++i) {
    if (!isfinite(R[i])) {
      return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: %s[%d] is not finite", fn, r_name, i);
    }
  }
  return VF_OK;
}

static void vf_predict_apply(const double K[4], mat3 r_c0_c1, const float* xy_in, int count,
                             float* xy_out) {
  mat3 rt;
  glm_mat3_transpose_to(r_c0_c1, rt);
  for (int i = 0; i < count; ++i) {
    const float x = xy_in[2 * i], y = xy_in[2 * i + 1];
    vec3 d0 = {(float)((x - K[2]) / K[0]), (float)((y - K[3]) / K[1]), 1.0f}, d1;
    glm_mat3_mulv(rt, d0, d1);
    /* Behind (or at) the image plane the homography has no meaning: keep the point. */
    const int ahead = d1[2] > 1e-6f;
    xy_out[2 * i] = ahead ? (float)(K[0] * d1[0] / d1[2] + K[2]) : x;
    xy_out[2 * i + 1] = ahead ? (float)(K[1] * d1[1] / d1[2] + K[3]) : y;
  }
}

vf_status vf_tracker_predict_rotation(const double K[4], const double R_c0_c1[9],
                                      const float* xy_in, int count, float* xy_out) {
  vf_status s =
      vf_predict_check(K, R_c0_c1, "R_c0_c1", xy_in, count, xy_out, "vf_tracker_predict_rotation");
  if (s != VF_OK) return s;
  mat3 r;
  vf_mat3_from_rows(R_c0_c1, r);
  vf_predict_apply(K, r, xy_in, count, xy_out);
  return VF_OK;
}

vf_status vf_tracker_gyro_rotation(const vf_imu_buffer* imu, int64_t t0_ns, int64_t t1_ns,
                                   const double R_b_c[9], double R_c0_c1[9]) {
  const char* fn = "vf_tracker_gyro_rotation";
  if (imu == NULL || R_b_c == NULL || R_c0_c1 == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: %s is NULL", fn,
                   imu == NULL     ? "imu"
                   : R_b_c == NULL ? "R_b_c"
                                   : "R_c0_c1");
  }
  for (int i = 0; i < 9; ++i) {
    if (!isfinite(R_b_c[i])) {
      return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: R_b_c[%d] is not finite", fn, i);
    }
  }
  double rb[9], tmp[9];
  vf_status s = vf_imu_buffer_rotation(imu, t0_ns, t1_ns, rb);
  if (s != VF_OK) return s;
  /* R_c0_c1 = R_c_b R_b0_b1 R_b_c, R_c_b = R_b_c^T */
  const double* c = R_b_c;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      tmp[3 * i + j] = c[i] * rb[j] + c[3 + i] * rb[3 + j] + c[6 + i] * rb[6 + j];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      R_c0_c1[3 * i + j] =
          tmp[3 * i] * c[j] + tmp[3 * i + 1] * c[3 + j] + tmp[3 * i + 2] * c[6 + j];
  return VF_OK;
}

vf_status vf_tracker_predict_gyro(const vf_imu_buffer* imu, int64_t t0_ns, int64_t t1_ns,
                                  const double R_b_c[9], const double K[4], const float* xy_in,
                                  int count, float* xy_out) {
  const char* fn = "vf_tracker_predict_gyro";
  if (imu == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: imu is NULL", fn);
  vf_status s = vf_predict_check(K, R_b_c, "R_b_c", xy_in, count, xy_out, fn);
  if (s != VF_OK) return s;
  double r[9];
  s = vf_tracker_gyro_rotation(imu, t0_ns, t1_ns, R_b_c, r);
  if (s != VF_OK) return s;
  mat3 rc;
  vf_mat3_from_rows(r, rc);
  vf_predict_apply(K, rc, xy_in, count, xy_out);
  return VF_OK;
}

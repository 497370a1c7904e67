// SPDX-License-Identifier: BSD-3-Clause
/* Gyro-seeded tracking: a pure camera rotation of about 1.8 degrees seen by a narrow lens (about
 * 45 px of image motion, beyond the pyramid's reach, with little perspective change so the
 * motion stays a translation at the patch scale) rendered exactly from a procedural texture, with
 * the IMU rotated against the camera by a EuRoC-like extrinsic. The rotation integrated from the
 * gyroscope predicts every feature (K R^T K^-1 p) to a fraction of a pixel; tracked from that guess
 * the features converge where the zero-motion guess fails. Bad arguments of the prediction calls
 * give clear errors. */
#include "test_tracker_util.h"

static const double K[4] = {1400.0, 1396.0, 371.5, 245.25};
/* Camera-to-body rotation: camera x = body -y, camera y = body x (as EuRoC's cam0, roughly). */
static const double R_b_c[9] = {0, 1, 0, -1, 0, 0, 0, 0, 1};

/* exp([w]x) by Rodrigues' formula, row-major. */
static void tt_rodrigues(const double w[3], double R[9]) {
  const double th = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  const double k[3] = {w[0] / th, w[1] / th, w[2] / th};
  const double c = cos(th), s = sin(th), v = 1 - c;
  const double m[9] = {
      c + k[0] * k[0] * v,        k[0] * k[1] * v - k[2] * s, k[0] * k[2] * v + k[1] * s,
      k[1] * k[0] * v + k[2] * s, c + k[1] * k[1] * v,        k[1] * k[2] * v - k[0] * s,
      k[2] * k[0] * v - k[1] * s, k[2] * k[1] * v + k[0] * s, c + k[2] * k[2] * v};
  memcpy(R, m, sizeof m);
}

/* Where the current pixel (x, y) looks in the previous image: K R_c0_c1 K^-1 p. */
static void tt_map_rotation(double x, double y, const void* arg, double* sx, double* sy) {
  const double* R = arg;
  const double d[3] = {(x - K[2]) / K[0], (y - K[3]) / K[1], 1.0};
  double e[3];
  for (int i = 0; i < 3; ++i) e[i] = R[3 * i] * d[0] + R[3 * i + 1] * d[1] + R[3 * i + 2] * d[2];
  *sx = K[0] * e[0] / e[2] + K[2];
  *sy = K[1] * e[1] / e[2] + K[3];
}

/* Where a previous pixel goes: K R_c0_c1^T K^-1 p (the truth, in double). */
static void tt_truth(const double R[9], double x, double y, double* ox, double* oy) {
  const double d[3] = {(x - K[2]) / K[0], (y - K[3]) / K[1], 1.0};
  double e[3];
  for (int i = 0; i < 3; ++i) e[i] = R[i] * d[0] + R[3 + i] * d[1] + R[6 + i] * d[2];
  *ox = K[0] * e[0] / e[2] + K[2];
  *oy = K[1] * e[1] / e[2] + K[3];
}

static void tt_bad_arguments(const vf_imu_buffer* imu, const float* xy) {
  float out[4];
  const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, badK[4] = {0, 458, 371, 245};
  const double nanR[9] = {1, 0, 0, 0, NAN, 0, 0, 0, 1};
  CHECK_FAILS(vf_tracker_predict_rotation(NULL, I, xy, 1, out), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_predict_rotation(K, NULL, xy, 1, out), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_predict_rotation(badK, I, xy, 1, out), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_predict_rotation(K, nanR, xy, 1, out), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_predict_rotation(K, I, NULL, 1, out), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_predict_rotation(K, I, xy, -1, out), VF_ERR_INVALID_ARG);
  CHECK_OK(vf_tracker_predict_rotation(K, I, NULL, 0, NULL));
  CHECK_FAILS(vf_tracker_predict_gyro(NULL, 0, 1, R_b_c, K, xy, 1, out), VF_ERR_INVALID_ARG);
  /* The IMU covers 0..120 ms only. */
  CHECK_FAILS(vf_tracker_predict_gyro(imu, 0, 500000000, R_b_c, K, xy, 1, out), VF_ERR_STATE);
  double R[9];
  CHECK_FAILS(vf_tracker_gyro_rotation(NULL, 0, 1, R_b_c, R), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_gyro_rotation(imu, 0, 1, NULL, R), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_gyro_rotation(imu, 0, 1, nanR, R), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_gyro_rotation(imu, 0, 500000000, R_b_c, R), VF_ERR_STATE);
  /* The identity rotation keeps every point. */
  const float p[4] = {100.5f, 200.25f, 371.5f, 245.25f};
  CHECK_OK(vf_tracker_predict_rotation(K, I, p, 2, out));
  CHECK_NEAR(out[0], 100.5, 1e-4);
  CHECK_NEAR(out[1], 200.25, 1e-4);
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  vf_context* ctx = NULL;
  CHECK_OK(vf_context_create(&cc, &ctx));

  /* 100 ms between frames; the camera turns by (-0.006, -0.03, 0.002) rad. */
  const int64_t t0 = 10000000, t1 = 110000000;
  const double w_body[3] = {-0.30, 0.06, 0.02}; /* rad/s */
  vf_imu_buffer* imu = NULL;
  CHECK_OK(vf_imu_buffer_create(1000, 20000000, &imu));
  for (int64_t t = 0; t <= 120000000; t += 5000000) {
    vf_imu_sample s = {t, {w_body[0], w_body[1], w_body[2]}, {0, 0, 9.81}};
    CHECK_OK(vf_imu_buffer_push(imu, &s));
  }
  /* The truth, independently of the library: w_cam = R_b_c^T w_body, R_c0_c1 = exp(w_cam dt). */
  double w_cam[3], R[9];
  for (int i = 0; i < 3; ++i) {
    w_cam[i] = (R_b_c[i] * w_body[0] + R_b_c[3 + i] * w_body[1] + R_b_c[6 + i] * w_body[2]) * 0.1;
  }
  tt_rodrigues(w_cam, R);

  const tt_texture tex = tt_texture_make(2024u);
  vf_image img0 = {0}, img1 = {0};
  tt_render(&tex, 752, 480, NULL, NULL, 1.0, 0.0, &img0);
  tt_render(&tex, 752, 480, tt_map_rotation, R, 0.9, 10.0, &img1);
  static float xy[2048], pred[2048], truth[2048];
  int n = tt_pick_corners(&img0, 24, 24, 25.0, xy, 1024);
  int m = 0; /* keep the features whose true position stays 24 px inside */
  for (int i = 0; i < n; ++i) {
    double tx, ty;
    tt_truth(R, xy[2 * i], xy[2 * i + 1], &tx, &ty);
    if (tx < 24 || ty < 24 || tx > 752 - 24 || ty > 480 - 24) continue;
    xy[2 * m] = xy[2 * i];
    xy[2 * m + 1] = xy[2 * i + 1];
    truth[2 * m] = (float)tx;
    truth[2 * m + 1] = (float)ty;
    ++m;
  }
  n = m;
  CHECK(n >= 150);

  CHECK_OK(vf_tracker_predict_gyro(imu, t0, t1, R_b_c, K, xy, n, pred));
  /* The same as the gyroscope's camera rotation through vf_tracker_predict_rotation. */
  double R_c[9];
  static float pred2[2048];
  CHECK_OK(vf_tracker_gyro_rotation(imu, t0, t1, R_b_c, R_c));
  CHECK_OK(vf_tracker_predict_rotation(K, R_c, xy, n, pred2));
  for (int i = 0; i < 2 * n; ++i) CHECK(pred[i] == pred2[i]);
  double worst = 0, mean_motion = 0;
  for (int i = 0; i < n; ++i) {
    worst = fmax(worst, hypot(pred[2 * i] - truth[2 * i], pred[2 * i + 1] - truth[2 * i + 1]));
    mean_motion += hypot(truth[2 * i] - xy[2 * i], truth[2 * i + 1] - xy[2 * i + 1]) / n;
  }
  printf("gyro prediction: %d features, mean motion %.1f px, worst prediction error %.4f px\n", n,
         mean_motion, worst);
  CHECK(mean_motion > 30.0);
  CHECK(worst < 0.05);

  vf_tracker_config tc = vf_tracker_config_default();
  vf_tracker* t = NULL;
  CHECK_OK(vf_tracker_create(ctx, &tc, &t));
  vf_pyramid* p0 = tt_pyramid(ctx, &img0, tc.levels);
  vf_pyramid* p1 = tt_pyramid(ctx, &img1, tc.levels);
  static vf_track_request req[1024];
  static vf_track_result res[1024];
  for (int seeded = 0; seeded < 2; ++seeded) {
    for (int i = 0; i < n; ++i) {
      req[i] = vf_track_request_make(xy[2 * i], xy[2 * i + 1], -1);
      if (seeded) {
        req[i].guess_x = pred[2 * i];
        req[i].guess_y = pred[2 * i + 1];
      }
    }
    CHECK_OK(vf_tracker_track(t, p0, p1, req, n, res));
    const tt_stats st = tt_evaluate(res, truth, n, 0.1);
    printf("%-18s converged %5.1f%%  median %.4f px  within 0.1 px %5.1f%%\n",
           seeded ? "gyro-seeded guess" : "zero-motion guess", 100 * st.converged, st.median,
           100 * st.within);
    if (seeded) {
      CHECK(st.within >= 0.95);
      CHECK(st.median < 0.05);
    } else {
      CHECK(st.within < 0.2);
    }
  }
  tt_bad_arguments(imu, xy);
  vf_pyramid_destroy(p0);
  vf_pyramid_destroy(p1);
  vf_tracker_destroy(t);
  vf_imu_buffer_destroy(imu);
  vf_image_free(&img0);
  vf_image_free(&img1);
  vf_context_destroy(ctx);
  VF_TEST_END("test_tracker_gyro");
}

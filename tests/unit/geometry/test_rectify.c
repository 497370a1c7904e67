// SPDX-License-Identifier: BSD-3-Clause
/* Stereo rectification: the EuRoC fixtures of docs TARGETS.md (OpenCV 4 stereoRectify with
 * CALIB_ZERO_DISPARITY, alpha -1 and 0, and OpenCV 2.4's focal rule) to 1e-6 relative;
 * rectified rows of projected 3-D points line up (epipolar error < 0.1 px) and Q gives the
 * points back; a vertical rig; bad input. */
#include <math.h>
#include <viofront/viofront.h>

#include "euroc_calib.h"
#include "vf_test.h"

static int rel_ok(double got, double want, double tol) {
  int ok = fabs(got - want) <= tol * fmax(fabs(want), 1e-300);
  if (!ok) fprintf(stderr, "  got %.17g, want %.17g\n", got, want);
  return ok;
}

static void check_fixtures(void) {
  static const double R1[9] = {0.9999663475300331,    -0.0014227391387196394, 0.00807958048341939,
                               0.001365741834640946,  0.9999741760894848,     0.007055629199257305,
                               -0.008089410156866077, -0.007044357138835025,  0.9999424675829178};
  static const double R2[9] = {0.9999633526194377,    -0.003625811871556061, 0.007755443660160068,
                               0.003680398547255408,  0.999968475277163,     -0.007035845251224126,
                               -0.007729688520709899, 0.007064130529505805,  0.9999451734846442};
  vf_camera c0 = euroc_camera(0), c1 = euroc_camera(1);
  vf_rectify_config cfg = vf_rectify_config_default();
  vf_stereo_rectification r;
  CHECK_OK(vf_stereo_rectify(&c0, &c1, &cfg, &r));
  for (int i = 0; i < 9; ++i) {
    CHECK(rel_ok(r.R1[i], R1[i], 1e-6));
    CHECK(rel_ok(r.R2[i], R2[i], 1e-6));
  }
  CHECK(r.vertical == 0 && r.width == 752 && r.height == 480);
  CHECK(rel_ok(r.f, 456.715000, 1e-6));
  CHECK(rel_ok(r.cx, 364.441224, 1e-6));
  CHECK(rel_ok(r.cy, 256.951680, 1e-6));
  CHECK(rel_ok(r.P2[3], -50.274202, 1e-6));
  CHECK(rel_ok(r.baseline_m, 0.11007784219171352, 1e-6));
  CHECK(r.P1[0] == r.f && r.P1[5] == r.f && r.P2[0] == r.f && r.P1[2] == r.P2[2]);
  CHECK(r.P1[3] == 0 && r.P2[7] == 0 && r.P1[10] == 1);
  CHECK(rel_ok(-r.P2[3] / r.f, r.baseline_m, 1e-12));
  printf("alpha -1: f %.6f cx %.6f cy %.6f P2[0][3] %.6f\n", r.f, r.cx, r.cy, r.P2[3]);

  cfg.alpha = 0;
  CHECK_OK(vf_stereo_rectify(&c0, &c1, &cfg, &r));
  CHECK(rel_ok(r.f, 436.234593, 1e-6));
  CHECK(rel_ok(r.cx, 364.441224, 1e-6));
  CHECK(rel_ok(r.cy, 256.951680, 1e-6));
  CHECK(rel_ok(r.P2[3], -48.019763, 1e-6));
  CHECK(rel_ok(r.R1[1], R1[1], 1e-6));
  printf("alpha 0: f %.6f P2[0][3] %.6f\n", r.f, r.P2[3]);
  /* alpha 1 keeps every source pixel: a smaller focal length than alpha 0. */
  cfg.alpha = 1;
  double f0 = r.f;
  CHECK_OK(vf_stereo_rectify(&c0, &c1, &cfg, &r));
  CHECK(r.f < f0);

  cfg.alpha = 0;
  cfg.focal_rule = VF_RECTIFY_FOCAL_OPENCV2;
  CHECK_OK(vf_stereo_rectify(&c0, &c1, &cfg, &r));
  CHECK(rel_ok(r.f, 435.204752, 1e-6));
  CHECK(rel_ok(r.cx, 367.451724, 1e-6));
  CHECK(rel_ok(r.cy, 252.200858, 1e-6));
  printf("OpenCV 2.4 rule, alpha 0: f %.6f cx %.6f cy %.6f\n", r.f, r.cx, r.cy);

  /* Half the output size: half the focal length (alpha -1); the principal point follows
   * OpenCV's rule (corners averaged at the new focal length, then scaled), so it is not simply
   * half: check_epipolar covers its geometry. */
  cfg = vf_rectify_config_default();
  cfg.out_width = 376, cfg.out_height = 240;
  CHECK_OK(vf_stereo_rectify(&c0, &c1, &cfg, &r));
  CHECK(r.width == 376 && r.height == 240);
  CHECK(rel_ok(r.f, 456.715 / 2, 1e-9));
}

/* Points in front of both cameras: rectified rows agree, disparity = f B / Z, Q inverts. */
static void check_epipolar(const vf_camera* c0, const vf_camera* c1, const vf_rectify_config* cfg) {
  vf_stereo_rectification r;
  CHECK_OK(vf_stereo_rectify(c0, c1, cfg, &r));
  double worst_row = 0, worst_q = 0;
  int n = 0;
  unsigned seed = 17;
  for (int i = 0; i < 2000; ++i) {
    /* A random pixel of camera 0 at a random depth from 0.6 to 10.6 m. */
    double px[2] = {vf_test_rand(&seed) % 7520 / 10.0, vf_test_rand(&seed) % 4800 / 10.0}, X0[3];
    CHECK_OK(vf_camera_unproject(c0, px, X0));
    double z = 0.6 + (vf_test_rand(&seed) % 1000) / 100.0;
    for (int k = 0; k < 3; ++k) X0[k] *= z;
    double X1[3], uv0[2], uv1[2], q0[2], q1[2];
    for (int k = 0; k < 3; ++k)
      X1[k] = r.R[3 * k] * X0[0] + r.R[3 * k + 1] * X0[1] + r.R[3 * k + 2] * X0[2] + r.T[k];
    if (vf_camera_project(c0, X0, uv0) != VF_OK || vf_camera_project(c1, X1, uv1) != VF_OK)
      continue;
    if (uv0[0] < 0 || uv0[0] > c0->width - 1 || uv0[1] < 0 || uv0[1] > c0->height - 1) continue;
    if (uv1[0] < 0 || uv1[0] > c1->width - 1 || uv1[1] < 0 || uv1[1] > c1->height - 1) continue;
    CHECK_OK(vf_rectify_point(c0, r.R1, r.P1, uv0, q0));
    CHECK_OK(vf_rectify_point(c1, r.R2, r.P2, uv1, q1));
    worst_row = fmax(worst_row, fabs(q0[1] - q1[1]));
    /* Q [u v d 1]^T is the point in rectified camera 0: R1 X0. */
    double in[4] = {q0[0], q0[1], q0[0] - q1[0], 1}, h[4], Xr[3];
    for (int k = 0; k < 4; ++k)
      h[k] = r.Q[4 * k] * in[0] + r.Q[4 * k + 1] * in[1] + r.Q[4 * k + 2] * in[2] + r.Q[4 * k + 3];
    for (int k = 0; k < 3; ++k)
      Xr[k] = r.R1[3 * k] * X0[0] + r.R1[3 * k + 1] * X0[1] + r.R1[3 * k + 2] * X0[2];
    for (int k = 0; k < 3; ++k) worst_q = fmax(worst_q, fabs(h[k] / h[3] - Xr[k]) / Xr[2]);
    ++n;
  }
  printf("alpha %g, %dx%d: %d points, epipolar error %.3g px, Q error %.3g (relative to depth)\n",
         cfg->alpha, r.width, r.height, n, worst_row, worst_q);
  CHECK(n > 1500);
  CHECK(worst_row < 0.1);
  CHECK(worst_q < 1e-6);
}

static void check_vertical(void) {
  vf_camera a = vf_camera_default(), b = vf_camera_default();
  b.T_BS[7] = 0.12; /* camera 1 12 cm below camera 0 (y points down) */
  vf_stereo_rectification r;
  CHECK_OK(vf_stereo_rectify(&a, &b, NULL, &r));
  CHECK(r.vertical == 1);
  CHECK(rel_ok(r.P2[7], -r.f * 0.12, 1e-9));
  double X[3] = {0.3, -0.2, 4.0}, X1[3] = {0.3, -0.2 - 0.12, 4.0}, u0[2], u1[2], q0[2], q1[2];
  CHECK_OK(vf_camera_project(&a, X, u0));
  CHECK_OK(vf_camera_project(&b, X1, u1));
  CHECK_OK(vf_rectify_point(&a, r.R1, r.P1, u0, q0));
  CHECK_OK(vf_rectify_point(&b, r.R2, r.P2, u1, q1));
  CHECK_NEAR(q0[0], q1[0], 1e-9);
  CHECK_NEAR(q0[1] - q1[1], r.f * 0.12 / 4.0, 1e-9);
}

static void check_bad_input(void) {
  vf_camera c0 = euroc_camera(0), c1 = euroc_camera(1);
  vf_stereo_rectification r;
  vf_rectify_config cfg = vf_rectify_config_default();
  CHECK_FAILS(vf_stereo_rectify(NULL, &c1, &cfg, &r), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_stereo_rectify(&c0, &c1, &cfg, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_stereo_rectify(&c0, &c0, &cfg, &r), VF_ERR_INVALID_ARG); /* zero baseline */
  CHECK(strstr(vf_last_error_message(), "baseline") != NULL);
  vf_camera small = c1;
  small.width = 640;
  CHECK_FAILS(vf_stereo_rectify(&c0, &small, &cfg, &r), VF_ERR_INVALID_ARG);
  cfg.alpha = NAN;
  CHECK_FAILS(vf_stereo_rectify(&c0, &c1, &cfg, &r), VF_ERR_INVALID_ARG);
  cfg = vf_rectify_config_default();
  cfg.out_width = 100; /* height left 0 */
  CHECK_FAILS(vf_stereo_rectify(&c0, &c1, &cfg, &r), VF_ERR_INVALID_ARG);
  cfg = vf_rectify_config_default();
  cfg.focal_rule = (vf_rectify_focal_rule)9;
  CHECK_FAILS(vf_stereo_rectify(&c0, &c1, &cfg, &r), VF_ERR_INVALID_ARG);
  double R[9] = {2, 0, 0, 0, 1, 0, 0, 0, 1}, T[3] = {-0.1, 0, 0};
  CHECK_FAILS(vf_stereo_rectify_pose(&c0, &c1, R, T, NULL, &r), VF_ERR_INVALID_ARG);
  double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, P[12] = {400, 0, 300, 0, 0, 400, 200, 0, 0, 0, 1, 0};
  double flip[9] = {1, 0, 0, 0, -1, 0, 0, 0, -1}, uv[2] = {300, 200}, out[2];
  CHECK_OK(vf_rectify_point(&c0, I, P, uv, out));
  CHECK_FAILS(vf_rectify_point(&c0, flip, P, uv, out), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_rectify_point(&c0, NULL, P, uv, out), VF_ERR_INVALID_ARG);
}

int main(void) {
  check_fixtures();
  vf_camera c0 = euroc_camera(0), c1 = euroc_camera(1);
  vf_rectify_config cfg = vf_rectify_config_default();
  check_epipolar(&c0, &c1, &cfg);
  cfg.alpha = 0;
  check_epipolar(&c0, &c1, &cfg);
  cfg.out_width = 376, cfg.out_height = 240;
  check_epipolar(&c0, &c1, &cfg);
  check_vertical();
  check_bad_input();
  VF_TEST_END("test_rectify");
}

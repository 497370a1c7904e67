// SPDX-License-Identifier: BSD-3-Clause
/* Camera models: closed-form distortion values, project/unproject round trips under 1e-6 px
 * over the whole image for radial-tangential (EuRoC, with and without k3) and equidistant
 * cameras, the relative pose of EuRoC's cameras, and bad input. */
#include <math.h>
#include <viofront/viofront.h>

#include "euroc_calib.h"
#include "vf_test.h"

/* A fisheye camera (RealSense T265-like equidistant calibration). */
static vf_camera fisheye_camera(void) {
  vf_camera c = vf_camera_default();
  c.width = 848, c.height = 800;
  c.fx = 286.18, c.fy = 286.39, c.cx = 416.94, c.cy = 403.75;
  c.distortion = VF_DISTORTION_EQUIDISTANT;
  c.k[0] = -0.00495, c.k[1] = 0.03992, c.k[2] = -0.03721, c.k[3] = 0.00652;
  return c;
}

/* Every 7th pixel of the image within max_r pixels of the principal point (a fisheye's corners
 * lie beyond 90 degrees): unproject, project back; returns the worst error in pixels. */
static double pixel_round_trip(const vf_camera* c, double max_r) {
  double worst = 0;
  for (int y = 0; y < c->height; y += 7) {
    for (int x = 0; x < c->width; x += 7) {
      double uv[2] = {x + 0.25, y - 0.125}, ray[3], back[2];
      if (hypot(uv[0] - c->cx, uv[1] - c->cy) > max_r) continue;
      vf_status s = vf_camera_unproject(c, uv, ray);
      if (s == VF_OK) s = vf_camera_project(c, ray, back);
      if (s != VF_OK) return INFINITY;
      worst = fmax(worst, fmax(fabs(back[0] - uv[0]), fabs(back[1] - uv[1])));
    }
  }
  return worst;
}

/* Points on rays across the field of view at several depths: project, unproject; returns the
 * worst angle in radians between the original and recovered directions. */
static double point_round_trip(const vf_camera* c, double max_tan) {
  double worst = 0;
  for (int i = -10; i <= 10; ++i) {
    for (int j = -10; j <= 10; ++j) {
      double p[3] = {max_tan * i / 10.0 * 3.0, max_tan * j / 10.0 * 3.0 * 0.7, 3.0}, uv[2], ray[3];
      vf_status s = vf_camera_project(c, p, uv);
      if (s == VF_OK) s = vf_camera_unproject(c, uv, ray);
      if (s != VF_OK) return INFINITY;
      /* atan2(|a x b|, a.b): acos of the dot product loses half the digits near 0. */
      double cx = ray[1] * p[2] - p[1], cy = p[0] - ray[0] * p[2],
             cz = ray[0] * p[1] - ray[1] * p[0];
      double dot = ray[0] * p[0] + ray[1] * p[1] + p[2];
      worst = fmax(worst, atan2(sqrt(cx * cx + cy * cy + cz * cz), dot));
    }
  }
  return worst;
}

int main(void) {
  vf_camera c0 = euroc_camera(0), c1 = euroc_camera(1), fe = fisheye_camera();
  CHECK_OK(vf_camera_check(&c0));
  CHECK_OK(vf_camera_check(&c1));
  CHECK_OK(vf_camera_check(&fe));

  /* Closed forms: radial only, x_d = x (1 + k1 r^2 + k2 r^4 + k3 r^6); tangential only;
   * equidistant with k = 0 maps r to atan(r). */
  vf_camera k = vf_camera_default();
  k.distortion = VF_DISTORTION_RADTAN;
  k.k[0] = -0.3, k.k[1] = 0.1, k.k[4] = 0.01;
  double xy[2] = {0.4, -0.3}, d[2], back[2];
  CHECK_OK(vf_camera_distort(&k, xy, d));
  double r2 = 0.25, radial = 1 - 0.3 * r2 + 0.1 * r2 * r2 + 0.01 * r2 * r2 * r2;
  CHECK_NEAR(d[0], 0.4 * radial, 1e-15);
  CHECK_NEAR(d[1], -0.3 * radial, 1e-15);
  CHECK_OK(vf_camera_undistort(&k, d, back));
  CHECK_NEAR(back[0], 0.4, 1e-13);
  CHECK_NEAR(back[1], -0.3, 1e-13);
  memset(k.k, 0, sizeof k.k);
  k.k[2] = 0.01, k.k[3] = -0.02; /* p1, p2 */
  CHECK_OK(vf_camera_distort(&k, xy, d));
  CHECK_NEAR(d[0], 0.4 + 2 * 0.01 * 0.4 * -0.3 - 0.02 * (r2 + 2 * 0.16), 1e-15);
  CHECK_NEAR(d[1], -0.3 + 0.01 * (r2 + 2 * 0.09) + 2 * -0.02 * 0.4 * -0.3, 1e-15);
  k.distortion = VF_DISTORTION_EQUIDISTANT;
  memset(k.k, 0, sizeof k.k);
  double one[2] = {1.0, 0.0};
  CHECK_OK(vf_camera_distort(&k, one, d));
  CHECK_NEAR(d[0], atan(1.0), 1e-15);
  CHECK_NEAR(d[1], 0.0, 1e-15);
  double centre[2] = {0, 0};
  CHECK_OK(vf_camera_distort(&fe, centre, d));
  CHECK(d[0] == 0 && d[1] == 0);
  k.distortion = VF_DISTORTION_NONE;
  CHECK_OK(vf_camera_distort(&k, xy, d));
  CHECK(d[0] == xy[0] && d[1] == xy[1]);

  /* Round trips over the whole image, both directions. */
  vf_camera c0k3 = c0;
  c0k3.k[4] = 0.012;
  double e0 = pixel_round_trip(&c0, INFINITY), e1 = pixel_round_trip(&c1, INFINITY);
  double e3 = pixel_round_trip(&c0k3, INFINITY),
         ef = pixel_round_trip(&fe, 380); /* 90 degrees: 411 px */
  printf("pixel round trip: cam0 %.3g px, cam1 %.3g px, cam0+k3 %.3g px, fisheye %.3g px\n", e0, e1,
         e3, ef);
  CHECK(e0 < 1e-6 && e1 < 1e-6 && e3 < 1e-6 && ef < 1e-6);
  double a0 = point_round_trip(&c0, 0.8), af = point_round_trip(&fe, 2.5);
  printf("point round trip: cam0 %.3g rad, fisheye %.3g rad\n", a0, af);
  CHECK(a0 < 1e-11 && af < 1e-11);
  /* Projection of a known point: the principal point for a point on the axis. */
  double axis[3] = {0, 0, 2}, uv[2];
  CHECK_OK(vf_camera_project(&c0, axis, uv));
  CHECK_NEAR(uv[0], c0.cx, 1e-12);
  CHECK_NEAR(uv[1], c0.cy, 1e-12);

  /* EuRoC cam0 seen from cam1 (the rectification fixture's T). */
  double R[9], T[3];
  CHECK_OK(vf_camera_relative_pose(&c0, &c1, R, T));
  CHECK_NEAR(T[0], -0.11007380812713924, 1e-15);
  CHECK_NEAR(T[1], 0.0003991215470144544, 1e-15);
  CHECK_NEAR(T[2], -0.0008537025033513203, 1e-15);
  CHECK_NEAR(sqrt(T[0] * T[0] + T[1] * T[1] + T[2] * T[2]), 0.11007784219171352, 1e-15);
  double back_pose[9], Tb[3];
  CHECK_OK(vf_camera_relative_pose(&c1, &c0, back_pose, Tb));
  CHECK_NEAR(R[0] * back_pose[0] + R[1] * back_pose[3] + R[2] * back_pose[6], 1.0, 1e-9);

  /* Bad input: a clear error each. */
  double behind[3] = {0.1, 0.1, -1}, zero[3] = {1, 1, 0};
  CHECK_FAILS(vf_camera_project(&c0, behind, uv), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_camera_project(&c0, zero, uv), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_camera_project(NULL, axis, uv), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_camera_unproject(&c0, NULL, axis), VF_ERR_INVALID_ARG);
  double nan_uv[2] = {NAN, 3};
  CHECK_FAILS(vf_camera_unproject(&c0, nan_uv, axis), VF_ERR_INVALID_ARG);
  /* Far outside the fisheye's 90-degree limit: no (x, y, 1) ray. */
  double far_uv[2] = {fe.cx + 5000, fe.cy};
  CHECK_FAILS(vf_camera_unproject(&fe, far_uv, axis), VF_ERR_INVALID_ARG);
  vf_camera bad = c0;
  bad.fx = NAN;
  CHECK_FAILS(vf_camera_check(&bad), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "focal") != NULL);
  bad = c0;
  bad.width = 0;
  CHECK_FAILS(vf_camera_check(&bad), VF_ERR_INVALID_ARG);
  bad = c0;
  bad.T_BS[0] = 2.0; /* not a rotation */
  CHECK_FAILS(vf_camera_check(&bad), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "T_BS") != NULL);
  CHECK_FAILS(vf_camera_relative_pose(&bad, &c1, R, T), VF_ERR_INVALID_ARG);
  bad = c0;
  bad.k[1] = INFINITY;
  CHECK_FAILS(vf_camera_check(&bad), VF_ERR_INVALID_ARG);
  bad = c0;
  bad.distortion = (vf_distortion_model)7;
  CHECK_FAILS(vf_camera_check(&bad), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_camera_check(NULL), VF_ERR_INVALID_ARG);
  VF_TEST_END("test_camera");
}

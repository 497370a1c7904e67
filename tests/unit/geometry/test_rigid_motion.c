// SPDX-License-Identifier: BSD-3-Clause
/* vf_rigid_motion_residuals: points of a static scene seen by a camera that turns and moves
 * between two frames, with their disparities at the first. The fitted motion leaves the rigid
 * points within their pixel noise and shows each sliding point's displacement, from the
 * gyroscope's rotation (off by a fraction of a degree) or from none; bad input is refused. */
#include "geometry/vf_rigid_motion.h"
#include "vf_test.h"

#define NPTS 300
#define SLIDERS 6

static const double kK[4] = {436.0, 436.0, 364.0, 257.0};
static const double kBaseline = 0.11;

/* Row-major rotation about axis (x, y, z) (unit) by a radians. */
static void rm_rotation(double x, double y, double z, double a, double R[9]) {
  const double c = cos(a), s = sin(a), v = 1.0 - c;
  const double m[9] = {c + x * x * v,     x * y * v - z * s, x * z * v + y * s,
                       y * x * v + z * s, c + y * y * v,     y * z * v - x * s,
                       z * x * v - y * s, z * y * v + x * s, c + z * z * v};
  for (int i = 0; i < 9; ++i) R[i] = m[i];
}

static double rm_uniform(unsigned* seed, double lo, double hi) {
  return lo + (hi - lo) * (double)(vf_test_rand(seed) % 1000000u) / 1e6;
}

static double rm_noise(unsigned* seed, double sigma) {
  double s = 0.0;
  for (int i = 0; i < 12; ++i) s += rm_uniform(seed, 0.0, 1.0);
  return sigma * (s - 6.0);
}

/* The scene: camera c1 sees X0 at X1 = Rt X0 + T; R_c0_c1 = Rt^T. Points SLIDERS.. are rigid,
 * the first SLIDERS are moved by slide[i] pixels in the current frame. */
static void rm_scene(unsigned seed, const double Rt[9], const double T[3], double noise,
                     vf_rigid_point* p, double slide[][2]) {
  for (int i = 0; i < NPTS; ++i) {
    const double u0 = rm_uniform(&seed, 20.0, 730.0), v0 = rm_uniform(&seed, 20.0, 460.0);
    const double z = rm_uniform(&seed, 1.5, 12.0);
    const double X0[3] = {(u0 - kK[2]) / kK[0] * z, (v0 - kK[3]) / kK[1] * z, z};
    double X1[3];
    for (int r = 0; r < 3; ++r)
      X1[r] = Rt[3 * r] * X0[0] + Rt[3 * r + 1] * X0[1] + Rt[3 * r + 2] * X0[2] + T[r];
    p[i].u0 = (float)u0;
    p[i].v0 = (float)v0;
    p[i].disparity = (float)(kK[0] * kBaseline / z);
    p[i].u1 = (float)(kK[0] * X1[0] / X1[2] + kK[2] + rm_noise(&seed, noise));
    p[i].v1 = (float)(kK[1] * X1[1] / X1[2] + kK[3] + rm_noise(&seed, noise));
    if (i < SLIDERS) {
      slide[i][0] = rm_uniform(&seed, -1.0, 1.0);
      slide[i][1] = rm_uniform(&seed, -1.0, 1.0);
      p[i].u1 += (float)slide[i][0];
      p[i].v1 += (float)slide[i][1];
    }
  }
}

static void rm_case(const char* what, unsigned seed, const double* R0_off, double angle) {
  double Rt[9], R0[9];
  rm_rotation(0.3, 0.9, 0.316, angle, Rt);
  const double T[3] = {0.04, -0.01, 0.03}; /* a 5 cm step against 1.5-12 m of depth */
  /* The "gyroscope": Rt^T, turned further by R0_off (a bias of a fraction of a degree). */
  double gyro[9] = {Rt[0], Rt[3], Rt[6], Rt[1], Rt[4], Rt[7], Rt[2], Rt[5], Rt[8]};
  if (R0_off != NULL) {
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        R0[3 * r + c] = R0_off[3 * r] * gyro[c] + R0_off[3 * r + 1] * gyro[3 + c] +
                        R0_off[3 * r + 2] * gyro[6 + c];
  }
  static vf_rigid_point p[NPTS];
  static float res[2 * NPTS], scratch[VF_RIGID_SCRATCH_FLOATS(NPTS)];
  double slide[SLIDERS][2];
  rm_scene(seed, Rt, T, 0.03, p, slide);
  CHECK_OK(vf_rigid_motion_residuals(kK, R0_off != NULL ? R0 : NULL, p, NPTS, res, scratch));
  double worst_rigid = 0.0, worst_slider = 0.0;
  int within = 0;
  for (int i = SLIDERS; i < NPTS; ++i) {
    const double e = hypot(res[2 * i], res[2 * i + 1]);
    worst_rigid = fmax(worst_rigid, e);
    within += e <= 0.15;
  }
  for (int i = 0; i < SLIDERS; ++i) {
    const double e = hypot(res[2 * i] - slide[i][0], res[2 * i + 1] - slide[i][1]);
    worst_slider = fmax(worst_slider, e);
  }
  printf("%-40s rigid: %d of %d within 0.15 px (worst %.3f px); sliders: worst %.3f px off\n", what,
         within, NPTS - SLIDERS, worst_rigid, worst_slider);
  CHECK(within == NPTS - SLIDERS);
  CHECK(worst_slider <= 0.15);
}

static void rm_bad_input(void) {
  static vf_rigid_point p[NPTS];
  static float res[2 * NPTS], scratch[VF_RIGID_SCRATCH_FLOATS(NPTS)];
  double Rt[9], slide[SLIDERS][2];
  rm_rotation(0.0, 1.0, 0.0, 0.01, Rt);
  const double T[3] = {0.05, 0.0, 0.0};
  rm_scene(7u, Rt, T, 0.0, p, slide);
  CHECK_FAILS(vf_rigid_motion_residuals(NULL, NULL, p, NPTS, res, scratch), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_rigid_motion_residuals(kK, NULL, NULL, NPTS, res, scratch), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_rigid_motion_residuals(kK, NULL, p, NPTS, NULL, scratch), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_rigid_motion_residuals(kK, NULL, p, NPTS, res, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_rigid_motion_residuals(kK, NULL, p, VF_RIGID_MIN_POINTS - 1, res, scratch),
              VF_ERR_INVALID_ARG);
  const double bad_K[4] = {0.0, 436.0, 364.0, 257.0};
  CHECK_FAILS(vf_rigid_motion_residuals(bad_K, NULL, p, NPTS, res, scratch), VF_ERR_INVALID_ARG);
  /* Argument checks fail before anything is written. */
  res[0] = 123.0f;
  p[5].disparity = 0.0f;
  CHECK_FAILS(vf_rigid_motion_residuals(kK, NULL, p, NPTS, res, scratch), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "point 5") != NULL);
  p[5].disparity = 10.0f;
  p[9].u1 = NAN;
  CHECK_FAILS(vf_rigid_motion_residuals(kK, NULL, p, NPTS, res, scratch), VF_ERR_INVALID_ARG);
  CHECK(res[0] == 123.0f);
  /* Every point at one place does not fix the motion. */
  for (int i = 0; i < NPTS; ++i) p[i] = p[20];
  CHECK_FAILS(vf_rigid_motion_residuals(kK, NULL, p, NPTS, res, scratch), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "determine") != NULL);
}

int main(void) {
  double off[9];
  rm_rotation(0.6, 0.0, 0.8, 0.004, off); /* 0.23 degrees */
  rm_case("gyroscope rotation, 0.23 deg off", 11u, off, 0.03);
  rm_case("no rotation given (1.7 deg turn)", 12u, NULL, 0.03);
  rm_case("no rotation given, no turn", 13u, NULL, 0.0);
  rm_bad_input();
  VF_TEST_END("test_rigid_motion");
}

// SPDX-License-Identifier: BSD-3-Clause
/* Camera models: validation, distortion, iterative undistortion, projection. Radial-tangential
 * as in OpenCV's projectPoints (Brown-Conrady); equidistant as in OpenCV's fisheye module
 * (Kannala-Brandt with four coefficients). Double precision throughout (see vf_camera.h). */
#include <math.h>
#include <string.h>

#include "core/vf_error.h"
#include "geometry/vf_rectify_math.h"
#include "viofront/vf_camera.h"

/* Normalized-coordinate residual that counts as converged: 1e-12 is 5e-10 px at f = 458. */
#define VF_UNDISTORT_TOL 1e-12
#define VF_UNDISTORT_MAX_ITER 50

vf_camera vf_camera_default(void) {
  vf_camera c;
  memset(&c, 0, sizeof c);
  c.width = 752;
  c.height = 480;
  c.fx = c.fy = 458.0;
  c.cx = (752 - 1) * 0.5;
  c.cy = (480 - 1) * 0.5;
  c.distortion = VF_DISTORTION_NONE;
  for (int i = 0; i < 4; ++i) c.T_BS[5 * i] = 1.0;
  c.rate_hz = 20.0;
  return c;
}

vf_status vf_camera_check(const vf_camera* c) {
  if (c == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_camera_check: camera is NULL");
  if (c->width < 1 || c->height < 1 || c->width > 32768 || c->height > 32768) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "camera: resolution %dx%d is outside 1..32768",
                   c->width, c->height);
  }
  if (!(isfinite(c->fx) && isfinite(c->fy) && c->fx > 0 && c->fy > 0)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "camera: focal lengths %g, %g must be finite and > 0",
                   c->fx, c->fy);
  }
  if (!isfinite(c->cx) || !isfinite(c->cy)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "camera: principal point is not finite");
  }
  if (c->distortion < VF_DISTORTION_NONE || c->distortion > VF_DISTORTION_EQUIDISTANT) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "camera: unknown distortion model %d",
                   (int)c->distortion);
  }
  if (!vf_all_finite(c->k, 5)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "camera: distortion coefficients are not finite");
  }
  if (!(isfinite(c->rate_hz) && c->rate_hz >= 0)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "camera: rate_hz %g must be finite and >= 0",
                   c->rate_hz);
  }
  return vf_rigid_check(c->T_BS, "camera: T_BS");
}

/* Radial-tangential distortion and, when J is non-NULL, its Jacobian d(xy_d)/d(xy). */
static void vf_radtan(const double* k, double x, double y, double* xd, double* yd, double J[4]) {
  double x2 = x * x, y2 = y * y, xy = x * y, r2 = x2 + y2;
  double radial = 1.0 + r2 * (k[0] + r2 * (k[1] + r2 * k[4]));
  *xd = x * radial + 2.0 * k[2] * xy + k[3] * (r2 + 2.0 * x2);
  *yd = y * radial + k[2] * (r2 + 2.0 * y2) + 2.0 * k[3] * xy;
  if (J == NULL) return;
  double dr = 2.0 * (k[0] + r2 * (2.0 * k[1] + 3.0 * r2 * k[4])); /* d radial / d r2, times 2 */
  J[0] = radial + x2 * dr + 2.0 * k[2] * y + 6.0 * k[3] * x;
  J[1] = xy * dr + 2.0 * k[2] * x + 2.0 * k[3] * y;
  J[2] = xy * dr + 2.0 * k[2] * x + 2.0 * k[3] * y;
  J[3] = radial + y2 * dr + 6.0 * k[2] * y + 2.0 * k[3] * x;
}

/* theta_d(theta) of the equidistant model and its derivative. */
static double vf_equidistant_theta(const double* k, double t, double* dt) {
  double t2 = t * t;
  double p = 1.0 + t2 * (k[0] + t2 * (k[1] + t2 * (k[2] + t2 * k[3])));
  if (dt != NULL) {
    *dt = 1.0 + t2 * (3.0 * k[0] + t2 * (5.0 * k[1] + t2 * (7.0 * k[2] + t2 * 9.0 * k[3])));
  }
  return t * p;
}

vf_status vf_camera_distort(const vf_camera* c, const double xy[2], double xy_d[2]) {
  if (c == NULL || xy == NULL || xy_d == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_camera_distort: an argument is NULL");
  }
  double x = xy[0], y = xy[1];
  switch (c->distortion) {
    case VF_DISTORTION_NONE:
      xy_d[0] = x;
      xy_d[1] = y;
      break;
    case VF_DISTORTION_RADTAN: vf_radtan(c->k, x, y, &xy_d[0], &xy_d[1], NULL); break;
    case VF_DISTORTION_EQUIDISTANT: {
      double r = sqrt(x * x + y * y);
      /* theta_d / r -> 1 as r -> 0 (theta ~ r there). */
      double s = r > 1e-15 ? vf_equidistant_theta(c->k, atan(r), NULL) / r : 1.0;
      xy_d[0] = x * s;
      xy_d[1] = y * s;
      break;
    }
  }
  if (!isfinite(xy_d[0]) || !isfinite(xy_d[1])) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_camera_distort: (%g, %g) gives a non-finite point",
                   x, y);
  }
  return VF_OK;
}

static vf_status vf_undistort_radtan(const double* k, const double xy_d[2], double xy[2]) {
  double x = xy_d[0], y = xy_d[1], ex = 0, ey = 0;
  for (int it = 0; it < VF_UNDISTORT_MAX_ITER; ++it) {
    double fx, fy, J[4];
    vf_radtan(k, x, y, &fx, &fy, J);
    ex = fx - xy_d[0];
    ey = fy - xy_d[1];
    double det = J[0] * J[3] - J[1] * J[2];
    if (!(fabs(det) > 1e-12)) break; /* a fold of the distortion: no unique inverse */
    double dx = (J[3] * ex - J[1] * ey) / det, dy = (J[0] * ey - J[2] * ex) / det;
    x -= dx;
    y -= dy;
    if (fabs(dx) + fabs(dy) < 1e-16 * (1.0 + fabs(x) + fabs(y))) break;
  }
  double fx, fy;
  vf_radtan(k, x, y, &fx, &fy, NULL);
  ex = fx - xy_d[0];
  ey = fy - xy_d[1];
  if (!(fabs(ex) + fabs(ey) <= VF_UNDISTORT_TOL * (1.0 + fabs(xy_d[0]) + fabs(xy_d[1])))) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_camera_undistort: no convergence at (%g, %g) (residual %.3g)", xy_d[0],
                   xy_d[1], fabs(ex) + fabs(ey));
  }
  xy[0] = x;
  xy[1] = y;
  return VF_OK;
}

static vf_status vf_undistort_equidistant(const double* k, const double xy_d[2], double xy[2]) {
  double rd = sqrt(xy_d[0] * xy_d[0] + xy_d[1] * xy_d[1]);
  if (rd < 1e-15) {
    xy[0] = xy_d[0];
    xy[1] = xy_d[1];
    return VF_OK;
  }
  double t = rd < 1.5 ? rd : 1.5, g = 0;
  for (int it = 0; it < VF_UNDISTORT_MAX_ITER; ++it) {
    double d;
    g = vf_equidistant_theta(k, t, &d) - rd;
    if (!(fabs(d) > 1e-12)) break;
    double step = g / d;
    t -= step;
    if (fabs(step) < 1e-16 * (1.0 + t)) break;
  }
  g = vf_equidistant_theta(k, t, NULL) - rd;
  /* A ray at or beyond 90 degrees has no (x, y, 1) form. */
  if (!(fabs(g) <= VF_UNDISTORT_TOL * (1.0 + rd)) || !(t >= 0) || t >= 1.5707963267) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_camera_undistort: no convergence at (%g, %g) (theta %g)", xy_d[0], xy_d[1],
                   t);
  }
  double s = tan(t) / rd;
  xy[0] = xy_d[0] * s;
  xy[1] = xy_d[1] * s;
  return VF_OK;
}

vf_status vf_camera_undistort(const vf_camera* c, const double xy_d[2], double xy[2]) {
  if (c == NULL || xy == NULL || xy_d == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_camera_undistort: an argument is NULL");
  }
  if (!isfinite(xy_d[0]) || !isfinite(xy_d[1])) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_camera_undistort: point is not finite");
  }
  switch (c->distortion) {
    case VF_DISTORTION_RADTAN: return vf_undistort_radtan(c->k, xy_d, xy);
    case VF_DISTORTION_EQUIDISTANT: return vf_undistort_equidistant(c->k, xy_d, xy);
    case VF_DISTORTION_NONE: break;
  }
  xy[0] = xy_d[0];
  xy[1] = xy_d[1];
  return VF_OK;
}

vf_status vf_camera_project(const vf_camera* c, const double p[3], double uv[2]) {
  if (c == NULL || p == NULL || uv == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_camera_project: an argument is NULL");
  }
  if (!(p[2] > 0)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_camera_project: point (%g, %g, %g) is not in front", p[0], p[1], p[2]);
  }
  double xy[2] = {p[0] / p[2], p[1] / p[2]}, d[2];
  vf_status s = vf_camera_distort(c, xy, d);
  if (s != VF_OK) return s;
  uv[0] = c->fx * d[0] + c->cx;
  uv[1] = c->fy * d[1] + c->cy;
  return VF_OK;
}

vf_status vf_camera_unproject(const vf_camera* c, const double uv[2], double ray[3]) {
  if (c == NULL || uv == NULL || ray == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_camera_unproject: an argument is NULL");
  }
  if (!isfinite(uv[0]) || !isfinite(uv[1])) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_camera_unproject: pixel is not finite");
  }
  double d[2] = {(uv[0] - c->cx) / c->fx, (uv[1] - c->cy) / c->fy};
  vf_status s = vf_camera_undistort(c, d, ray);
  ray[2] = 1.0;
  return s;
}

vf_status vf_camera_relative_pose(const vf_camera* a, const vf_camera* b, double R[9],
                                  double T[3]) {
  if (a == NULL || b == NULL || R == NULL || T == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_camera_relative_pose: an argument is NULL");
  }
  vf_status s = vf_rigid_check(a->T_BS, "vf_camera_relative_pose: first camera's T_BS");
  if (s == VF_OK) s = vf_rigid_check(b->T_BS, "vf_camera_relative_pose: second camera's T_BS");
  if (s != VF_OK) return s;
  /* T_ba = T_BS_b^-1 T_BS_a, with the rigid inverse (R^T, -R^T t). */
  const double* A = a->T_BS;
  const double* B = b->T_BS;
  double Ra[9] = {A[0], A[1], A[2], A[4], A[5], A[6], A[8], A[9], A[10]};
  double Rb[9] = {B[0], B[1], B[2], B[4], B[5], B[6], B[8], B[9], B[10]};
  double dt[3] = {A[3] - B[3], A[7] - B[7], A[11] - B[11]};
  vf_m3_mul_at(Rb, Ra, R);
  vf_m3_mulv_t(Rb, dt, T);
  return VF_OK;
}

// SPDX-License-Identifier: BSD-3-Clause
/* The cameras' poses of a camchain file: Kalibr gives each camera's T_cam_imu (IMU to camera)
 * and, from cam1 on, T_cn_cnm1 (camera n-1 to camera n); either may be left out where the other
 * places the camera, and where both are given they must agree. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/vf_camchain.h"

/* Tolerances of the agreement between T_cam_imu and T_cn_cnm1. Kalibr prints both from one
 * estimate, so they agree to the digits printed; a file rounded to 6 decimals still agrees to
 * a few 1e-6. 1e-5 rad is 0.005 px at a focal length of 500 px, far below a calibration's
 * error, while a mix-up of two calibrations differs by milliradians and millimetres. */
#define VF_CAMCHAIN_ROTATION_TOL 1e-5 /* rad */
#define VF_CAMCHAIN_POSITION_TOL 1e-5 /* m */

/* c = a b, row-major 4x4. */
static void vf_rigid_mul(const double a[16], const double b[16], double c[16]) {
  for (int r = 0; r < 4; ++r) {
    for (int k = 0; k < 4; ++k) {
      c[4 * r + k] = a[4 * r] * b[k] + a[4 * r + 1] * b[4 + k] + a[4 * r + 2] * b[8 + k] +
                     a[4 * r + 3] * b[12 + k];
    }
  }
}

/* The inverse of a rigid transform: (R^T, -R^T t). */
static void vf_rigid_inv(const double T[16], double inv[16]) {
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < 3; ++k) inv[4 * r + k] = T[4 * k + r];
    inv[4 * r + 3] = -(T[r] * T[3] + T[4 + r] * T[7] + T[8 + r] * T[11]);
  }
  inv[12] = inv[13] = inv[14] = 0.0;
  inv[15] = 1.0;
}

/* The rotation angle between two rigid transforms (from |Ra - Rb|_F = 2 sqrt(2) sin(angle / 2),
 * exact also for tiny angles, unlike acos of the trace) and the distance of their translations. */
static void vf_rigid_distance(const double a[16], const double b[16], double* angle_rad,
                              double* distance_m) {
  double f = 0.0, t = 0.0;
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < 3; ++k) f += (a[4 * r + k] - b[4 * r + k]) * (a[4 * r + k] - b[4 * r + k]);
    t += (a[4 * r + 3] - b[4 * r + 3]) * (a[4 * r + 3] - b[4 * r + 3]);
  }
  *angle_rad = 2.0 * asin(fmin(1.0, sqrt(f) / (2.0 * sqrt(2.0))));
  *distance_m = sqrt(t);
}

/* Places the cameras that T_cn_cnm1 links to a placed one, both ways along the chain, until
 * nothing changes. T[i] maps the reference frame (IMU or cam0) to camera i. */
static void vf_camchain_propagate(const vf_camchain* c, double T[][16], int* known) {
  for (int changed = 1; changed;) {
    changed = 0;
    for (int n = 1; n < c->count; ++n) {
      const vf_camchain_cam* cn = &c->cam[n];
      if (!cn->has_T_cn_cnm1 || known[n] == known[n - 1]) continue;
      if (known[n - 1]) {
        vf_rigid_mul(cn->T_cn_cnm1, T[n - 1], T[n]);
      } else {
        double inv[16];
        vf_rigid_inv(cn->T_cn_cnm1, inv);
        vf_rigid_mul(inv, T[n], T[n - 1]);
      }
      known[n] = known[n - 1] = 1;
      changed = 1;
    }
  }
}

vf_status vf_camchain_poses(vf_yaml* y, const vf_camchain* c, double T_BS[][16],
                            int* imu_extrinsics) {
  double T[VF_RIG_MAX_CAMERAS][16];
  int known[VF_RIG_MAX_CAMERAS] = {0}, any = 0;
  for (int i = 0; i < c->count; ++i) {
    known[i] = c->cam[i].has_T_cam_imu;
    if (known[i]) memcpy(T[i], c->cam[i].T_cam_imu, sizeof T[i]);
    any |= known[i];
  }
  if (!any) { /* a camera-only calibration: cam0 is the reference */
    memset(T[0], 0, sizeof T[0]);
    T[0][0] = T[0][5] = T[0][10] = T[0][15] = 1.0;
    known[0] = 1;
  }
  vf_camchain_propagate(c, T, known);
  char w[64];
  for (int i = 0; i < c->count; ++i) {
    if (known[i]) continue;
    if (!any) {
      snprintf(w, sizeof w, "cam%d.T_cn_cnm1", i);
      return vf_yaml_fail(y, c->key[i], VF_ERR_FORMAT, w,
                          "missing key: with no T_cam_imu in the file, the cameras are placed "
                          "from cam0 by T_cn_cnm1");
    }
    snprintf(w, sizeof w, "cam%d", i);
    return vf_yaml_fail(y, c->key[i], VF_ERR_FORMAT, w,
                        "no T_cam_imu, and no T_cn_cnm1 links it to a camera that has one");
  }
  for (int n = 1; n < c->count; ++n) {
    if (!c->cam[n].has_T_cn_cnm1) continue;
    double chained[16], angle, distance;
    vf_rigid_mul(c->cam[n].T_cn_cnm1, T[n - 1], chained);
    vf_rigid_distance(chained, T[n], &angle, &distance);
    if (angle > VF_CAMCHAIN_ROTATION_TOL || distance > VF_CAMCHAIN_POSITION_TOL) {
      snprintf(w, sizeof w, "cam%d.T_cn_cnm1", n);
      return vf_yaml_fail(y, vf_yaml_find(y, c->node[n], "T_cn_cnm1"), VF_ERR_FORMAT, w,
                          "disagrees with the T_cam_imu of cam%d and cam%d by %.3g rad and "
                          "%.3g m (tolerance %g rad, %g m)",
                          n - 1, n, angle, distance, VF_CAMCHAIN_ROTATION_TOL,
                          VF_CAMCHAIN_POSITION_TOL);
    }
  }
  for (int i = 0; i < c->count; ++i) vf_rigid_inv(T[i], T_BS[i]);
  *imu_extrinsics = any;
  return VF_OK;
}

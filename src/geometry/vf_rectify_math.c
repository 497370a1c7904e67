// SPDX-License-Identifier: BSD-3-Clause
/* Double-precision 3x3 helpers and Rodrigues' formula in OpenCV's formulation
 * (modules/calib3d/src/calibration.cpp, cvRodrigues2). */
#include "geometry/vf_rectify_math.h"

#include "core/vf_error.h"

#include <float.h>
#include <math.h>
#include <stddef.h>

void vf_m3_mul(const double a[9], const double b[9], double c[9]) {
  double t[9];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      t[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    }
  }
  for (int i = 0; i < 9; ++i) c[i] = t[i];
}

void vf_m3_mul_bt(const double a[9], const double b[9], double c[9]) {
  double t[9];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      t[3 * i + j] =
          a[3 * i] * b[3 * j] + a[3 * i + 1] * b[3 * j + 1] + a[3 * i + 2] * b[3 * j + 2];
    }
  }
  for (int i = 0; i < 9; ++i) c[i] = t[i];
}

void vf_m3_mul_at(const double a[9], const double b[9], double c[9]) {
  double t[9];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j)
      t[3 * i + j] = a[i] * b[j] + a[3 + i] * b[3 + j] + a[6 + i] * b[6 + j];
  }
  for (int i = 0; i < 9; ++i) c[i] = t[i];
}

void vf_m3_mulv(const double a[9], const double x[3], double y[3]) {
  for (int i = 0; i < 3; ++i) y[i] = a[3 * i] * x[0] + a[3 * i + 1] * x[1] + a[3 * i + 2] * x[2];
}

void vf_m3_mulv_t(const double a[9], const double x[3], double y[3]) {
  for (int i = 0; i < 3; ++i) y[i] = a[i] * x[0] + a[3 + i] * x[1] + a[6 + i] * x[2];
}

double vf_v3_norm(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

int vf_m3_inverse(const double a[9], double inv[9]) {
  double c[9] = {a[4] * a[8] - a[5] * a[7], a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
                 a[5] * a[6] - a[3] * a[8], a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
                 a[3] * a[7] - a[4] * a[6], a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3]};
  double det = a[0] * c[0] + a[1] * c[3] + a[2] * c[6];
  if (!isfinite(det) || fabs(det) < 1e-300) return 0;
  for (int i = 0; i < 9; ++i) inv[i] = c[i] / det;
  return 1;
}

void vf_rodrigues_to_matrix(const double r[3], double R[9]) {
  double theta = vf_v3_norm(r);
  if (theta < DBL_EPSILON) {
    for (int i = 0; i < 9; ++i) R[i] = i % 4 == 0 ? 1.0 : 0.0;
    return;
  }
  double c = cos(theta), s = sin(theta), c1 = 1.0 - c;
  double x = r[0] / theta, y = r[1] / theta, z = r[2] / theta;
  /* R = c I + (1 - c) r r^T + s [r]x */
  R[0] = c + c1 * x * x;
  R[1] = c1 * x * y - s * z;
  R[2] = c1 * x * z + s * y;
  R[3] = c1 * x * y + s * z;
  R[4] = c + c1 * y * y;
  R[5] = c1 * y * z - s * x;
  R[6] = c1 * x * z - s * y;
  R[7] = c1 * y * z + s * x;
  R[8] = c + c1 * z * z;
}

void vf_rodrigues_from_matrix(const double R[9], double r[3]) {
  double rx = R[7] - R[5], ry = R[2] - R[6], rz = R[3] - R[1];
  double s = sqrt((rx * rx + ry * ry + rz * rz) * 0.25);
  double c = (R[0] + R[4] + R[8] - 1.0) * 0.5;
  c = c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c;
  double theta = acos(c);
  if (s >= 1e-5) {
    double vth = theta / (2.0 * s);
    r[0] = rx * vth;
    r[1] = ry * vth;
    r[2] = rz * vth;
    return;
  }
  if (c > 0) {
    r[0] = r[1] = r[2] = 0.0;
    return;
  }
  /* theta near pi: the axis from the diagonal, signs from the off-diagonal terms. */
  double t;
  t = (R[0] + 1.0) * 0.5;
  rx = sqrt(t > 0 ? t : 0);
  t = (R[4] + 1.0) * 0.5;
  ry = sqrt(t > 0 ? t : 0) * (R[1] < 0 ? -1.0 : 1.0);
  t = (R[8] + 1.0) * 0.5;
  rz = sqrt(t > 0 ? t : 0) * (R[2] < 0 ? -1.0 : 1.0);
  if (fabs(rx) < fabs(ry) && fabs(rx) < fabs(rz) && (R[5] > 0) != (ry * rz > 0)) rz = -rz;
  double n = sqrt(rx * rx + ry * ry + rz * rz);
  theta /= n;
  r[0] = rx * theta;
  r[1] = ry * theta;
  r[2] = rz * theta;
}

double vf_m3_orthonormality_error(const double R[9]) {
  double rtr[9], worst = 0.0;
  vf_m3_mul_at(R, R, rtr);
  for (int i = 0; i < 9; ++i) {
    double e = fabs(rtr[i] - (i % 4 == 0 ? 1.0 : 0.0));
    if (isnan(e)) return e;
    if (e > worst) worst = e;
  }
  return worst;
}

int vf_all_finite(const double* v, int n) {
  for (int i = 0; i < n; ++i) {
    if (!isfinite(v[i])) return 0;
  }
  return 1;
}

/* Checks that a row-major 4x4 is a rigid transform: finite, last row 0 0 0 1, rotation
 * orthonormal to 1e-6 (calibration files print 9 to 12 digits) with determinant +1. */
vf_status vf_rigid_check(const double T[16], const char* what) {
  if (!vf_all_finite(T, 16))
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s has a NaN or infinity", what);
  if (fabs(T[12]) > 1e-9 || fabs(T[13]) > 1e-9 || fabs(T[14]) > 1e-9 || fabs(T[15] - 1.0) > 1e-9) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: last row is not 0 0 0 1", what);
  }
  double R[9] = {T[0], T[1], T[2], T[4], T[5], T[6], T[8], T[9], T[10]};
  double err = vf_m3_orthonormality_error(R);
  double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
               R[2] * (R[3] * R[7] - R[4] * R[6]);
  if (!(err < 1e-6) || det < 0) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: rotation part is not a rotation (|R^T R - I| = %.3g, det = %.6f)", what,
                   err, det);
  }
  return VF_OK;
}

// SPDX-License-Identifier: BSD-3-Clause
/* PnP by Gauss-Newton on SE(3): the pose is updated by a left-multiplied exp of a 6-vector
 * (rotation, translation); each iteration solves the 6x6 normal equations by Cholesky. */
#include "vo_pnp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VO_HUBER_PX 1.0
#define VO_INLIER_PX 2.0

void vo_pose_identity(vo_pose* p) {
  memset(p, 0, sizeof *p);
  p->R[0] = p->R[4] = p->R[8] = 1.0;
}

static void mat3_mul(const double* a, const double* b, double* c) {
  double r[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
  memcpy(c, r, sizeof r);
}

static void mat3_apply(const double* a, const double* v, double* out) {
  double r[3];
  for (int i = 0; i < 3; ++i) r[i] = a[3 * i] * v[0] + a[3 * i + 1] * v[1] + a[3 * i + 2] * v[2];
  memcpy(out, r, sizeof r);
}

void vo_pose_compose(const vo_pose* a, const vo_pose* b, vo_pose* c) {
  vo_pose r;
  mat3_mul(a->R, b->R, r.R);
  mat3_apply(a->R, b->t, r.t);
  for (int i = 0; i < 3; ++i) r.t[i] += a->t[i];
  *c = r;
}

void vo_pose_inverse(const vo_pose* a, vo_pose* out) {
  vo_pose r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.R[3 * i + j] = a->R[3 * j + i];
  mat3_apply(r.R, a->t, r.t);
  for (int i = 0; i < 3; ++i) r.t[i] = -r.t[i];
  *out = r;
}

/* Rodrigues: the rotation exp([w]x). */
static void so3_exp(const double w[3], double R[9]) {
  double th = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  double a = th > 1e-12 ? sin(th) / th : 1.0, b = th > 1e-12 ? (1 - cos(th)) / (th * th) : 0.5;
  double K[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0}, K2[9];
  mat3_mul(K, K, K2);
  for (int i = 0; i < 9; ++i) R[i] = (i % 4 == 0 ? 1.0 : 0.0) + a * K[i] + b * K2[i];
}

/* Solves the symmetric positive definite 6x6 system A x = b in place (Cholesky); 0 on success. */
static int solve6(double A[36], double b[6], double x[6]) {
  for (int j = 0; j < 6; ++j) {
    double d = A[6 * j + j];
    for (int k = 0; k < j; ++k) d -= A[6 * j + k] * A[6 * j + k];
    if (!(d > 1e-12)) return -1;
    A[6 * j + j] = sqrt(d);
    for (int i = j + 1; i < 6; ++i) {
      double s = A[6 * i + j];
      for (int k = 0; k < j; ++k) s -= A[6 * i + k] * A[6 * j + k];
      A[6 * i + j] = s / A[6 * j + j];
    }
  }
  double y[6];
  for (int i = 0; i < 6; ++i) {
    double s = b[i];
    for (int k = 0; k < i; ++k) s -= A[6 * i + k] * y[k];
    y[i] = s / A[6 * i + i];
  }
  for (int i = 5; i >= 0; --i) {
    double s = y[i];
    for (int k = i + 1; k < 6; ++k) s -= A[6 * k + i] * x[k];
    x[i] = s / A[6 * i + i];
  }
  return 0;
}

/* One Gauss-Newton pass over the points flagged in `use`; returns the step's size. */
static double gn_step(const double* P, const double* uv, int n, const unsigned char* use, double f,
                      double cx, double cy, vo_pose* pose) {
  double A[36] = {0}, g[6] = {0};
  for (int i = 0; i < n; ++i) {
    if (!use[i]) continue;
    double X[3];
    mat3_apply(pose->R, P + 3 * i, X);
    for (int k = 0; k < 3; ++k) X[k] += pose->t[k];
    if (!(X[2] > 1e-6)) continue;
    double iz = 1.0 / X[2], u = f * X[0] * iz + cx, v = f * X[1] * iz + cy;
    double r[2] = {u - uv[2 * i], v - uv[2 * i + 1]};
    double e = sqrt(r[0] * r[0] + r[1] * r[1]), w = e > VO_HUBER_PX ? VO_HUBER_PX / e : 1.0;
    /* d(u, v)/d(X) times dX/d(delta) with X' = exp(delta) X: [-[X]x | I]. */
    double du[3] = {f * iz, 0, -f * X[0] * iz * iz}, dv[3] = {0, f * iz, -f * X[1] * iz * iz};
    double J[2][6];
    const double* d[2] = {du, dv};
    for (int r2 = 0; r2 < 2; ++r2) {
      const double* a = d[r2];
      J[r2][0] = a[1] * -X[2] + a[2] * X[1];
      J[r2][1] = a[0] * X[2] + a[2] * -X[0];
      J[r2][2] = a[0] * -X[1] + a[1] * X[0];
      J[r2][3] = a[0];
      J[r2][4] = a[1];
      J[r2][5] = a[2];
    }
    for (int r2 = 0; r2 < 2; ++r2)
      for (int a = 0; a < 6; ++a) {
        g[a] -= w * J[r2][a] * r[r2];
        for (int b = 0; b < 6; ++b) A[6 * a + b] += w * J[r2][a] * J[r2][b];
      }
  }
  double x[6];
  if (solve6(A, g, x) != 0) return -1.0;
  vo_pose dp;
  so3_exp(x, dp.R);
  memcpy(dp.t, x + 3, sizeof dp.t);
  vo_pose_compose(&dp, pose, pose);
  return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3] + x[4] * x[4] + x[5] * x[5]);
}

int vo_pnp_solve(const double* P, const double* uv, int n, double f, double cx, double cy,
                 vo_pose* pose) {
  if (n < 6) return -1;
  unsigned char* use = malloc((size_t)n);
  if (use == NULL) return -1;
  memset(use, 1, (size_t)n);
  int inliers = -1;
  for (int round = 0; round < 3; ++round) {
    for (int it = 0; it < 15; ++it) {
      double step = gn_step(P, uv, n, use, f, cx, cy, pose);
      if (step < 0) break;
      if (step < 1e-9) break;
    }
    inliers = 0;
    for (int i = 0; i < n; ++i) {
      double X[3];
      mat3_apply(pose->R, P + 3 * i, X);
      for (int k = 0; k < 3; ++k) X[k] += pose->t[k];
      double du = f * X[0] / X[2] + cx - uv[2 * i], dv = f * X[1] / X[2] + cy - uv[2 * i + 1];
      use[i] = X[2] > 0 && du * du + dv * dv < VO_INLIER_PX * VO_INLIER_PX;
      inliers += use[i];
    }
    if (inliers < 6) break;
  }
  free(use);
  return inliers >= 6 ? inliers : -1;
}

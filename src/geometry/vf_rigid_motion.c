// SPDX-License-Identifier: BSD-3-Clause
/* The camera's motion between two frames from tracked points with known depth, and each point's
 * departure from it (see vf_rigid_motion.h). */
#include "geometry/vf_rigid_motion.h"

#include <math.h>
#include <stddef.h>

#include "core/vf_error.h"
#include "geometry/vf_rectify_math.h"

enum { VF_RIGID_ITERATIONS = 4, VF_RIGID_FIT_POINTS = 64 };

/* A point's position in the current camera, over its depth in the previous one: X = R q + s t,
 * with q = R0^T (its previous ray), kept in q3, and s = d0 / f (the baseline over that depth).
 * Rq = R q. */
static void vf_rigid_place(const double K[4], const double R[9], const double t[3],
                           const vf_rigid_point* p, const float q3[3], double X[3], double Rq[3]) {
  const double q[3] = {q3[0], q3[1], q3[2]};
  vf_m3_mulv(R, q, Rq);
  const double s = (double)p->disparity / K[0];
  for (int k = 0; k < 3; ++k) X[k] = Rq[k] + s * t[k];
}

/* Observed minus fitted pixel; NaN when the fitted point is not in front of the camera. */
static void vf_rigid_residual(const double K[4], const vf_rigid_point* p, const double X[3],
                              float r[2]) {
  if (!(X[2] > 1e-9)) {
    r[0] = r[1] = NAN;
    return;
  }
  r[0] = (float)((double)p->u1 - (K[0] * X[0] / X[2] + K[2]));
  r[1] = (float)((double)p->v1 - (K[1] * X[1] / X[2] + K[3]));
}

/* The k-th smallest of v[0..n) (Hoare's selection; v is reordered). */
static float vf_rigid_select(float* v, int n, int k) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    const float pivot = v[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot) ++i;
      while (v[j] > pivot) --j;
      if (i <= j) {
        const float x = v[i];
        v[i++] = v[j];
        v[j--] = x;
      }
    }
    if (k <= j) {
      hi = j;
    } else if (k >= i) {
      lo = i;
    } else {
      break;
    }
  }
  return v[k];
}

/* Solves the symmetric positive definite A x = b (6x6, row-major) by Cholesky; 0 when A is not
 * positive definite enough to trust (a pivot under 1e-12 of the largest diagonal entry). */
static int vf_rigid_solve6(double A[36], const double b[6], double x[6]) {
  double top = 0.0;
  for (int i = 0; i < 6; ++i) top = fmax(top, A[7 * i]);
  if (!(top > 0.0) || !isfinite(top)) return 0;
  for (int j = 0; j < 6; ++j) {
    double d = A[7 * j];
    for (int k = 0; k < j; ++k) d -= A[6 * j + k] * A[6 * j + k];
    if (!(d > 1e-12 * top)) return 0;
    A[7 * j] = sqrt(d);
    for (int i = j + 1; i < 6; ++i) {
      double v = A[6 * i + j];
      for (int k = 0; k < j; ++k) v -= A[6 * i + k] * A[6 * j + k];
      A[6 * i + j] = v / A[7 * j];
    }
  }
  double y[6];
  for (int i = 0; i < 6; ++i) {
    double v = b[i];
    for (int k = 0; k < i; ++k) v -= A[6 * i + k] * y[k];
    y[i] = v / A[7 * i];
  }
  for (int i = 5; i >= 0; --i) {
    double v = y[i];
    for (int k = i + 1; k < 6; ++k) v -= A[6 * k + i] * x[k];
    x[i] = v / A[7 * i];
  }
  return 1;
}

/* Adds point p's two rows, weighted by w, to the normal equations (A: the upper triangle). */
static void vf_rigid_accumulate(const double K[4], const vf_rigid_point* p, const double X[3],
                                const double Rq[3], const float r[2], double w, double A[36],
                                double b[6]) {
  const double z = X[2], x = X[0] / z, y = X[1] / z, s = (double)p->disparity / K[0];
  /* d(pixel)/dX, then dX/d(rotation) = -[Rq]x (a small rotation turns Rq) and dX/dt = s. */
  const double du[3] = {K[0] / z, 0.0, -K[0] * x / z};
  const double dv[3] = {0.0, K[1] / z, -K[1] * y / z};
  const double m[3][3] = {{0.0, Rq[2], -Rq[1]}, {-Rq[2], 0.0, Rq[0]}, {Rq[1], -Rq[0], 0.0}};
  double ju[6], jv[6];
  for (int c = 0; c < 3; ++c) {
    ju[c] = du[0] * m[0][c] + du[1] * m[1][c] + du[2] * m[2][c];
    jv[c] = dv[0] * m[0][c] + dv[1] * m[1][c] + dv[2] * m[2][c];
    ju[3 + c] = du[c] * s;
    jv[3 + c] = dv[c] * s;
  }
  for (int i = 0; i < 6; ++i) {
    b[i] += w * (ju[i] * r[0] + jv[i] * r[1]);
    for (int j = i; j < 6; ++j) A[6 * i + j] += w * (ju[i] * ju[j] + jv[i] * jv[j]);
  }
}

static int vf_rigid_point_ok(const vf_rigid_point* p) {
  return isfinite(p->u0) && isfinite(p->v0) && isfinite(p->u1) && isfinite(p->v1) &&
         isfinite(p->disparity) && p->disparity > 0.0f;
}

vf_status vf_rigid_motion_residuals(const double K[4], const double R0[9],
                                    const vf_rigid_point* points, int n, float* residual,
                                    float* scratch) {
  const char* fn = "vf_rigid_motion_residuals";
  if (K == NULL || points == NULL || residual == NULL || scratch == NULL)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: NULL argument", fn);
  if (n < VF_RIGID_MIN_POINTS)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: %d points, at least %d needed", fn, n,
                   VF_RIGID_MIN_POINTS);
  if (!(K[0] > 0.0 && K[1] > 0.0 && isfinite(K[2]) && isfinite(K[3]) && isfinite(K[0]) &&
        isfinite(K[1])))
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: K is not a camera", fn);
  for (int i = 0; i < n; ++i) {
    if (!vf_rigid_point_ok(&points[i]))
      return vf_fail(NULL, VF_ERR_INVALID_ARG,
                     "%s: point %d is not finite or has no positive disparity", fn, i);
  }
  static const double kIdentity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double* r0 = R0 != NULL ? R0 : kIdentity;
  float* q = scratch + n; /* each point's q = R0^T ray, 3 floats */
  const double fx_inv = 1.0 / K[0], fy_inv = 1.0 / K[1];
  for (int i = 0; i < n; ++i) {
    const double ray[3] = {((double)points[i].u0 - K[2]) * fx_inv,
                           ((double)points[i].v0 - K[3]) * fy_inv, 1.0};
    double v[3];
    vf_m3_mulv_t(r0, ray, v);
    for (int k = 0; k < 3; ++k) q[3 * i + k] = (float)v[k];
  }
  /* The fit takes every stride-th point (at most VF_RIGID_FIT_POINTS, spread over the list): six
   * parameters need no more, and a frame's check stays a few tens of microseconds. */
  const int stride = (n + VF_RIGID_FIT_POINTS - 1) / VF_RIGID_FIT_POINTS;
  double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, t[3] = {0.0, 0.0, 0.0};
  for (int it = 0;; ++it) {
    const int last = it == VF_RIGID_ITERATIONS, step = last ? 1 : stride;
    int m = 0;
    for (int i = 0; i < n; i += step) {
      double X[3], Rq[3];
      vf_rigid_place(K, R, t, &points[i], &q[3 * i], X, Rq);
      float* r = &residual[2 * i];
      vf_rigid_residual(K, &points[i], X, r);
      if (!isnan(r[0])) scratch[m++] = sqrtf(r[0] * r[0] + r[1] * r[1]);
    }
    if (last) break;
    if (m < VF_RIGID_MIN_POINTS)
      return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: only %d points in front of the camera", fn, m);
    /* The robust scale: the median residual (1.4826 x for a Gaussian's sigma), at least
     * 0.05 px so that an exact fit does not down-weight every point. */
    const double scale = fmax(1.4826 * (double)vf_rigid_select(scratch, m, m / 2), 0.05);
    const double k = 1.345 * scale;
    double A[36] = {0.0}, b[6] = {0.0};
    for (int i = 0; i < n; i += stride) {
      const float* r = &residual[2 * i];
      if (isnan(r[0])) continue;
      const double e = sqrt((double)r[0] * r[0] + (double)r[1] * r[1]);
      double X[3], Rq[3];
      vf_rigid_place(K, R, t, &points[i], &q[3 * i], X, Rq);
      vf_rigid_accumulate(K, &points[i], X, Rq, r, e <= k ? 1.0 : k / e, A, b);
    }
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < i; ++j) A[6 * i + j] = A[6 * j + i];
    double d[6];
    if (!vf_rigid_solve6(A, b, d))
      return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: the points do not determine the motion", fn);
    double dR[9], next[9];
    vf_rodrigues_to_matrix(d, dR);
    vf_m3_mul(dR, R, next);
    for (int i = 0; i < 9; ++i) R[i] = next[i];
    for (int i = 0; i < 3; ++i) t[i] += d[3 + i];
  }
  return VF_OK;
}

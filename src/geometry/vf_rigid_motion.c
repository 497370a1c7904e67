// SPDX-License-Identifier: BSD-3-Clause
/* The camera's motion between two frames from tracked points with known depth, and each point's
 * departure from it (see vf_rigid_motion.h). The arithmetic is float, one array per quantity and
 * sums over lanes of VF_RIGID_LANES points, so that the compiler vectorizes it: a frame's fit
 * runs on the host beside the GPU's detection and must not outlast it. A residual of a few
 * hundredths of a pixel needs no more than float; the 6x6 solve is double. */
#include "geometry/vf_rigid_motion.h"

#include <math.h>
#include <stddef.h>

#include "core/vf_error.h"
#include "geometry/vf_rectify_math.h"

enum { VF_RIGID_ITERATIONS = 4, VF_RIGID_FIT_POINTS = 64, VF_RIGID_LANES = 8 };

/* The camera as floats. */
typedef struct vf_rigid_camera {
  float fx, fy, cx, cy;
} vf_rigid_camera;

/* The fit's points, padded with zero-weight points to a multiple of VF_RIGID_LANES: each one's
 * q = R0^T (its previous ray), s = d0 / f (the baseline over its depth) and observed position;
 * then, at the current motion, its residual, its squared length (NaN: left out) and its
 * Huber weight. */
typedef struct vf_rigid_set {
  float qx[VF_RIGID_FIT_POINTS], qy[VF_RIGID_FIT_POINTS], qz[VF_RIGID_FIT_POINTS];
  float s[VF_RIGID_FIT_POINTS], u[VF_RIGID_FIT_POINTS], v[VF_RIGID_FIT_POINTS];
  float ru[VF_RIGID_FIT_POINTS], rv[VF_RIGID_FIT_POINTS], e2[VF_RIGID_FIT_POINTS];
  float w[VF_RIGID_FIT_POINTS];
  /* Each point's Jacobian rows (d pixel / d (rotation, translation)), and the same weighted. */
  float ju[6][VF_RIGID_FIT_POINTS], jv[6][VF_RIGID_FIT_POINTS];
  float wju[6][VF_RIGID_FIT_POINTS], wjv[6][VF_RIGID_FIT_POINTS];
  int n, padded;
} vf_rigid_set;

/* Residuals of the points [0, n) of the arrays at (R, t): X = R q + s t, observed minus fitted
 * pixel into ru, rv and its squared length into e2, all NaN where the fitted point is not in
 * front of the camera. */
static void vf_rigid_residuals(const vf_rigid_camera* c, const float R[9], const float t[3],
                               const float* qx, const float* qy, const float* qz, const float* s,
                               const float* u, const float* v, int n, float* restrict ru,
                               float* restrict rv, float* restrict e2) {
  /* Copies, so that the compiler need not reload them after each store. */
  const float r00 = R[0], r01 = R[1], r02 = R[2], r10 = R[3], r11 = R[4], r12 = R[5], r20 = R[6],
              r21 = R[7], r22 = R[8], t0 = t[0], t1 = t[1], t2 = t[2];
  const float fx = c->fx, fy = c->fy, cx = c->cx, cy = c->cy;
  for (int i = 0; i < n; ++i) {
    const float z = r20 * qx[i] + r21 * qy[i] + r22 * qz[i] + s[i] * t2;
    const float x = r00 * qx[i] + r01 * qy[i] + r02 * qz[i] + s[i] * t0;
    const float y = r10 * qx[i] + r11 * qy[i] + r12 * qz[i] + s[i] * t1;
    /* NaN from here on behind the camera (one select: the compiler vectorizes it). */
    const float iz = 1.0f / (z + (z > 1e-9f ? 0.0f : NAN));
    const float a = u[i] - (fx * x * iz + cx), b = v[i] - (fy * y * iz + cy);
    ru[i] = a;
    rv[i] = b;
    e2[i] = a * a + b * b;
  }
}

/* Each point's Jacobian rows at (R, t). A small rotation w turns R q by w x R q, so
 * dX/dw = -[R q]x, and dX/dt = s; d(pixel)/dX = (a, 0, bu) and (0, c, bv). */
static void vf_rigid_jacobians(const vf_rigid_camera* c, const float R[9], const float t[3],
                               vf_rigid_set* set) {
  const float r00 = R[0], r01 = R[1], r02 = R[2], r10 = R[3], r11 = R[4], r12 = R[5], r20 = R[6],
              r21 = R[7], r22 = R[8], t0 = t[0], t1 = t[1], t2 = t[2], fx = c->fx, fy = c->fy;
  for (int p = 0; p < set->padded; ++p) {
    const float qx = set->qx[p], qy = set->qy[p], qz = set->qz[p], s = set->s[p], w = set->w[p];
    const float rx = r00 * qx + r01 * qy + r02 * qz, ry = r10 * qx + r11 * qy + r12 * qz,
                rz = r20 * qx + r21 * qy + r22 * qz;
    const float z = rz + s * t2;
    const float iz = 1.0f / (z > 1e-9f ? z : 1.0f);
    const float x = (rx + s * t0) * iz, y = (ry + s * t1) * iz;
    const float a = fx * iz, bu = -a * x, cc = fy * iz, bv = -cc * y;
    const float ju[6] = {bu * ry, a * rz - bu * rx, -a * ry, a * s, 0.0f, bu * s};
    const float jv[6] = {bv * ry - cc * rz, -bv * rx, cc * rx, 0.0f, cc * s, bv * s};
#define VF_RIGID_STORE(i)     \
  set->ju[i][p] = ju[i];      \
  set->jv[i][p] = jv[i];      \
  set->wju[i][p] = w * ju[i]; \
  set->wjv[i][p] = w * jv[i];
    VF_RIGID_STORE(0)
    VF_RIGID_STORE(1)
    VF_RIGID_STORE(2)
    VF_RIGID_STORE(3)
    VF_RIGID_STORE(4)
    VF_RIGID_STORE(5)
#undef VF_RIGID_STORE
  }
}

/* sum over p of a[p] b[p] + c[p] d[p], n a multiple of VF_RIGID_LANES: one partial sum a lane,
 * added in a fixed order. */
static double vf_rigid_dot(const float* a, const float* b, const float* c, const float* d, int n) {
  float lane[VF_RIGID_LANES] = {0.0f};
  for (int p = 0; p < n; p += VF_RIGID_LANES)
    for (int l = 0; l < VF_RIGID_LANES; ++l) lane[l] += a[p + l] * b[p + l] + c[p + l] * d[p + l];
  double sum = 0.0;
  for (int l = 0; l < VF_RIGID_LANES; ++l) sum += (double)lane[l];
  return sum;
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
  const vf_rigid_camera cam = {(float)K[0], (float)K[1], (float)K[2], (float)K[3]};
  /* One array of n floats each in scratch: each point's q, s and current position, then its
   * residual and squared length. */
  float *qx = scratch, *qy = scratch + n, *qz = scratch + 2 * n, *s = scratch + 3 * n;
  float *u1 = scratch + 4 * n, *v1 = scratch + 5 * n, *e2 = scratch + 6 * n;
  float *ru = scratch + 7 * n, *rv = scratch + 8 * n;
  float r0f[9];
  for (int i = 0; i < 9; ++i) r0f[i] = (float)r0[i];
  const float fx_inv = (float)(1.0 / K[0]), fy_inv = (float)(1.0 / K[1]);
  for (int i = 0; i < n; ++i) {
    const float x = (points[i].u0 - cam.cx) * fx_inv, y = (points[i].v0 - cam.cy) * fy_inv;
    qx[i] = r0f[0] * x + r0f[3] * y + r0f[6];
    qy[i] = r0f[1] * x + r0f[4] * y + r0f[7];
    qz[i] = r0f[2] * x + r0f[5] * y + r0f[8];
    s[i] = points[i].disparity * fx_inv;
    u1[i] = points[i].u1;
    v1[i] = points[i].v1;
  }
  /* The fit takes every stride-th point (at most VF_RIGID_FIT_POINTS, spread over the list): six
   * parameters need no more. */
  const int stride = (n + VF_RIGID_FIT_POINTS - 1) / VF_RIGID_FIT_POINTS;
  vf_rigid_set set;
  set.n = 0;
  for (int i = 0; i < n; i += stride) {
    const int p = set.n++;
    set.qx[p] = qx[i];
    set.qy[p] = qy[i];
    set.qz[p] = qz[i];
    set.s[p] = s[i];
    set.u[p] = u1[i];
    set.v[p] = v1[i];
  }
  set.padded = (set.n + VF_RIGID_LANES - 1) / VF_RIGID_LANES * VF_RIGID_LANES;
  for (int p = set.n; p < set.padded; ++p) {
    set.qx[p] = set.qy[p] = set.s[p] = set.u[p] = set.v[p] = 0.0f;
    set.qz[p] = 1.0f;
  }
  float select[VF_RIGID_FIT_POINTS];
  double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, t[3] = {0.0, 0.0, 0.0};
  float Rf[9], tf[3];
  for (int it = 0; it <= VF_RIGID_ITERATIONS; ++it) {
    for (int i = 0; i < 9; ++i) Rf[i] = (float)R[i];
    for (int i = 0; i < 3; ++i) tf[i] = (float)t[i];
    if (it == VF_RIGID_ITERATIONS) break;
    vf_rigid_residuals(&cam, Rf, tf, set.qx, set.qy, set.qz, set.s, set.u, set.v, set.n, set.ru,
                       set.rv, set.e2);
    int m = 0;
    for (int p = 0; p < set.n; ++p)
      if (!isnan(set.e2[p])) select[m++] = set.e2[p];
    if (m < VF_RIGID_MIN_POINTS)
      return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: only %d points in front of the camera", fn, m);
    /* The robust scale: the median residual (1.4826 x for a Gaussian's sigma), at least
     * 0.05 px so that an exact fit does not down-weight every point; Huber weights at 1.345 x. */
    const double median = sqrt((double)vf_rigid_select(select, m, m / 2));
    const float k = (float)(1.345 * fmax(1.4826 * median, 0.05)), k2 = k * k;
    for (int p = 0; p < set.padded; ++p) {
      const float ep = p < set.n ? set.e2[p] : NAN;
      set.w[p] = isnan(ep) ? 0.0f : ep <= k2 ? 1.0f : k / sqrtf(ep);
      if (isnan(ep)) set.ru[p] = set.rv[p] = 0.0f;
    }
    vf_rigid_jacobians(&cam, Rf, tf, &set);
    double A[36], b[6], d[6];
    for (int i = 0; i < 6; ++i) {
      b[i] = vf_rigid_dot(set.wju[i], set.ru, set.wjv[i], set.rv, set.padded);
      for (int j = i; j < 6; ++j)
        A[6 * i + j] = A[6 * j + i] =
            vf_rigid_dot(set.wju[i], set.ju[j], set.wjv[i], set.jv[j], set.padded);
    }
    if (!vf_rigid_solve6(A, b, d))
      return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: the points do not determine the motion", fn);
    double dR[9], next[9];
    vf_rodrigues_to_matrix(d, dR);
    vf_m3_mul(dR, R, next);
    for (int i = 0; i < 9; ++i) R[i] = next[i];
    for (int i = 0; i < 3; ++i) t[i] += d[3 + i];
  }
  /* Every point's residual at the fitted motion. */
  vf_rigid_residuals(&cam, Rf, tf, qx, qy, qz, s, u1, v1, n, ru, rv, e2);
  for (int i = 0; i < n; ++i) {
    residual[2 * i] = ru[i];
    residual[2 * i + 1] = rv[i];
  }
  return VF_OK;
}

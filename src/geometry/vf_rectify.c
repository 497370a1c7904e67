// SPDX-License-Identifier: BSD-3-Clause
/* Stereo rectification: a line-by-line re-implementation of OpenCV 4's cvStereoRectify
 * (modules/calib3d/src/calibration.cpp) with CALIB_ZERO_DISPARITY: half rotations that make the
 * image planes parallel, a rotation that aligns the baseline with the x (or y) axis, a common
 * focal length, principal points from the mean of the undistorted image corners, and the alpha
 * scaling between the inner (all valid) and outer (all source) rectangles of icvGetRectangles.
 * OpenCV's undistortPoints runs a fixed 5 fixed-point iterations; we do the same here so the
 * results match OpenCV's to the printed digits (vf_camera_undistort converges fully instead). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/vf_error.h"
#include "geometry/vf_rectify_math.h"
#include "viofront/vf_rectify.h"

#define VF_CV_UNDISTORT_ITERATIONS 5

vf_rectify_config vf_rectify_config_default(void) {
  vf_rectify_config c = {-1.0, 0, 0, VF_RECTIFY_FOCAL_OPENCV4};
  return c;
}

/* OpenCV's cvUndistortPoints for one point: pixel -> normalized (5 fixed-point iterations for
 * radial-tangential), then optionally through RR = P[:3,:3] R (RR NULL: normalized output). */
static vf_status vf_cv_undistort(const vf_camera* c, double u, double v, const double* RR,
                                 double out[2]) {
  double x = (u - c->cx) / c->fx, y = (v - c->cy) / c->fy;
  if (c->distortion == VF_DISTORTION_RADTAN) {
    const double* k = c->k;
    double x0 = x, y0 = y;
    for (int j = 0; j < VF_CV_UNDISTORT_ITERATIONS; ++j) {
      double r2 = x * x + y * y;
      double icdist = 1.0 / (1.0 + ((k[4] * r2 + k[1]) * r2 + k[0]) * r2);
      if (icdist < 0) {
        x = (u - c->cx) / c->fx;
        y = (v - c->cy) / c->fy;
        break;
      }
      double dx = 2.0 * k[2] * x * y + k[3] * (r2 + 2.0 * x * x);
      double dy = k[2] * (r2 + 2.0 * y * y) + 2.0 * k[3] * x * y;
      x = (x0 - dx) * icdist;
      y = (y0 - dy) * icdist;
    }
  } else if (c->distortion == VF_DISTORTION_EQUIDISTANT) {
    double d[2] = {x, y}, n[2];
    vf_status s = vf_camera_undistort(c, d, n);
    if (s != VF_OK) return s;
    x = n[0];
    y = n[1];
  }
  if (RR == NULL) {
    out[0] = x;
    out[1] = y;
    return VF_OK;
  }
  double w = 1.0 / (RR[6] * x + RR[7] * y + RR[8]);
  out[0] = (RR[0] * x + RR[1] * y + RR[2]) * w;
  out[1] = (RR[3] * x + RR[4] * y + RR[5]) * w;
  return VF_OK;
}

typedef struct vf_rect {
  double x, y, w, h;
} vf_rect;

/* icvGetRectangles: undistort-rectify a 9x9 grid over the image (to width and height, not
 * width - 1, as OpenCV does); outer = bounding box, inner = box inside the border samples. */
static vf_status vf_get_rectangles(const vf_camera* c, const double R[9], const double P[12],
                                   vf_rect* inner, vf_rect* outer) {
  const int N = 9;
  double K[9] = {P[0], P[1], P[2], P[4], P[5], P[6], P[8], P[9], P[10]}, RR[9];
  vf_m3_mul(K, R, RR);
  double iX0 = -FLT_MAX, iX1 = FLT_MAX, iY0 = -FLT_MAX, iY1 = FLT_MAX;
  double oX0 = FLT_MAX, oX1 = -FLT_MAX, oY0 = FLT_MAX, oY1 = -FLT_MAX;
  for (int y = 0; y < N; ++y) {
    for (int x = 0; x < N; ++x) {
      double p[2];
      vf_status s = vf_cv_undistort(c, (double)x * c->width / (N - 1),
                                    (double)y * c->height / (N - 1), RR, p);
      if (s != VF_OK) return s;
      oX0 = fmin(oX0, p[0]);
      oX1 = fmax(oX1, p[0]);
      oY0 = fmin(oY0, p[1]);
      oY1 = fmax(oY1, p[1]);
      if (x == 0) iX0 = fmax(iX0, p[0]);
      if (x == N - 1) iX1 = fmin(iX1, p[0]);
      if (y == 0) iY0 = fmax(iY0, p[1]);
      if (y == N - 1) iY1 = fmin(iY1, p[1]);
    }
  }
  *inner = (vf_rect){iX0, iY0, iX1 - iX0, iY1 - iY0};
  *outer = (vf_rect){oX0, oY0, oX1 - oX0, oY1 - oY0};
  return VF_OK;
}

/* The new principal point of camera c: image centre minus the mean of its four undistorted
 * corners projected through R with focal fc and principal point 0. */
static vf_status vf_corner_centre(const vf_camera* c, const double R[9], double fc, double cc[2]) {
  double nx = c->width, ny = c->height, sx = 0, sy = 0;
  for (int i = 0; i < 4; ++i) {
    double n[2], p[3], q[3];
    vf_status s = vf_cv_undistort(c, (i % 2) * (nx - 1), (i / 2) * (ny - 1), NULL, n);
    if (s != VF_OK) return s;
    p[0] = n[0];
    p[1] = n[1];
    p[2] = 1.0;
    vf_m3_mulv(R, p, q);
    sx += fc * q[0] / q[2];
    sy += fc * q[1] / q[2];
  }
  cc[0] = (nx - 1) / 2 - sx / 4;
  cc[1] = (ny - 1) / 2 - sy / 4;
  return VF_OK;
}

/* The alpha scale: s0 fits the inner rectangles (only valid pixels), s1 the outer ones. W and H
 * are the last pixel's coordinates plus one (OpenCV 2.4) or the last pixel's (OpenCV 3 and 4). */
static double vf_alpha_scale(const vf_rect in[2], const vf_rect outr[2], const double c0[2][2],
                             const double c1[2][2], double W, double H, double alpha) {
  double s0 = -DBL_MAX, s1 = DBL_MAX;
  for (int k = 0; k < 2; ++k) {
    double cx = c1[k][0], cy = c1[k][1], cx0 = c0[k][0], cy0 = c0[k][1];
    const vf_rect* i = &in[k];
    const vf_rect* o = &outr[k];
    s0 = fmax(s0, fmax(fmax(cx / (cx0 - i->x), cy / (cy0 - i->y)),
                       fmax((W - cx) / (i->x + i->w - cx0), (H - cy) / (i->y + i->h - cy0))));
    s1 = fmin(s1, fmin(fmin(cx / (cx0 - o->x), cy / (cy0 - o->y)),
                       fmin((W - cx) / (o->x + o->w - cx0), (H - cy) / (o->y + o->h - cy0))));
  }
  return s0 * (1 - alpha) + s1 * alpha;
}

static vf_status vf_rectify_check(const vf_camera* c0, const vf_camera* c1,
                                  const vf_rectify_config* cfg) {
  vf_status s = vf_camera_check(c0);
  if (s == VF_OK) s = vf_camera_check(c1);
  if (s != VF_OK) return s;
  if (c0->width != c1->width || c0->height != c1->height) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_stereo_rectify: camera sizes %dx%d and %dx%d differ", c0->width, c0->height,
                   c1->width, c1->height);
  }
  if (!isfinite(cfg->alpha))
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stereo_rectify: alpha is not finite");
  if (cfg->out_width < 0 || cfg->out_height < 0 || cfg->out_width > 32768 ||
      cfg->out_height > 32768 || (cfg->out_width == 0) != (cfg->out_height == 0)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_stereo_rectify: output size %dx%d: both 0 or both in 1..32768",
                   cfg->out_width, cfg->out_height);
  }
  if (cfg->focal_rule != VF_RECTIFY_FOCAL_OPENCV4 && cfg->focal_rule != VF_RECTIFY_FOCAL_OPENCV2) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stereo_rectify: unknown focal_rule %d",
                   (int)cfg->focal_rule);
  }
  return VF_OK;
}

/* R1, R2 and the baseline direction (cvStereoRectify's first half). Returns idx (0 horizontal,
 * 1 vertical) and t = R2 T. */
static vf_status vf_rectify_rotations(const double R[9], const double T[3], double R1[9],
                                      double R2[9], double t[3], int* idx_out) {
  double om[3], r_r[9], ww[3], wR[9];
  vf_rodrigues_from_matrix(R, om);
  for (int i = 0; i < 3; ++i) om[i] *= -0.5; /* half the rotation for each camera */
  vf_rodrigues_to_matrix(om, r_r);
  vf_m3_mulv(r_r, T, t);
  int idx = fabs(t[0]) > fabs(t[1]) ? 0 : 1;
  double c = t[idx], nt = vf_v3_norm(t);
  if (!(nt > 0)) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stereo_rectify: baseline is zero");
  double uu[3] = {0, 0, 0};
  uu[idx] = c > 0 ? 1 : -1;
  /* ww = t x uu, scaled to the angle between t and the axis: the global rotation. */
  ww[0] = t[1] * uu[2] - t[2] * uu[1];
  ww[1] = t[2] * uu[0] - t[0] * uu[2];
  ww[2] = t[0] * uu[1] - t[1] * uu[0];
  double nw = vf_v3_norm(ww);
  if (nw > 0.0) {
    double scale = acos(fabs(c) / nt) / nw;
    for (int i = 0; i < 3; ++i) ww[i] *= scale;
  }
  vf_rodrigues_to_matrix(ww, wR);
  vf_m3_mul_bt(wR, r_r, R1);
  vf_m3_mul(wR, r_r, R2);
  vf_m3_mulv(R2, T, t);
  *idx_out = idx;
  return VF_OK;
}

/* OpenCV 2.4's focal rule: the smaller fy, shrunk by k1 at the half diagonal when k1 < 0. */
static double vf_focal_opencv2(const vf_camera* cam[2], int idx) {
  double nx = cam[0]->width, ny = cam[0]->height, fc_new = DBL_MAX;
  for (int k = 0; k < 2; ++k) {
    double fc = idx == 0 ? cam[k]->fy : cam[k]->fx;
    double dk1 = cam[k]->distortion == VF_DISTORTION_NONE ? 0.0 : cam[k]->k[0];
    if (dk1 < 0) fc *= 1 + dk1 * (nx * nx + ny * ny) / (4 * fc * fc);
    fc_new = fmin(fc_new, fc);
  }
  return fc_new;
}

vf_status vf_stereo_rectify_pose(const vf_camera* cam0, const vf_camera* cam1, const double R[9],
                                 const double T[3], const vf_rectify_config* config,
                                 vf_stereo_rectification* out) {
  if (cam0 == NULL || cam1 == NULL || R == NULL || T == NULL || out == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stereo_rectify: an argument is NULL");
  }
  vf_rectify_config cfg = config != NULL ? *config : vf_rectify_config_default();
  vf_status s = vf_rectify_check(cam0, cam1, &cfg);
  if (s != VF_OK) return s;
  for (int i = 0; i < 9; ++i) {
    if (!isfinite(R[i]) || (i < 3 && !isfinite(T[i]))) {
      return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stereo_rectify: R or T is not finite");
    }
  }
  if (!(vf_m3_orthonormality_error(R) < 1e-6)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stereo_rectify: R is not a rotation");
  }
  vf_stereo_rectification r;
  memset(&r, 0, sizeof r);
  memcpy(r.R, R, sizeof r.R);
  memcpy(r.T, T, sizeof r.T);
  double t[3];
  int idx = 0;
  s = vf_rectify_rotations(R, T, r.R1, r.R2, t, &idx);
  if (s != VF_OK) return s;

  const vf_camera* cam[2] = {cam0, cam1};
  int W = cam0->width, H = cam0->height;
  int NW = cfg.out_width > 0 ? cfg.out_width : W, NH = cfg.out_height > 0 ? cfg.out_height : H;
  double fc;
  if (cfg.focal_rule == VF_RECTIFY_FOCAL_OPENCV2) {
    fc = vf_focal_opencv2(cam, idx);
  } else {
    double ratio = idx == 1 ? (double)NW / W / 2 : (double)NH / H / 2;
    fc = idx == 0 ? (cam0->fy + cam1->fy) * ratio : (cam0->fx + cam1->fx) * ratio;
  }
  double cc[2][2];
  for (int k = 0; k < 2 && s == VF_OK; ++k)
    s = vf_corner_centre(cam[k], k == 0 ? r.R1 : r.R2, fc, cc[k]);
  if (s != VF_OK) return s;
  /* CALIB_ZERO_DISPARITY: both cameras share the mean principal point. */
  for (int j = 0; j < 2; ++j) cc[0][j] = cc[1][j] = (cc[0][j] + cc[1][j]) * 0.5;

  double P[2][12] = {{0}};
  for (int k = 0; k < 2; ++k) {
    P[k][0] = P[k][5] = fc;
    P[k][2] = cc[k][0];
    P[k][6] = cc[k][1];
    P[k][10] = 1;
  }
  P[1][4 * idx + 3] = t[idx] * fc;

  double alpha = fmin(cfg.alpha, 1.0), scale = 1.0, cc1[2][2];
  for (int k = 0; k < 2; ++k) {
    cc1[k][0] = NW * cc[k][0] / W;
    cc1[k][1] = NH * cc[k][1] / H;
  }
  if (alpha >= 0) {
    vf_rect in[2], outr[2];
    for (int k = 0; k < 2 && s == VF_OK; ++k) {
      s = vf_get_rectangles(cam[k], k == 0 ? r.R1 : r.R2, P[k], &in[k], &outr[k]);
    }
    if (s != VF_OK) return s;
    double last = cfg.focal_rule == VF_RECTIFY_FOCAL_OPENCV2 ? 0.0 : 1.0;
    scale = vf_alpha_scale(in, outr, (const double(*)[2])cc, (const double(*)[2])cc1, NW - last,
                           NH - last, alpha);
    if (!(isfinite(scale) && scale > 0)) {
      return vf_fail(NULL, VF_ERR_INVALID_ARG,
                     "vf_stereo_rectify: alpha %g gives scale %g (degenerate calibration)",
                     cfg.alpha, scale);
    }
  }
  fc *= scale;
  for (int k = 0; k < 2; ++k) {
    P[k][0] = P[k][5] = fc;
    P[k][2] = cc1[k][0];
    P[k][6] = cc1[k][1];
  }
  P[1][4 * idx + 3] *= scale;
  memcpy(r.P1, P[0], sizeof r.P1);
  memcpy(r.P2, P[1], sizeof r.P2);

  double q[16] = {1,
                  0,
                  0,
                  -cc1[0][0],
                  0,
                  1,
                  0,
                  -cc1[0][1],
                  0,
                  0,
                  0,
                  fc,
                  0,
                  0,
                  -1.0 / t[idx],
                  (idx == 0 ? cc1[0][0] - cc1[1][0] : cc1[0][1] - cc1[1][1]) / t[idx]};
  memcpy(r.Q, q, sizeof r.Q);
  r.width = NW;
  r.height = NH;
  r.f = fc;
  r.cx = cc1[0][0];
  r.cy = cc1[0][1];
  r.baseline_m = vf_v3_norm(T);
  r.vertical = idx;
  *out = r;
  return VF_OK;
}

vf_status vf_stereo_rectify(const vf_camera* cam0, const vf_camera* cam1,
                            const vf_rectify_config* config, vf_stereo_rectification* out) {
  if (cam0 == NULL || cam1 == NULL || out == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stereo_rectify: an argument is NULL");
  }
  double R[9], T[3];
  vf_status s = vf_camera_relative_pose(cam0, cam1, R, T);
  if (s != VF_OK) return s;
  return vf_stereo_rectify_pose(cam0, cam1, R, T, config, out);
}

vf_status vf_rectify_point(const vf_camera* cam, const double R[9], const double P[12],
                           const double uv[2], double uv_rect[2]) {
  if (cam == NULL || R == NULL || P == NULL || uv == NULL || uv_rect == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_rectify_point: an argument is NULL");
  }
  double ray[3], q[3];
  vf_status s = vf_camera_unproject(cam, uv, ray);
  if (s != VF_OK) return s;
  vf_m3_mulv(R, ray, q);
  double w = P[8] * q[0] + P[9] * q[1] + P[10] * q[2];
  if (!(q[2] > 0) || !(w > 0)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_rectify_point: (%g, %g) maps behind the camera",
                   uv[0], uv[1]);
  }
  uv_rect[0] = (P[0] * q[0] + P[1] * q[1] + P[2] * q[2]) / w;
  uv_rect[1] = (P[4] * q[0] + P[5] * q[1] + P[6] * q[2]) / w;
  return VF_OK;
}

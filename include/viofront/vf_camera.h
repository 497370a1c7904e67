// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * Camera models: pinhole with radial-tangential distortion (k1, k2, p1, p2[, k3]: OpenCV's
 * default model, Kalibr's "radtan", EuRoC's "radial-tangential") or equidistant distortion
 * (k1..k4: OpenCV's fisheye model, Kalibr's "equidistant"). A camera is a plain value; all math
 * is in double precision (calibrations carry 9 to 12 digits and rectification fixtures are
 * checked to 1e-6 relative, which float cannot hold).
 *
 * Coordinates: pixel centres at integers; "normalized" means (x, y) = (X / Z, Y / Z) of a point
 * in the camera frame (z forward, x right, y down), before distortion. */
#ifndef VF_CAMERA_H
#define VF_CAMERA_H

#include <viofront/vf_export.h>
#include <viofront/vf_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Lens distortion model of a vf_camera. */
typedef enum vf_distortion_model {
  VF_DISTORTION_NONE = 0,   /**< pinhole only, k unused */
  VF_DISTORTION_RADTAN,     /**< k = {k1, k2, p1, p2, k3} */
  VF_DISTORTION_EQUIDISTANT /**< k = {k1, k2, k3, k4}: theta_d = theta (1 + k1 theta^2 + ...) */
} vf_distortion_model;

/** A calibrated camera (a plain value). */
typedef struct vf_camera {
  int width, height;              /**< resolution in pixels */
  double fx, fy, cx, cy;          /**< pinhole intrinsics (EuRoC: fu, fv, cu, cv) */
  vf_distortion_model distortion; /**< which model k holds */
  double k[5];                    /**< coefficients, see vf_distortion_model; unused ones are 0 */
  double T_BS[16];                /**< row-major 4x4: sensor (camera) frame to body frame */
  double rate_hz;                 /**< frame rate, 0 when unknown */
} vf_camera;

/** 752x480, f = 458, principal point at the centre, no distortion, T_BS = identity, 20 Hz. */
VF_API vf_camera vf_camera_default(void);

/** VF_OK when every field is finite and in range (size 1..32768, focal lengths > 0, T_BS a rigid
 * transform); otherwise VF_ERR_INVALID_ARG naming the field. */
VF_API vf_status vf_camera_check(const vf_camera* cam);

/** Normalized undistorted (x, y) -> normalized distorted (x_d, y_d). */
VF_API vf_status vf_camera_distort(const vf_camera* cam, const double xy[2], double xy_d[2]);

/** The inverse, by Gauss-Newton iterations to machine precision. VF_ERR_INVALID_ARG when the
 * iteration does not converge (a point outside the model's invertible region). */
VF_API vf_status vf_camera_undistort(const vf_camera* cam, const double xy_d[2], double xy[2]);

/** Camera-frame point -> pixel. VF_ERR_INVALID_ARG when the point is not in front (Z <= 0). */
VF_API vf_status vf_camera_project(const vf_camera* cam, const double p_c[3], double uv[2]);

/** Pixel -> ray (x, y, 1) through it in the camera frame (undistorted normalized coordinates). */
VF_API vf_status vf_camera_unproject(const vf_camera* cam, const double uv[2], double ray[3]);

/** The pose of camera b relative to camera a from their T_BS: X_b = R X_a + T (row-major R).
 * For a stereo pair (a = left, b = right) this is OpenCV's stereoRectify (R, T) input. */
VF_API vf_status vf_camera_relative_pose(const vf_camera* a, const vf_camera* b, double R[9],
                                         double T[3]);

#ifdef __cplusplus
}
#endif
#endif

// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * Stereo rectification equal to OpenCV's stereoRectify with CALIB_ZERO_DISPARITY (including the
 * alpha scaling and, as an option, OpenCV 2.4's focal length rule), point rectification, and
 * rectify/undistort maps applied per frame by bilinear interpolation on the CPU or on CUDA.
 *
 * Maps are fixed point: each output pixel stores its source position in 1/256 pixel
 * (VF_REMAP_FRAC_BITS), and the interpolation uses integer weights rounded half up, so the CPU
 * and CUDA backends agree bit for bit. Maps are built once at create time; applying one
 * allocates nothing. */
#ifndef VF_RECTIFY_H
#define VF_RECTIFY_H

#include <stdint.h>
#include <viofront/vf_camera.h>
#include <viofront/vf_context.h>
#include <viofront/vf_image.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How the rectified focal length is chosen. */
typedef enum vf_rectify_focal_rule {
  VF_RECTIFY_FOCAL_OPENCV4 = 0, /**< f = mean of the two fy (OpenCV 3 and 4) */
  VF_RECTIFY_FOCAL_OPENCV2      /**< f = min over cameras of fy (1 + k1 r^2), OpenCV 2.4 */
} vf_rectify_focal_rule;

/** Rectification options (vf_rectify_config_default()). */
typedef struct vf_rectify_config {
  double alpha; /**< -1: no scaling (OpenCV's default); 0: only valid pixels; 1: all source pixels
                   kept; in between: interpolated. Values above 1 act as 1. */
  int out_width, out_height;        /**< rectified size; 0 = the input size */
  vf_rectify_focal_rule focal_rule; /**< default VF_RECTIFY_FOCAL_OPENCV4 */
} vf_rectify_config;

/** The result. Rectified camera k sees a point X_k of raw camera k at R_k X_k; its pixels are
 * P_k [R_k X_k; 1]. cx and cy are shared by both cameras (zero disparity at infinity). */
typedef struct vf_stereo_rectification {
  int width, height;     /**< rectified image size */
  double R[9], T[3];     /**< input: X_1 = R X_0 + T (camera 1 from camera 0), row-major */
  double R1[9], R2[9];   /**< row-major rotations, raw -> rectified */
  double P1[12], P2[12]; /**< row-major 3x4 projections; P2[0][3] = -f * baseline (horizontal) */
  double Q[16];          /**< row-major 4x4 reprojection: [u v d 1] -> homogeneous 3-D point */
  double f, cx, cy;      /**< rectified focal length and principal point, pixels */
  double baseline_m;     /**< |T| */
  int vertical;          /**< 1 when the cameras are stacked vertically (disparity along v) */
} vf_stereo_rectification;

/** alpha -1, output size = input size, OpenCV 4's focal rule. */
VF_API vf_rectify_config vf_rectify_config_default(void);

/** Rectifies a stereo pair whose relative pose comes from the cameras' T_BS (camera 0 is the
 * reference, as in EuRoC: cam0 left, cam1 right). Both cameras must have the same size. */
VF_API vf_status vf_stereo_rectify(const vf_camera* cam0, const vf_camera* cam1,
                                   const vf_rectify_config* config, vf_stereo_rectification* out);

/** The same with an explicit relative pose X_1 = R X_0 + T (row-major R). */
VF_API vf_status vf_stereo_rectify_pose(const vf_camera* cam0, const vf_camera* cam1,
                                        const double R[9], const double T[3],
                                        const vf_rectify_config* config,
                                        vf_stereo_rectification* out);

/** Raw pixel of camera `cam` -> rectified pixel: undistort, rotate by R (row-major), project by
 * P (row-major 3x4, its left 3x3 part). With R and P from a rectification this is OpenCV's
 * undistortPoints(..., R, P). VF_ERR_INVALID_ARG when the rotated ray points backwards. */
VF_API vf_status vf_rectify_point(const vf_camera* cam, const double R[9], const double P[12],
                                  const double uv[2], double uv_rect[2]);

/* --- maps --- */

/** Fractional bits of a map's source positions (1/256 pixel). */
#define VF_REMAP_FRAC_BITS 8

/** What a map warps from and to. */
typedef struct vf_remap_config {
  vf_camera camera; /**< the raw (source) camera */
  double R[9];      /**< row-major rotation raw -> output camera (identity to only undistort) */
  double P[12];     /**< row-major 3x4 projection of the output camera (left 3x3 used) */
  int out_width, out_height; /**< output size */
  uint8_t fill;              /**< value of output pixels whose source lies outside the image */
} vf_remap_config;

/** The map of camera `which` (0 or 1) of a rectification. */
VF_API vf_status vf_remap_config_rectify(const vf_camera* cam, const vf_stereo_rectification* rect,
                                         int which, vf_remap_config* out);
/** A map that only undistorts: same size, R = identity, P = the camera's own K. */
VF_API vf_status vf_remap_config_undistort(const vf_camera* cam, vf_remap_config* out);

/** A rectify or undistort map (opaque), in the context's memory. */
typedef struct vf_remap vf_remap;

/** Builds the map (on the host, then uploaded once on CUDA) and, on CUDA, staging buffers for
 * host input and output, so that vf_remap_apply allocates nothing. */
VF_API vf_status vf_remap_create(vf_context* ctx, const vf_remap_config* config, vf_remap** out);
/** Frees everything; safe on NULL. */
VF_API void vf_remap_destroy(vf_remap* remap);

/** dst = src warped through the map. src is 8-bit grey of the camera's size, dst 8-bit grey of
 * the output size. CPU backend: host images. CUDA backend: host or device images; with device
 * images the work is queued on the context's stream, a host dst is complete on return. */
VF_API vf_status vf_remap_apply(vf_remap* remap, const vf_image* src, vf_image* dst);

/** The source position of output pixel (x, y) in 1/256 pixel, or -1, -1 when it lies outside
 * the source image (then the output is `fill`). For tests and tools. */
VF_API vf_status vf_remap_lookup(const vf_remap* remap, int x, int y, int32_t* sx, int32_t* sy);
/** The message of this map's last failure; "" when none. */
VF_API const char* vf_remap_last_error(const vf_remap* remap);

#ifdef __cplusplus
}
#endif
#endif

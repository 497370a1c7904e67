// SPDX-License-Identifier: BSD-3-Clause
/* The camera's motion between two frames from points tracked across them whose depth is known
 * at the first (the rectified left camera and the disparity of its stereo pair), and how far each
 * point's observed motion departs from it: a point of a static scene moves with the camera, a
 * track that slides over the scene (a junction of two surfaces, something moving) does not.
 *
 * Model: camera c1 sees the point X0 of camera c0 at X1 = R (R0^T X0) + X0_z t / baseline, where
 * R0 = R_c0_c1 is a known starting rotation (the gyroscope's, or the identity) and R (a small
 * rotation) and t (the translation over the baseline) are fitted. With the point's disparity d0
 * at c0, X0 / Z0 is its normalized ray and baseline / Z0 = d0 / f, so no baseline is needed.
 * Gauss-Newton with Huber weights (k = 1.345 times the residuals' robust scale, at least
 * 0.05 px), four iterations on at most 64 of the points, spread over the list: a few sliding
 * tracks among many do not pull the fit. Exported
 * for the tests, not installed. */
#ifndef VF_RIGID_MOTION_H
#define VF_RIGID_MOTION_H

#include "viofront/vf_export.h"
#include "viofront/vf_status.h"

/** A point tracked from the previous frame to the current one, rectified left pixels. */
typedef struct vf_rigid_point {
  float u0, v0;    /**< previous frame */
  float disparity; /**< at (u0, v0) in the previous frame, px, > 0 */
  float u1, v1;    /**< current frame */
} vf_rigid_point;

/** Fewest points a fit takes: six unknowns, two equations a point, and room for outliers. */
#define VF_RIGID_MIN_POINTS 12

/** Floats of scratch that vf_rigid_motion_residuals needs for n points. */
#define VF_RIGID_SCRATCH_FLOATS(n) (9 * (n))

/** Fits the motion to the n points and writes each point's residual (observed minus fitted
 * position in the current frame, px) to residual[2 i], residual[2 i + 1]. K = (f, f, cx, cy) of
 * the rectified camera; R0 = R_c0_c1 (row-major, the convention of vf_tracker_predict_rotation)
 * or NULL for the identity; scratch holds VF_RIGID_SCRATCH_FLOATS(n) floats. VF_ERR_INVALID_ARG for
 * NULL arrays, n below VF_RIGID_MIN_POINTS, or points that do not determine the motion (all at one
 * place, values that are not finite, disparities not above 0); residual then holds nothing useful
 * (the argument checks fail before writing it). */
VF_API vf_status vf_rigid_motion_residuals(const double K[4], const double R0[9],
                                           const vf_rigid_point* points, int n, float* residual,
                                           float* scratch);

#endif

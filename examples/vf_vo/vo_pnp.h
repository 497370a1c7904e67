// SPDX-License-Identifier: BSD-3-Clause
/* Pose from 3-D points and their pixels in a pinhole camera (PnP): Gauss-Newton on the
 * reprojection error over SE(3) with Huber weights, then outliers dropped and solved again. */
#ifndef VO_PNP_H
#define VO_PNP_H

typedef struct vo_pose {
  double R[9]; /* row-major: X_cur = R X_prev + t */
  double t[3];
} vo_pose;

void vo_pose_identity(vo_pose* p);
/* c = a * b (apply b first). */
void vo_pose_compose(const vo_pose* a, const vo_pose* b, vo_pose* c);
void vo_pose_inverse(const vo_pose* a, vo_pose* out);

/* points: n (X, Y, Z) in the previous camera; pixels: n (u, v) in the current one; camera
 * f, cx, cy. Returns the number of inliers (reprojection error under 2 px), or -1 when fewer
 * than 6 points are usable. */
int vo_pnp_solve(const double* points, const double* pixels, int n, double f, double cx, double cy,
                 vo_pose* pose);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* Feature geometry of the frontend: from a pixel of a rectified image back to the raw camera
 * (undistorted normalized coordinates and the distorted pixel), and disparity to depth. */
#include <math.h>

#include "frontend/vf_frontend_internal.h"

void vf_frontend_unrectify(const vf_camera* cam, const double R[9], double f, double cx, double cy,
                           float u_rect, float v_rect, vf_feature* out) {
  double r[3] = {(u_rect - cx) / f, (v_rect - cy) / f, 1.0};
  /* R maps raw to rectified, so its transpose takes the rectified ray back to the raw camera. */
  double ray[3] = {R[0] * r[0] + R[3] * r[1] + R[6] * r[2], R[1] * r[0] + R[4] * r[1] + R[7] * r[2],
                   R[2] * r[0] + R[5] * r[1] + R[8] * r[2]};
  out->u_rect = u_rect;
  out->v_rect = v_rect;
  out->x = out->y = out->u = out->v = NAN;
  if (!(ray[2] > 0)) return;
  double p[3] = {ray[0] / ray[2], ray[1] / ray[2], 1.0}, uv[2];
  out->x = (float)p[0];
  out->y = (float)p[1];
  /* Cannot fail: the point is in front of the camera (checked above). */
  if (vf_camera_project(cam, p, uv) == VF_OK) {
    out->u = (float)uv[0];
    out->v = (float)uv[1];
  }
}

float vf_frontend_depth(double f, double baseline_m, float disparity) {
  return disparity > 0 ? (float)(f * baseline_m / disparity) : NAN;
}

// SPDX-License-Identifier: BSD-3-Clause
/* EuRoC MAV VI-Sensor calibration for the camera, rectification and remap tests, and a
 * field-by-field camera comparison. */
#ifndef EUROC_CALIB_H
#define EUROC_CALIB_H

#include <string.h>
#include <viofront/vf_camera.h>
#include <viofront/vf_euroc.h>

static inline vf_camera euroc_camera(int which) {
  vf_camera cams[2];
  vf_euroc_vi_sensor(cams, NULL);
  return cams[which];
}

/* Field by field (a struct may hold padding bytes that memcmp would see). */
static inline int camera_equal(const vf_camera* a, const vf_camera* b) {
  return a->width == b->width && a->height == b->height && a->fx == b->fx && a->fy == b->fy &&
         a->cx == b->cx && a->cy == b->cy && a->distortion == b->distortion &&
         memcmp(a->k, b->k, sizeof a->k) == 0 && memcmp(a->T_BS, b->T_BS, sizeof a->T_BS) == 0 &&
         a->rate_hz == b->rate_hz;
}

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* The two cameras of an open EuRoC sequence as a rig (vf_rig.h) with the pair (0, 1). */
#include "core/vf_error.h"
#include "viofront/vf_rig.h"

vf_status vf_rig_from_euroc(const vf_euroc* reader, vf_rig* out) {
  VF_CHECK_ARG_NOT_NULL(NULL, reader);
  VF_CHECK_ARG_NOT_NULL(NULL, out);
  vf_rig rig = vf_rig_default();
  for (int k = 0; k < 2; ++k) {
    vf_camera cam;
    vf_status s = vf_euroc_camera(reader, k, &cam);
    if (s == VF_OK) s = vf_rig_add_camera(&rig, NULL, &cam);
    if (s != VF_OK) return s;
  }
  /* EuRoC's T_BS are in the body frame of imu0/sensor.yaml (the IMU's). */
  rig.imu_extrinsics = 1;
  vf_status s = vf_rig_add_pair(&rig, 0, 1);
  if (s == VF_OK) *out = rig;
  return s;
}

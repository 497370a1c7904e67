// SPDX-License-Identifier: BSD-3-Clause
/* camchain.yaml at the sequence root: the rig's calibration in Kalibr's camchain format (per
 * camera camN: T_cam_imu, T_cn_cnm1 from camN-1 for N >= 1, pinhole intrinsics [fu, fv, pu, pv],
 * radtan or equidistant coefficients, resolution, rostopic), plus our own top-level key
 * stereo_pairs (the pairs with disparity ground truth). The transforms are the sensor.yaml T_BS
 * composed by vf_camera_relative_pose, printed with 17 digits (the doubles exactly). */
#include <stdio.h>

#include "synth.h"

/* X_b = R X_a + T as Kalibr's 4x4 list of rows. */
static void synth_camchain_T(FILE* f, const char* key, const double R[9], const double T[3]) {
  fprintf(f, "  %s:\n", key);
  for (int i = 0; i < 3; ++i) {
    fprintf(f, "  - [%.17g, %.17g, %.17g, %.17g]\n", R[3 * i], R[3 * i + 1], R[3 * i + 2], T[i]);
  }
  fprintf(f, "  - [0.0, 0.0, 0.0, 1.0]\n");
}

static int synth_camchain_camera(FILE* f, const synth_rig* rig, int k, const vf_camera* imu) {
  const vf_camera* c = &rig->cams[k];
  double R[9], T[3];
  int equidistant = c->distortion == VF_DISTORTION_EQUIDISTANT;
  /* Kalibr's radtan has k1, k2, p1, p2 only. */
  if (!(equidistant || (c->distortion == VF_DISTORTION_RADTAN && c->k[4] == 0.0))) {
    fprintf(stderr, "vf_synth: camchain.yaml: cam%d's distortion has no Kalibr model\n", k);
    return -1;
  }
  fprintf(f, "cam%d:\n", k);
  if (vf_camera_relative_pose(imu, c, R, T) != VF_OK) return -1;
  synth_camchain_T(f, "T_cam_imu", R, T);
  if (k > 0) {
    if (vf_camera_relative_pose(&rig->cams[k - 1], c, R, T) != VF_OK) return -1;
    synth_camchain_T(f, "T_cn_cnm1", R, T);
  }
  fprintf(f,
          "  camera_model: pinhole\n"
          "  distortion_coeffs: [%.15g, %.15g, %.15g, %.15g]\n"
          "  distortion_model: %s\n"
          "  intrinsics: [%.15g, %.15g, %.15g, %.15g]\n"
          "  resolution: [%d, %d]\n"
          "  rostopic: /cam%d/image_raw\n",
          c->k[0], c->k[1], c->k[2], c->k[3], equidistant ? "equidistant" : "radtan", c->fx, c->fy,
          c->cx, c->cy, c->width, c->height, k);
  return 0;
}

int synth_write_camchain(const char* root, const synth_rig* rig, const vf_imu_calib* imu) {
  FILE* f = synth_open(root, "camchain.yaml");
  if (f == NULL) return -1;
  fprintf(f, "# vf_synth rig %s in Kalibr's camchain format; stereo_pairs is vf_synth's own.\n",
          rig->name);
  /* The IMU as a camera at its T_BS, so that vf_camera_relative_pose gives T_cam_imu. */
  vf_camera imu_frame = rig->cams[0];
  for (int i = 0; i < 16; ++i) imu_frame.T_BS[i] = imu->T_BS[i];
  int bad = 0;
  for (int k = 0; k < rig->ncams && !bad; ++k) bad = synth_camchain_camera(f, rig, k, &imu_frame);
  fprintf(f, "stereo_pairs: [");
  for (int p = 0; p < rig->npairs; ++p)
    fprintf(f, "%s[%d, %d]", p ? ", " : "", rig->pairs[p][0], rig->pairs[p][1]);
  fprintf(f, "]\n");
  return synth_close(f) != 0 || bad ? -1 : 0;
}

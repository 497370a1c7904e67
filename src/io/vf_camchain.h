// SPDX-License-Identifier: BSD-3-Clause
/* A camchain file as read (vf_yaml_camchain.c), before it becomes a vf_rig: each camera's keys,
 * and the cameras' poses from T_cam_imu and T_cn_cnm1 (vf_yaml_camchain_poses.c). */
#ifndef VF_CAMCHAIN_H
#define VF_CAMCHAIN_H

#include "io/vf_yaml.h"
#include "viofront/vf_rig.h"

/* Lists are read up to this long and their counts checked after (Kalibr's other models have 5 or
 * 6 intrinsics). */
#define VF_CAMCHAIN_WIDE 16

typedef struct vf_camchain_cam {
  int model; /* 0: pinhole; -1: a model of Kalibr that viofront lacks */
  double intrinsics[VF_CAMCHAIN_WIDE];
  int nintrinsics;
  int distortion; /* vf_distortion_model, or -1 (fov) */
  double coeffs[VF_CAMCHAIN_WIDE];
  int ncoeffs;
  int resolution[2];
  double T_cam_imu[16]; /* IMU frame to this camera's */
  double T_cn_cnm1[16]; /* the previous camera's frame to this camera's */
  double timeshift_s;
  int overlaps[VF_RIG_MAX_CAMERAS];
  int noverlaps;
  int has_T_cam_imu, has_T_cn_cnm1;
} vf_camchain_cam;

typedef struct vf_camchain {
  int count;                             /* cameras cam0..cam<count-1> */
  yaml_node_t* key[VF_RIG_MAX_CAMERAS];  /* their keys, for messages about a whole camera */
  yaml_node_t* node[VF_RIG_MAX_CAMERAS]; /* their mappings */
  yaml_node_t* pairs;                    /* stereo_pairs, or NULL */
  vf_camchain_cam cam[VF_RIG_MAX_CAMERAS];
} vf_camchain;

/* Each camera's T_BS (camera to body): the inverse of its T_cam_imu, given or derived along the
 * T_cn_cnm1 links; with no T_cam_imu in the file the body is cam0 (*imu_extrinsics = 0). Fails
 * on a camera that cannot be placed and on links that disagree with the T_cam_imu. */
vf_status vf_camchain_poses(vf_yaml* y, const vf_camchain* c, double T_BS[][16],
                            int* imu_extrinsics);

#endif

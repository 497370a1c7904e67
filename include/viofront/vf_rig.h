// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * A camera rig: 1 to VF_RIG_MAX_CAMERAS calibrated cameras on one body, each with a name and its
 * pose in the body frame, and the stereo pairs among them. A rig is a plain value, read from a
 * Kalibr camchain YAML file (docs/rig.md), taken from a EuRoC sequence, or built in code with
 * vf_rig_default(), vf_rig_add_camera() and vf_rig_add_pair().
 *
 * The body frame is the IMU's when the file gives the cameras' T_cam_imu, else camera 0's. */
#ifndef VF_RIG_H
#define VF_RIG_H

#include <stddef.h>
#include <viofront/vf_camera.h>
#include <viofront/vf_context.h>
#include <viofront/vf_euroc.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Cameras a rig can hold. */
#define VF_RIG_MAX_CAMERAS 16
/** Stereo pairs a rig can hold: a camera belongs to one pair at most. */
#define VF_RIG_MAX_PAIRS (VF_RIG_MAX_CAMERAS / 2)
/** Bytes of a camera's name, the terminating NUL included. */
#define VF_RIG_NAME_MAX 16

/** Two cameras of a rig used as a stereo pair (indices into vf_rig.cameras). */
typedef struct vf_rig_pair {
  int left;  /**< the camera whose features are tracked */
  int right; /**< the camera that gives their depth */
} vf_rig_pair;

/** A camera rig (a plain value; vf_rig_check() says whether it is consistent). */
typedef struct vf_rig {
  int camera_count;                                /**< 0..VF_RIG_MAX_CAMERAS; the first are set */
  vf_camera cameras[VF_RIG_MAX_CAMERAS];           /**< T_BS: camera frame to body frame */
  char names[VF_RIG_MAX_CAMERAS][VF_RIG_NAME_MAX]; /**< "cam0", "cam1", ...: unique */
  double timeshift_s[VF_RIG_MAX_CAMERAS]; /**< Kalibr's timeshift_cam_imu: t_imu = t_cam + shift */
  unsigned overlaps[VF_RIG_MAX_CAMERAS];  /**< bit j of camera i: the file's cam_overlaps of camera
                                             i lists camera j (0 when not given) */
  int imu_extrinsics;                     /**< 1: body = IMU frame (T_cam_imu, EuRoC); 0: cam 0 */
  int pair_count;                         /**< 0..VF_RIG_MAX_PAIRS: 0 = every camera mono */
  vf_rig_pair pairs[VF_RIG_MAX_PAIRS];    /**< the first pair_count are set */
} vf_rig;

/** An empty rig: no cameras, no pairs, body frame = camera 0. */
VF_API vf_rig vf_rig_default(void);

/** Appends a camera (checked with vf_camera_check); `name` NULL gives "cam<index>". Fails on a
 * full rig, a name already used, empty or longer than VF_RIG_NAME_MAX - 1. */
VF_API vf_status vf_rig_add_camera(vf_rig* rig, const char* name, const vf_camera* camera);

/** Appends the stereo pair (left, right): both cameras in the rig, different, in no other pair,
 * and with a baseline (their centres at least 1 micrometre apart). */
VF_API vf_status vf_rig_add_pair(vf_rig* rig, int left, int right);

/** VF_OK when the rig is consistent: 1..VF_RIG_MAX_CAMERAS valid cameras with unique names,
 * finite time shifts, overlaps naming other cameras of the rig, valid pairs (as
 * vf_rig_add_pair); otherwise VF_ERR_INVALID_ARG naming the camera or pair and the field. */
VF_API vf_status vf_rig_check(const vf_rig* rig);

/** Reads a Kalibr camchain YAML file (pinhole cameras cam0..camN-1 with radtan, equidistant or no
 * distortion; docs/rig.md), with our optional `stereo_pairs` key. Errors name the file, the line
 * and the key; unknown keys are warned about through `log` (may be NULL) and skipped. Camera models
 * and distortion models Kalibr has but viofront does not give VF_ERR_UNSUPPORTED, other faults of
 * the file VF_ERR_FORMAT, a missing file VF_ERR_IO. */
VF_API vf_status vf_rig_load_camchain(const char* path, const vf_context* log, vf_rig* out);

/** The same from text in memory; `name` is used in messages. */
VF_API vf_status vf_rig_parse_camchain(const char* text, size_t size, const char* name,
                                       const vf_context* log, vf_rig* out);

/** The two cameras of an open EuRoC sequence (cam0, cam1) as a rig with the pair (0, 1). */
VF_API vf_status vf_rig_from_euroc(const vf_euroc* reader, vf_rig* out);

#ifdef __cplusplus
}
#endif
#endif

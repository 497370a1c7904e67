// SPDX-License-Identifier: BSD-3-Clause
/* The camera rig as a value (vf_rig.h): built camera by camera and pair by pair, and its
 * consistency check. A geometry value, below the frontend that runs over a rig (the readers that
 * fill one are io: the camchain file, vf_rig_euroc.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/vf_error.h"
#include "geometry/vf_rig_internal.h"

/* Centres closer than this give no depth; calibrated baselines are centimetres or more. */
#define VF_RIG_MIN_BASELINE_M 1e-6

vf_rig vf_rig_default(void) {
  vf_rig rig;
  memset(&rig, 0, sizeof rig);
  return rig;
}

/* The thread's last message behind `prefix` (copied first: vf_fail writes the same buffer). */
static vf_status vf_rig_fail_with(const char* prefix) {
  char m[VF_ERROR_MESSAGE_MAX];
  snprintf(m, sizeof m, "%s", vf_last_error_message());
  return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: %s", prefix, m);
}

/* 1 when `name` is 1..VF_RIG_NAME_MAX - 1 characters (NUL within the array). */
static int vf_rig_name_ok(const char* name) {
  return name[0] != '\0' && memchr(name, '\0', VF_RIG_NAME_MAX) != NULL;
}

vf_status vf_rig_add_camera(vf_rig* rig, const char* name, const vf_camera* camera) {
  VF_CHECK_ARG_NOT_NULL(NULL, rig);
  VF_CHECK_ARG_NOT_NULL(NULL, camera);
  const int n = rig->camera_count;
  if (n < 0 || n >= VF_RIG_MAX_CAMERAS) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_rig_add_camera: camera_count %d: the rig has no room (at most %d cameras)",
                   n, VF_RIG_MAX_CAMERAS);
  }
  char own[VF_RIG_NAME_MAX];
  if (name == NULL) {
    snprintf(own, sizeof own, "cam%d", n);
    name = own;
  }
  if (name[0] == '\0' || strlen(name) >= VF_RIG_NAME_MAX) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_rig_add_camera: name '%.40s' must have 1 to %d "
                   "characters",
                   name, VF_RIG_NAME_MAX - 1);
  }
  for (int i = 0; i < n; ++i) {
    if (strncmp(rig->names[i], name, VF_RIG_NAME_MAX) == 0) {
      return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_rig_add_camera: name '%s' is camera %d's", name,
                     i);
    }
  }
  if (vf_camera_check(camera) != VF_OK) return vf_rig_fail_with("vf_rig_add_camera");
  rig->cameras[n] = *camera;
  memset(rig->names[n], 0, VF_RIG_NAME_MAX);
  memcpy(rig->names[n], name, strlen(name));
  rig->timeshift_s[n] = 0.0;
  rig->overlaps[n] = 0;
  rig->camera_count = n + 1;
  return VF_OK;
}

int vf_rig_pair_problem(const vf_rig* rig, int pairs_before, int left, int right, char* msg,
                        size_t size) {
  const int n = rig->camera_count;
  if (pairs_before >= VF_RIG_MAX_PAIRS) {
    snprintf(msg, size, "the rig has no room for another pair (at most %d)", VF_RIG_MAX_PAIRS);
    return 1;
  }
  const int cam[2] = {left, right};
  for (int k = 0; k < 2; ++k) {
    if (cam[k] < 0 || cam[k] >= n) {
      snprintf(msg, size, "camera %d is not in the rig (%d cameras)", cam[k], n);
      return 1;
    }
  }
  if (left == right) {
    snprintf(msg, size, "camera %d is paired with itself", left);
    return 1;
  }
  for (int p = 0; p < pairs_before; ++p) {
    const vf_rig_pair* q = &rig->pairs[p];
    for (int k = 0; k < 2; ++k) {
      if (cam[k] == q->left || cam[k] == q->right) {
        snprintf(msg, size, "camera %d is already in pair %d (%d, %d)", cam[k], p, q->left,
                 q->right);
        return 1;
      }
    }
  }
  const double* a = rig->cameras[left].T_BS;
  const double* b = rig->cameras[right].T_BS;
  const double d[3] = {a[3] - b[3], a[7] - b[7], a[11] - b[11]};
  if (!(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) >= VF_RIG_MIN_BASELINE_M)) {
    snprintf(msg, size, "cameras %d and %d have no baseline (centres less than %g m apart)", left,
             right, VF_RIG_MIN_BASELINE_M);
    return 1;
  }
  return 0;
}

vf_status vf_rig_add_pair(vf_rig* rig, int left, int right) {
  VF_CHECK_ARG_NOT_NULL(NULL, rig);
  char msg[256];
  if (rig->camera_count < 0 || rig->camera_count > VF_RIG_MAX_CAMERAS || rig->pair_count < 0) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_rig_add_pair: camera_count %d or pair_count %d "
                   "is out of range",
                   rig->camera_count, rig->pair_count);
  }
  if (vf_rig_pair_problem(rig, rig->pair_count, left, right, msg, sizeof msg)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_rig_add_pair: %s", msg);
  }
  rig->pairs[rig->pair_count].left = left;
  rig->pairs[rig->pair_count].right = right;
  rig->pair_count++;
  return VF_OK;
}

/* One camera of vf_rig_check: the camera itself, its name, time shift and overlaps. */
static vf_status vf_rig_check_camera(const vf_rig* rig, int i) {
  char where[64];
  if (!vf_rig_name_ok(rig->names[i])) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "rig: camera %d: name must have 1 to %d characters", i,
                   VF_RIG_NAME_MAX - 1);
  }
  snprintf(where, sizeof where, "rig: camera %d (%s)", i, rig->names[i]);
  for (int j = 0; j < i; ++j) {
    if (strncmp(rig->names[j], rig->names[i], VF_RIG_NAME_MAX) == 0) {
      return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: name is camera %d's too", where, j);
    }
  }
  if (vf_camera_check(&rig->cameras[i]) != VF_OK) return vf_rig_fail_with(where);
  if (!isfinite(rig->timeshift_s[i])) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: timeshift_s is not finite", where);
  }
  const unsigned others = ((1u << rig->camera_count) - 1u) & ~(1u << i); /* count <= 16 */
  if (rig->overlaps[i] & ~others) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: overlaps 0x%x names itself or a camera outside the rig", where,
                   rig->overlaps[i]);
  }
  return VF_OK;
}

vf_status vf_rig_check(const vf_rig* rig) {
  if (rig == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_rig_check: rig is NULL");
  if (rig->camera_count < 1 || rig->camera_count > VF_RIG_MAX_CAMERAS) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "rig: camera_count %d is outside 1..%d",
                   rig->camera_count, VF_RIG_MAX_CAMERAS);
  }
  for (int i = 0; i < rig->camera_count; ++i) {
    vf_status s = vf_rig_check_camera(rig, i);
    if (s != VF_OK) return s;
  }
  if (rig->imu_extrinsics != 0 && rig->imu_extrinsics != 1) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "rig: imu_extrinsics %d is not 0 or 1",
                   rig->imu_extrinsics);
  }
  if (rig->pair_count < 0 || rig->pair_count > VF_RIG_MAX_PAIRS) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "rig: pair_count %d is outside 0..%d", rig->pair_count,
                   VF_RIG_MAX_PAIRS);
  }
  char msg[256];
  for (int p = 0; p < rig->pair_count; ++p) {
    if (vf_rig_pair_problem(rig, p, rig->pairs[p].left, rig->pairs[p].right, msg, sizeof msg)) {
      return vf_fail(NULL, VF_ERR_INVALID_ARG, "rig: pair %d: %s", p, msg);
    }
  }
  return VF_OK;
}

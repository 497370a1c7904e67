// SPDX-License-Identifier: BSD-3-Clause
/* Kalibr's camchain YAML (docs/rig.md) into a vf_rig: one mapping per camera (cam0..camN-1) with
 * its model, intrinsics, distortion, resolution and extrinsics, plus our optional stereo_pairs.
 * Written from the format's description in Kalibr's wiki (ethz-asl/kalibr, "Yaml formats"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/vf_rig_internal.h"
#include "io/vf_camchain.h"
#include "io/vf_yaml.h"
#include "viofront/vf_rig.h"

#define VF_KEY(name, type, field) name, type, offsetof(vf_camchain_cam, field)

/* Kalibr's models, those viofront lacks read as VF_CAMCHAIN_UNSUPPORTED and refused after the
 * mapping with VF_ERR_UNSUPPORTED (other names are not Kalibr's: VF_ERR_FORMAT). */
#define VF_CAMCHAIN_UNSUPPORTED -1
static const char* const vf_camchain_models[] = {"pinhole", "omni", "eucm", "ds", NULL};
static const int vf_camchain_model_values[] = {0, VF_CAMCHAIN_UNSUPPORTED, VF_CAMCHAIN_UNSUPPORTED,
                                               VF_CAMCHAIN_UNSUPPORTED};
static const char* const vf_camchain_distortions[] = {"radtan", "equidistant", "none", "fov", NULL};
static const int vf_camchain_distortion_values[] = {VF_DISTORTION_RADTAN, VF_DISTORTION_EQUIDISTANT,
                                                    VF_DISTORTION_NONE, VF_CAMCHAIN_UNSUPPORTED};

/* Counts are read wide and checked after the mapping: the model and distortion decide them, and
 * a wrong model is then reported as such whatever the order of the keys. */
static const vf_yaml_key vf_camchain_keys[] = {
    {VF_KEY("camera_model", VF_YAML_ENUM, model), 0, 0, 0, 0, 1, vf_camchain_models,
     vf_camchain_model_values, NULL, 0},
    {VF_KEY("intrinsics", VF_YAML_DOUBLES, intrinsics), -1e6, 1e6, 0, VF_CAMCHAIN_WIDE, 1, NULL,
     NULL, NULL, offsetof(vf_camchain_cam, nintrinsics)},
    {VF_KEY("distortion_model", VF_YAML_ENUM, distortion), 0, 0, 0, 0, 1, vf_camchain_distortions,
     vf_camchain_distortion_values, NULL, 0},
    {VF_KEY("distortion_coeffs", VF_YAML_DOUBLES, coeffs), -1e3, 1e3, 0, VF_CAMCHAIN_WIDE, 0, NULL,
     NULL, NULL, offsetof(vf_camchain_cam, ncoeffs)},
    {VF_KEY("resolution", VF_YAML_INTS, resolution), 1, 32768, 2, 2, 1, NULL, NULL, NULL, 0},
    {VF_KEY("T_cam_imu", VF_YAML_CUSTOM, T_cam_imu), 0, 0, 0, 0, 0, NULL, NULL,
     vf_yaml_read_transform, 0},
    {VF_KEY("T_cn_cnm1", VF_YAML_CUSTOM, T_cn_cnm1), 0, 0, 0, 0, 0, NULL, NULL,
     vf_yaml_read_transform, 0},
    {VF_KEY("timeshift_cam_imu", VF_YAML_DOUBLE, timeshift_s), -60, 60, 0, 0, 0, NULL, NULL, NULL,
     0},
    {VF_KEY("cam_overlaps", VF_YAML_INTS, overlaps), 0, VF_RIG_MAX_CAMERAS - 1, 0,
     VF_RIG_MAX_CAMERAS, 0, NULL, NULL, NULL, offsetof(vf_camchain_cam, noverlaps)},
    /* The ROS topic of the recording: meaningless here, and in every file Kalibr writes. */
    {VF_KEY("rostopic", VF_YAML_IGNORED, model), 0, 0, 0, 0, 0, NULL, NULL, NULL, 0},
};
enum { VF_KEY_T_CAM_IMU = 5, VF_KEY_T_CN_CNM1 = 6 };

/* A key's value node, or the mapping when the key is absent (for the line of a message). */
static yaml_node_t* vf_camchain_at(vf_yaml* y, yaml_node_t* map, const char* key) {
  yaml_node_t* n = vf_yaml_find(y, map, key);
  return n != NULL ? n : map;
}

/* Camera i's mapping into c->cam[i]: its keys, then the counts and values that depend on each
 * other. */
static vf_status vf_camchain_read_camera(vf_yaml* y, vf_camchain* c, int i) {
  vf_camchain_cam* cam = &c->cam[i];
  yaml_node_t* map = c->node[i];
  char section[16], w[64];
  snprintf(section, sizeof section, "cam%d", i);
  unsigned seen = 0;
  vf_status s =
      vf_yaml_read_map(y, map, section, vf_camchain_keys,
                       (int)(sizeof vf_camchain_keys / sizeof vf_camchain_keys[0]), cam, &seen);
  if (s != VF_OK) return s;
  cam->has_T_cam_imu = (seen >> VF_KEY_T_CAM_IMU) & 1u;
  cam->has_T_cn_cnm1 = (seen >> VF_KEY_T_CN_CNM1) & 1u;
  static const char* const modelled[] = {"camera_model", "distortion_model"};
  for (int k = 0; k < 2; ++k) {
    if ((k ? cam->distortion : cam->model) == VF_CAMCHAIN_UNSUPPORTED) {
      yaml_node_t* n = vf_yaml_find(y, map, modelled[k]);
      snprintf(w, sizeof w, "%s.%s", section, modelled[k]);
      return vf_yaml_fail(y, n, VF_ERR_UNSUPPORTED, w, "Kalibr's '%s' is not supported (%s)",
                          vf_yaml_scalar(n), k ? "radtan, equidistant or none" : "pinhole only");
    }
  }
  if (cam->nintrinsics != 4) {
    snprintf(w, sizeof w, "%s.intrinsics", section);
    return vf_yaml_fail(y, vf_camchain_at(y, map, "intrinsics"), VF_ERR_FORMAT, w,
                        "needs 4 numbers (fu, fv, pu, pv), got %d", cam->nintrinsics);
  }
  if (!(cam->intrinsics[0] > 0 && cam->intrinsics[1] > 0)) {
    snprintf(w, sizeof w, "%s.intrinsics", section);
    return vf_yaml_fail(y, vf_camchain_at(y, map, "intrinsics"), VF_ERR_FORMAT, w,
                        "focal lengths fu, fv must be > 0");
  }
  const int need = cam->distortion == VF_DISTORTION_NONE ? 0 : 4;
  if (cam->ncoeffs != need) {
    snprintf(w, sizeof w, "%s.distortion_coeffs", section);
    return vf_yaml_fail(
        y, vf_camchain_at(y, map, "distortion_coeffs"), VF_ERR_FORMAT, w,
        "needs %d numbers for distortion_model %s, got %d", need,
        need ? (cam->distortion == VF_DISTORTION_RADTAN ? "radtan" : "equidistant") : "none",
        cam->ncoeffs);
  }
  if (i == 0 && cam->has_T_cn_cnm1) {
    return vf_yaml_fail(y, vf_camchain_at(y, map, "T_cn_cnm1"), VF_ERR_FORMAT, "cam0.T_cn_cnm1",
                        "cam0 has no previous camera");
  }
  for (int k = 0; k < cam->noverlaps; ++k) {
    const int j = cam->overlaps[k];
    snprintf(w, sizeof w, "%s.cam_overlaps", section);
    if (j == i) {
      return vf_yaml_fail(y, vf_camchain_at(y, map, "cam_overlaps"), VF_ERR_FORMAT, w,
                          "lists the camera itself (%d)", j);
    }
    if (j >= c->count) {
      return vf_yaml_fail(y, vf_camchain_at(y, map, "cam_overlaps"), VF_ERR_FORMAT, w,
                          "camera %d is not in the file (%d cameras)", j, c->count);
    }
  }
  return VF_OK;
}

/* The index of a top-level key "cam<N>" (N without leading zeros), or -1 for another key. */
static int vf_camchain_index(const char* key) {
  if (strncmp(key, "cam", 3) != 0 || key[3] < '0' || key[3] > '9') return -1;
  if (key[3] == '0' && key[4] != '\0') return -1;
  char* end = NULL;
  long v = strtol(key + 3, &end, 10);
  return *end == '\0' && v < 1000000 ? (int)v : -1;
}

/* The root's keys: camera mappings by index, stereo_pairs; others warned about. */
static vf_status vf_camchain_sort_keys(vf_yaml* y, yaml_node_t* root, vf_camchain* c) {
  if (root == NULL || root->type != YAML_MAPPING_NODE) {
    return vf_yaml_fail(y, root, VF_ERR_FORMAT, "",
                        "expected a mapping of cameras cam0, cam1, ...");
  }
  for (yaml_node_pair_t* p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
       ++p) {
    yaml_node_t* kn = vf_yaml_node(y, p->key);
    const char* key = vf_yaml_scalar(kn);
    if (key == NULL) return vf_yaml_fail(y, kn, VF_ERR_FORMAT, "", "a key is not a string");
    const int i = vf_camchain_index(key);
    yaml_node_t** slot = i >= 0 && i < VF_RIG_MAX_CAMERAS   ? &c->node[i]
                         : strcmp(key, "stereo_pairs") == 0 ? &c->pairs
                                                            : NULL;
    if (i >= VF_RIG_MAX_CAMERAS) {
      return vf_yaml_fail(y, kn, VF_ERR_FORMAT, key, "a rig holds at most %d cameras (cam0..cam%d)",
                          VF_RIG_MAX_CAMERAS, VF_RIG_MAX_CAMERAS - 1);
    }
    if (slot == NULL) {
      vf_log(y->log, VF_LOG_WARN, "%s:%d: unknown key '%s' ignored", y->name, vf_yaml_line(kn),
             key);
      continue;
    }
    if (*slot != NULL) return vf_yaml_fail(y, kn, VF_ERR_FORMAT, key, "key appears twice");
    *slot = vf_yaml_node(y, p->value);
    if (slot != &c->pairs) c->key[i] = kn;
    if (i >= c->count) c->count = i + 1;
  }
  if (c->count == 0) {
    return vf_yaml_fail(y, root, VF_ERR_FORMAT, "", "no cameras (keys cam0, cam1, ...)");
  }
  for (int i = 0; i < c->count; ++i) {
    if (c->node[i] == NULL) {
      char w[16];
      snprintf(w, sizeof w, "cam%d", i);
      return vf_yaml_fail(y, root, VF_ERR_FORMAT, w,
                          "missing: cameras are numbered cam0..cam%d without gaps", c->count - 1);
    }
  }
  return VF_OK;
}

/* Our stereo_pairs: a list of [left, right] camera indices, each checked as vf_rig_add_pair. */
static vf_status vf_camchain_read_pairs(vf_yaml* y, yaml_node_t* n, vf_rig* rig) {
  if (n->type != YAML_SEQUENCE_NODE) {
    return vf_yaml_fail(y, n, VF_ERR_FORMAT, "stereo_pairs", "expected a list of [left, right]");
  }
  const int count = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
  for (int p = 0; p < count; ++p) {
    yaml_node_t* item = vf_yaml_node(y, n->data.sequence.items.start[p]);
    char w[32], msg[256];
    snprintf(w, sizeof w, "stereo_pairs[%d]", p);
    double lr[2];
    vf_status s = vf_yaml_read_numbers(y, item, w, lr, 2, 2, NULL);
    if (s != VF_OK) return s;
    if (lr[0] != floor(lr[0]) || lr[1] != floor(lr[1]) || fabs(lr[0]) > 1e6 || fabs(lr[1]) > 1e6) {
      return vf_yaml_fail(y, item, VF_ERR_FORMAT, w, "expected camera indices");
    }
    if (vf_rig_pair_problem(rig, rig->pair_count, (int)lr[0], (int)lr[1], msg, sizeof msg)) {
      return vf_yaml_fail(y, item, VF_ERR_FORMAT, w, "%s", msg);
    }
    rig->pairs[rig->pair_count].left = (int)lr[0];
    rig->pairs[rig->pair_count].right = (int)lr[1];
    rig->pair_count++;
  }
  return VF_OK;
}

/* The whole document into *out (untouched on failure). */
static vf_status vf_camchain_read(vf_yaml* y, vf_rig* out) {
  vf_camchain c;
  memset(&c, 0, sizeof c);
  vf_status s = vf_camchain_sort_keys(y, vf_yaml_root(y), &c);
  for (int i = 0; s == VF_OK && i < c.count; ++i) s = vf_camchain_read_camera(y, &c, i);
  double T_BS[VF_RIG_MAX_CAMERAS][16];
  int imu = 0;
  if (s == VF_OK) s = vf_camchain_poses(y, &c, T_BS, &imu);
  if (s != VF_OK) return s;
  vf_rig rig = vf_rig_default();
  rig.imu_extrinsics = imu;
  for (int i = 0; i < c.count; ++i) {
    const vf_camchain_cam* cc = &c.cam[i];
    vf_camera cam = vf_camera_default();
    cam.width = cc->resolution[0];
    cam.height = cc->resolution[1];
    cam.fx = cc->intrinsics[0];
    cam.fy = cc->intrinsics[1];
    cam.cx = cc->intrinsics[2];
    cam.cy = cc->intrinsics[3];
    cam.distortion = (vf_distortion_model)cc->distortion;
    memcpy(cam.k, cc->coeffs, 4 * sizeof(double));
    memcpy(cam.T_BS, T_BS[i], sizeof cam.T_BS);
    cam.rate_hz = 0.0; /* a camchain has no frame rate */
    char name[16];
    snprintf(name, sizeof name, "cam%d", i);
    if (vf_rig_add_camera(&rig, name, &cam) != VF_OK) {
      return vf_yaml_fail(y, c.key[i], VF_ERR_FORMAT, name, "%s", vf_last_error_message());
    }
    rig.timeshift_s[i] = cc->timeshift_s;
    for (int k = 0; k < cc->noverlaps; ++k) rig.overlaps[i] |= 1u << cc->overlaps[k];
  }
  if (c.pairs != NULL) s = vf_camchain_read_pairs(y, c.pairs, &rig);
  if (s == VF_OK) *out = rig;
  return s;
}

static vf_status vf_camchain_finish(vf_yaml* y, vf_status loaded, vf_rig* out) {
  if (loaded != VF_OK) return loaded;
  vf_status s = vf_camchain_read(y, out);
  vf_yaml_free(y);
  return s;
}

vf_status vf_rig_load_camchain(const char* path, const vf_context* log, vf_rig* out) {
  if (out == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_rig_load_camchain: out is NULL");
  vf_yaml y;
  return vf_camchain_finish(&y, vf_yaml_load_file(&y, path, log), out);
}

vf_status vf_rig_parse_camchain(const char* text, size_t size, const char* name,
                                const vf_context* log, vf_rig* out) {
  if (out == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_rig_parse_camchain: out is NULL");
  vf_yaml y;
  return vf_camchain_finish(&y, vf_yaml_load_text(&y, text, size, name, log), out);
}

// SPDX-License-Identifier: BSD-3-Clause
/* EuRoC sensor.yaml files (ASL dataset format, also written by Kalibr's tools): camera
 * (T_BS, rate_hz, resolution, camera_model, intrinsics, distortion_model,
 * distortion_coefficients) and IMU (T_BS, rate_hz, noise densities and random walks). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "geometry/vf_rectify_math.h"
#include "io/vf_yaml.h"
#include "viofront/vf_config.h"

#define VF_KEY(name, type, st, field) name, type, offsetof(st, field)
#define VF_ANY -1e300, 1e300

typedef struct vf_matrix_yaml {
  int rows, cols;
  double data[16];
} vf_matrix_yaml;

vf_status vf_yaml_read_transform(vf_yaml* y, yaml_node_t* n, const char* where, void* field) {
  static const vf_yaml_key keys[] = {
      {VF_KEY("rows", VF_YAML_INT, vf_matrix_yaml, rows), 4, 4, 0, 0, 1, NULL, NULL, NULL, 0},
      {VF_KEY("cols", VF_YAML_INT, vf_matrix_yaml, cols), 4, 4, 0, 0, 1, NULL, NULL, NULL, 0},
      {VF_KEY("data", VF_YAML_DOUBLES, vf_matrix_yaml, data), VF_ANY, 16, 16, 1, NULL, NULL, NULL,
       0},
      {VF_KEY("dt", VF_YAML_IGNORED, vf_matrix_yaml, rows), 0, 0, 0, 0, 0, NULL, NULL, NULL, 0},
  };
  double* T = field;
  vf_status s = VF_OK;
  if (n->type == YAML_MAPPING_NODE) {
    vf_matrix_yaml m;
    s = vf_yaml_read_map(y, n, where, keys, 4, &m, NULL);
    if (s == VF_OK) memcpy(T, m.data, sizeof m.data);
  } else if (n->type == YAML_SEQUENCE_NODE &&
             n->data.sequence.items.top > n->data.sequence.items.start &&
             vf_yaml_node(y, n->data.sequence.items.start[0])->type == YAML_SEQUENCE_NODE) {
    int rows = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (rows != 4) return vf_yaml_fail(y, n, VF_ERR_FORMAT, where, "needs 4 rows, got %d", rows);
    for (int r = 0; r < 4 && s == VF_OK; ++r) {
      char w[200];
      snprintf(w, sizeof w, "%s[%d]", where, r);
      s = vf_yaml_read_numbers(y, vf_yaml_node(y, n->data.sequence.items.start[r]), w, T + 4 * r, 4,
                               4, NULL);
    }
  } else {
    s = vf_yaml_read_numbers(y, n, where, T, 16, 16, NULL);
  }
  if (s != VF_OK) return s;
  if (vf_rigid_check(T, "transform") != VF_OK) {
    return vf_yaml_fail(y, n, VF_ERR_FORMAT, where, "%s", vf_last_error_message());
  }
  return VF_OK;
}

typedef struct vf_camera_yaml {
  char sensor_type[32];
  double T_BS[16];
  double rate_hz;
  double resolution[2];
  int camera_model;
  double intrinsics[4];
  int distortion_model;
  double coeffs[5];
  int ncoeffs;
} vf_camera_yaml;

static const char* const vf_camera_models[] = {"pinhole", NULL};
static const char* const vf_distortion_names[] = {
    "radial-tangential", "radtan", "equidistant", "equi", "none", NULL};
static const int vf_distortion_values[] = {VF_DISTORTION_RADTAN, VF_DISTORTION_RADTAN,
                                           VF_DISTORTION_EQUIDISTANT, VF_DISTORTION_EQUIDISTANT,
                                           VF_DISTORTION_NONE};

static const vf_yaml_key vf_camera_keys[] = {
    {VF_KEY("sensor_type", VF_YAML_STRING, vf_camera_yaml, sensor_type), 0, 0, 0, 32, 0, NULL, NULL,
     NULL, 0},
    {VF_KEY("comment", VF_YAML_IGNORED, vf_camera_yaml, rate_hz), 0, 0, 0, 0, 0, NULL, NULL, NULL,
     0},
    {VF_KEY("T_BS", VF_YAML_CUSTOM, vf_camera_yaml, T_BS), 0, 0, 0, 0, 1, NULL, NULL,
     vf_yaml_read_transform, 0},
    {VF_KEY("rate_hz", VF_YAML_DOUBLE, vf_camera_yaml, rate_hz), 0, 1e6, 0, 0, 0, NULL, NULL, NULL,
     0},
    {VF_KEY("resolution", VF_YAML_DOUBLES, vf_camera_yaml, resolution), 1, 32768, 2, 2, 1, NULL,
     NULL, NULL, 0},
    {VF_KEY("camera_model", VF_YAML_ENUM, vf_camera_yaml, camera_model), 0, 0, 0, 0, 1,
     vf_camera_models, NULL, NULL, 0},
    {VF_KEY("intrinsics", VF_YAML_DOUBLES, vf_camera_yaml, intrinsics), -1e6, 1e6, 4, 4, 1, NULL,
     NULL, NULL, 0},
    {VF_KEY("distortion_model", VF_YAML_ENUM, vf_camera_yaml, distortion_model), 0, 0, 0, 0, 1,
     vf_distortion_names, vf_distortion_values, NULL, 0},
    {VF_KEY("distortion_coefficients", VF_YAML_DOUBLES, vf_camera_yaml, coeffs), -1e3, 1e3, 0, 5, 1,
     NULL, NULL, NULL, offsetof(vf_camera_yaml, ncoeffs)},
};

/* Where a key's value is, for messages about combinations of keys. */
static const yaml_node_t* vf_at(vf_yaml* y, yaml_node_t* map, const char* key) {
  const yaml_node_t* n = vf_yaml_find(y, map, key);
  return n != NULL ? n : map;
}

static void vf_where(char* buf, size_t size, const char* section, const char* key) {
  snprintf(buf, size, "%s%s%s", section, section[0] ? "." : "", key);
}

vf_status vf_yaml_read_camera(vf_yaml* y, yaml_node_t* map, const char* section, vf_camera* out) {
  vf_camera_yaml c;
  memset(&c, 0, sizeof c);
  vf_status s = vf_yaml_read_map(y, map, section, vf_camera_keys,
                                 (int)(sizeof vf_camera_keys / sizeof vf_camera_keys[0]), &c, NULL);
  if (s != VF_OK) return s;
  char w[256];
  if (c.sensor_type[0] != '\0' && strcmp(c.sensor_type, "camera") != 0) {
    vf_where(w, sizeof w, section, "sensor_type");
    return vf_yaml_fail(y, vf_at(y, map, "sensor_type"), VF_ERR_FORMAT, w, "'%s' is not a camera",
                        c.sensor_type);
  }
  if (c.resolution[0] != floor(c.resolution[0]) || c.resolution[1] != floor(c.resolution[1])) {
    vf_where(w, sizeof w, section, "resolution");
    return vf_yaml_fail(y, vf_at(y, map, "resolution"), VF_ERR_FORMAT, w,
                        "width and height must be whole numbers");
  }
  if (!(c.intrinsics[0] > 0 && c.intrinsics[1] > 0)) {
    vf_where(w, sizeof w, section, "intrinsics");
    return vf_yaml_fail(y, vf_at(y, map, "intrinsics"), VF_ERR_FORMAT, w,
                        "focal lengths fu, fv must be > 0");
  }
  int need_min = 4, need_max = 4;
  if (c.distortion_model == VF_DISTORTION_RADTAN) need_max = 5;
  if (c.distortion_model == VF_DISTORTION_NONE) need_min = 0;
  if (c.ncoeffs < need_min || c.ncoeffs > need_max) {
    vf_where(w, sizeof w, section, "distortion_coefficients");
    return vf_yaml_fail(y, vf_at(y, map, "distortion_coefficients"), VF_ERR_FORMAT, w,
                        "%d coefficients do not fit the distortion model", c.ncoeffs);
  }
  vf_camera cam = vf_camera_default();
  cam.width = (int)c.resolution[0];
  cam.height = (int)c.resolution[1];
  cam.fx = c.intrinsics[0];
  cam.fy = c.intrinsics[1];
  cam.cx = c.intrinsics[2];
  cam.cy = c.intrinsics[3];
  cam.distortion = (vf_distortion_model)c.distortion_model;
  memcpy(cam.k, c.coeffs, sizeof cam.k);
  memcpy(cam.T_BS, c.T_BS, sizeof cam.T_BS);
  cam.rate_hz = c.rate_hz;
  if (vf_camera_check(&cam) != VF_OK) {
    return vf_yaml_fail(y, map, VF_ERR_FORMAT, section, "%s", vf_last_error_message());
  }
  *out = cam;
  return VF_OK;
}

typedef struct vf_imu_yaml {
  char sensor_type[32];
  vf_imu_calib calib;
} vf_imu_yaml;

static const vf_yaml_key vf_imu_keys[] = {
    {VF_KEY("sensor_type", VF_YAML_STRING, vf_imu_yaml, sensor_type), 0, 0, 0, 32, 0, NULL, NULL,
     NULL, 0},
    {VF_KEY("comment", VF_YAML_IGNORED, vf_imu_yaml, calib), 0, 0, 0, 0, 0, NULL, NULL, NULL, 0},
    {VF_KEY("T_BS", VF_YAML_CUSTOM, vf_imu_yaml, calib.T_BS), 0, 0, 0, 0, 1, NULL, NULL,
     vf_yaml_read_transform, 0},
    {VF_KEY("rate_hz", VF_YAML_DOUBLE, vf_imu_yaml, calib.rate_hz), 1e-3, 1e6, 0, 0, 1, NULL, NULL,
     NULL, 0},
    {VF_KEY("gyroscope_noise_density", VF_YAML_DOUBLE, vf_imu_yaml, calib.gyro_noise_density), 0,
     1e3, 0, 0, 1, NULL, NULL, NULL, 0},
    {VF_KEY("gyroscope_random_walk", VF_YAML_DOUBLE, vf_imu_yaml, calib.gyro_random_walk), 0, 1e3,
     0, 0, 1, NULL, NULL, NULL, 0},
    {VF_KEY("accelerometer_noise_density", VF_YAML_DOUBLE, vf_imu_yaml, calib.acc_noise_density), 0,
     1e3, 0, 0, 1, NULL, NULL, NULL, 0},
    {VF_KEY("accelerometer_random_walk", VF_YAML_DOUBLE, vf_imu_yaml, calib.acc_random_walk), 0,
     1e3, 0, 0, 1, NULL, NULL, NULL, 0},
};

vf_status vf_yaml_read_imu(vf_yaml* y, yaml_node_t* map, const char* section, vf_imu_calib* out) {
  vf_imu_yaml c;
  memset(&c, 0, sizeof c);
  vf_status s = vf_yaml_read_map(y, map, section, vf_imu_keys,
                                 (int)(sizeof vf_imu_keys / sizeof vf_imu_keys[0]), &c, NULL);
  if (s != VF_OK) return s;
  if (c.sensor_type[0] != '\0' && strcmp(c.sensor_type, "imu") != 0) {
    char w[256];
    vf_where(w, sizeof w, section, "sensor_type");
    return vf_yaml_fail(y, vf_at(y, map, "sensor_type"), VF_ERR_FORMAT, w, "'%s' is not an imu",
                        c.sensor_type);
  }
  *out = c.calib;
  return VF_OK;
}

/* Loads a document (file or text), reads its root as a camera or IMU. */
typedef vf_status (*vf_sensor_reader)(vf_yaml* y, yaml_node_t* map, const char* section, void* out);

static vf_status vf_read_camera_any(vf_yaml* y, yaml_node_t* map, const char* section, void* out) {
  return vf_yaml_read_camera(y, map, section, out);
}

static vf_status vf_read_imu_any(vf_yaml* y, yaml_node_t* map, const char* section, void* out) {
  return vf_yaml_read_imu(y, map, section, out);
}

static vf_status vf_sensor_finish(vf_yaml* y, vf_status loaded, vf_sensor_reader read, void* out) {
  if (loaded != VF_OK) return loaded;
  vf_status s = read(y, vf_yaml_root(y), "", out);
  vf_yaml_free(y);
  return s;
}

vf_status vf_sensor_yaml_read_camera(const char* path, const vf_context* log, vf_camera* out) {
  if (out == NULL)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_sensor_yaml_read_camera: out is NULL");
  vf_yaml y;
  return vf_sensor_finish(&y, vf_yaml_load_file(&y, path, log), vf_read_camera_any, out);
}

vf_status vf_sensor_yaml_parse_camera(const char* text, size_t size, const char* name,
                                      const vf_context* log, vf_camera* out) {
  if (out == NULL)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_sensor_yaml_parse_camera: out is NULL");
  vf_yaml y;
  return vf_sensor_finish(&y, vf_yaml_load_text(&y, text, size, name, log), vf_read_camera_any,
                          out);
}

vf_status vf_sensor_yaml_read_imu(const char* path, const vf_context* log, vf_imu_calib* out) {
  if (out == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_sensor_yaml_read_imu: out is NULL");
  vf_yaml y;
  return vf_sensor_finish(&y, vf_yaml_load_file(&y, path, log), vf_read_imu_any, out);
}

vf_status vf_sensor_yaml_parse_imu(const char* text, size_t size, const char* name,
                                   const vf_context* log, vf_imu_calib* out) {
  if (out == NULL)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_sensor_yaml_parse_imu: out is NULL");
  vf_yaml y;
  return vf_sensor_finish(&y, vf_yaml_load_text(&y, text, size, name, log), vf_read_imu_any, out);
}

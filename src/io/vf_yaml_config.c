// SPDX-License-Identifier: BSD-3-Clause
/* viofront's YAML config: a table of sections, each read by its own schema over the defaults.
 * Stage sections of later issues join the table with their schema (see vf_config.h). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "io/vf_yaml.h"
#include "io/vf_yaml_stages.h"
#include "viofront/vf_config.h"

#define VF_KEY(name, type, st, field) name, type, offsetof(st, field)

vf_config vf_config_default(void) {
  vf_config c;
  memset(&c, 0, sizeof c);
  c.context = vf_context_config_default();
  for (int i = 0; i < VF_CONFIG_MAX_CAMERAS; ++i) c.cameras[i] = vf_camera_default();
  c.rectify = vf_rectify_config_default();
  c.pyramid = vf_pyramid_config_default();
  c.dataset = vf_euroc_config_default();
  c.frontend = vf_frontend_config_default();
  /* The top-level rectify and pyramid sections feed the frontend: same defaults. */
  c.rectify = c.frontend.rectify;
  c.pyramid.levels = c.frontend.pyramid_levels;
  return c;
}

typedef struct vf_config_reader {
  vf_yaml* y;
  const char* base_dir;
  vf_config* cfg;
} vf_config_reader;

static const char* const vf_backend_names[] = {"auto", "cpu", "cuda", NULL};
static const int vf_backend_values[] = {VF_BACKEND_AUTO, VF_BACKEND_CPU, VF_BACKEND_CUDA};
static const char* const vf_level_names[] = {"silent", "error", "warn", "info", "debug", NULL};
static const int vf_level_values[] = {VF_LOG_SILENT, VF_LOG_ERROR, VF_LOG_WARN, VF_LOG_INFO,
                                      VF_LOG_DEBUG};
static const char* const vf_focal_names[] = {"opencv4", "opencv2", NULL};
static const int vf_focal_values[] = {VF_RECTIFY_FOCAL_OPENCV4, VF_RECTIFY_FOCAL_OPENCV2};

static vf_status vf_read_context(vf_config_reader* r, yaml_node_t* n) {
  static const vf_yaml_key keys[] = {
      {VF_KEY("backend", VF_YAML_ENUM, vf_context_config, backend), 0, 0, 0, 0, 0, vf_backend_names,
       vf_backend_values, NULL, 0},
      {VF_KEY("cuda_device", VF_YAML_INT, vf_context_config, cuda_device), 0, 64, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("cpu_threads", VF_YAML_INT, vf_context_config, cpu_threads), 0, 1024, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("log_level", VF_YAML_ENUM, vf_context_config, log_level), 0, 0, 0, 0, 0,
       vf_level_names, vf_level_values, NULL, 0},
  };
  return vf_yaml_read_map(r->y, n, "context", keys, 4, &r->cfg->context, NULL);
}

static vf_status vf_read_rectify(vf_config_reader* r, yaml_node_t* n) {
  static const vf_yaml_key keys[] = {
      {VF_KEY("alpha", VF_YAML_DOUBLE, vf_rectify_config, alpha), -1, 1, 0, 0, 0, NULL, NULL, NULL,
       0},
      {VF_KEY("focal_rule", VF_YAML_ENUM, vf_rectify_config, focal_rule), 0, 0, 0, 0, 0,
       vf_focal_names, vf_focal_values, NULL, 0},
      {VF_KEY("out_width", VF_YAML_INT, vf_rectify_config, out_width), 0, 32768, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("out_height", VF_YAML_INT, vf_rectify_config, out_height), 0, 32768, 0, 0, 0, NULL,
       NULL, NULL, 0},
  };
  vf_status s = vf_yaml_read_map(r->y, n, "rectify", keys, 4, &r->cfg->rectify, NULL);
  if (s == VF_OK && (r->cfg->rectify.out_width == 0) != (r->cfg->rectify.out_height == 0)) {
    return vf_yaml_fail(r->y, n, VF_ERR_FORMAT, "rectify", "out_width and out_height go together");
  }
  return s;
}

static vf_status vf_read_pyramid(vf_config_reader* r, yaml_node_t* n) {
  static const vf_yaml_key keys[] = {
      {VF_KEY("levels", VF_YAML_INT, vf_pyramid_config, levels), 1, VF_PYRAMID_MAX_LEVELS, 0, 0, 0,
       NULL, NULL, NULL, 0},
  };
  return vf_yaml_read_map(r->y, n, "pyramid", keys, 1, &r->cfg->pyramid, NULL);
}

static vf_status vf_read_dataset(vf_config_reader* r, yaml_node_t* n) {
  static const vf_yaml_key keys[] = {
      {VF_KEY("stereo_tolerance_ns", VF_YAML_INT64, vf_euroc_config, stereo_tolerance_ns), 0, 1e9,
       0, 0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("prefetch", VF_YAML_INT, vf_euroc_config, prefetch), 0, 64, 0, 0, 0, NULL, NULL, NULL,
       0},
      {VF_KEY("decode_threads", VF_YAML_INT, vf_euroc_config, decode_threads), 0, 64, 0, 0, 0, NULL,
       NULL, NULL, 0},
  };
  return vf_yaml_read_map(r->y, n, "dataset", keys, 3, &r->cfg->dataset, NULL);
}

/* A sensor entry: either `sensor_yaml: <path>` alone (read from that file, relative to the
 * config's folder) or the sensor.yaml keys inline. */
static vf_status vf_read_sensor(vf_config_reader* r, yaml_node_t* n, const char* where, int imu,
                                void* out) {
  yaml_node_t* ref = vf_yaml_find(r->y, n, "sensor_yaml");
  if (ref == NULL) {
    return imu ? vf_yaml_read_imu(r->y, n, where, out) : vf_yaml_read_camera(r->y, n, where, out);
  }
  const char* rel = vf_yaml_scalar(ref);
  char w[256];
  snprintf(w, sizeof w, "%s.sensor_yaml", where);
  if (rel == NULL || rel[0] == '\0')
    return vf_yaml_fail(r->y, ref, VF_ERR_FORMAT, w, "expected a path");
  if (n->data.mapping.pairs.top - n->data.mapping.pairs.start != 1) {
    return vf_yaml_fail(r->y, n, VF_ERR_FORMAT, where,
                        "sensor_yaml cannot be mixed with other keys");
  }
  char path[1024];
  int len = rel[0] == '/' ? snprintf(path, sizeof path, "%s", rel)
                          : snprintf(path, sizeof path, "%s/%s", r->base_dir, rel);
  if (len < 0 || len >= (int)sizeof path)
    return vf_yaml_fail(r->y, ref, VF_ERR_FORMAT, w, "path too long");
  vf_yaml sub;
  vf_status s = vf_yaml_load_file(&sub, path, r->y->log);
  if (s != VF_OK) {
    return vf_yaml_fail(r->y, ref, s, w, "%s", vf_last_error_message());
  }
  s = imu ? vf_yaml_read_imu(&sub, vf_yaml_root(&sub), "", out)
          : vf_yaml_read_camera(&sub, vf_yaml_root(&sub), "", out);
  vf_yaml_free(&sub);
  return s;
}

static vf_status vf_read_cameras(vf_config_reader* r, yaml_node_t* n) {
  if (n->type != YAML_SEQUENCE_NODE) {
    return vf_yaml_fail(r->y, n, VF_ERR_FORMAT, "cameras", "expected a list of cameras");
  }
  int count = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
  if (count < 1 || count > VF_CONFIG_MAX_CAMERAS) {
    return vf_yaml_fail(r->y, n, VF_ERR_FORMAT, "cameras", "needs 1 or %d cameras, got %d",
                        VF_CONFIG_MAX_CAMERAS, count);
  }
  for (int i = 0; i < count; ++i) {
    char where[32];
    snprintf(where, sizeof where, "cameras[%d]", i);
    vf_status s = vf_read_sensor(r, vf_yaml_node(r->y, n->data.sequence.items.start[i]), where, 0,
                                 &r->cfg->cameras[i]);
    if (s != VF_OK) return s;
  }
  const vf_camera* c = r->cfg->cameras;
  if (count == 2 && (c[0].width != c[1].width || c[0].height != c[1].height)) {
    return vf_yaml_fail(r->y, n, VF_ERR_FORMAT, "cameras", "the two cameras differ in size");
  }
  r->cfg->camera_count = count;
  r->cfg->pyramid.width = c[0].width;
  r->cfg->pyramid.height = c[0].height;
  return VF_OK;
}

static vf_status vf_read_imu_section(vf_config_reader* r, yaml_node_t* n) {
  vf_status s = vf_read_sensor(r, n, "imu", 1, &r->cfg->imu);
  if (s == VF_OK) r->cfg->has_imu = 1;
  return s;
}

static vf_status vf_read_detector(vf_config_reader* r, yaml_node_t* n) {
  return vf_yaml_read_detector(r->y, n, &r->cfg->frontend.detector);
}
static vf_status vf_read_tracker(vf_config_reader* r, yaml_node_t* n) {
  return vf_yaml_read_tracker(r->y, n, &r->cfg->frontend.tracker);
}
static vf_status vf_read_stereo(vf_config_reader* r, yaml_node_t* n) {
  return vf_yaml_read_stereo(r->y, n, &r->cfg->frontend.stereo);
}
static vf_status vf_read_features(vf_config_reader* r, yaml_node_t* n) {
  return vf_yaml_read_features(r->y, n, &r->cfg->frontend.features);
}
static vf_status vf_read_frontend(vf_config_reader* r, yaml_node_t* n) {
  return vf_yaml_read_frontend(r->y, n, &r->cfg->frontend);
}

typedef struct vf_config_section {
  const char* name;
  vf_status (*read)(vf_config_reader* r, yaml_node_t* n);
} vf_config_section;

static const vf_config_section vf_sections[] = {
    {"context", vf_read_context},   {"cameras", vf_read_cameras},   {"imu", vf_read_imu_section},
    {"rectify", vf_read_rectify},   {"pyramid", vf_read_pyramid},   {"dataset", vf_read_dataset},
    {"detector", vf_read_detector}, {"tracker", vf_read_tracker},   {"stereo", vf_read_stereo},
    {"features", vf_read_features}, {"frontend", vf_read_frontend},
};

static vf_status vf_config_read(vf_yaml* y, const char* base_dir, vf_config* out) {
  vf_config cfg = vf_config_default();
  vf_config_reader r = {y, base_dir != NULL ? base_dir : ".", &cfg};
  yaml_node_t* root = vf_yaml_root(y);
  if (root == NULL) {
    *out = cfg; /* an empty file: every default */
    return VF_OK;
  }
  if (root->type != YAML_MAPPING_NODE) {
    return vf_yaml_fail(y, root, VF_ERR_FORMAT, "", "expected a mapping of sections");
  }
  const int nsec = (int)(sizeof vf_sections / sizeof vf_sections[0]);
  unsigned seen = 0;
  for (yaml_node_pair_t* p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
       ++p) {
    yaml_node_t* kn = vf_yaml_node(y, p->key);
    const char* name = vf_yaml_scalar(kn);
    int found = -1;
    for (int i = 0; name != NULL && i < nsec && found < 0; ++i) {
      found = strcmp(vf_sections[i].name, name) == 0 ? i : -1;
    }
    if (found < 0) {
      vf_log(y->log, VF_LOG_WARN, "%s:%d: unknown section '%s' ignored", y->name, vf_yaml_line(kn),
             name != NULL ? name : "(not a string)");
      continue;
    }
    if (seen & (1u << found))
      return vf_yaml_fail(y, kn, VF_ERR_FORMAT, name, "section appears twice");
    seen |= 1u << found;
    vf_status s = vf_sections[found].read(&r, vf_yaml_node(y, p->value));
    if (s != VF_OK) return s;
  }
  *out = cfg;
  return VF_OK;
}

vf_status vf_config_parse(const char* text, size_t size, const char* name, const char* base_dir,
                          const vf_context* log, vf_config* out) {
  if (out == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_config_parse: out is NULL");
  vf_yaml y;
  vf_status s = vf_yaml_load_text(&y, text, size, name, log);
  if (s != VF_OK) return s;
  s = vf_config_read(&y, base_dir, out);
  vf_yaml_free(&y);
  return s;
}

vf_status vf_config_load(const char* path, const vf_context* log, vf_config* out) {
  if (out == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_config_load: out is NULL");
  vf_yaml y;
  vf_status s = vf_yaml_load_file(&y, path, log);
  if (s != VF_OK) return s;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", path);
  char* slash = strrchr(dir, '/');
  if (slash != NULL) {
    *slash = '\0';
    if (dir[0] == '\0') snprintf(dir, sizeof dir, "/");
  } else {
    snprintf(dir, sizeof dir, ".");
  }
  s = vf_config_read(&y, dir, out);
  vf_yaml_free(&y);
  return s;
}

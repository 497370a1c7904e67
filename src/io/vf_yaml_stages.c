// SPDX-License-Identifier: BSD-3-Clause
/* The stage sections of a viofront config file. Ranges here are those of the YAML file; the
 * stages' create functions check the combinations (e.g. levels against the pyramid). */
#include <stddef.h>
#include <string.h>

#include "io/vf_yaml_stages.h"

#define VF_KEY(name, type, st, field) name, type, offsetof(st, field)
#define VF_N(keys) ((int)(sizeof keys / sizeof keys[0]))

static const char* const vf_score_names[] = {"sad_circle", "sad_arc", "max_threshold", NULL};

vf_status vf_yaml_read_detector(vf_yaml* y, yaml_node_t* n, vf_detector_config* out) {
  static const vf_yaml_key keys[] = {
      {VF_KEY("threshold", VF_YAML_INT, vf_detector_config, threshold), 1, 254, 0, 0, 0, NULL, NULL,
       NULL, 0},
      {VF_KEY("arc_length", VF_YAML_INT, vf_detector_config, arc_length), 9, 12, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("score", VF_YAML_ENUM, vf_detector_config, score), 0, 0, 0, 0, 0, vf_score_names,
       NULL, NULL, 0},
      {VF_KEY("border", VF_YAML_INT, vf_detector_config, border), 3, 1000, 0, 0, 0, NULL, NULL,
       NULL, 0},
      {VF_KEY("min_level", VF_YAML_INT, vf_detector_config, min_level), 0, 7, 0, 0, 0, NULL, NULL,
       NULL, 0},
      {VF_KEY("max_level", VF_YAML_INT, vf_detector_config, max_level), 0, 7, 0, 0, 0, NULL, NULL,
       NULL, 0},
      {VF_KEY("cell_width", VF_YAML_INT, vf_detector_config, cell_width), 32, 8192, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("cell_height", VF_YAML_INT, vf_detector_config, cell_height), 1, 8192, 0, 0, 0, NULL,
       NULL, NULL, 0},
  };
  return vf_yaml_read_map(y, n, "detector", keys, VF_N(keys), out, NULL);
}

static const char* const vf_template_names[] = {"previous_frame", "first_observation", NULL};

vf_status vf_yaml_read_tracker(vf_yaml* y, yaml_node_t* n, vf_tracker_config* out) {
  static const vf_yaml_key keys[] = {
      {VF_KEY("levels", VF_YAML_INT, vf_tracker_config, levels), 1, VF_PYRAMID_MAX_LEVELS, 0, 0, 0,
       NULL, NULL, NULL, 0},
      {VF_KEY("patch_sizes", VF_YAML_INTS, vf_tracker_config, patch_size), VF_TRACKER_MIN_PATCH,
       VF_TRACKER_MAX_PATCH, 1, VF_PYRAMID_MAX_LEVELS, 0, NULL, NULL, NULL, 0},
      {VF_KEY("max_iterations", VF_YAML_INT, vf_tracker_config, max_iterations), 1, 100, 0, 0, 0,
       NULL, NULL, NULL, 0},
      {VF_KEY("coarse_iterations", VF_YAML_INT, vf_tracker_config, coarse_iterations), 1, 100, 0, 0,
       0, NULL, NULL, NULL, 0},
      {VF_KEY("min_update", VF_YAML_FLOAT, vf_tracker_config, min_update), 0, 10, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("max_residual", VF_YAML_FLOAT, vf_tracker_config, max_residual), 0, 255, 0, 0, 0,
       NULL, NULL, NULL, 0},
      {VF_KEY("min_gain", VF_YAML_FLOAT, vf_tracker_config, min_gain), 0.01, 100, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("max_gain", VF_YAML_FLOAT, vf_tracker_config, max_gain), 0.01, 100, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("estimate_gain", VF_YAML_BOOL, vf_tracker_config, estimate_gain), 0, 0, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("estimate_bias", VF_YAML_BOOL, vf_tracker_config, estimate_bias), 0, 0, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("template", VF_YAML_ENUM, vf_tracker_config, template_mode), 0, 0, 0, 0, 0,
       vf_template_names, NULL, NULL, 0},
      {VF_KEY("refine", VF_YAML_BOOL, vf_tracker_config, refine), 0, 0, 0, 0, 0, NULL, NULL, NULL,
       0},
      {VF_KEY("refine_patch", VF_YAML_INT, vf_tracker_config, refine_patch),
       VF_TRACKER_MIN_REF_PATCH, VF_TRACKER_MAX_REF_PATCH, 0, 0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("refine_iterations", VF_YAML_INT, vf_tracker_config, refine_iterations), 1, 100, 0, 0,
       0, NULL, NULL, NULL, 0},
      {VF_KEY("refine_min_ncc", VF_YAML_FLOAT, vf_tracker_config, refine_min_ncc), 0, 0.999, 0, 0,
       0, NULL, NULL, NULL, 0},
      {VF_KEY("refine_max_scale", VF_YAML_FLOAT, vf_tracker_config, refine_max_scale), 1.001, 10, 0,
       0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("refine_max_shift", VF_YAML_FLOAT, vf_tracker_config, refine_max_shift), 0.01, 100, 0,
       0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("refine_shape_prior", VF_YAML_FLOAT, vf_tracker_config, refine_shape_prior), 0, 1000,
       0, 0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("refine_one_launch", VF_YAML_BOOL, vf_tracker_config, refine_one_launch), 0, 0, 0, 0,
       0, NULL, NULL, NULL, 0},
  };
  return vf_yaml_read_map(y, n, "tracker", keys, VF_N(keys), out, NULL);
}

static const char* const vf_method_names[] = {"sgm",  "zncc_fastdt",   "cyclops2",
                                              "hsgm", "census_fastdt", NULL};
static const char* const vf_census_names[] = {"cs_9x7", "full_9x7", NULL};

vf_status vf_yaml_read_stereo(vf_yaml* y, yaml_node_t* n, vf_stereo_config* out) {
  static const vf_yaml_key keys[] = {
      {VF_KEY("method", VF_YAML_ENUM, vf_stereo_config, method), 0, 0, 0, 0, 0, vf_method_names,
       NULL, NULL, 0},
      {VF_KEY("min_disparity", VF_YAML_INT, vf_stereo_config, min_disparity), 0, 3839, 0, 0, 0,
       NULL, NULL, NULL, 0},
      {VF_KEY("disparities", VF_YAML_INT, vf_stereo_config, disparities), 1, 4096, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("census", VF_YAML_ENUM, vf_stereo_config, census), 0, 0, 0, 0, 0, vf_census_names,
       NULL, NULL, 0},
      {VF_KEY("p1", VF_YAML_INT, vf_stereo_config, p1), 0, 255, 0, 0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("p2", VF_YAML_INT, vf_stereo_config, p2), 0, 255, 0, 0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("adaptive_p2", VF_YAML_BOOL, vf_stereo_config, adaptive_p2), 0, 0, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("paths", VF_YAML_INT, vf_stereo_config, paths), 2, 16, 0, 0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("uniqueness", VF_YAML_FLOAT, vf_stereo_config, uniqueness), 0, 1, 0, 0, 0, NULL, NULL,
       NULL, 0},
      {VF_KEY("lr_check", VF_YAML_BOOL, vf_stereo_config, lr_check), 0, 0, 0, 0, 0, NULL, NULL,
       NULL, 0},
      {VF_KEY("lr_max_diff", VF_YAML_INT, vf_stereo_config, lr_max_diff), 0, 255, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("subpixel", VF_YAML_BOOL, vf_stereo_config, subpixel), 0, 0, 0, 0, 0, NULL, NULL,
       NULL, 0},
      {VF_KEY("median", VF_YAML_BOOL, vf_stereo_config, median), 0, 0, 0, 0, 0, NULL, NULL, NULL,
       0},
  };
  return vf_yaml_read_map(y, n, "stereo", keys, VF_N(keys), out, NULL);
}

vf_status vf_yaml_read_features(vf_yaml* y, yaml_node_t* n, vf_feature_set_config* out) {
  static const vf_yaml_key keys[] = {
      {VF_KEY("max_features", VF_YAML_INT, vf_feature_set_config, max_features), 1, 1048576, 0, 0,
       0, NULL, NULL, NULL, 0},
      {VF_KEY("min_features", VF_YAML_INT, vf_feature_set_config, min_features), 0, 1048576, 0, 0,
       0, NULL, NULL, NULL, 0},
      {VF_KEY("detect_every", VF_YAML_INT, vf_feature_set_config, detect_every), 0, 1000000, 0, 0,
       0, NULL, NULL, NULL, 0},
      {VF_KEY("min_distance", VF_YAML_FLOAT, vf_feature_set_config, min_distance), 0, 1e4, 0, 0, 0,
       NULL, NULL, NULL, 0},
      {VF_KEY("border", VF_YAML_FLOAT, vf_feature_set_config, border), 0, 1e4, 0, 0, 0, NULL, NULL,
       NULL, 0},
      {VF_KEY("fb_threshold", VF_YAML_FLOAT, vf_feature_set_config, fb_threshold), 0, 1e4, 0, 0, 0,
       NULL, NULL, NULL, 0},
      {VF_KEY("fb_from_prediction", VF_YAML_BOOL, vf_feature_set_config, fb_from_prediction), 0, 0,
       0, 0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("start_radius", VF_YAML_FLOAT, vf_feature_set_config, start_radius), 0, 1000, 0, 0, 0,
       NULL, NULL, NULL, 0},
  };
  return vf_yaml_read_map(y, n, "features", keys, VF_N(keys), out, NULL);
}

static const char* const vf_memory_names[] = {"host", "device", NULL};

/* frontend.stereo: true | false | dense | sparse (dense is what true has always meant). */
static vf_status vf_read_stereo_mode(vf_yaml* y, yaml_node_t* node, const char* where,
                                     void* field) {
  vf_frontend_config* c =
      (vf_frontend_config*)(void*)((char*)field - offsetof(vf_frontend_config, stereo_enabled));
  const char* t = vf_yaml_scalar(node);
  if (t != NULL && (strcmp(t, "dense") == 0 || strcmp(t, "sparse") == 0)) {
    c->stereo_enabled = 1;
    c->stereo_mode = t[0] == 'd' ? VF_FRONTEND_STEREO_DENSE : VF_FRONTEND_STEREO_SPARSE;
    return VF_OK;
  }
  vf_status s = vf_yaml_bool(y, node, where, &c->stereo_enabled);
  if (s != VF_OK)
    return vf_yaml_fail(y, node, VF_ERR_FORMAT, where, "expected true, false, dense or sparse");
  return VF_OK;
}

vf_status vf_yaml_read_frontend(vf_yaml* y, yaml_node_t* n, vf_frontend_config* out) {
  static const vf_yaml_key keys[] = {
      {VF_KEY("stereo", VF_YAML_CUSTOM, vf_frontend_config, stereo_enabled), 0, 0, 0, 0, 0, NULL,
       NULL, vf_read_stereo_mode, 0},
      {VF_KEY("dense_every", VF_YAML_INT, vf_frontend_config, dense_every), 0, 1000000, 0, 0, 0,
       NULL, NULL, NULL, 0},
      {VF_KEY("sparse_edge_max_step", VF_YAML_FLOAT, vf_frontend_config, sparse_edge_max_step), 0,
       4096, 0, 0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("sparse_birth_max_loss", VF_YAML_FLOAT, vf_frontend_config, sparse_birth_max_loss), 0,
       1000, 0, 0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("sparse_prior_range", VF_YAML_INT, vf_frontend_config, sparse.prior_range), 1,
       VF_STEREO_MATCH_PRIOR_MAX, 0, 0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("sparse_search_radius", VF_YAML_INT, vf_frontend_config, sparse.search_radius), 1,
       VF_STEREO_MATCH_RADIUS_MAX, 0, 0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("sparse_uniqueness", VF_YAML_INT, vf_frontend_config, sparse.uniqueness), 0, 99, 0, 0,
       0, NULL, NULL, NULL, 0},
      {VF_KEY("sparse_max_lr_diff", VF_YAML_INT, vf_frontend_config, sparse.max_lr_diff), -1, 8, 0,
       0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("sparse_min_zncc", VF_YAML_FLOAT, vf_frontend_config, sparse.min_zncc), -1, 1, 0, 0,
       0, NULL, NULL, NULL, 0},
      {VF_KEY("right_features", VF_YAML_BOOL, vf_frontend_config, right_features), 0, 0, 0, 0, 0,
       NULL, NULL, NULL, 0},
      {VF_KEY("right_max_lr_diff", VF_YAML_FLOAT, vf_frontend_config, right_max_lr_diff), 0, 4096,
       0, 0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("edge_radius", VF_YAML_INT, vf_frontend_config, edge_radius), 0, 15, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("edge_max_jump", VF_YAML_FLOAT, vf_frontend_config, edge_max_jump), 0, 4096, 0, 0, 0,
       NULL, NULL, NULL, 0},
      {VF_KEY("birth_edge_radius", VF_YAML_INT, vf_frontend_config, birth_edge_radius), 0, 15, 0, 0,
       0, NULL, NULL, NULL, 0},
      {VF_KEY("birth_max_jump", VF_YAML_FLOAT, vf_frontend_config, birth_max_jump), 0, 4096, 0, 0,
       0, NULL, NULL, NULL, 0},
      {VF_KEY("birth_max_jump_ratio", VF_YAML_FLOAT, vf_frontend_config, birth_max_jump_ratio), 0,
       1, 0, 0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("birth_max_holes", VF_YAML_INT, vf_frontend_config, birth_max_holes), -1, 961, 0, 0,
       0, NULL, NULL, NULL, 0},
      {VF_KEY("birth_candidates", VF_YAML_INT, vf_frontend_config, birth_candidates), 1, 8, 0, 0, 0,
       NULL, NULL, NULL, 0},
      {VF_KEY("disparity_refine_radius", VF_YAML_INT, vf_frontend_config, disparity_refine_radius),
       0, 10, 0, 0, 0, NULL, NULL, NULL, 0},
      {VF_KEY("slide_max", VF_YAML_FLOAT, vf_frontend_config, slide_max), 0, 4096, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("gyro_seeding", VF_YAML_BOOL, vf_frontend_config, gyro_seeding), 0, 0, 0, 0, 0, NULL,
       NULL, NULL, 0},
      {VF_KEY("imu_timeshift_s", VF_YAML_DOUBLE, vf_frontend_config, imu_timeshift_s), -1, 1, 0, 0,
       0, NULL, NULL, NULL, 0},
      {VF_KEY("imu_capacity", VF_YAML_INT, vf_frontend_config, imu_capacity), 2, 1000000, 0, 0, 0,
       NULL, NULL, NULL, 0},
      {VF_KEY("imu_max_gap_ns", VF_YAML_INT64, vf_frontend_config, imu_max_gap_ns), 1, 1e12, 0, 0,
       0, NULL, NULL, NULL, 0},
      {VF_KEY("disparity_memory", VF_YAML_ENUM, vf_frontend_config, disparity_location), 0, 0, 0, 0,
       0, vf_memory_names, NULL, NULL, 0},
  };
  return vf_yaml_read_map(y, n, "frontend", keys, VF_N(keys), out, NULL);
}

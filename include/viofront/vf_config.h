// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * Configuration from YAML (libyaml): viofront's own config file (config/euroc.yaml) and EuRoC
 * sensor.yaml files (camera and IMU calibration). Every key is validated: missing required
 * keys, wrong types, NaN or out-of-range values fail with a message naming the file, the line
 * and the key; unknown keys are warned about through the log context's callback and skipped.
 *
 * A config file has one section per part of the pipeline; every section and key is optional
 * and defaults to vf_config_default() except inside a camera entry:
 *   context:  backend (auto|cpu|cuda), cuda_device, cpu_threads, log_level
 *   cameras:  a list of 1 or 2 entries, each either `sensor_yaml: <path relative to the config
 *             file>` or the keys of a EuRoC camera sensor.yaml inline; absent = the dataset's
 *   imu:      `sensor_yaml: <path>` or the keys of a EuRoC IMU sensor.yaml inline
 *   rectify:  alpha, focal_rule (opencv4|opencv2), out_width, out_height
 *   pyramid:  levels
 *   dataset:  stereo_tolerance_ns, prefetch
 *   detector: threshold, arc_length, score (sad_circle|sad_arc|max_threshold), border,
 *             min_level, max_level, cell_width, cell_height
 *   tracker:  levels, patch_sizes (one per level), max_iterations, coarse_iterations, min_update,
 *             max_residual, min_gain, max_gain, estimate_gain, estimate_bias,
 *             template (previous_frame|first_observation)
 *   stereo:   method (sgm|zncc_fastdt|cyclops2|hsgm|census_fastdt), min_disparity,
 *             disparities, census (cs_9x7|full_9x7), p1, p2, adaptive_p2, paths, uniqueness,
 *             lr_check, lr_max_diff, subpixel, median
 *   features: max_features, min_features, detect_every, min_distance, border, fb_threshold,
 *             fb_from_prediction, start_radius
 *   frontend: stereo, right_features, right_max_lr_diff, edge_radius, edge_max_jump,
 *             birth_edge_radius, birth_max_jump, birth_max_jump_ratio, birth_max_holes,
 *             birth_candidates, disparity_refine_radius, slide_max, gyro_seeding,
 *             imu_capacity, imu_max_gap_ns,
 *             disparity_memory (host|device)
 * The stage sections fill `frontend` (vf_frontend_config_load also takes the cameras, rectify
 * and pyramid sections into it). A new section is a schema table in src/io/. */
#ifndef VF_CONFIG_H
#define VF_CONFIG_H

#include <viofront/vf_camera.h>
#include <viofront/vf_context.h>
#include <viofront/vf_euroc.h>
#include <viofront/vf_frontend.h>
#include <viofront/vf_pyramid.h>
#include <viofront/vf_rectify.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Cameras a config file can hold (a stereo pair). */
#define VF_CONFIG_MAX_CAMERAS 2

/** Everything a viofront config file holds (vf_config_load()). */
typedef struct vf_config {
  vf_context_config context; /**< log_fn/log_user are not in YAML: set them in code */
  int camera_count;          /**< 0 (take the cameras from the dataset), 1 or 2 */
  vf_camera cameras[VF_CONFIG_MAX_CAMERAS]; /**< the first camera_count are set */
  int has_imu;                              /**< 1 when the file has an imu section */
  vf_imu_calib imu;                         /**< the imu section, when has_imu */
  vf_rectify_config rectify;                /**< the rectify section */
  vf_pyramid_config pyramid;   /**< width and height follow camera 0 when cameras are given */
  vf_euroc_config dataset;     /**< the dataset section */
  vf_frontend_config frontend; /**< stage sections; its cameras, rectify and pyramid levels are
                                  the top-level sections' (see vf_frontend_config_load) */
} vf_config;

/** Every section's defaults; no cameras, no IMU. */
VF_API vf_config vf_config_default(void);

/** Loads a config file over the defaults. Unknown sections and keys are skipped with a warning
 * naming the file, the line and the key, through the log callback of `log` (may be NULL: not
 * reported). The file's own context section is not a log yet: to see its warnings, pass a
 * context made for that (e.g. a CPU one with the callback). */
VF_API vf_status vf_config_load(const char* path, const vf_context* log, vf_config* out);
/** The same from text in memory; `name` is used in messages and `base_dir` resolves relative
 * sensor_yaml paths (NULL = the current directory). */
VF_API vf_status vf_config_parse(const char* text, size_t size, const char* name,
                                 const char* base_dir, const vf_context* log, vf_config* out);

/** EuRoC sensor.yaml of a camera: T_BS, rate_hz, resolution, camera_model (pinhole),
 * intrinsics (fu fv cu cv), distortion_model (radial-tangential|radtan|equidistant|none),
 * distortion_coefficients (4 or 5 for radial-tangential, 4 for equidistant). */
VF_API vf_status vf_sensor_yaml_read_camera(const char* path, const vf_context* log,
                                            vf_camera* out);
/** The same from text in memory; `name` is used in messages. */
VF_API vf_status vf_sensor_yaml_parse_camera(const char* text, size_t size, const char* name,
                                             const vf_context* log, vf_camera* out);
/** EuRoC sensor.yaml of an IMU: T_BS, rate_hz, gyroscope_noise_density, gyroscope_random_walk,
 * accelerometer_noise_density, accelerometer_random_walk. */
VF_API vf_status vf_sensor_yaml_read_imu(const char* path, const vf_context* log,
                                         vf_imu_calib* out);
/** The same from text in memory; `name` is used in messages. */
VF_API vf_status vf_sensor_yaml_parse_imu(const char* text, size_t size, const char* name,
                                          const vf_context* log, vf_imu_calib* out);

#ifdef __cplusplus
}
#endif
#endif

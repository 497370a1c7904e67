// SPDX-License-Identifier: BSD-3-Clause
/* YAML: EuRoC sensor.yaml files (the real ones when present, and texts with missing keys, wrong
 * types, NaN, wrong counts, bad transforms, syntax errors: each error names file, line and key;
 * unknown keys warned), and viofront's config (config/euroc.yaml, the Jetson and CPU profiles,
 * sections, sensor_yaml references, bad values, typos reported by vf_frontend_config_load). */
#include <viofront/viofront.h>

#include "euroc_calib.h"
#include "log_capture.h"
#include "vf_test.h"

static log_capture logs;
static vf_context* ctx;

static const char* camera_text =
    "%YAML:1.0\n"
    "sensor_type: camera\n"
    "comment: test camera\n"
    "T_BS:\n"
    "  cols: 4\n"
    "  rows: 4\n"
    "  data: [0.0148655429818, -0.999880929698, 0.00414029679422, -0.0216401454975,\n"
    "         0.999557249008, 0.0149672133247, 0.025715529948, -0.064676986768,\n"
    "        -0.0257744366974, 0.00375618835797, 0.999660727178, 0.00981073058949,\n"
    "         0.0, 0.0, 0.0, 1.0]\n"
    "rate_hz: 20\n"
    "resolution: [752, 480]\n"
    "camera_model: pinhole\n"
    "intrinsics: [458.654, 457.296, 367.215, 248.375] #fu, fv, cu, cv\n"
    "distortion_model: radial-tangential\n"
    "distortion_coefficients: [-0.28340811, 0.07395907, 0.00019359, 1.76187114e-05]\n";

/* camera_text with the line starting `key:` replaced by `line` (or removed when line is ""). */
static void edit(const char* key, const char* line, char* out, size_t size) {
  out[0] = '\0';
  const char* p = camera_text;
  while (*p) {
    const char* nl = strchr(p, '\n');
    size_t len = (size_t)(nl - p) + 1;
    size_t used = strlen(out);
    if (strncmp(p, key, strlen(key)) == 0 && p[strlen(key)] == ':') {
      if (line[0]) snprintf(out + used, size - used, "%s\n", line);
    } else {
      snprintf(out + used, size - used, "%.*s", (int)len, p);
    }
    p += len;
  }
}

/* Parsing `text` fails with `status`, and the message holds every one of the fragments. */
static void expect_camera_error(const char* text, vf_status status, const char* f1,
                                const char* f2) {
  vf_camera cam;
  CHECK_FAILS(vf_sensor_yaml_parse_camera(text, strlen(text), "cam.yaml", ctx, &cam), status);
  const char* m = vf_last_error_message();
  int ok = strstr(m, f1) != NULL && (f2 == NULL || strstr(m, f2) != NULL);
  if (!ok) fprintf(stderr, "  message \"%s\" lacks \"%s\" / \"%s\"\n", m, f1, f2 ? f2 : "");
  CHECK(ok);
}

static void check_camera_yaml(void) {
  vf_camera cam, want = euroc_camera(0);
  CHECK_OK(vf_sensor_yaml_parse_camera(camera_text, strlen(camera_text), "cam.yaml", ctx, &cam));
  CHECK(camera_equal(&cam, &want));
  CHECK(logs.count == 0);

  char text[4096];
  edit("intrinsics", "", text, sizeof text);
  expect_camera_error(text, VF_ERR_FORMAT, "cam.yaml:", "intrinsics: missing key");
  edit("intrinsics", "intrinsics: [458.654, .nan, 367.215, 248.375]", text, sizeof text);
  expect_camera_error(text, VF_ERR_FORMAT, "cam.yaml:14: intrinsics[1]", "not a finite number");
  edit("intrinsics", "intrinsics: [458.654, 457.296, 367.215]", text, sizeof text);
  expect_camera_error(text, VF_ERR_FORMAT, "cam.yaml:14: intrinsics", "needs 4 numbers, got 3");
  edit("intrinsics", "intrinsics: fast", text, sizeof text);
  expect_camera_error(text, VF_ERR_FORMAT, "cam.yaml:14: intrinsics", "list of numbers");
  edit("intrinsics", "intrinsics: [-458.654, 457.296, 367.215, 248.375]", text, sizeof text);
  expect_camera_error(text, VF_ERR_FORMAT, "intrinsics", "> 0");
  edit("rate_hz", "rate_hz: twenty", text, sizeof text);
  expect_camera_error(text, VF_ERR_FORMAT, "cam.yaml:11: rate_hz", "'twenty'");
  edit("rate_hz", "rate_hz:", text, sizeof text);
  expect_camera_error(text, VF_ERR_FORMAT, "rate_hz", "no value");
  edit("resolution", "resolution: [752.5, 480]", text, sizeof text);
  expect_camera_error(text, VF_ERR_FORMAT, "cam.yaml:12: resolution", "whole");
  edit("resolution", "resolution: [0, 480]", text, sizeof text);
  expect_camera_error(text, VF_ERR_FORMAT, "resolution", "outside");
  edit("camera_model", "camera_model: omni", text, sizeof text);
  expect_camera_error(text, VF_ERR_FORMAT, "cam.yaml:13: camera_model", "pinhole");
  edit("distortion_model", "distortion_model: fisheye", text, sizeof text);
  expect_camera_error(text, VF_ERR_FORMAT, "distortion_model", "radial-tangential, radtan");
  edit("distortion_model", "distortion_model: equidistant", text, sizeof text);
  CHECK_OK(vf_sensor_yaml_parse_camera(text, strlen(text), "cam.yaml", ctx, &cam));
  CHECK(cam.distortion == VF_DISTORTION_EQUIDISTANT);
  edit("distortion_coefficients", "distortion_coefficients: [-0.28, 0.07, 0.0001, 1e-05, 0.01]",
       text, sizeof text);
  CHECK_OK(vf_sensor_yaml_parse_camera(text, strlen(text), "cam.yaml", ctx, &cam));
  CHECK(cam.k[4] == 0.01);
  edit("distortion_coefficients", "distortion_coefficients: [-0.28, 0.07, 0.0001]", text,
       sizeof text);
  expect_camera_error(text, VF_ERR_FORMAT, "cam.yaml:16: distortion_coefficients", "3 coeff");
  edit("sensor_type", "sensor_type: imu", text, sizeof text);
  expect_camera_error(text, VF_ERR_FORMAT, "sensor_type", "not a camera");
  edit("T_BS", "T_BS: [1, 0, 0, 0,  0, 1, 0, 0,  0, 0, 1, 0,  0, 0, 0, 1]", text, sizeof text);
  char* cut = strstr(text, "  cols"); /* drop the old mapping's lines */
  CHECK(cut != NULL);
  if (cut != NULL) memmove(cut, strstr(cut, "rate_hz"), strlen(strstr(cut, "rate_hz")) + 1);
  CHECK_OK(vf_sensor_yaml_parse_camera(text, strlen(text), "cam.yaml", ctx, &cam));
  CHECK(cam.T_BS[0] == 1 && cam.T_BS[1] == 0);
  const char* nested =
      "T_BS: [[1, 0, 0, 0.1], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]\n"
      "resolution: [8, 6]\ncamera_model: pinhole\nintrinsics: [5, 5, 4, 3]\n"
      "distortion_model: none\ndistortion_coefficients: []\n";
  CHECK_OK(vf_sensor_yaml_parse_camera(nested, strlen(nested), "n.yaml", ctx, &cam));
  CHECK(cam.T_BS[3] == 0.1 && cam.width == 8 && cam.distortion == VF_DISTORTION_NONE);
  const char* skew = "T_BS: [[2, 0, 0, 0.1], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]\n";
  expect_camera_error(skew, VF_ERR_FORMAT, "cam.yaml:1: T_BS", "not a rotation");
  strcpy(text, camera_text);
  strcat(text, "rate_hz: 30\n");
  expect_camera_error(text, VF_ERR_FORMAT, "cam.yaml:17: rate_hz", "twice");
  expect_camera_error("intrinsics: [1, 2\nresolution: [3, 4]\n", VF_ERR_FORMAT,
                      "cam.yaml:", "syntax error");
  expect_camera_error("", VF_ERR_FORMAT, "cam.yaml:1", "mapping");
  expect_camera_error("- just\n- a list\n", VF_ERR_FORMAT, "cam.yaml:1", "mapping");

  /* An unknown key: accepted, warned about with its line. */
  strcpy(text, camera_text);
  strcat(text, "timeshift_cam_imu: 0.001\n");
  log_capture_clear(&logs);
  CHECK_OK(vf_sensor_yaml_parse_camera(text, strlen(text), "cam.yaml", ctx, &cam));
  CHECK(logs.count == 1 &&
        strstr(logs.text, "cam.yaml:17: unknown key 'timeshift_cam_imu'") != NULL);
  CHECK_FAILS(vf_sensor_yaml_read_camera("no/such/sensor.yaml", ctx, &cam), VF_ERR_IO);
  CHECK_FAILS(vf_sensor_yaml_parse_camera(camera_text, 10, "cam.yaml", ctx, NULL),
              VF_ERR_INVALID_ARG);
}

static void check_imu_yaml(void) {
  const char* imu =
      "sensor_type: imu\nT_BS:\n  cols: 4\n  rows: 4\n  data: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, "
      "0, 0, 0, 1]\n"
      "rate_hz: 200\ngyroscope_noise_density: 1.6968e-04\ngyroscope_random_walk: 1.9393e-05\n"
      "accelerometer_noise_density: 2.0000e-3\naccelerometer_random_walk: 3.0000e-3\n";
  vf_imu_calib c;
  CHECK_OK(vf_sensor_yaml_parse_imu(imu, strlen(imu), "imu.yaml", ctx, &c));
  CHECK(c.rate_hz == 200 && c.gyro_noise_density == 1.6968e-04 && c.acc_random_walk == 3e-3);
  char bad[1024];
  snprintf(bad, sizeof bad, "%s", imu);
  char* g = strstr(bad, "1.6968e-04");
  memcpy(g, "-1.696e-04", 10);
  CHECK_FAILS(vf_sensor_yaml_parse_imu(bad, strlen(bad), "imu.yaml", ctx, &c), VF_ERR_FORMAT);
  CHECK(strstr(vf_last_error_message(), "imu.yaml:7: gyroscope_noise_density") != NULL);
  snprintf(bad, sizeof bad, "%s", imu);
  *strstr(bad, "rate_hz") = '#';
  CHECK_FAILS(vf_sensor_yaml_parse_imu(bad, strlen(bad), "imu.yaml", ctx, &c), VF_ERR_FORMAT);
  CHECK(strstr(vf_last_error_message(), "rate_hz: missing key") != NULL);

  char path[1024];
  if (vf_test_data_path("euroc/V1_01_easy_micro/mav0/cam1/sensor.yaml", path, sizeof path) !=
      NULL) {
    vf_camera cam, want = euroc_camera(1);
    CHECK_OK(vf_sensor_yaml_read_camera(path, ctx, &cam));
    CHECK(camera_equal(&cam, &want));
    vf_test_data_path("euroc/V1_01_easy_micro/mav0/imu0/sensor.yaml", path, sizeof path);
    CHECK_OK(vf_sensor_yaml_read_imu(path, ctx, &c));
    CHECK(c.gyro_random_walk == 1.9393e-05 && c.acc_noise_density == 2.0e-3 && c.T_BS[5] == 1);
  } else {
    printf("real EuRoC sensor.yaml absent: skipped\n");
  }
}

static void expect_config_status(const char* text, vf_status status, const char* fragment) {
  vf_config cfg;
  CHECK_FAILS(vf_config_parse(text, strlen(text), "cfg.yaml", ".", ctx, &cfg), status);
  int ok = strstr(vf_last_error_message(), fragment) != NULL;
  if (!ok) fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", vf_last_error_message(), fragment);
  CHECK(ok);
}

static void expect_config_error(const char* text, const char* fragment) {
  expect_config_status(text, VF_ERR_FORMAT, fragment);
}

static void check_config(void) {
  char path[1024];
  vf_config cfg;
  log_capture_clear(&logs);
  snprintf(path, sizeof path, "%s/config/euroc.yaml", VF_SOURCE_DIR);
  CHECK_OK(vf_config_load(path, ctx, &cfg));
  CHECK(logs.count == 0);
  vf_camera c0 = euroc_camera(0), c1 = euroc_camera(1);
  CHECK(cfg.camera_count == 2 && camera_equal(&cfg.cameras[0], &c0) &&
        camera_equal(&cfg.cameras[1], &c1));
  CHECK(cfg.has_imu && cfg.imu.rate_hz == 200 && cfg.imu.gyro_noise_density == 1.6968e-04);
  CHECK(cfg.rectify.alpha == 0 && cfg.rectify.focal_rule == VF_RECTIFY_FOCAL_OPENCV4);
  CHECK(cfg.pyramid.levels == 4 && cfg.pyramid.width == 752 && cfg.pyramid.height == 480);
  CHECK(cfg.dataset.prefetch == 8 && cfg.dataset.stereo_tolerance_ns == 1000000);
  CHECK(cfg.dataset.decode_threads == vf_euroc_config_default().decode_threads);
  CHECK(cfg.context.backend == VF_BACKEND_AUTO && cfg.context.log_level == VF_LOG_WARN);
  snprintf(path, sizeof path, "%s/config/jetson_tx2.yaml", VF_SOURCE_DIR);
  CHECK_OK(vf_config_load(path, ctx, &cfg));
  CHECK(cfg.camera_count == 0 && cfg.context.backend == VF_BACKEND_CUDA &&
        cfg.context.cpu_threads == 4 && cfg.dataset.prefetch == 3);
  log_capture_clear(&logs);
  snprintf(path, sizeof path, "%s/config/cpu_sparse.yaml", VF_SOURCE_DIR);
  CHECK_OK(vf_config_load(path, ctx, &cfg));
  CHECK(logs.count == 0);
  CHECK(cfg.context.backend == VF_BACKEND_CPU && cfg.frontend.stereo_enabled &&
        cfg.frontend.stereo_mode == VF_FRONTEND_STEREO_SPARSE &&
        cfg.frontend.features.max_features == 200 && cfg.frontend.features.detect_every == 4);
  CHECK_FAILS(vf_config_load("no/such/config.yaml", ctx, &cfg), VF_ERR_IO);

  /* Cameras by reference, relative to the config's folder. */
  FILE* f = fopen("test_config_cam.yaml", "w");
  if (f != NULL) {
    fputs(camera_text, f);
    fclose(f);
  }
  const char* ref = "cameras:\n  - sensor_yaml: test_config_cam.yaml\n";
  CHECK_OK(vf_config_parse(ref, strlen(ref), "cfg.yaml", ".", ctx, &cfg));
  CHECK(cfg.camera_count == 1 && camera_equal(&cfg.cameras[0], &c0));
  expect_config_status("cameras:\n  - sensor_yaml: missing.yaml\n", VF_ERR_IO,
                       "cfg.yaml:2: cameras[0].sensor_yaml: ./missing.yaml: cannot open");
  expect_config_error("cameras:\n  - sensor_yaml: test_config_cam.yaml\n    rate_hz: 3\n",
                      "cannot be mixed");
  expect_config_error(
      "cameras:\n  - {sensor_yaml: test_config_cam.yaml}\n  - {sensor_yaml: "
      "test_config_cam.yaml}\n  - {sensor_yaml: test_config_cam.yaml}\n",
      "needs 1 or 2 cameras, got 3");
  remove("test_config_cam.yaml"); /* written into the working directory above */
  expect_config_error("cameras:\n  - resolution: [752, 480]\n",
                      "cfg.yaml:2: cameras[0].T_BS: missing key");
  expect_config_error("cameras: 3\n", "cfg.yaml:1: cameras: expected a list");
  expect_config_error("context:\n  backend: tpu\n",
                      "cfg.yaml:2: context.backend: 'tpu' is not one of: auto, cpu, cuda");
  expect_config_error("context:\n  cpu_threads: -2\n",
                      "context.cpu_threads: -2 is outside 0..1024");
  expect_config_error("rectify:\n  alpha: 2\n", "rectify.alpha");
  expect_config_error("rectify:\n  out_width: 376\n", "go together");
  expect_config_error("pyramid:\n  levels: 9\n", "pyramid.levels");
  expect_config_error("dataset:\n  prefetch: many\n",
                      "cfg.yaml:2: dataset.prefetch: 'many' is not an integer");
  expect_config_error("dataset:\n  decode_threads: 65\n",
                      "dataset.decode_threads: 65 is outside 0..64");
  const char* pool = "dataset:\n  decode_threads: 3\n";
  CHECK_OK(vf_config_parse(pool, strlen(pool), "cfg.yaml", ".", ctx, &cfg));
  CHECK(cfg.dataset.decode_threads == 3 && cfg.dataset.prefetch == 8);
  expect_config_error("pyramid: {levels: 3}\npyramid: {levels: 2}\n", "appears twice");
  expect_config_error("imu:\n  rate_hz: 200\n", "imu.T_BS: missing key");
  expect_config_error("[1, 2]\n", "mapping of sections");
  /* The stage sections. */
  expect_config_error("detector:\n  arc_length: 13\n", "cfg.yaml:2: detector.arc_length");
  expect_config_error("detector:\n  score: best\n", "detector.score");
  expect_config_error("tracker:\n  patch_sizes: [16, 17]\n", "tracker.patch_sizes");
  expect_config_error("tracker:\n  patch_sizes: [16, 8.5]\n", "whole numbers");
  expect_config_error("tracker:\n  min_update: .nan\n", "tracker.min_update");
  expect_config_error("stereo:\n  method: magic\n", "stereo.method");
  expect_config_error("stereo:\n\n  uniqueness: 1.5\n", "cfg.yaml:3: stereo.uniqueness");
  expect_config_error("features:\n  max_features: 0\n", "features.max_features");
  expect_config_error("features:\n  start_radius: -1\n", "features.start_radius");
  expect_config_error("frontend:\n  disparity_memory: gpu\n", "frontend.disparity_memory");
  const char* stages =
      "detector: {threshold: 20, score: max_threshold}\n"
      "tracker: {patch_sizes: [12, 10, 8], template: previous_frame}\n"
      "stereo: {paths: 8, uniqueness: 0.9, census: full_9x7}\n"
      "features: {min_features: 50, fb_threshold: 0.25, start_radius: 2.5}\n"
      "frontend: {stereo: false, disparity_memory: host}\n";
  CHECK_OK(vf_config_parse(stages, strlen(stages), "cfg.yaml", ".", ctx, &cfg));
  const vf_frontend_config* fc = &cfg.frontend;
  CHECK(fc->detector.threshold == 20 && fc->detector.score == VF_FAST_SCORE_MAX_THRESHOLD);
  CHECK(fc->tracker.patch_size[0] == 12 && fc->tracker.patch_size[2] == 8);
  CHECK(fc->tracker.template_mode == VF_TEMPLATE_PREVIOUS_FRAME);
  CHECK(fc->stereo.paths == 8 && fc->stereo.uniqueness == 0.9f);
  CHECK(fc->stereo.census == VF_CENSUS_FULL_9X7);
  CHECK(fc->features.min_features == 50 && fc->features.fb_threshold == 0.25f);
  CHECK(fc->features.start_radius == 2.5f);
  CHECK(!fc->stereo_enabled && fc->disparity_location == VF_MEMORY_HOST);
  /* Sparse stereo's keys. */
  const char* sparse =
      "frontend: {stereo: sparse, dense_every: 5, sparse_edge_max_step: 2.5, "
      "sparse_min_zncc: 0.8, sparse_birth_max_loss: 3}\n";
  CHECK_OK(vf_config_parse(sparse, strlen(sparse), "cfg.yaml", ".", ctx, &cfg));
  CHECK(fc->stereo_enabled && fc->stereo_mode == VF_FRONTEND_STEREO_SPARSE);
  CHECK(fc->dense_every == 5 && fc->sparse_edge_max_step == 2.5f && fc->sparse.min_zncc == 0.8f);
  CHECK(fc->sparse_birth_max_loss == 3.0f);
  expect_config_error("frontend:\n  sparse_edge_max_step: -1\n", "frontend.sparse_edge_max_step");
  expect_config_error("frontend:\n  sparse_birth_max_loss: 2000\n",
                      "frontend.sparse_birth_max_loss");

  /* Unknown sections and keys are warned about; the rest still applies. */
  log_capture_clear(&logs);
  const char* extra = "planner:\n  horizon: 10\npyramid:\n  levels: 3\n  scale: 2\n";
  CHECK_OK(vf_config_parse(extra, strlen(extra), "cfg.yaml", ".", ctx, &cfg));
  CHECK(cfg.pyramid.levels == 3 && logs.count == 2);
  CHECK(strstr(logs.text, "cfg.yaml:1: unknown section 'planner'") != NULL);
  CHECK(strstr(logs.text, "cfg.yaml:5: unknown key 'pyramid.scale'") != NULL);
  /* An empty file is every default. */
  CHECK_OK(vf_config_parse("", 0, "empty.yaml", NULL, ctx, &cfg));
  vf_config d = vf_config_default();
  CHECK(cfg.camera_count == 0 && !cfg.has_imu && cfg.rectify.alpha == d.rectify.alpha &&
        cfg.pyramid.levels == d.pyramid.levels && cfg.dataset.prefetch == d.dataset.prefetch &&
        cfg.context.backend == d.context.backend && camera_equal(&cfg.cameras[1], &d.cameras[1]));
}

/* vf_frontend_config_load reports typos through its log context with the file, the line and
 * the key (warn level), and still applies the rest; without a context it stays silent. */
static void check_frontend_config_typos(void) {
  const char* path = "test_config_typos.yaml";
  FILE* f = fopen(path, "w");
  CHECK(f != NULL);
  if (f == NULL) return;
  fputs(
      "detector: {threshold: 25}\nfeatures: {max_featurs: 5}\nplaner:\n  horizon: 10\n"
      "tracker:\n  levels: 3\n  max_iteratons: 7\n",
      f);
  fclose(f);
  vf_frontend_config fc = vf_frontend_config_default();
  const int max_features = fc.features.max_features;
  log_capture_clear(&logs);
  CHECK_OK(vf_frontend_config_load(path, ctx, &fc, NULL));
  printf("warnings:\n%s", logs.text);
  CHECK(logs.count == 3);
  CHECK(strstr(logs.text, "2 test_config_typos.yaml:2: unknown key 'features.max_featurs'") !=
        NULL);
  CHECK(strstr(logs.text, "2 test_config_typos.yaml:3: unknown section 'planer'") != NULL);
  CHECK(strstr(logs.text, "2 test_config_typos.yaml:7: unknown key 'tracker.max_iteratons'") !=
        NULL);
  CHECK(fc.detector.threshold == 25 && fc.tracker.levels == 3);
  CHECK(fc.features.max_features == max_features);
  log_capture_clear(&logs);
  CHECK_OK(vf_frontend_config_load(path, NULL, &fc, NULL));
  CHECK(logs.count == 0);
  remove(path);
}

int main(void) {
  ctx = log_capture_context(&logs);
  CHECK(ctx != NULL);
  check_camera_yaml();
  check_imu_yaml();
  check_config();
  check_frontend_config_typos();
  vf_context_destroy(ctx);
  VF_TEST_END("test_config");
}

// SPDX-License-Identifier: BSD-3-Clause
/* EuRoC reader on generated bad folders: each fault gives a clear error naming the file (and
 * line or key) or, for missing image files and unpaired images, a report, and never a crash or
 * leak. A valid tiny sequence is written first and then broken one way per case. */
#include <dirent.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <viofront/viofront.h>

#include "log_capture.h"
#include "vf_test.h"

#define W 8
#define H 6
#define PAIRS 4
#define T0 1000000000000LL
#define FRAME_NS 50000000LL

static void write_text(const char* root, const char* rel, const char* text) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  FILE* f = fopen(path, "w");
  if (f == NULL) return;
  fputs(text, f);
  fclose(f);
}

static void write_png(const char* root, const char* rel, int w, int h, vf_pixel_format fmt) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  vf_image img;
  if (vf_image_alloc(&img, w, h, fmt, VF_MEMORY_HOST) != VF_OK) return;
  for (size_t i = 0; i < img.stride_bytes * (size_t)h; ++i)
    ((uint8_t*)img.data)[i] = (uint8_t)(i * 7);
  CHECK_OK(vf_png_write(path, &img));
  vf_image_free(&img);
}

static const char* cam_yaml(int which) {
  return which == 0
             ? "sensor_type: camera\nT_BS: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]\n"
               "rate_hz: 20\nresolution: [8, 6]\ncamera_model: pinhole\n"
               "intrinsics: [5, 5, 3.5, 2.5]\ndistortion_model: radial-tangential\n"
               "distortion_coefficients: [-0.1, 0.01, 0, 0]\n"
             : "sensor_type: camera\nT_BS: [1, 0, 0, 0.1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]\n"
               "rate_hz: 20\nresolution: [8, 6]\ncamera_model: pinhole\n"
               "intrinsics: [5, 5, 3.5, 2.5]\ndistortion_model: radial-tangential\n"
               "distortion_coefficients: [-0.1, 0.01, 0, 0]\n";
}

/* Removes a folder tree left by an earlier run (files and folders only, no links followed). */
static void remove_tree(const char* path) {
  DIR* d = opendir(path);
  if (d == NULL) {
    remove(path);
    return;
  }
  for (struct dirent* ent; (ent = readdir(d)) != NULL;) {
    if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0) continue;
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/%s", path, ent->d_name);
    struct stat st;
    if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
      remove_tree(sub);
    } else {
      remove(sub);
    }
  }
  closedir(d);
  rmdir(path);
}

/* A valid sequence of `pairs` stereo pairs (at most 32), IMU at 200 Hz from 10 ms before to 20 ms
 * after the images, and a ground-truth file. */
static const char* make_sequence_of(const char* name, int pairs) {
  static char root[512];
  snprintf(root, sizeof root, "test_euroc_bad_%s", name);
  remove_tree(root);
  static const char* dirs[] = {
      "",           "/mav0",           "/mav0/cam0", "/mav0/cam0/data",
      "/mav0/cam1", "/mav0/cam1/data", "/mav0/imu0", "/mav0/state_groundtruth_estimate0"};
  for (int i = 0; i < 8; ++i) {
    char d[600];
    snprintf(d, sizeof d, "%s%s", root, dirs[i]);
    mkdir(d, 0755);
  }
  char csv[4096] = "#timestamp [ns],filename\n";
  for (int i = 0; i < pairs; ++i) {
    char rel[128], row[128];
    long long t = T0 + i * FRAME_NS;
    for (int k = 0; k < 2; ++k) {
      snprintf(rel, sizeof rel, "mav0/cam%d/data/%lld.png", k, t);
      write_png(root, rel, W, H, VF_PIXEL_U8);
    }
    snprintf(row, sizeof row, "%lld,%lld.png\n", t, t);
    strcat(csv, row);
  }
  write_text(root, "mav0/cam0/data.csv", csv);
  write_text(root, "mav0/cam1/data.csv", csv);
  write_text(root, "mav0/cam0/sensor.yaml", cam_yaml(0));
  write_text(root, "mav0/cam1/sensor.yaml", cam_yaml(1));
  write_text(
      root, "mav0/imu0/sensor.yaml",
      "sensor_type: imu\nT_BS: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]\nrate_hz: 200\n"
      "gyroscope_noise_density: 1e-4\ngyroscope_random_walk: 1e-5\n"
      "accelerometer_noise_density: 2e-3\naccelerometer_random_walk: 3e-3\n");
  static char imu[65536];
  snprintf(imu, sizeof imu, "#timestamp [ns],w_x,w_y,w_z,a_x,a_y,a_z\n");
  for (long long t = T0 - 10000000; t <= T0 + (pairs - 1) * FRAME_NS + 20000000; t += 5000000) {
    char row[160];
    snprintf(row, sizeof row, "%lld,0.01,-0.02,0.03,9.8,0.1,-0.2\n", t);
    strcat(imu, row);
  }
  write_text(root, "mav0/imu0/data.csv", imu);
  char gt[2048] =
      "#timestamp,p_x,p_y,p_z,q_w,q_x,q_y,q_z,v_x,v_y,v_z,bw_x,bw_y,bw_z,ba_x,ba_y,ba_z\n";
  for (int i = 0; i <= 2; ++i) {
    char row[256];
    double c = cos(0.1 * i), s = sin(0.1 * i);
    snprintf(row, sizeof row, "%lld,%d,0,1,%.17g,0,0,%.17g,1,0,0,0,0,0,0,0,0\n",
             T0 + i * 2 * FRAME_NS, i, c, s);
    strcat(gt, row);
  }
  write_text(root, "mav0/state_groundtruth_estimate0/data.csv", gt);
  return root;
}

static const char* make_sequence(const char* name) { return make_sequence_of(name, PAIRS); }

/* Opening fails with `status` and a message containing `fragment`. */
static void expect_open_error(const char* root, vf_status status, const char* fragment) {
  vf_euroc* e = NULL;
  CHECK_FAILS(vf_euroc_open(root, NULL, NULL, &e), status);
  CHECK(e == NULL);
  int ok = strstr(vf_last_error_message(), fragment) != NULL;
  if (!ok)
    fprintf(stderr, "  %s: message \"%s\" lacks \"%s\"\n", root, vf_last_error_message(), fragment);
  CHECK(ok);
}

/* Replays to the end; returns the number of stereo events that failed, with their messages
 * holding `fragment`, and the bit mask of the pairs that failed (pairs below 32). Checks that
 * every pair comes once, in order. */
static int replay_errors_at(vf_euroc* e, const char* fragment, int* good_pairs, uint32_t* failed) {
  int errors = 0, next_pair = 0;
  *good_pairs = 0;
  *failed = 0;
  for (int guard = 0; guard < 10000; ++guard) {
    vf_euroc_event ev;
    vf_status s = vf_euroc_next(e, &ev);
    if (s == VF_OK && ev.type == VF_EUROC_END) break;
    if (s != VF_OK || ev.type == VF_EUROC_STEREO) CHECK(ev.pair == next_pair++);
    if (s != VF_OK) {
      ++errors;
      if (ev.pair < 32) *failed |= 1u << ev.pair;
      CHECK(ev.type == VF_EUROC_STEREO && ev.left.data == NULL);
      CHECK(strstr(vf_euroc_last_error(e), fragment) != NULL);
      continue;
    }
    *good_pairs += ev.type == VF_EUROC_STEREO;
  }
  return errors;
}

static int replay_errors(vf_euroc* e, const char* fragment, int* good_pairs) {
  uint32_t failed = 0;
  return replay_errors_at(e, fragment, good_pairs, &failed);
}

static void check_valid(void) {
  const char* root = make_sequence("valid");
  vf_euroc* e = NULL;
  CHECK_OK(vf_euroc_open(root, NULL, NULL, &e));
  vf_euroc_info info;
  CHECK_OK(vf_euroc_get_info(e, &info));
  CHECK(info.stereo_pairs == PAIRS && info.imu_rows == 37 && info.groundtruth_rows == 3);
  /* 31 samples in the image span, and of the 2 before and 4 after it one each. */
  CHECK(info.imu_replayed == 33 && info.imu_skipped == 4);
  int good = 0;
  CHECK(replay_errors(e, "", &good) == 0 && good == PAIRS);
  /* Ground truth: rows and interpolation (slerp halfway between 0 and 0.1 rad about z). */
  vf_euroc_state st;
  CHECK(vf_euroc_groundtruth_count(e) == 3);
  CHECK_OK(vf_euroc_groundtruth_at(e, T0 + FRAME_NS, &st));
  CHECK_NEAR(st.p[0], 0.5, 1e-12);
  CHECK_NEAR(st.q[0], cos(0.05), 1e-12);
  CHECK_NEAR(st.q[3], sin(0.05), 1e-12);
  CHECK_OK(vf_euroc_groundtruth(e, 2, &st));
  CHECK(st.p[0] == 2 && st.v[0] == 1);
  CHECK_FAILS(vf_euroc_groundtruth_at(e, T0 - 1, &st), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_euroc_groundtruth(e, 3, &st), VF_ERR_INVALID_ARG);
  vf_euroc_close(e);
  /* mav0 itself works as the path too. */
  char mav0[600];
  snprintf(mav0, sizeof mav0, "%s/mav0", root);
  CHECK_OK(vf_euroc_open(mav0, NULL, NULL, &e));
  vf_euroc_close(e);
}

static void check_structure(void) {
  char path[700];
  const char* root = make_sequence("nocam1");
  snprintf(path, sizeof path, "%s/mav0/cam1", root);
  char gone[720];
  snprintf(gone, sizeof gone, "%s_gone", path);
  rename(path, gone);
  expect_open_error(root, VF_ERR_IO, "cam1/sensor.yaml: cannot open");
  root = make_sequence("nocsv");
  snprintf(path, sizeof path, "%s/mav0/cam0/data.csv", root);
  remove(path);
  expect_open_error(root, VF_ERR_IO, "cam0/data.csv: cannot open");
  root = make_sequence("noimu");
  snprintf(path, sizeof path, "%s/mav0/imu0/data.csv", root);
  remove(path);
  expect_open_error(root, VF_ERR_IO, "imu0/data.csv");
  expect_open_error("no/such/folder", VF_ERR_IO, "not a folder");
  expect_open_error(".", VF_ERR_IO, "neither mav0/cam0 nor cam0");
  vf_euroc* e = NULL;
  CHECK_FAILS(vf_euroc_open(NULL, NULL, NULL, &e), VF_ERR_INVALID_ARG);
  vf_euroc_config cfg = vf_euroc_config_default();
  cfg.prefetch = 65;
  CHECK_FAILS(vf_euroc_open(root, &cfg, NULL, &e), VF_ERR_INVALID_ARG);
  for (int bad = -1; bad <= 65; bad += 66) {
    cfg = vf_euroc_config_default();
    cfg.decode_threads = bad;
    CHECK_FAILS(vf_euroc_open(root, &cfg, NULL, &e), VF_ERR_INVALID_ARG);
    CHECK(e == NULL && strstr(vf_last_error_message(), "decode_threads") != NULL);
  }
  for (int bad = -1; bad <= 2; bad += 3) {
    cfg = vf_euroc_config_default();
    cfg.pinned = bad;
    CHECK_FAILS(vf_euroc_open(root, &cfg, NULL, &e), VF_ERR_INVALID_ARG);
    CHECK(e == NULL && strstr(vf_last_error_message(), "pinned") != NULL);
  }
  CHECK_FAILS(vf_euroc_next(NULL, NULL), VF_ERR_INVALID_ARG);
  int64_t t = 0;
  CHECK_FAILS(vf_euroc_pair_time(NULL, 0, &t), VF_ERR_INVALID_ARG);
}

static void check_csv(void) {
  const char* head = "#timestamp [ns],filename\n";
  char text[1024];
  const char* root = make_sequence("empty");
  write_text(root, "mav0/cam1/data.csv", head);
  expect_open_error(root, VF_ERR_FORMAT, "no stereo pair");
  root = make_sequence("fields");
  snprintf(text, sizeof text, "%s%lld,%lld.png\n%lld,%lld.png,extra\n", head, T0, T0, T0 + FRAME_NS,
           T0 + FRAME_NS);
  write_text(root, "mav0/cam0/data.csv", text);
  expect_open_error(root, VF_ERR_FORMAT, "cam0/data.csv:3: more than 2 fields");
  root = make_sequence("number");
  snprintf(text, sizeof text, "%s%lld,%lld.png\n12a4,x.png\n", head, T0, T0);
  write_text(root, "mav0/cam1/data.csv", text);
  expect_open_error(root, VF_ERR_FORMAT, "cam1/data.csv:3: column 1: '12a4' is not an integer");
  root = make_sequence("back");
  snprintf(text, sizeof text, "%s%lld,%lld.png\n%lld,%lld.png\n", head, T0 + FRAME_NS,
           T0 + FRAME_NS, T0, T0);
  write_text(root, "mav0/cam0/data.csv", text);
  expect_open_error(root, VF_ERR_TIMESTAMP,
                    "cam0/data.csv:3: timestamp 1000000000000 ns goes back");
  root = make_sequence("dup");
  snprintf(text, sizeof text, "%s\r\n%lld,%lld.png\r\n\r\n%lld,%lld.png\r\n", head, T0, T0, T0, T0);
  write_text(root, "mav0/cam0/data.csv", text);
  expect_open_error(root, VF_ERR_TIMESTAMP, "cam0/data.csv:5: timestamp 1000000000000 ns repeats");
  root = make_sequence("path");
  snprintf(text, sizeof text, "%s%lld,../../secret.png\n", head, T0);
  write_text(root, "mav0/cam0/data.csv", text);
  expect_open_error(root, VF_ERR_FORMAT, "not a plain file name");

  root = make_sequence("imuback");
  snprintf(text, sizeof text, "#t\n%lld,0,0,0,0,0,9.8\n%lld,0,0,0,0,0,9.8\n", T0, T0 - 1);
  write_text(root, "mav0/imu0/data.csv", text);
  expect_open_error(root, VF_ERR_TIMESTAMP, "imu0/data.csv:3");
  root = make_sequence("imushort");
  snprintf(text, sizeof text, "#t\n%lld,0,0,0,0,9.8\n", T0);
  write_text(root, "mav0/imu0/data.csv", text);
  expect_open_error(root, VF_ERR_FORMAT, "imu0/data.csv:2: 6 fields, expected 7");
  root = make_sequence("imunan");
  snprintf(text, sizeof text, "#t\n%lld,0,nan,0,0,0,9.8\n", T0);
  write_text(root, "mav0/imu0/data.csv", text);
  expect_open_error(root, VF_ERR_FORMAT, "imu0/data.csv:2: column 3: 'nan' is not a finite number");
  root = make_sequence("imuempty");
  snprintf(text, sizeof text, "#t\n%lld,0,0,0,,0,9.8\n", T0);
  write_text(root, "mav0/imu0/data.csv", text);
  expect_open_error(root, VF_ERR_FORMAT, "column 5: '' is not a finite number");
  root = make_sequence("gt");
  write_text(root, "mav0/state_groundtruth_estimate0/data.csv", "#t\n1000,0,0,0,1,0,0\n");
  expect_open_error(root, VF_ERR_FORMAT, "data.csv:2: 7 fields, expected 8 (pose) or 17");
  root = make_sequence("gtquat");
  write_text(root, "mav0/state_groundtruth_estimate0/data.csv", "#t\n1000,0,0,0,2,0,0,0\n");
  expect_open_error(root, VF_ERR_FORMAT, "quaternion has norm 4.000");
  root = make_sequence("binary");
  write_text(root, "mav0/imu0/data.csv", "#t\n");
  char path[700];
  snprintf(path, sizeof path, "%s/mav0/imu0/data.csv", root);
  FILE* f = fopen(path, "ab");
  if (f != NULL) {
    fwrite("1,\0,2", 1, 5, f);
    fclose(f);
  }
  expect_open_error(root, VF_ERR_FORMAT, "NUL byte");
}

static void check_yaml(void) {
  const char* root = make_sequence("yaml");
  write_text(root, "mav0/cam1/sensor.yaml",
             "sensor_type: camera\nT_BS: [1, 0, 0, 0.1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]\n"
             "resolution: [8, 6]\ncamera_model: pinhole\ndistortion_model: radtan\n"
             "distortion_coefficients: [0, 0, 0, 0]\n");
  expect_open_error(root, VF_ERR_FORMAT, "cam1/sensor.yaml:1: intrinsics: missing key");
  root = make_sequence("yamlnan");
  write_text(
      root, "mav0/imu0/sensor.yaml",
      "sensor_type: imu\nT_BS: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]\nrate_hz: .NaN\n"
      "gyroscope_noise_density: 1e-4\ngyroscope_random_walk: 1e-5\n"
      "accelerometer_noise_density: 2e-3\naccelerometer_random_walk: 3e-3\n");
  expect_open_error(root, VF_ERR_FORMAT,
                    "imu0/sensor.yaml:3: rate_hz: '.NaN' is not a finite number");
}

static void check_images(void) {
  log_capture logs;
  vf_context* ctx = log_capture_context(&logs);
  char path[700];
  /* A listed cam1 image is missing: reported, that pair dropped, the rest replays. */
  const char* root = make_sequence("missing");
  snprintf(path, sizeof path, "%s/mav0/cam1/data/%lld.png", root, T0 + FRAME_NS);
  remove(path);
  vf_euroc* e = NULL;
  CHECK_OK(vf_euroc_open(root, NULL, ctx, &e));
  vf_euroc_info info;
  CHECK_OK(vf_euroc_get_info(e, &info));
  CHECK(info.stereo_pairs == PAIRS - 1 && info.cam_missing[1] == 1 && info.cam_unpaired[0] == 1);
  CHECK(strstr(logs.text, "cam1/data.csv names 1000050000000.png, which does not exist") != NULL);
  int good = 0;
  CHECK(replay_errors(e, "", &good) == 0 && good == PAIRS - 1);
  vf_euroc_close(e);

  /* Truncated, RGB and wrongly sized images: that pair's event fails naming the file, the
   * others replay; with and without prefetch. */
  static const char* cases[] = {"truncated", "rgb", "size"};
  static const char* says[] = {"corrupt or truncated", "colour type 2",
                               "is 9x6, cam0/sensor.yaml says 8x6"};
  for (int c = 0; c < 3; ++c) {
    root = make_sequence(cases[c]);
    char rel[128];
    snprintf(rel, sizeof rel, "mav0/cam%d/data/%lld.png", c == 2 ? 0 : 1, T0 + 2 * FRAME_NS);
    if (c == 0) {
      snprintf(path, sizeof path, "%s/%s", root, rel);
      CHECK(truncate(path, 40) == 0);
    } else {
      write_png(root, rel, c == 1 ? W : W + 1, H, c == 1 ? VF_PIXEL_RGB8 : VF_PIXEL_U8);
    }
    /* Synchronous, one thread, and pools of 2 and 8 threads (8 capped by 3 slots). */
    static const int prefetch[4] = {0, 2, 4, 3}, threads[4] = {1, 1, 2, 8};
    for (int m = 0; m < 4; ++m) {
      vf_euroc_config cfg = vf_euroc_config_default();
      cfg.prefetch = prefetch[m];
      cfg.decode_threads = threads[m];
      CHECK_OK(vf_euroc_open(root, &cfg, NULL, &e));
      if (e == NULL) continue;
      CHECK(replay_errors(e, says[c], &good) == 1 && good == PAIRS - 1);
      vf_image l, r;
      CHECK_FAILS(vf_euroc_load_pair(e, 2, NULL, &l, &r), VF_ERR_FORMAT);
      CHECK(strstr(vf_last_error_message(), rel) != NULL);
      vf_euroc_close(e);
    }
  }
  vf_context_destroy(ctx);
}

/* Truncates pair `pair`'s cam`cam` image so that decoding it fails. */
static void break_image(const char* root, int pair, int cam) {
  char path[700];
  snprintf(path, sizeof path, "%s/mav0/cam%d/data/%lld.png", root, cam, T0 + pair * FRAME_NS);
  CHECK(truncate(path, 40) == 0);
}

/* The decoding pool on a longer sequence: every pair once and in order, each broken image
 * reported once at its own pair, however many threads and slots; destroy and rewind with
 * decodes in flight. */
static void check_pool(void) {
  enum { N = 24 };
  const char* root = make_sequence_of("pool", N);
  break_image(root, 5, 0);
  break_image(root, 6, 1);
  break_image(root, 17, 0);
  const uint32_t broken = (1u << 5) | (1u << 6) | (1u << 17);
  static const int prefetch[5] = {0, 1, 2, 8, 16}, threads[5] = {0, 4, 2, 8, 3};
  for (int m = 0; m < 5; ++m) {
    vf_euroc_config cfg = vf_euroc_config_default();
    cfg.prefetch = prefetch[m];
    cfg.decode_threads = threads[m];
    vf_euroc* e = NULL;
    CHECK_OK(vf_euroc_open(root, &cfg, NULL, &e));
    if (e == NULL) continue;
    for (int lap = 0; lap < 2; ++lap) {
      int good = 0;
      uint32_t failed = 0;
      CHECK(replay_errors_at(e, "corrupt or truncated", &good, &failed) == 3);
      CHECK(good == N - 3 && failed == broken);
      /* Rewinds with decodes in flight, a few pairs in; the next lap starts afresh. */
      CHECK_OK(vf_euroc_rewind(e));
      vf_euroc_event ev;
      for (int i = 0; i < 3 * (lap + 1); ++i) CHECK_OK(vf_euroc_next(e, &ev));
      CHECK_OK(vf_euroc_rewind(e));
    }
    int64_t t = 0;
    CHECK_OK(vf_euroc_pair_time(e, N - 1, &t));
    CHECK(t == T0 + (N - 1) * FRAME_NS);
    CHECK_FAILS(vf_euroc_pair_time(e, N, &t), VF_ERR_INVALID_ARG);
    /* Closed with the workers mid-stream. */
    vf_euroc_event ev;
    for (int i = 0; i < 40; ++i) vf_euroc_next(e, &ev);
    vf_euroc_close(e);
  }
}

/* The queue's bound: holding pair 0 with 2 slots, no worker may touch pair 2, so an image of
 * pair 2 broken now (after the pool had time to run ahead) must still fail when it comes. */
static void check_pool_bound(void) {
  const char* root = make_sequence_of("bound", 12);
  vf_euroc_config cfg = vf_euroc_config_default();
  cfg.prefetch = 2;
  cfg.decode_threads = 8;
  vf_euroc* e = NULL;
  CHECK_OK(vf_euroc_open(root, &cfg, NULL, &e));
  if (e == NULL) return;
  vf_euroc_event ev;
  do {
    CHECK_OK(vf_euroc_next(e, &ev));
  } while (ev.type == VF_EUROC_IMU);
  CHECK(ev.type == VF_EUROC_STEREO && ev.pair == 0);
  struct timespec pause = {0, 50000000};
  nanosleep(&pause, NULL);
  break_image(root, 2, 1);
  int errors = 0, pair2_failed = 0;
  for (int guard = 0; guard < 1000; ++guard) {
    vf_status s = vf_euroc_next(e, &ev);
    if (s == VF_OK && ev.type == VF_EUROC_END) break;
    errors += s != VF_OK;
    pair2_failed |= s != VF_OK && ev.pair == 2;
  }
  CHECK(errors == 1 && pair2_failed);
  vf_euroc_close(e);
}

int main(void) {
  check_valid();
  check_structure();
  check_csv();
  check_yaml();
  check_images();
  check_pool();
  check_pool_bound();
  VF_TEST_END("test_euroc_bad");
}

// SPDX-License-Identifier: BSD-3-Clause
/* Camera rigs (vf_rig.h) from Kalibr camchain files written into a temporary folder: one EuRoC
 * camera in Kalibr's block style; EuRoC's pair with cam1 placed by T_cn_cnm1; a ring of four
 * cameras 90 degrees apart whose T_BS are compared with hand-computed values, placed by T_cam_imu,
 * by the chain from cam0 or cam2, or (no T_cam_imu) relative to cam0; stereo pairs and overlaps;
 * then every fault of a file: its status and a message with the file, the line and the key.
 * Also rigs built in code and from the real EuRoC excerpt when present. */
#include <unistd.h>
#include <viofront/viofront.h>

#include "euroc_calib.h"
#include "log_capture.h"
#include "vf_test.h"

static log_capture logs;
static vf_context* ctx;
static char dir[256];

/* Writes `text` to dir/name and returns the path (static: valid until the next call). */
static const char* write_file(const char* name, const char* text) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "w");
  CHECK(f != NULL);
  if (f != NULL) {
    fputs(text, f);
    fclose(f);
  }
  return path;
}

/* Every entry of two row-major 4x4 within tol. */
static int transform_near(const double* a, const double* b, double tol) {
  int ok = 1;
  for (int i = 0; i < 16; ++i) ok &= fabs(a[i] - b[i]) <= tol;
  if (!ok) {
    for (int i = 0; i < 16; ++i) fprintf(stderr, "  [%d] %.12g vs %.12g\n", i, a[i], b[i]);
  }
  return ok;
}

/* The rigid inverse (R^T, -R^T t), for files written from EuRoC's T_BS. */
static void inverse(const double T[16], double inv[16]) {
  memset(inv, 0, 16 * sizeof(double));
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) inv[4 * r + c] = T[4 * c + r];
    for (int c = 0; c < 3; ++c) inv[4 * r + 3] -= T[4 * c + r] * T[4 * c + 3];
  }
  inv[15] = 1.0;
}

/* A 4x4 as Kalibr writes it (a block list of rows) under `key`, indented for a camera. */
static void append_block(char* out, size_t size, const char* key, const double T[16]) {
  size_t used = strlen(out);
  used += (size_t)snprintf(out + used, size - used, "  %s:\n", key);
  for (int r = 0; r < 4; ++r) {
    used += (size_t)snprintf(out + used, size - used, "  - [%.17g, %.17g, %.17g, %.17g]\n",
                             T[4 * r], T[4 * r + 1], T[4 * r + 2], T[4 * r + 3]);
  }
}

static const char* euroc_intrinsics[2] = {"[458.654, 457.296, 367.215, 248.375]",
                                          "[457.587, 456.134, 379.999, 255.238]"};
static const char* euroc_coeffs[2] = {"[-0.28340811, 0.07395907, 0.00019359, 1.76187114e-05]",
                                      "[-0.28368365, 0.07451284, -0.00010473, -3.55590700e-05]"};

/* EuRoC's cameras as Kalibr writes them: cam0 with T_cam_imu, cam1 (when two) with T_cn_cnm1. */
static void euroc_camchain(int cameras, const char* tail, char* out, size_t size) {
  const vf_camera c0 = euroc_camera(0), c1 = euroc_camera(1);
  double T0[16], T1[16], T10[16];
  inverse(c0.T_BS, T0);
  inverse(c1.T_BS, T1);
  /* T_c1_c0 = T_c1_imu T_imu_c0 */
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      T10[4 * r + c] = 0.0;
      for (int k = 0; k < 4; ++k) T10[4 * r + c] += T1[4 * r + k] * c0.T_BS[4 * k + c];
    }
  out[0] = '\0';
  for (int i = 0; i < cameras; ++i) {
    size_t used = strlen(out);
    snprintf(out + used, size - used, "cam%d:\n", i);
    if (i == 0) append_block(out, size, "T_cam_imu", T0);
    if (i == 1) append_block(out, size, "T_cn_cnm1", T10);
    used = strlen(out);
    snprintf(out + used, size - used,
             "  cam_overlaps: [%s]\n  camera_model: pinhole\n  distortion_coeffs: %s\n"
             "  distortion_model: radtan\n  intrinsics: %s\n  resolution: [752, 480]\n"
             "  rostopic: /cam%d/image_raw\n  timeshift_cam_imu: %s\n",
             cameras == 1 ? ""
             : i          ? "0"
                          : "1",
             euroc_coeffs[i], euroc_intrinsics[i], i, i ? "-0.0025" : "0.0017");
  }
  size_t used = strlen(out);
  snprintf(out + used, size - used, "%s", tail);
}

static void check_euroc_files(void) {
  char text[8192];
  vf_rig rig;
  euroc_camchain(1, "", text, sizeof text);
  log_capture_clear(&logs);
  CHECK_OK(vf_rig_load_camchain(write_file("one.yaml", text), ctx, &rig));
  CHECK(logs.count == 0); /* rostopic is skipped without a warning */
  const vf_camera c0 = euroc_camera(0), c1 = euroc_camera(1);
  CHECK(rig.camera_count == 1 && rig.pair_count == 0 && rig.imu_extrinsics == 1);
  CHECK(strcmp(rig.names[0], "cam0") == 0);
  const vf_camera* g = &rig.cameras[0];
  CHECK(g->width == 752 && g->height == 480 && g->fx == 458.654 && g->fy == 457.296 &&
        g->cx == 367.215 && g->cy == 248.375 && g->rate_hz == 0.0);
  CHECK(g->distortion == VF_DISTORTION_RADTAN && g->k[0] == -0.28340811 &&
        g->k[3] == 1.76187114e-05 && g->k[4] == 0.0);
  CHECK(transform_near(g->T_BS, c0.T_BS, 1e-12));
  CHECK(rig.timeshift_s[0] == 0.0017);
  CHECK_OK(vf_rig_check(&rig));

  euroc_camchain(2, "stereo_pairs: [[0, 1]]\n", text, sizeof text);
  CHECK_OK(vf_rig_load_camchain(write_file("two.yaml", text), ctx, &rig));
  CHECK(rig.camera_count == 2 && strcmp(rig.names[1], "cam1") == 0);
  CHECK(rig.cameras[1].fx == 457.587 && rig.cameras[1].k[3] == -3.55590700e-05);
  CHECK(transform_near(rig.cameras[1].T_BS, c1.T_BS, 1e-12)); /* derived by the chain */
  CHECK(rig.timeshift_s[1] == -0.0025 && rig.overlaps[0] == 2u && rig.overlaps[1] == 1u);
  CHECK(rig.pair_count == 1 && rig.pairs[0].left == 0 && rig.pairs[0].right == 1);
  CHECK_OK(vf_rig_check(&rig));
  /* The same text from memory. */
  CHECK_OK(vf_rig_parse_camchain(text, strlen(text), "mem.yaml", ctx, &rig));
  CHECK(rig.camera_count == 2 && transform_near(rig.cameras[1].T_BS, c1.T_BS, 1e-12));
  /* Without stereo_pairs, no pair is guessed from cam_overlaps. */
  euroc_camchain(2, "", text, sizeof text);
  CHECK_OK(vf_rig_load_camchain(write_file("two.yaml", text), ctx, &rig));
  CHECK(rig.camera_count == 2 && rig.pair_count == 0);
}

/* The ring: camera i at 0.1 m from the IMU along yaw 90 i degrees (body z up), looking outward,
 * its y axis down (body -z). Hand-computed with c = cos, s = sin of the yaw:
 * T_BS = [s 0 c 0.1c; -c 0 s 0.1s; 0 -1 0 0], T_cam_imu = [s -c 0 0; 0 0 -1 0; c s 0 -0.1], and
 * from each camera to the next T_cn_cnm1 = [0 0 1 0.1; 0 1 0 0; -1 0 0 -0.1]. */
static const int ring_c[4] = {1, 0, -1, 0}, ring_s[4] = {0, 1, 0, -1};

static void ring_T_BS(int i, double T[16]) {
  const double c = ring_c[i], s = ring_s[i];
  const double v[16] = {s, 0, c, 0.1 * c, -c, 0, s, 0.1 * s, 0, -1, 0, 0, 0, 0, 0, 1};
  memcpy(T, v, sizeof v);
}

/* The ring's file: T_cam_imu for the cameras in `with_imu` (a bit mask), T_cn_cnm1 for those in
 * `with_chain`; `cam1_T_cam_imu` replaces cam1's T_cam_imu when not NULL. */
static void ring_camchain(unsigned with_imu, unsigned with_chain, const char* cam1_T_cam_imu,
                          const char* tail, char* out, size_t size) {
  out[0] = '\0';
  for (int i = 0; i < 4; ++i) {
    size_t used = strlen(out);
    used += (size_t)snprintf(out + used, size - used,
                             "cam%d:\n  camera_model: pinhole\n  intrinsics: [400, 401, 320.5, "
                             "240.5]\n  distortion_model: equidistant\n  distortion_coeffs: "
                             "[0.01, -0.02, 0.003, -0.0004]\n  resolution: [640, 480]\n",
                             i);
    if (with_imu & (1u << i)) {
      if (i == 1 && cam1_T_cam_imu != NULL) {
        used += (size_t)snprintf(out + used, size - used, "  T_cam_imu: %s\n", cam1_T_cam_imu);
      } else {
        used += (size_t)snprintf(out + used, size - used,
                                 "  T_cam_imu: [[%d, %d, 0, 0], [0, 0, -1, 0], [%d, %d, 0, -0.1], "
                                 "[0, 0, 0, 1]]\n",
                                 ring_s[i], -ring_c[i], ring_c[i], ring_s[i]);
      }
    }
    if (with_chain & (1u << i)) {
      snprintf(out + used, size - used,
               "  T_cn_cnm1: [[0, 0, 1, 0.1], [0, 1, 0, 0], [-1, 0, 0, -0.1], [0, 0, 0, 1]]\n");
    }
  }
  size_t used = strlen(out);
  snprintf(out + used, size - used, "%s", tail);
}

static void check_ring_poses(const vf_rig* rig, const char* what) {
  int ok = rig->camera_count == 4;
  for (int i = 0; ok && i < 4; ++i) {
    double T[16];
    ring_T_BS(i, T);
    ok &= transform_near(rig->cameras[i].T_BS, T, 1e-12);
  }
  if (!ok) fprintf(stderr, "  ring placed %s: wrong T_BS\n", what);
  CHECK(ok);
}

static void check_ring(void) {
  char text[8192];
  vf_rig rig;
  ring_camchain(0xf, 0xe, NULL, "stereo_pairs: [[0, 1], [3, 2]]\n", text, sizeof text);
  CHECK_OK(vf_rig_load_camchain(write_file("ring.yaml", text), ctx, &rig));
  check_ring_poses(&rig, "by T_cam_imu");
  CHECK(rig.imu_extrinsics == 1 && rig.pair_count == 2);
  CHECK(rig.pairs[1].left == 3 && rig.pairs[1].right == 2);
  CHECK(rig.cameras[3].distortion == VF_DISTORTION_EQUIDISTANT && rig.cameras[3].k[3] == -0.0004);
  CHECK(rig.cameras[2].cx == 320.5 && rig.cameras[2].width == 640);
  CHECK_OK(vf_rig_check(&rig));
  ring_camchain(0x1, 0xe, NULL, "", text, sizeof text);
  CHECK_OK(vf_rig_load_camchain(write_file("ring.yaml", text), ctx, &rig));
  check_ring_poses(&rig, "from cam0 by the chain");
  ring_camchain(0x4, 0xe, NULL, "", text, sizeof text);
  CHECK_OK(vf_rig_load_camchain(write_file("ring.yaml", text), ctx, &rig));
  check_ring_poses(&rig, "from cam2 both ways");
  /* No T_cam_imu: the body is cam0, and cam2 is 0.2 m behind it, turned half round its y. */
  ring_camchain(0x0, 0xe, NULL, "", text, sizeof text);
  CHECK_OK(vf_rig_load_camchain(write_file("ring.yaml", text), ctx, &rig));
  const double I[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  const double T2[16] = {-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1, -0.2, 0, 0, 0, 1};
  CHECK(rig.imu_extrinsics == 0 && transform_near(rig.cameras[0].T_BS, I, 1e-12) &&
        transform_near(rig.cameras[2].T_BS, T2, 1e-12));
  /* T_cam_imu and T_cn_cnm1 must agree: within 1e-5 m and rad, not beyond. */
  ring_camchain(0xf, 0xe, "[[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, -0.100002], [0, 0, 0, 1]]", "",
                text, sizeof text);
  CHECK_OK(vf_rig_load_camchain(write_file("ring.yaml", text), ctx, &rig));
  ring_camchain(0xf, 0xe, "[[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, -0.1001], [0, 0, 0, 1]]", "",
                text, sizeof text);
  CHECK_FAILS(vf_rig_load_camchain(write_file("ring.yaml", text), ctx, &rig), VF_ERR_FORMAT);
  CHECK(strstr(vf_last_error_message(), "ring.yaml:15: cam1.T_cn_cnm1: disagrees") != NULL);
  CHECK(strstr(vf_last_error_message(), "0.0001 m") != NULL);
  /* cam1 turned by 1e-3 rad about its optical axis. */
  char turned[256];
  const double a = 1e-3, ca = cos(a), sa = sin(a);
  snprintf(turned, sizeof turned,
           "[[%.17g, 0, %.17g, 0], [%.17g, 0, %.17g, 0], [0, 1, 0, -0.1], [0, 0, 0, 1]]", ca, sa,
           sa, -ca);
  ring_camchain(0xf, 0xe, turned, "", text, sizeof text);
  CHECK_FAILS(vf_rig_load_camchain(write_file("ring.yaml", text), ctx, &rig), VF_ERR_FORMAT);
  CHECK(strstr(vf_last_error_message(), "cam1.T_cn_cnm1: disagrees") != NULL &&
        strstr(vf_last_error_message(), "by 0.001 rad") != NULL);
  /* A camera that nothing places. */
  ring_camchain(0x1, 0x6, NULL, "", text, sizeof text);
  CHECK_FAILS(vf_rig_load_camchain(write_file("ring.yaml", text), ctx, &rig), VF_ERR_FORMAT);
  CHECK(strstr(vf_last_error_message(), "ring.yaml:22: cam3: no T_cam_imu") != NULL);
  ring_camchain(0x0, 0xa, NULL, "", text, sizeof text);
  CHECK_FAILS(vf_rig_load_camchain(write_file("ring.yaml", text), ctx, &rig), VF_ERR_FORMAT);
  CHECK(strstr(vf_last_error_message(), "ring.yaml:14: cam2.T_cn_cnm1: missing key") != NULL);
  /* cam_overlaps become bit masks; no pairs without stereo_pairs. */
  ring_camchain(0x1, 0xe, NULL, "", text, sizeof text);
  char* at = strstr(text, "cam1:");
  memmove(at + 23, at, strlen(at) + 1);
  memcpy(at, "  cam_overlaps: [1, 3]\n", 23);
  CHECK_OK(vf_rig_load_camchain(write_file("ring.yaml", text), ctx, &rig));
  CHECK(rig.overlaps[0] == 0xau && rig.overlaps[1] == 0u && rig.pair_count == 0);
}

/* A one-camera file whose line `key:` (after "cam0:") is replaced by `line` ("" = removed). */
static const char* one_camera(const char* key, const char* line) {
  static const char* lines[] = {"cam0:",
                                "  camera_model: pinhole",
                                "  intrinsics: [400, 401, 320.5, 240.5]",
                                "  distortion_model: radtan",
                                "  distortion_coeffs: [0.1, -0.01, 0.001, 0.0001]",
                                "  resolution: [640, 480]",
                                "  T_cam_imu: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, "
                                "0, 1]]",
                                "  timeshift_cam_imu: 0.0"};
  static char text[2048];
  text[0] = '\0';
  for (int i = 0; i < 8; ++i) {
    const char* l = lines[i];
    if (key != NULL && strncmp(l + 2, key, strlen(key)) == 0 && l[2 + strlen(key)] == ':') l = line;
    if (l[0] != '\0') {
      strcat(text, l);
      strcat(text, "\n");
    }
  }
  return text;
}

/* Loading `text` as bad.yaml fails with `status` and a message holding `fragment`. */
static void expect_error(const char* text, vf_status status, const char* fragment) {
  vf_rig rig = vf_rig_default();
  rig.camera_count = 7; /* must stay untouched */
  CHECK_FAILS(vf_rig_load_camchain(write_file("bad.yaml", text), ctx, &rig), status);
  CHECK(rig.camera_count == 7);
  int ok = strstr(vf_last_error_message(), fragment) != NULL;
  if (!ok) fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", vf_last_error_message(), fragment);
  CHECK(ok);
}

static void check_bad_files(void) {
  vf_rig rig;
  CHECK_OK(vf_rig_load_camchain(write_file("bad.yaml", one_camera(NULL, NULL)), ctx, &rig));
  CHECK(rig.camera_count == 1 && rig.cameras[0].k[1] == -0.01);
  char path[512];
  snprintf(path, sizeof path, "%s/none.yaml", dir);
  CHECK_FAILS(vf_rig_load_camchain(path, ctx, &rig), VF_ERR_IO);
  CHECK(strstr(vf_last_error_message(), "none.yaml: cannot open") != NULL);
  expect_error("cam0:\n  intrinsics: [1, 2\n", VF_ERR_FORMAT, "bad.yaml:");
  expect_error("cam0:\n  intrinsics: [1, 2\n", VF_ERR_FORMAT, "syntax error");
  expect_error("", VF_ERR_FORMAT, "bad.yaml:1: (document): expected a mapping of cameras");
  expect_error("- cam0\n", VF_ERR_FORMAT, "expected a mapping of cameras");
  expect_error("rostopic: /x\n", VF_ERR_FORMAT, "no cameras");
  expect_error("cam0: 3\n", VF_ERR_FORMAT, "bad.yaml:1: cam0: expected a mapping");
  /* One line of a valid camera replaced (by "" = removed): its status and message. */
  static const struct {
    const char* key;
    const char* line;
    vf_status status;
    const char* fragment;
  } bad_lines[] = {
      {"intrinsics", "", VF_ERR_FORMAT, "bad.yaml:2: cam0.intrinsics: missing"},
      {"intrinsics", "  intrinsics: [400, 401, 320.5]", VF_ERR_FORMAT,
       "bad.yaml:3: cam0.intrinsics: needs 4 numbers (fu, fv, pu, pv), got 3"},
      {"intrinsics", "  intrinsics: [400, .nan, 320.5, 240.5]", VF_ERR_FORMAT,
       "bad.yaml:3: cam0.intrinsics[1]: '.nan' is not a finite number"},
      {"intrinsics", "  intrinsics: [400, -401, 320.5, 240.5]", VF_ERR_FORMAT,
       "cam0.intrinsics: focal lengths fu, fv must be > 0"},
      {"distortion_coeffs", "  distortion_coeffs: [0.1, 0.2, 0, 0, 0.1]", VF_ERR_FORMAT,
       "bad.yaml:5: cam0.distortion_coeffs: needs 4 numbers for distortion_model radtan, got 5"},
      {"distortion_coeffs", "", VF_ERR_FORMAT, "got 0"},
      {"distortion_model", "  distortion_model: fov", VF_ERR_UNSUPPORTED,
       "bad.yaml:4: cam0.distortion_model: Kalibr's 'fov' is not supported"},
      {"distortion_model", "  distortion_model: plumb_bob", VF_ERR_FORMAT,
       "cam0.distortion_model: 'plumb_bob' is not one of"},
      {"camera_model", "  camera_model: omni", VF_ERR_UNSUPPORTED,
       "bad.yaml:2: cam0.camera_model: Kalibr's 'omni' is not supported (pinhole only)"},
      {"camera_model", "  camera_model: eucm", VF_ERR_UNSUPPORTED, "'eucm'"},
      {"camera_model", "  camera_model: fisheye", VF_ERR_FORMAT,
       "cam0.camera_model: 'fisheye' is not one of"},
      {"resolution", "  resolution: [0, 480]", VF_ERR_FORMAT,
       "bad.yaml:6: cam0.resolution: 0 is outside 1..32768"},
      {"resolution", "  resolution: [640, 40000]", VF_ERR_FORMAT, "outside"},
      {"resolution", "  resolution: [640.5, 480]", VF_ERR_FORMAT, "whole"},
      {"resolution", "  resolution: [640]", VF_ERR_FORMAT,
       "cam0.resolution: needs 2 numbers, got 1"},
      {"T_cam_imu", "  T_cam_imu: [[2, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]",
       VF_ERR_FORMAT, "bad.yaml:7: cam0.T_cam_imu: transform: rotation part is not a rotation"},
      {"T_cam_imu", "  T_cam_imu: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]", VF_ERR_FORMAT,
       "cam0.T_cam_imu: needs 4 rows, got 3"},
      {"T_cam_imu", "  T_cam_imu: [[1, 0, 0, .inf], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]",
       VF_ERR_FORMAT, "cam0.T_cam_imu[0][3]: '.inf' is not a finite number"},
      {"T_cam_imu", "  T_cn_cnm1: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]",
       VF_ERR_FORMAT, "bad.yaml:7: cam0.T_cn_cnm1: cam0 has no previous camera"},
      {"timeshift_cam_imu", "  timeshift_cam_imu: .inf", VF_ERR_FORMAT,
       "bad.yaml:8: cam0.timeshift_cam_imu"},
      {"timeshift_cam_imu", "  cam_overlaps: [0]", VF_ERR_FORMAT,
       "cam0.cam_overlaps: lists the camera itself"},
      {"timeshift_cam_imu", "  cam_overlaps: [3]", VF_ERR_FORMAT,
       "cam0.cam_overlaps: camera 3 is not in the file (1 cameras)"},
  };
  for (size_t k = 0; k < sizeof bad_lines / sizeof bad_lines[0]; ++k) {
    expect_error(one_camera(bad_lines[k].key, bad_lines[k].line), bad_lines[k].status,
                 bad_lines[k].fragment);
  }

  /* The set of cameras. */
  char text[4096];
  snprintf(text, sizeof text, "%scam2: {}\n", one_camera(NULL, NULL));
  expect_error(text, VF_ERR_FORMAT, "bad.yaml:1: cam1: missing: cameras are numbered cam0..cam2");
  snprintf(text, sizeof text, "%scam16: {}\n", one_camera(NULL, NULL));
  expect_error(text, VF_ERR_FORMAT, "bad.yaml:9: cam16: a rig holds at most 16 cameras");
  snprintf(text, sizeof text, "%s%s", one_camera(NULL, NULL), one_camera(NULL, NULL));
  expect_error(text, VF_ERR_FORMAT, "bad.yaml:9: cam0: key appears twice");

  /* Our stereo_pairs. */
  static const struct {
    const char* pairs;
    const char* fragment;
  } bad_pairs[] = {
      {"stereo_pairs: [[0, 5]]",
       "bad.yaml:1: stereo_pairs[0]: camera 5 is not in the rig (4 "
       "cameras)"},
      {"stereo_pairs: [[-1, 0]]", "camera -1 is not in the rig"},
      {"stereo_pairs: [[2, 2]]", "stereo_pairs[0]: camera 2 is paired with itself"},
      {"stereo_pairs: [[0, 1], [1, 2]]", "stereo_pairs[1]: camera 1 is already in pair 0 (0, 1)"},
      {"stereo_pairs: [[0, 1], [0, 1]]", "camera 0 is already in pair 0"},
      {"stereo_pairs: [[0, 1.5]]", "stereo_pairs[0]: expected camera indices"},
      {"stereo_pairs: [[0, 1, 2]]", "stereo_pairs[0]: needs 2 numbers, got 3"},
      {"stereo_pairs: [0, 1]", "stereo_pairs[0]: expected a list of numbers"},
      {"stereo_pairs: 3", "stereo_pairs: expected a list of [left, right]"},
  };
  for (size_t k = 0; k < sizeof bad_pairs / sizeof bad_pairs[0]; ++k) {
    char tail[128];
    snprintf(tail, sizeof tail, "%s\n", bad_pairs[k].pairs);
    /* stereo_pairs first: its line is 1 and it is read after the cameras all the same. */
    snprintf(text, sizeof text, "%s", tail);
    ring_camchain(0x1, 0xe, NULL, "", text + strlen(tail), sizeof text - strlen(tail));
    expect_error(text, VF_ERR_FORMAT, bad_pairs[k].fragment);
  }

  /* Unknown keys: warned with their line and skipped. */
  snprintf(text, sizeof text, "calibration: 2\n%s  fps: 20\n", one_camera(NULL, NULL));
  log_capture_clear(&logs);
  CHECK_OK(vf_rig_load_camchain(write_file("extra.yaml", text), ctx, &rig));
  CHECK(logs.count == 2 && strstr(logs.text, "extra.yaml:1: unknown key 'calibration'") != NULL &&
        strstr(logs.text, "extra.yaml:10: unknown key 'cam0.fps'") != NULL);
  CHECK(rig.camera_count == 1);
  CHECK_OK(vf_rig_load_camchain(write_file("extra.yaml", text), NULL, &rig)); /* no log: silent */
}

static void check_rig_in_code(void) {
  vf_rig rig = vf_rig_default();
  CHECK(rig.camera_count == 0 && rig.pair_count == 0);
  CHECK_FAILS(vf_rig_check(&rig), VF_ERR_INVALID_ARG);
  const vf_camera c0 = euroc_camera(0), c1 = euroc_camera(1);
  CHECK_OK(vf_rig_add_camera(&rig, NULL, &c0));
  CHECK_OK(vf_rig_add_camera(&rig, "right", &c1));
  CHECK(strcmp(rig.names[0], "cam0") == 0 && strcmp(rig.names[1], "right") == 0);
  CHECK_FAILS(vf_rig_add_camera(&rig, "cam0", &c1), VF_ERR_INVALID_ARG);
  CHECK(rig.camera_count == 2);
  CHECK_FAILS(vf_rig_add_pair(&rig, 0, 0), VF_ERR_INVALID_ARG);
  CHECK_OK(vf_rig_add_pair(&rig, 1, 0));
  CHECK_OK(vf_rig_check(&rig));
  CHECK(rig.pair_count == 1 && rig.pairs[0].left == 1 && rig.pairs[0].right == 0);
  /* Two cameras at one place have no baseline. */
  vf_rig same = vf_rig_default();
  CHECK_OK(vf_rig_add_camera(&same, NULL, &c0));
  CHECK_OK(vf_rig_add_camera(&same, NULL, &c0));
  CHECK_FAILS(vf_rig_add_pair(&same, 0, 1), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "no baseline") != NULL && same.pair_count == 0);
  for (int i = 2; i < VF_RIG_MAX_CAMERAS; ++i) CHECK_OK(vf_rig_add_camera(&rig, NULL, &c0));
  CHECK_FAILS(vf_rig_add_camera(&rig, NULL, &c0), VF_ERR_INVALID_ARG);
  CHECK(rig.camera_count == VF_RIG_MAX_CAMERAS && strcmp(rig.names[15], "cam15") == 0);

  char path[1024];
  if (vf_test_data_path("euroc/V1_01_easy_micro/mav0/cam0/sensor.yaml", path, sizeof path) !=
      NULL) {
    vf_test_data_path("euroc/V1_01_easy_micro", path, sizeof path);
    vf_euroc* e = NULL;
    CHECK_OK(vf_euroc_open(path, NULL, NULL, &e));
    CHECK_OK(vf_rig_from_euroc(e, &rig));
    CHECK(rig.camera_count == 2 && rig.pair_count == 1 && rig.pairs[0].left == 0 &&
          rig.pairs[0].right == 1 && rig.imu_extrinsics == 1);
    CHECK(camera_equal(&rig.cameras[0], &c0) && camera_equal(&rig.cameras[1], &c1));
    CHECK_OK(vf_rig_check(&rig));
    vf_euroc_close(e);
  } else {
    printf("real EuRoC sequence absent: vf_rig_from_euroc skipped\n");
  }
}

int main(void) {
  ctx = log_capture_context(&logs);
  CHECK(ctx != NULL);
  const char* tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/vf_test_rig_XXXXXX", tmp != NULL ? tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL);
  check_euroc_files();
  check_ring();
  check_bad_files();
  check_rig_in_code();
  static const char* files[] = {"one.yaml", "two.yaml", "ring.yaml", "bad.yaml", "extra.yaml"};
  for (int i = 0; i < 5; ++i) remove(write_file(files[i], ""));
  rmdir(dir);
  vf_context_destroy(ctx);
  VF_TEST_END("test_rig");
}

// SPDX-License-Identifier: BSD-3-Clause
/* vf_synth --rig: short front-back and ring4 sequences with depth. Every camera's
 * folder holds its frames; camchain.yaml's T_cam_imu is the inverse of that camera's sensor.yaml
 * T_BS and T_cn_cnm1 takes cam n-1 to cam n; each camera's landmark tracks reproject from the
 * ground-truth poses (vf_camera_project) and lie at the depth its depth map gives; the back
 * pair's disparity agrees with its landmarks rectified by rectification2.yaml; no camera's image
 * is blank. --rig stereo writes what the default writes. */
#include <viofront/viofront.h>

#include "synth_util.h"
#include "vf_test.h"

#define FRAMES 3
#define MAX_CAMS 4
#define LANDMARKS 200
#define T_FIRST 1500000001000000000LL

static int file_exists(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f != NULL) fclose(f);
  return f != NULL;
}

/* Every camera's data.csv has FRAMES rows naming images that exist, and the depth maps too. */
static void check_folders(const char* root, int ncams) {
  for (int k = 0; k < ncams; ++k) {
    char path[1024], line[256];
    snprintf(path, sizeof path, "%s/mav0/cam%d/data.csv", root, k);
    FILE* f = fopen(path, "r");
    int rows = 0, present = 0;
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
      long long t;
      if (line[0] == '#' || sscanf(line, "%lld,", &t) != 1) continue;
      ++rows;
      snprintf(path, sizeof path, "%s/mav0/cam%d/data/%lld.png", root, k, t);
      present += file_exists(path);
      snprintf(path, sizeof path, "%s/groundtruth/depth%d/%lld.png", root, k, t);
      present += file_exists(path);
    }
    if (f != NULL) fclose(f);
    printf("%s cam%d: %d rows, %d files\n", root, k, rows, present);
    CHECK(rows == FRAMES && present == 2 * FRAMES);
  }
}

/* The 4x4 `key` of block camK in camchain.yaml (rows "  - [a, b, c, d]"); 0 when found. */
static int read_camchain_T(const char* root, int k, const char* key, double T[16]) {
  char path[1024], line[512], block[32], want[64];
  snprintf(path, sizeof path, "%s/camchain.yaml", root);
  snprintf(block, sizeof block, "cam%d:\n", k);
  snprintf(want, sizeof want, "  %s:\n", key);
  FILE* f = fopen(path, "r");
  int in_block = 0, row = -1;
  while (f != NULL && row < 4 && fgets(line, sizeof line, f) != NULL) {
    if (line[0] != ' ') in_block = strcmp(line, block) == 0;
    if (in_block && row < 0 && strcmp(line, want) == 0) {
      row = 0;
    } else if (in_block && row >= 0) {
      double* r = &T[4 * row++];
      if (sscanf(line, "  - [%lf, %lf, %lf, %lf]", &r[0], &r[1], &r[2], &r[3]) != 4) break;
    }
  }
  if (f != NULL) fclose(f);
  return row == 4 ? 0 : -1;
}

static void mat4_mul(const double A[16], const double B[16], double C[16]) {
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      C[4 * i + j] = 0;
      for (int m = 0; m < 4; ++m) C[4 * i + j] += A[4 * i + m] * B[4 * m + j];
    }
  }
}

static double mat4_diff(const double A[16], const double B[16]) {
  double worst = 0;
  for (int i = 0; i < 16; ++i) worst = fmax(worst, fabs(A[i] - B[i]));
  return worst;
}

/* camchain.yaml against the sensor.yaml cameras, and its stereo_pairs line. */
static void check_camchain(const char* root, const vf_camera* cams, int ncams, const char* pairs) {
  static const double I[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  double T_ci[MAX_CAMS][16], worst_inv = 0, worst_chain = 0;
  int found = 0;
  for (int k = 0; k < ncams; ++k) {
    double P[16], T_nm[16];
    found += read_camchain_T(root, k, "T_cam_imu", T_ci[k]) == 0;
    mat4_mul(T_ci[k], cams[k].T_BS, P);
    worst_inv = fmax(worst_inv, mat4_diff(P, I));
    if (k == 0) continue;
    /* T_cn_cnm1 T_cnm1_imu = T_cn_imu. */
    found += read_camchain_T(root, k, "T_cn_cnm1", T_nm) == 0;
    mat4_mul(T_nm, T_ci[k - 1], P);
    worst_chain = fmax(worst_chain, mat4_diff(P, T_ci[k]));
  }
  char path[1024], line[256], last[256] = "";
  snprintf(path, sizeof path, "%s/camchain.yaml", root);
  FILE* f = fopen(path, "r");
  while (f != NULL && fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "stereo_pairs:", 13) == 0) snprintf(last, sizeof last, "%s", line);
  }
  if (f != NULL) fclose(f);
  printf("%s camchain.yaml: %d transforms, |T_cam_imu T_BS - I| %.2g, chain %.2g, %s", root, found,
         worst_inv, worst_chain, last);
  CHECK(found == 2 * ncams - 1 && worst_inv < 1e-12 && worst_chain < 1e-12);
  CHECK(strncmp(last + 14, pairs, strlen(pairs)) == 0);
}

/* The library's camchain reader (vf_rig_load_camchain) on the file: the sensor.yaml cameras,
 * the IMU's body frame, and pairs (0, 1), (2, 3), ... */
static void check_rig_reader(const char* root, const vf_camera* cams, int ncams, int npairs) {
  char path[1024];
  snprintf(path, sizeof path, "%s/camchain.yaml", root);
  vf_rig rig;
  CHECK_OK(vf_rig_load_camchain(path, NULL, &rig));
  CHECK(rig.camera_count == ncams && rig.pair_count == npairs && rig.imu_extrinsics == 1);
  double worst = 0;
  int same = 1;
  for (int k = 0; k < ncams && k < rig.camera_count; ++k) {
    const vf_camera *a = &rig.cameras[k], *b = &cams[k];
    worst = fmax(worst, mat4_diff(a->T_BS, b->T_BS));
    same &= a->width == b->width && a->height == b->height && a->distortion == b->distortion;
    same &= a->fx == b->fx && a->fy == b->fy && a->cx == b->cx && a->cy == b->cy;
    for (int i = 0; i < 5; ++i) same &= a->k[i] == b->k[i];
  }
  for (int p = 0; p < npairs && p < rig.pair_count; ++p)
    same &= rig.pairs[p].left == 2 * p && rig.pairs[p].right == 2 * p + 1;
  printf("%s: vf_rig_load_camchain: %d cameras, %d pairs, |T_BS - sensor.yaml| %.2g\n", root,
         rig.camera_count, rig.pair_count, worst);
  CHECK(same && worst < 1e-12);
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* Each camera's tracks reproject from the ground truth, and its depth map at the rounded pixel
 * gives the landmark's depth (median within 1 cm: another camera's map is metres off). */
static void check_tracks(const vf_euroc* e, const char* root, const vf_camera* cams, int ncams) {
  static double X[LANDMARKS][3];
  static track_row rows[FRAMES * LANDMARKS];
  static double dz[FRAMES * LANDMARKS];
  CHECK(read_landmarks(root, X, LANDMARKS) == LANDMARKS);
  for (int k = 0; k < ncams; ++k) {
    int n = read_tracks(root, k, rows, FRAMES * LANDMARKS), nz = 0;
    double worst = 0;
    long long loaded = -1; /* the frame whose depth map `map` holds: rows come frame by frame */
    vf_image map = {0};
    for (int i = 0; i < n; ++i) {
      if (rows[i].id < 0 || rows[i].id >= LANDMARKS) continue;
      double z = NAN;
      worst = fmax(worst, track_error(e, &cams[k], X[rows[i].id], &rows[i], &z));
      char path[1024];
      snprintf(path, sizeof path, "%s/groundtruth/depth%d/%lld.png", root, k, rows[i].t_ns);
      if (rows[i].t_ns != loaded)
        loaded = vf_png_read_gray_into(path, 16, &map) == VF_OK ? rows[i].t_ns : -1;
      if (loaded != rows[i].t_ns) continue;
      const uint16_t* d = (const uint16_t*)((const uint8_t*)map.data +
                                            (size_t)lround(rows[i].v) * map.stride_bytes);
      dz[nz++] = fabs(d[lround(rows[i].u)] / 5000.0 - z);
    }
    vf_image_free(&map);
    qsort(dz, (size_t)nz, sizeof *dz, cmp_double);
    double median = nz > 0 ? dz[nz / 2] : INFINITY;
    printf(
        "%s tracks%d: %d rows, worst reprojection %.2g px; depth map at %d of them: median "
        "|dz| %.2g m\n",
        root, k, n, worst, nz, median);
    CHECK(n > FRAMES * 10 && worst < 1e-3);
    CHECK(nz == n && median < 0.01);
  }
}

/* Frame 0 of every camera has contrast and few black (nothing hit) pixels. */
static void check_not_blank(const char* root, int ncams) {
  for (int k = 0; k < ncams; ++k) {
    char path[1024];
    snprintf(path, sizeof path, "%s/mav0/cam%d/data/%lld.png", root, k, T_FIRST);
    vf_image img = {0};
    CHECK_OK(vf_png_read_gray8(path, &img));
    double sum = 0, sum2 = 0;
    long dark = 0, n = (long)img.width * img.height;
    for (int y = 0; y < img.height; ++y) {
      const uint8_t* row = (const uint8_t*)img.data + (size_t)y * img.stride_bytes;
      for (int x = 0; x < img.width; ++x) {
        sum += row[x];
        sum2 += (double)row[x] * row[x];
        dark += row[x] < 8;
      }
    }
    double mean = n ? sum / n : 0, sd = n ? sqrt(fmax(0, sum2 / n - mean * mean)) : 0;
    printf("%s cam%d frame 0: mean %.1f, sd %.1f, %.2f%% black\n", root, k, mean, sd,
           n ? 100.0 * dark / n : 100.0);
    CHECK(n > 0 && mean > 40 && sd > 15 && dark < n / 100);
    vf_image_free(&img);
  }
}

/* A number `key: value` of a YAML file; NAN when missing. */
static double yaml_number(const char* path, const char* key) {
  FILE* f = fopen(path, "r");
  char line[1024];
  double v = NAN;
  size_t n = strlen(key);
  while (f != NULL && fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, key, n) == 0 && line[n] == ':') v = strtod(line + n + 1, NULL);
  }
  if (f != NULL) fclose(f);
  return v;
}

/* Raw pixel of camera `cam` -> rectified x, y (rotation R of the rectification). */
static void rectify_pixel(const vf_camera* cam, const double R[9], const vf_stereo_rectification* r,
                          double u, double v, double out[2]) {
  double uv[2] = {u, v}, ray[3], p[3];
  CHECK_OK(vf_camera_unproject(cam, uv, ray));
  for (int i = 0; i < 3; ++i) p[i] = R[3 * i] * ray[0] + R[3 * i + 1] * ray[1] + R[3 * i + 2];
  out[0] = r->cx + r->f * p[0] / p[2];
  out[1] = r->cy + r->f * p[1] / p[2];
}

/* The back pair (cam2, cam3): rectification2.yaml is vf_stereo_rectify's, and landmarks seen by
 * both at frame 0, rectified, lie on one row at the disparity disparity2/ gives. */
static void check_back_disparity(const char* root, const vf_camera* cams) {
  vf_rectify_config rc = vf_rectify_config_default();
  rc.alpha = 0;
  vf_stereo_rectification r;
  CHECK_OK(vf_stereo_rectify(&cams[2], &cams[3], &rc, &r));
  char path[1024];
  snprintf(path, sizeof path, "%s/groundtruth/rectification2.yaml", root);
  CHECK(yaml_number(path, "f") == r.f && yaml_number(path, "baseline_m") == r.baseline_m);
  snprintf(path, sizeof path, "%s/groundtruth/disparity2/%lld.png", root, T_FIRST);
  vf_image disp = {0};
  CHECK_OK(vf_png_read_gray16(path, &disp));
  static track_row left[LANDMARKS], right[LANDMARKS];
  int nl = read_tracks(root, 2, left, LANDMARKS), nr = read_tracks(root, 3, right, LANDMARKS);
  int pairs = 0, close = 0;
  double worst_row = 0;
  for (int i = 0; i < nl && disp.data != NULL; ++i) {
    for (int j = 0; j < nr; ++j) {
      if (left[i].t_ns != T_FIRST || right[j].t_ns != T_FIRST || left[i].id != right[j].id)
        continue;
      double a[2], b[2];
      rectify_pixel(&cams[2], r.R1, &r, left[i].u, left[i].v, a);
      rectify_pixel(&cams[3], r.R2, &r, right[j].u, right[j].v, b);
      int x = (int)lround(a[0]), y = (int)lround(a[1]);
      if (x < 0 || y < 0 || x >= disp.width || y >= disp.height) continue;
      const uint16_t* row = (const uint16_t*)((const uint8_t*)disp.data + y * disp.stride_bytes);
      worst_row = fmax(worst_row, fabs(a[1] - b[1]));
      ++pairs;
      /* At the rounded pixel: within 0.25 px unless the landmark sits on a depth edge. */
      close += row[x] != 0 && fabs(row[x] / 256.0 - (a[0] - b[0])) < 0.25;
    }
  }
  printf(
      "%s back pair: %d landmarks in both, rows within %.2g px, %d at the disparity map's "
      "value\n",
      root, pairs, worst_row, close);
  CHECK(pairs > 20 && worst_row < 1e-6 && close >= pairs * 9 / 10);
  vf_image_free(&disp);
}

/* --rig stereo and no --rig: the same bytes in every file the default writes. */
static void check_stereo_default(void) {
  run_synth("--out test_synth_rig_default --frames 2 --depth off --landmarks 50 --threads 2");
  run_synth(
      "--out test_synth_rig_stereo --rig stereo --frames 2 --depth off --landmarks 50 --threads 2");
  static const char* files[] = {"mav0/cam0/data.csv",
                                "mav0/cam0/sensor.yaml",
                                "mav0/cam0/data/1500000001000000000.png",
                                "mav0/cam1/data.csv",
                                "mav0/cam1/sensor.yaml",
                                "mav0/cam1/data/1500000001050000000.png",
                                "mav0/imu0/data.csv",
                                "mav0/imu0/sensor.yaml",
                                "mav0/body.yaml",
                                "mav0/state_groundtruth_estimate0/data.csv",
                                "mav0/state_groundtruth_estimate0/sensor.yaml",
                                "groundtruth/landmarks.csv",
                                "groundtruth/tracks0.csv",
                                "groundtruth/tracks1.csv",
                                "groundtruth/photometric.csv",
                                "groundtruth/rectification.yaml",
                                "groundtruth/README.txt",
                                "camchain.yaml"};
  int same = 0, n = (int)(sizeof files / sizeof files[0]);
  for (int i = 0; i < n; ++i) {
    char pa[1024], pb[1024];
    snprintf(pa, sizeof pa, "test_synth_rig_default/%s", files[i]);
    snprintf(pb, sizeof pb, "test_synth_rig_stereo/%s", files[i]);
    FILE* fa = fopen(pa, "rb");
    FILE* fb = fopen(pb, "rb");
    int equal = fa != NULL && fb != NULL;
    for (int x = 0, y = 0; equal && x != EOF; equal = x == y) {
      x = fgetc(fa);
      y = fgetc(fb);
    }
    if (fa != NULL) fclose(fa);
    if (fb != NULL) fclose(fb);
    if (!equal) fprintf(stderr, "%s: --rig stereo differs from the default\n", files[i]);
    same += equal;
  }
  printf("--rig stereo: %d of %d files as without --rig\n", same, n);
  CHECK(same == n);
}

/* One rig's sequence (written with depth): the checks above on its cameras (sensor.yaml) and
 * ground truth. */
static void check_rig(const char* root, int ncams, const char* pairs) {
  vf_camera cams[MAX_CAMS];
  for (int k = 0; k < ncams; ++k) {
    char path[1024];
    snprintf(path, sizeof path, "%s/mav0/cam%d/sensor.yaml", root, k);
    CHECK_OK(vf_sensor_yaml_read_camera(path, NULL, &cams[k]));
  }
  check_folders(root, ncams);
  check_camchain(root, cams, ncams, pairs);
  check_rig_reader(root, cams, ncams, strcmp(pairs, "[]") == 0 ? 0 : ncams / 2);
  check_not_blank(root, ncams);
  vf_euroc* e = NULL;
  CHECK_OK(vf_euroc_open(root, NULL, NULL, &e));
  if (e != NULL) check_tracks(e, root, cams, ncams);
  vf_euroc_close(e);
  if (strcmp(pairs, "[[0, 1], [2, 3]]") == 0) check_back_disparity(root, cams);
}

int main(void) {
  run_synth(
      "--out test_synth_rig_fb --rig front-back --frames 3 --noise off --seed 4 "
      "--threads 2 --landmarks 200");
  run_synth(
      "--out test_synth_rig_r4 --rig ring4 --frames 3 --noise off --seed 4 --threads 2 "
      "--landmarks 200");
  check_rig("test_synth_rig_fb", 4, "[[0, 1], [2, 3]]");
  check_rig("test_synth_rig_r4", 4, "[]");
  check_stereo_default();
  VF_TEST_END("test_synth_rig");
}

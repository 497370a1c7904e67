// SPDX-License-Identifier: BSD-3-Clause
/* vf_synth -> vf_euroc round trip, images: a generated sequence loads like a real one (counts,
 * EuRoC's calibration exactly, a time-ordered stream), and its ground truth agrees with its
 * images: cam0 pixels moved by their depth into cam1 and into the next frame (ground-truth
 * poses) find the same intensity; rectified pairs (vf_remap) match at the ground-truth
 * disparity; landmark tracks reproject from the poses; the output does not depend on the
 * thread count. The IMU side is test_synth_imu.c. */
#include <png.h>
#include <stdint.h>
#include <viofront/viofront.h>

#include "euroc_calib.h"
#include "synth_util.h"
#include "vf_test.h"

#define FRAMES 6

/* A 16-bit grey PNG into `out` (w x h host values); 0 on success. */
static int read_png16(const char* path, int w, int h, uint16_t* out) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return -1;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png_create_info_struct(png);
  int rc = -1;
  if (setjmp(png_jmpbuf(png)) == 0) {
    png_init_io(png, f);
    png_read_info(png, info);
    if ((int)png_get_image_width(png, info) == w && (int)png_get_image_height(png, info) == h &&
        png_get_bit_depth(png, info) == 16 &&
        png_get_color_type(png, info) == PNG_COLOR_TYPE_GRAY) {
      png_set_swap(png);
      for (int y = 0; y < h; ++y) png_read_row(png, (png_bytep)(out + (size_t)y * w), NULL);
      rc = 0;
    }
  }
  png_destroy_read_struct(&png, &info, NULL);
  fclose(f);
  return rc;
}

static double bilinear(const vf_image* img, double x, double y) {
  int x0 = (int)floor(x), y0 = (int)floor(y);
  double fx = x - x0, fy = y - y0;
  const uint8_t* p = img->data;
  size_t s = img->stride_bytes;
  int x1 = x0 + 1 < img->width ? x0 + 1 : x0, y1 = y0 + 1 < img->height ? y0 + 1 : y0;
  return (1 - fy) * ((1 - fx) * p[y0 * s + x0] + fx * p[y0 * s + x1]) +
         fy * ((1 - fx) * p[y1 * s + x0] + fx * p[y1 * s + x1]);
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* Median and 90th percentile of n differences (sorted in place). */
static void stats(double* d, int n, double* median, double* p90) {
  qsort(d, (size_t)n, sizeof *d, cmp_double);
  *median = n > 0 ? d[n / 2] : INFINITY;
  *p90 = n > 0 ? d[n * 9 / 10] : INFINITY;
}

/* Moves cam a's pixels (every 3rd) by their ground-truth depth into camera b (another camera or
 * another time) and compares intensities where b's depth agrees (the point is not hidden). */
static void check_warp(const vf_camera* ca, const vf_euroc_state* sa, const vf_image* ia,
                       const uint16_t* da, const vf_camera* cb, const vf_euroc_state* sb,
                       const vf_image* ib, const uint16_t* db, const char* what) {
  double Ra[9], ca_c[3], Rb[9], cb_c[3];
  camera_pose(sa, ca, Ra, ca_c);
  camera_pose(sb, cb, Rb, cb_c);
  static double diff[752 * 480 / 9 + 1], wrong[752 * 480 / 9 + 1];
  int n = 0;
  for (int y = 0; y < 480; y += 3) {
    for (int x = 0; x < 752; x += 3) {
      if (da[y * 752 + x] == 0) continue;
      double uv[2] = {x, y}, ray[3], X[3], ub[2], zb;
      CHECK_OK(vf_camera_unproject(ca, uv, ray));
      double z = da[y * 752 + x] / 5000.0;
      for (int i = 0; i < 3; ++i)
        X[i] = ca_c[i] + z * (Ra[3 * i] * ray[0] + Ra[3 * i + 1] * ray[1] + Ra[3 * i + 2]);
      if (!project_world(cb, Rb, cb_c, X, ub, &zb)) continue;
      double zb_map = db[(int)lround(ub[1]) * 752 + (int)lround(ub[0])] / 5000.0;
      if (fabs(zb_map - zb) > 0.01 * zb) continue; /* hidden in b, or at a depth edge */
      double a = bilinear(ia, x, y);
      diff[n] = fabs(a - bilinear(ib, ub[0], ub[1]));
      /* A control 1.5 px off: clearly worse, or the comparison could not fail. */
      wrong[n++] = fabs(a - bilinear(ib, ub[0] + (ub[0] < 700 ? 1.5 : -1.5), ub[1]));
    }
  }
  double median, p90, wm, w90;
  stats(diff, n, &median, &p90);
  stats(wrong, n, &wm, &w90);
  printf("%s: %d points, |intensity difference| median %.2f, 90%% %.2f (1.5 px off: %.2f, %.2f)\n",
         what, n, median, p90, wm, w90);
  CHECK(n > 10000);
  CHECK(median < 1.0 && p90 < 4.0 && w90 > 3 * p90);
}

/* Rectifies frame `pair` with vf_remap and compares left(u, v) with right(u - d, v) at the
 * ground-truth disparity d. */
static void check_disparity(vf_euroc* e, const char* root, int pair, const vf_image* left,
                            const vf_image* right) {
  vf_camera c0, c1;
  CHECK_OK(vf_euroc_camera(e, 0, &c0));
  CHECK_OK(vf_euroc_camera(e, 1, &c1));
  vf_rectify_config rc = vf_rectify_config_default();
  rc.alpha = 0; /* vf_synth's default, recorded in groundtruth/rectification.yaml */
  vf_stereo_rectification rect;
  CHECK_OK(vf_stereo_rectify(&c0, &c1, &rc, &rect));
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  vf_context* ctx = NULL;
  CHECK_OK(vf_context_create(&cc, &ctx));
  vf_image rl, rr;
  CHECK_OK(vf_image_alloc(&rl, rect.width, rect.height, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&rr, rect.width, rect.height, VF_PIXEL_U8, VF_MEMORY_HOST));
  for (int k = 0; k < 2; ++k) {
    vf_remap_config mc;
    vf_remap* m = NULL;
    CHECK_OK(vf_remap_config_rectify(k ? &c1 : &c0, &rect, k, &mc));
    CHECK_OK(vf_remap_create(ctx, &mc, &m));
    CHECK_OK(vf_remap_apply(m, k ? right : left, k ? &rr : &rl));
    vf_remap_destroy(m);
  }
  int64_t t;
  vf_image tl, tr;
  CHECK_OK(vf_euroc_load_pair(e, pair, &t, &tl, &tr));
  vf_image_free(&tl);
  vf_image_free(&tr);
  char path[1024];
  snprintf(path, sizeof path, "%s/groundtruth/disparity/%lld.png", root, (long long)t);
  uint16_t* disp = malloc(sizeof *disp * 752 * 480);
  CHECK(disp != NULL && read_png16(path, rect.width, rect.height, disp) == 0);
  static double diff[752 * 480];
  int n = 0, shifted = 0;
  static double wrong[752 * 480];
  for (int y = 2; disp != NULL && y < rect.height - 2; y += 2) {
    for (int x = 2; x < rect.width - 2; x += 2) {
      uint16_t d = disp[y * rect.width + x];
      if (d == 0 || x - d / 256.0 < 0) continue;
      double l = ((uint8_t*)rl.data)[y * rl.stride_bytes + x];
      diff[n] = fabs(l - bilinear(&rr, x - d / 256.0, y));
      /* The same comparison one row off: must be clearly worse, or the check means nothing. */
      wrong[shifted++] = fabs(l - bilinear(&rr, x - d / 256.0, y + 1.5));
      ++n;
    }
  }
  double median, p90, wm, w90;
  stats(diff, n, &median, &p90);
  stats(wrong, shifted, &wm, &w90);
  printf(
      "rectified pair %d: %d pixels with disparity, |left - right| median %.2f, 90%% %.2f "
      "(1.5 rows off: %.2f, %.2f)\n",
      pair, n, median, p90, wm, w90);
  CHECK(n > 20000 && median < 1.0 && p90 < 4.0 && w90 > 3 * p90);
  free(disp);
  vf_image_free(&rl);
  vf_image_free(&rr);
  vf_context_destroy(ctx);
}

/* tracks0.csv against landmarks.csv projected with the ground-truth poses. */
static void check_tracks(vf_euroc* e, const char* root) {
  static double X[300][3];
  static track_row rows[FRAMES * 300];
  int nx = read_landmarks(root, X, 300);
  CHECK(nx == 300);
  int n = read_tracks(root, 0, rows, FRAMES * 300);
  vf_camera c0;
  CHECK_OK(vf_euroc_camera(e, 0, &c0));
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    if (rows[i].id >= 0 && rows[i].id < nx)
      worst = fmax(worst, track_error(e, &c0, X[rows[i].id], &rows[i], NULL));
  }
  printf("tracks0: %d rows, worst reprojection error %.2g px\n", n, worst);
  CHECK(n > FRAMES * 20 && worst < 1e-3);
}

/* The same seed with 1 and 2 threads: identical files. */
static void check_determinism(const char* a, const char* b) {
  static const char* files[] = {"mav0/cam1/data/1500000001000000000.png", "mav0/imu0/data.csv",
                                "mav0/state_groundtruth_estimate0/data.csv"};
  for (int i = 0; i < 3; ++i) {
    char pa[1024], pb[1024];
    snprintf(pa, sizeof pa, "%s/%s", a, files[i]);
    snprintf(pb, sizeof pb, "%s/%s", b, files[i]);
    FILE* fa = fopen(pa, "rb");
    FILE* fb = fopen(pb, "rb");
    int same = fa != NULL && fb != NULL;
    while (same) {
      int x = fgetc(fa), y = fgetc(fb);
      same = x == y;
      if (x == EOF || y == EOF) break;
    }
    if (fa != NULL) fclose(fa);
    if (fb != NULL) fclose(fb);
    if (!same) fprintf(stderr, "%s differs between thread counts\n", files[i]);
    CHECK(same);
  }
}

int main(void) {
  const char* root = "test_synth_seq";
  run_synth("--out test_synth_seq --frames 6 --noise off --seed 5 --threads 2 --landmarks 300");
  run_synth(
      "--out test_synth_seq1 --frames 6 --noise off --seed 5 --threads 1 --landmarks 300 --depth "
      "off");
  check_determinism(root, "test_synth_seq1");
  vf_euroc* e = NULL;
  CHECK_OK(vf_euroc_open(root, NULL, NULL, &e));
  if (e == NULL) VF_TEST_END("test_synth");
  vf_euroc_info info;
  CHECK_OK(vf_euroc_get_info(e, &info));
  /* IMU from 1 s before the first frame to 0.1 s after the last, at 200 Hz; the replay keeps
   * the image span and one sample on each side. */
  CHECK(info.stereo_pairs == FRAMES && info.cam_missing[0] == 0 && info.cam_missing[1] == 0);
  CHECK(info.imu_rows == (FRAMES - 1) * 10 + 221 && info.imu_replayed == (FRAMES - 1) * 10 + 3);
  CHECK(info.groundtruth_rows == info.imu_rows);
  CHECK(info.t_first_ns == 1500000001000000000LL &&
        info.t_last_ns == info.t_first_ns + (FRAMES - 1) * 50000000LL);
  vf_camera cam, want;
  for (int k = 0; k < 2; ++k) {
    CHECK_OK(vf_euroc_camera(e, k, &cam));
    want = euroc_camera(k);
    CHECK(camera_equal(&cam, &want));
  }
  vf_imu_calib ic;
  CHECK_OK(vf_euroc_imu_calib(e, &ic));
  CHECK(ic.gyro_noise_density == 1.6968e-04 && ic.acc_random_walk == 3.0e-3);

  /* Frames 0 and 1 with their depth maps; the stream delivers them in order. */
  vf_image img[2][2];
  uint16_t* depth[2][2];
  vf_euroc_state st[2];
  int pairs = 0;
  for (;;) {
    vf_euroc_event ev;
    CHECK_OK(vf_euroc_next(e, &ev));
    if (ev.type == VF_EUROC_END) break;
    if (ev.type != VF_EUROC_STEREO || ev.pair != pairs++ || ev.pair > 1) continue;
    int f = ev.pair;
    CHECK_OK(vf_euroc_groundtruth_at(e, ev.t_ns, &st[f]));
    for (int k = 0; k < 2; ++k) {
      const vf_image* src = k ? &ev.right : &ev.left;
      CHECK_OK(vf_image_alloc(&img[f][k], 752, 480, VF_PIXEL_U8, VF_MEMORY_HOST));
      CHECK_OK(vf_image_copy(src, &img[f][k]));
      char path[1024];
      snprintf(path, sizeof path, "%s/groundtruth/depth%d/%lld.png", root, k, (long long)ev.t_ns);
      depth[f][k] = malloc(sizeof(uint16_t) * 752 * 480);
      CHECK(depth[f][k] != NULL && read_png16(path, 752, 480, depth[f][k]) == 0);
    }
  }
  CHECK(pairs == FRAMES);
  vf_camera c0 = euroc_camera(0), c1 = euroc_camera(1);
  check_warp(&c0, &st[0], &img[0][0], depth[0][0], &c1, &st[0], &img[0][1], depth[0][1],
             "cam0 -> cam1");
  check_warp(&c0, &st[0], &img[0][0], depth[0][0], &c0, &st[1], &img[1][0], depth[1][0],
             "frame 0 -> 1");
  check_warp(&c1, &st[1], &img[1][1], depth[1][1], &c0, &st[0], &img[0][0], depth[0][0],
             "cam1 frame 1 -> cam0 frame 0");
  check_disparity(e, root, 0, &img[0][0], &img[0][1]);
  check_tracks(e, root);
  for (int f = 0; f < 2; ++f) {
    for (int k = 0; k < 2; ++k) {
      vf_image_free(&img[f][k]);
      free(depth[f][k]);
    }
  }
  vf_euroc_close(e);
  VF_TEST_END("test_synth");
}

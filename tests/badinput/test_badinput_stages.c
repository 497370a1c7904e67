// SPDX-License-Identifier: BSD-3-Clause
/* Bad input to the stages (pyramid, detector, tracker, stereo, IMU buffer): NaN and infinite
 * parameters, images at the smallest size each stage accepts (smaller than a pyramid level,
 * the FAST border, the LK patch, the census window or the disparity range), calls out of order,
 * timestamps at the ends of int64. Each bad call gives its status and its own message, each
 * degenerate but valid call runs cleanly (under the sanitizers in CI), and every handle does a
 * correct call afterwards. The field-by-field config refusals live in the stage tests. */
#include <stdint.h>

#include "badinput.h"

static vf_context* ctx;

/* A host 8-bit image of deterministic texture. */
static vf_image texture(int w, int h, unsigned seed) {
  vf_image img;
  CHECK_OK(vf_image_alloc(&img, w, h, VF_PIXEL_U8, VF_MEMORY_HOST));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      ((uint8_t*)img.data)[(size_t)y * img.stride_bytes + x] = (uint8_t)(vf_test_rand(&seed) >> 4);
  return img;
}

static vf_pyramid* pyramid_of(const vf_image* img, int levels) {
  vf_pyramid_config pc = {img->width, img->height, levels};
  vf_pyramid* p = NULL;
  CHECK_OK(vf_pyramid_create(ctx, &pc, &p));
  if (p != NULL) CHECK_OK(vf_pyramid_build(p, img));
  return p;
}

static void test_pyramid(void) {
  /* The smallest images the level counts allow: the top level is 1 pixel high or wide. */
  static const int sizes[][3] = {{1, 1, 1}, {128, 1, 1}, {1, 128, 1}, {128, 128, 8}, {2, 255, 2}};
  for (int i = 0; i < 5; ++i) {
    vf_image img = texture(sizes[i][0], sizes[i][1], 7u);
    vf_pyramid* p = pyramid_of(&img, sizes[i][2]);
    vf_image top;
    CHECK_OK(vf_pyramid_level(p, sizes[i][2] - 1, &top));
    CHECK(top.width >= 1 && top.height >= 1);
    vf_pyramid_destroy(p);
    vf_image_free(&img);
  }
  vf_pyramid_config pc = {127, 128, 8}; /* 127 >> 7 = 0 */
  vf_pyramid* p = (vf_pyramid*)&p;
  CHECK_BAD(vf_pyramid_create(ctx, &pc, &p), VF_ERR_INVALID_ARG, "levels need");
  CHECK(p == NULL);
  pc.width = INT32_MAX;
  CHECK_BAD(vf_pyramid_create(ctx, &pc, &p), VF_ERR_INVALID_ARG, "vf_pyramid_create");

  vf_image img = texture(32, 16, 3u), thin = img;
  p = pyramid_of(&img, 3);
  const char* msg = vf_pyramid_last_error(p);
  thin.stride_bytes = 31;
  CHECK_BAD_ON(vf_pyramid_build(p, &thin), VF_ERR_INVALID_ARG, "stride", msg);
  vf_image u16 = vf_image_view(img.data, 16, 16, img.stride_bytes, VF_MEMORY_HOST, VF_PIXEL_U16);
  CHECK_BAD_ON(vf_pyramid_build(p, &u16), VF_ERR_INVALID_ARG, "8-bit", msg);
  vf_image lv;
  CHECK_BAD(vf_pyramid_level(p, 3, &lv), VF_ERR_INVALID_ARG, "level 3");
  CHECK_BAD(vf_pyramid_level(NULL, 0, &lv), VF_ERR_INVALID_ARG, "vf_pyramid_level");
  CHECK(vf_pyramid_levels(NULL) == 0);
  CHECK(vf_pyramid_last_error(NULL)[0] != '\0');
  CHECK_OK(vf_pyramid_build(p, &img));
  CHECK_OK(vf_pyramid_level(p, 2, &lv));
  CHECK(lv.width == 8 && lv.height == 4);
  vf_pyramid_destroy(p);
  vf_pyramid_destroy(NULL);
  vf_image_free(&img);
}

static void test_detector(void) {
  /* An image smaller than the border and than one cell: nothing found, nothing read outside. */
  vf_detector_config dc = vf_detector_config_default();
  dc.width = 12;
  dc.height = 9;
  dc.max_level = 1;
  vf_detector* d = (vf_detector*)&d;
  const vf_keypoint* kp = NULL;
  int n = -1;
  CHECK_OK(vf_detector_create(ctx, &dc, &d));
  const char* msg = vf_detector_last_error(d);
  CHECK_BAD(vf_detector_keypoints(d, &kp, &n), VF_ERR_STATE, "detect");
  CHECK_BAD(vf_detector_cells(d, &kp), VF_ERR_STATE, "detect");
  vf_image img = texture(12, 9, 5u), other = texture(16, 9, 5u);
  vf_pyramid* p = pyramid_of(&img, 2);
  vf_pyramid* one = pyramid_of(&img, 1);
  vf_pyramid* wide = pyramid_of(&other, 2);
  CHECK_BAD_ON(vf_detector_detect(d, NULL, NULL, VF_MEMORY_HOST), VF_ERR_INVALID_ARG, "pyramid",
               msg);
  CHECK_BAD_ON(vf_detector_detect(d, one, NULL, VF_MEMORY_HOST), VF_ERR_INVALID_ARG, "max_level",
               msg);
  CHECK_BAD_ON(vf_detector_detect(d, wide, NULL, VF_MEMORY_HOST), VF_ERR_INVALID_ARG, "expects",
               msg);
  CHECK_BAD_ON(vf_detector_detect(d, p, NULL, (vf_memory)3), VF_ERR_INVALID_ARG,
               "occupancy_location", msg);
  uint8_t occupancy[1] = {0};
  CHECK_BAD_ON(vf_detector_detect(d, p, occupancy, VF_MEMORY_DEVICE), VF_ERR_UNSUPPORTED,
               "occupancy", msg);
  CHECK_BAD(vf_detector_keypoints(d, &kp, &n), VF_ERR_STATE, "detect");
  CHECK_BAD(vf_detector_detect(NULL, p, NULL, VF_MEMORY_HOST), VF_ERR_INVALID_ARG,
            "vf_detector_detect");
  CHECK_OK(vf_detector_detect(d, p, occupancy, VF_MEMORY_HOST));
  CHECK_OK(vf_detector_keypoints(d, &kp, &n));
  CHECK(n == 0);
  CHECK_BAD(vf_detector_keypoints(d, NULL, &n), VF_ERR_INVALID_ARG, "keypoints");
  vf_grid g;
  CHECK_BAD(vf_detector_grid(d, NULL), VF_ERR_INVALID_ARG, "grid");
  CHECK_OK(vf_detector_grid(d, &g));
  CHECK(g.cols == 1 && g.rows == 1);
  CHECK(vf_detector_last_error(NULL)[0] != '\0');
  vf_detector_destroy(d);
  vf_detector_destroy(NULL);
  vf_pyramid_destroy(p);
  vf_pyramid_destroy(one);
  vf_pyramid_destroy(wide);
  vf_image_free(&img);
  vf_image_free(&other);
}

/* The tracker config refusals that take NaN or infinity, which ranges alone would let by. */
static void test_tracker_config(void) {
  const vf_tracker_config ok = vf_tracker_config_default();
  vf_tracker* t = (vf_tracker*)&t;
  vf_tracker_config c = ok;
  c.min_update = NAN;
  CHECK_BAD(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG, "min_update");
  CHECK(t == NULL);
  c = ok;
  c.max_residual = INFINITY;
  CHECK_BAD(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG, "max_residual");
  c.max_residual = NAN;
  CHECK_BAD(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG, "max_residual");
  c = ok;
  c.min_gain = NAN;
  CHECK_BAD(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG, "min_gain");
  c = ok;
  c.max_gain = INFINITY;
  CHECK_BAD(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG, "max_gain");
  c = ok;
  c.patch_size[3] = 17;
  CHECK_BAD(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG, "patch_size[3]");
  c = ok;
  c.levels = 0;
  CHECK_BAD(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG, "levels");
  c = ok;
  c.max_features = 0;
  CHECK_BAD(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG, "max_features");
  c = ok;
  c.max_iterations = 101;
  CHECK_BAD(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG, "max_iterations");
  c = ok;
  c.coarse_iterations = 101;
  CHECK_BAD(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG, "coarse_iterations");
  c = ok;
  c.template_mode = (vf_template_mode)2;
  CHECK_BAD(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG, "template_mode");
  CHECK_BAD(vf_tracker_create(ctx, NULL, &t), VF_ERR_INVALID_ARG, "config");
  CHECK_BAD(vf_tracker_get_config(NULL, &c), VF_ERR_INVALID_ARG, "vf_tracker_get_config");
}

static void test_tracker(void) {
  /* Pyramids whose coarse levels are smaller than the patch; first-observation slots. */
  vf_tracker_config tc = vf_tracker_config_default();
  tc.levels = 3;
  tc.max_features = 8;
  tc.template_mode = VF_TEMPLATE_FIRST_OBSERVATION;
  vf_tracker* t = NULL;
  CHECK_OK(vf_tracker_create(ctx, &tc, &t));
  vf_image a = texture(24, 20, 1u), b = texture(24, 20, 1u), c = texture(40, 20, 1u);
  vf_pyramid* pa = pyramid_of(&a, 3);
  vf_pyramid* pb = pyramid_of(&b, 3);
  vf_pyramid* pc = pyramid_of(&c, 3);
  vf_pyramid* p2 = pyramid_of(&a, 2);
  vf_track_request rq[8];
  vf_track_result rs[8];
  for (int i = 0; i < 8; ++i) rq[i] = vf_track_request_make(12.0f, 10.0f, i);
  rq[0].x = NAN;
  rq[1].guess_y = INFINITY;
  rq[2].gain = 0.0f;
  rq[3].slot = 8; /* outside 0..max_features-1 */
  rq[4].slot = -2;
  rq[5].guess_x = 1e30f; /* finite, far outside */
  rq[6].x = rq[6].guess_x = -1e30f;
  const char* msg = vf_tracker_last_error(t);
  CHECK_BAD(vf_tracker_track(NULL, pa, pb, rq, 8, rs), VF_ERR_INVALID_ARG, "vf_tracker_track");
  CHECK_BAD_ON(vf_tracker_track(t, NULL, pb, rq, 8, rs), VF_ERR_INVALID_ARG, "prev", msg);
  CHECK_BAD_ON(vf_tracker_track(t, pa, pb, rq, -1, rs), VF_ERR_INVALID_ARG, "count", msg);
  CHECK_BAD_ON(vf_tracker_track(t, pa, pb, rq, 9, rs), VF_ERR_INVALID_ARG, "count", msg);
  CHECK_BAD_ON(vf_tracker_track(t, pa, pb, NULL, 8, rs), VF_ERR_INVALID_ARG, "requests", msg);
  CHECK_BAD_ON(vf_tracker_track(t, pa, pb, rq, 8, NULL), VF_ERR_INVALID_ARG, "results", msg);
  CHECK_BAD_ON(vf_tracker_track(t, pa, p2, rq, 8, rs), VF_ERR_INVALID_ARG, "levels", msg);
  CHECK_BAD_ON(vf_tracker_track(t, pa, pc, rq, 8, rs), VF_ERR_INVALID_ARG, "level 0", msg);
  CHECK_OK(vf_tracker_track(t, pa, pb, NULL, 0, NULL));
  /* Bad requests are per-feature results, never an error. */
  CHECK_OK(vf_tracker_track(t, pa, pb, rq, 8, rs));
  for (int i = 0; i < 5; ++i) CHECK(rs[i].status == VF_TRACK_INVALID);
  CHECK(rs[5].status == VF_TRACK_OUT_OF_IMAGE);
  CHECK(rs[6].status == VF_TRACK_OUT_OF_IMAGE);
  /* 24x20 with a 16-pixel patch on level 0 and coarser levels smaller than it: the centre
   * feature either converges on the identical image or reports leaving it. */
  CHECK(rs[7].status == VF_TRACK_CONVERGED || rs[7].status == VF_TRACK_OUT_OF_IMAGE);
  CHECK(vf_track_status_str((vf_track_status)99)[0] != '\0');
  CHECK(vf_tracker_last_error(NULL)[0] != '\0');

  /* Predictions: NULLs, a negative count, non-finite K or R. */
  double K[4] = {100, 100, 12, 10}, R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  float xy[4] = {1, 2, 3, 4}, out[4];
  CHECK_BAD(vf_tracker_predict_rotation(NULL, R, xy, 2, out), VF_ERR_INVALID_ARG, "K");
  CHECK_BAD(vf_tracker_predict_rotation(K, R, xy, -1, out), VF_ERR_INVALID_ARG, "count");
  CHECK_BAD(vf_tracker_predict_rotation(K, R, NULL, 2, out), VF_ERR_INVALID_ARG, "xy_in");
  K[2] = NAN;
  CHECK_BAD(vf_tracker_predict_rotation(K, R, xy, 2, out), VF_ERR_INVALID_ARG, "K");
  K[2] = 12;
  R[4] = INFINITY;
  CHECK_BAD(vf_tracker_predict_rotation(K, R, xy, 2, out), VF_ERR_INVALID_ARG, "R_c0_c1[4]");
  R[4] = 1;
  CHECK_BAD(vf_tracker_predict_gyro(NULL, 0, 1, R, K, xy, 2, out), VF_ERR_INVALID_ARG, "imu");
  vf_imu_buffer* imu = NULL;
  CHECK_OK(vf_imu_buffer_create(4, 1000, &imu));
  CHECK_BAD(vf_tracker_predict_gyro(imu, 0, 1, R, K, xy, 2, out), VF_ERR_STATE, "cover");
  CHECK_OK(vf_tracker_predict_rotation(K, R, xy, 2, out));
  CHECK(out[0] == 1.0f && out[3] == 4.0f);
  vf_imu_buffer_destroy(imu);

  vf_tracker_destroy(t);
  vf_tracker_destroy(NULL);
  vf_pyramid_destroy(pa);
  vf_pyramid_destroy(pb);
  vf_pyramid_destroy(pc);
  vf_pyramid_destroy(p2);
  vf_image_free(&a);
  vf_image_free(&b);
  vf_image_free(&c);
}

/* Runs one stereo configuration on a w x h random pair: created, computed (twice: a bad call
 * in between must not break the handle), and the output fully written. */
static void stereo_runs(vf_stereo_config sc, int w, int h) {
  sc.width = w;
  sc.height = h;
  vf_stereo* s = NULL;
  CHECK_OK(vf_stereo_create(ctx, &sc, &s));
  if (s == NULL) return;
  vf_image l = texture(w, h, 11u), r = texture(w, h, 12u), d, f;
  CHECK_OK(vf_image_alloc(&d, w, h, VF_PIXEL_U16, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&f, w, h, VF_PIXEL_F32, VF_MEMORY_HOST));
  CHECK_OK(vf_stereo_compute(s, &l, &r, &d, &f));
  CHECK_BAD_ON(vf_stereo_compute(s, &l, NULL, &d, NULL), VF_ERR_INVALID_ARG, "vf_stereo_compute",
               vf_stereo_last_error(s));
  memset(d.data, 0xAB, d.stride_bytes * (size_t)h);
  CHECK_OK(vf_stereo_compute(s, &l, &r, &d, &f));
  const int whole = sc.subpixel ? 16 : 1, top = (sc.min_disparity + sc.disparities) * whole;
  int in_range = 1;
  for (int y = 0; y < h; ++y) {
    const uint16_t* row = (const uint16_t*)((const uint8_t*)d.data + (size_t)y * d.stride_bytes);
    for (int x = 0; x < w; ++x) in_range &= row[x] == VF_STEREO_INVALID || row[x] < top;
  }
  CHECK(in_range);
  vf_stereo_destroy(s);
  vf_image_free(&l);
  vf_image_free(&r);
  vf_image_free(&d);
  vf_image_free(&f);
}

static void test_stereo(void) {
  /* SGM: rows fewer than the 9x7 census window, the width exactly the disparity range. */
  vf_stereo_config sgm = vf_stereo_config_default();
  sgm.paths = 8;
  stereo_runs(sgm, 64, 1);
  stereo_runs(sgm, 64, 3);
  sgm.min_disparity = 64;
  stereo_runs(sgm, 128, 8);
  sgm = vf_stereo_config_default();
  sgm.uniqueness = NAN;
  vf_stereo* s = (vf_stereo*)&s;
  CHECK_BAD(vf_stereo_create(ctx, &sgm, &s), VF_ERR_INVALID_ARG, "uniqueness");
  CHECK(s == NULL);
  sgm = vf_stereo_config_default();
  sgm.width = 63; /* narrower than the 64 disparities */
  CHECK_BAD(vf_stereo_create(ctx, &sgm, &s), VF_ERR_INVALID_ARG, "width");

  /* The other methods take any number of disparities, even more than the image is wide. */
  static const vf_stereo_method local[] = {VF_STEREO_ZNCC_FASTDT, VF_STEREO_CENSUS_FASTDT,
                                           VF_STEREO_CYCLOPS2};
  for (int i = 0; i < 3; ++i) {
    vf_stereo_config c = vf_stereo_config_default_for(local[i]);
    c.disparities = local[i] == VF_STEREO_CYCLOPS2 ? 16 : 256;
    stereo_runs(c, 16, 5);
    c.disparities = 1;
    c.zncc.window = 3; /* one row for the others, the window's three for ZNCC */
    stereo_runs(c, 5, local[i] == VF_STEREO_ZNCC_FASTDT ? 3 : 1);
    c = vf_stereo_config_default_for(local[i]);
    c.fastdt.sigma_s = NAN;
    c.cyclops.mns_width = 0;
    c.census = (vf_census_type)9;
    c.zncc.window = 4;
    CHECK_BAD(vf_stereo_create(ctx, &c, &s), VF_ERR_INVALID_ARG, "vf_stereo_create");
  }
  vf_stereo_config z = vf_stereo_config_default_for(VF_STEREO_ZNCC_FASTDT);
  z.zncc.window = 15;
  stereo_runs(z, 15, 15);
  z.height = 14; /* the window no longer fits */
  CHECK_BAD(vf_stereo_create(ctx, &z, &s), VF_ERR_INVALID_ARG, "zncc.window");
  z = vf_stereo_config_default_for(VF_STEREO_ZNCC_FASTDT);
  z.fastdt.sigma_r = INFINITY;
  CHECK_BAD(vf_stereo_create(ctx, &z, &s), VF_ERR_INVALID_ARG, "sigma_r");
  vf_stereo_config y = vf_stereo_config_default_for(VF_STEREO_CYCLOPS2);
  y.disparities = 17;
  y.width = 16;
  CHECK_BAD(vf_stereo_create(ctx, &y, &s), VF_ERR_INVALID_ARG, "disparities");
}

static void test_imu(void) {
  vf_imu_buffer* b = (vf_imu_buffer*)&b;
  CHECK_BAD(vf_imu_buffer_create(1000001, 10, &b), VF_ERR_INVALID_ARG, "capacity");
  CHECK(b == NULL);
  CHECK_BAD(vf_imu_buffer_create(4, -1, &b), VF_ERR_INVALID_ARG, "max_gap_ns");
  CHECK_OK(vf_imu_buffer_create(4, INT64_MAX, &b));
  const char* msg = vf_imu_buffer_last_error(b);
  vf_imu_sample s = {INT64_MIN, {0.1, 0, 0}, {0, 0, 9.81}};
  CHECK_OK(vf_imu_buffer_push(b, &s));
  s.acc[2] = INFINITY;
  s.t_ns = 0;
  CHECK_BAD_ON(vf_imu_buffer_push(b, &s), VF_ERR_INVALID_ARG, "infinite", msg);
  CHECK(vf_imu_buffer_size(b) == 1);
  s.acc[2] = 9.81;
  s.t_ns = INT64_MIN;
  CHECK_BAD_ON(vf_imu_buffer_push(b, &s), VF_ERR_TIMESTAMP, "does not follow", msg);
  CHECK_BAD(vf_imu_buffer_push(b, NULL), VF_ERR_INVALID_ARG, "sample");
  CHECK_BAD(vf_imu_buffer_push(NULL, &s), VF_ERR_INVALID_ARG, "buffer");
  s.t_ns = INT64_MAX;
  CHECK_OK(vf_imu_buffer_push(b, &s));
  CHECK(vf_imu_buffer_size(b) == 2);
  /* Samples at both ends of int64: the interval between them does not fit int64 (an IMU gap
   * even with the largest max_gap_ns), and nothing may overflow computing it. */
  double R[9];
  CHECK_BAD_ON(vf_imu_buffer_rotation(b, INT64_MIN, INT64_MAX, R), VF_ERR_STATE, "gap", msg);
  CHECK_BAD_ON(vf_imu_buffer_rotation(b, 0, -1, R), VF_ERR_INVALID_ARG, "before", msg);
  CHECK_BAD(vf_imu_buffer_rotation(b, 0, 1, NULL), VF_ERR_INVALID_ARG, "vf_imu_buffer_rotation");
  vf_imu_buffer_drop_before(NULL, 0);
  CHECK(vf_imu_buffer_size(NULL) == 0);
  CHECK(vf_imu_buffer_last_error(NULL)[0] != '\0');
  vf_imu_buffer_destroy(b);

  /* Equal timestamps at both ends of the interval: identity. */
  CHECK_OK(vf_imu_buffer_create(4, 10, &b));
  vf_imu_sample a = {-5, {1, 2, 3}, {0, 0, 9.81}}, c = {5, {1, 2, 3}, {0, 0, 9.81}};
  CHECK_OK(vf_imu_buffer_push(b, &a));
  CHECK_OK(vf_imu_buffer_push(b, &c));
  CHECK_OK(vf_imu_buffer_rotation(b, 0, 0, R));
  CHECK(R[0] == 1.0 && R[4] == 1.0 && R[8] == 1.0);
  vf_imu_buffer_destroy(b);
  vf_imu_buffer_destroy(NULL);
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  cc.cpu_threads = 2;
  CHECK_OK(vf_context_create(&cc, &ctx));
  test_pyramid();
  test_detector();
  test_tracker_config();
  test_tracker();
  test_stereo();
  test_imu();
  vf_context_destroy(ctx);
  VF_TEST_END("test_badinput_stages");
}

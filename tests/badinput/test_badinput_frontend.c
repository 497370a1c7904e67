// SPDX-License-Identifier: BSD-3-Clause
/* Bad input to the frontend, its configuration files and the EuRoC reader: creation with bad,
 * NaN and out-of-range settings or images smaller than the pyramid or the disparity range;
 * calls before creation, after a failed one, with a missing stereo side or a wrong image;
 * frame and IMU timestamps that repeat, go backwards or sit at the ends of int64; IMU gaps; a
 * back channel fed NaN or far-away predictions; the rig frontend's handles, rigs and image sets. A
 * refused call leaves the frontend unchanged (no callback, the same sequence numbers) and the next
 * good frame goes on. Small images keep it fast. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "badinput.h"
#include "frontend_scene.h"

enum { W = 128, H = 96, TEX_W = 200, TEX_H = 120 };

typedef struct counts {
  int features, disparities;
  uint64_t last_sequence;
  int64_t last_t;
  uint64_t ids[4]; /* the first live track ids of the last frame */
  int nids;
} counts;

static void on_features(const vf_feature_frame* f, void* user) {
  counts* c = user;
  c->features++;
  c->last_sequence = f->sequence;
  c->last_t = f->t_ns;
  c->nids = 0;
  for (int i = 0; i < f->count && c->nids < 4; ++i)
    if (f->features[i].camera == 0) c->ids[c->nids++] = f->features[i].id;
}

static void on_disparity(const vf_disparity_frame* f, void* user) {
  (void)f;
  ((counts*)user)->disparities++;
}

static vf_camera small_camera(double x_m) {
  vf_camera c = scene_pinhole(W, H, 100.0);
  c.T_BS[3] = x_m;
  return c;
}

static vf_frontend_config small_config(void) {
  vf_frontend_config fc = vf_frontend_config_default();
  fc.cam0 = small_camera(0.0);
  fc.cam1 = small_camera(0.1);
  fc.features.min_features = 20;
  fc.features.max_features = 64;
  fc.stereo.paths = 2;
  return fc;
}

/* Frame k of camera `side`: a crop of the texture moving one pixel a frame; the right camera
 * sees it 8 pixels further left. */
static void frame(const uint8_t* tex, int k, int side, vf_image* img) {
  int ox = 20 + k % 40 + (side ? 8 : 0), oy = 10 + k % 10;
  for (int y = 0; y < H; ++y)
    memcpy((uint8_t*)img->data + (size_t)y * img->stride_bytes, tex + (size_t)(y + oy) * TEX_W + ox,
           W);
}

static vf_context* ctx;

static void test_create(void) {
  const vf_frontend_config ok = small_config();
  vf_frontend_callbacks cb = {NULL, NULL, NULL};
  vf_frontend* fe = (vf_frontend*)&fe;
  CHECK_BAD(vf_frontend_create(ctx, &ok, &cb, NULL), VF_ERR_INVALID_ARG, "out");
  CHECK_BAD(vf_frontend_create(NULL, &ok, &cb, &fe), VF_ERR_INVALID_ARG, "ctx");
  CHECK(fe == NULL);
  CHECK_BAD(vf_frontend_create(ctx, NULL, &cb, &fe), VF_ERR_INVALID_ARG, "config");
#define REFUSE(field, value, status, word)                             \
  do {                                                                 \
    vf_frontend_config c_ = ok;                                        \
    c_.field = (value);                                                \
    fe = (vf_frontend*)&fe;                                            \
    CHECK_BAD(vf_frontend_create(ctx, &c_, &cb, &fe), (status), word); \
    CHECK(fe == NULL);                                                 \
    vf_frontend_destroy(fe); /* after a failed create: fe is NULL */   \
  } while (0)
  REFUSE(features.max_features, 0, VF_ERR_INVALID_ARG, "max_features");
  REFUSE(features.max_features, 1 << 30, VF_ERR_INVALID_ARG, "max_features");
  REFUSE(features.min_features, -1, VF_ERR_INVALID_ARG, "min_features");
  REFUSE(features.min_distance, NAN, VF_ERR_INVALID_ARG, "min_distance");
  REFUSE(features.fb_threshold, INFINITY, VF_ERR_INVALID_ARG, "fb_threshold");
  REFUSE(features.start_radius, -0.5f, VF_ERR_INVALID_ARG, "start_radius");
  REFUSE(features.border, -1, VF_ERR_INVALID_ARG, "border");
  REFUSE(features.border, 8, VF_ERR_INVALID_ARG, "refine_patch"); /* too close for a reference */
  REFUSE(pyramid_levels, 9, VF_ERR_INVALID_ARG, "pyramid_levels");
  REFUSE(tracker.levels, 5, VF_ERR_INVALID_ARG, "tracker.levels");
  REFUSE(imu_capacity, 1, VF_ERR_INVALID_ARG, "imu_capacity");
  REFUSE(imu_max_gap_ns, 0, VF_ERR_INVALID_ARG, "imu_max_gap_ns");
  REFUSE(imu_timeshift_s, NAN, VF_ERR_INVALID_ARG, "imu_timeshift_s");
  REFUSE(imu_timeshift_s, -INFINITY, VF_ERR_INVALID_ARG, "imu_timeshift_s");
  REFUSE(imu_timeshift_s, 1.5, VF_ERR_INVALID_ARG, "imu_timeshift_s");
  REFUSE(imu_timeshift_s, -1.001, VF_ERR_INVALID_ARG, "-1..1 s");
  REFUSE(disparity_location, (vf_memory)5, VF_ERR_INVALID_ARG, "disparity_location");
  REFUSE(rectify.alpha, NAN, VF_ERR_INVALID_ARG, "alpha");
  REFUSE(rectify.focal_rule, (vf_rectify_focal_rule)3, VF_ERR_INVALID_ARG, "focal_rule");
  REFUSE(cam1.fx, NAN, VF_ERR_INVALID_ARG, "focal");
  REFUSE(cam1.width, W + 2, VF_ERR_INVALID_ARG, "vf_stereo_rectify");
  REFUSE(cam1.T_BS[3], 0.0, VF_ERR_INVALID_ARG, "baseline");
  REFUSE(detector.score, (vf_fast_score)9, VF_ERR_INVALID_ARG, "score");
  REFUSE(tracker.min_update, NAN, VF_ERR_INVALID_ARG, "min_update");
  REFUSE(tracker.template_mode, (vf_template_mode)9, VF_ERR_INVALID_ARG, "template_mode");
  REFUSE(stereo.uniqueness, NAN, VF_ERR_INVALID_ARG, "uniqueness");
  REFUSE(stereo.method, (vf_stereo_method)99, VF_ERR_INVALID_ARG, "method");
  REFUSE(stereo.method, VF_STEREO_ZNCC_SGM + 1, VF_ERR_INVALID_ARG, "method");
  REFUSE(stereo.disparities, 256, VF_ERR_INVALID_ARG, "disparities"); /* wider than 128 */
  REFUSE(birth_edge_radius, -1, VF_ERR_INVALID_ARG, "birth_edge_radius");
  REFUSE(birth_edge_radius, 16, VF_ERR_INVALID_ARG, "birth_edge_radius");
  REFUSE(birth_max_jump, NAN, VF_ERR_INVALID_ARG, "birth_max_jump");
  REFUSE(birth_max_jump_ratio, -0.01f, VF_ERR_INVALID_ARG, "birth_max_jump_ratio");
  REFUSE(birth_max_jump_ratio, NAN, VF_ERR_INVALID_ARG, "birth_max_jump_ratio");
  REFUSE(birth_max_holes, -2, VF_ERR_INVALID_ARG, "birth_max_holes");
  REFUSE(birth_max_holes, 962, VF_ERR_INVALID_ARG, "birth_max_holes");
  REFUSE(slide_max, -0.5f, VF_ERR_INVALID_ARG, "slide_max");
  REFUSE(slide_max, NAN, VF_ERR_INVALID_ARG, "slide_max");
  REFUSE(birth_candidates, 0, VF_ERR_INVALID_ARG, "birth_candidates");
  REFUSE(birth_candidates, 9, VF_ERR_INVALID_ARG, "birth_candidates");
  REFUSE(birth_candidates, 3, VF_ERR_INVALID_ARG, "birth_candidates");
#undef REFUSE
  /* Images smaller than the pyramid: 5 levels of 12 x 9 pixels do not exist. */
  vf_frontend_config c = ok;
  c.cam0 = small_camera(0.0);
  c.cam0.width = c.cam1.width = 12;
  c.cam0.height = c.cam1.height = 9;
  c.cam0.cx = c.cam1.cx = 5.5;
  c.cam0.cy = c.cam1.cy = 4.0;
  c.pyramid_levels = 5;
  c.features.border = 2; /* the default 13 px would not fit either */
  c.tracker.refine = 0;  /* nor would a reference patch */
  CHECK_BAD(vf_frontend_create(ctx, &c, &cb, &fe), VF_ERR_INVALID_ARG, "levels need");
  /* Smaller than the disparity range: refused with stereo, accepted without. */
  c.pyramid_levels = 2;
  c.tracker.levels = 2;
  c.detector.max_level = 1;
  CHECK_BAD(vf_frontend_create(ctx, &c, &cb, &fe), VF_ERR_INVALID_ARG, "min_disparity");
  c.stereo_enabled = 0;
  CHECK_OK(vf_frontend_create(ctx, &c, &cb, &fe));
  vf_image tiny;
  CHECK_OK(vf_image_alloc(&tiny, 12, 9, VF_PIXEL_U8, VF_MEMORY_HOST));
  memset(tiny.data, 50, tiny.stride_bytes * 9);
  CHECK_OK(vf_frontend_process(fe, 1, &tiny, &tiny));
  CHECK_OK(vf_frontend_process(fe, 2, &tiny, &tiny));
  vf_image_free(&tiny);
  vf_frontend_destroy(fe);
  vf_frontend_destroy(NULL);
}

/* Calls on a frontend that does not exist: before creation or after a failed one. */
static void test_no_frontend(void) {
  vf_frontend* fe = NULL;
  uint8_t px[W * H] = {0};
  vf_image img = vf_image_view(px, W, H, W, VF_MEMORY_HOST, VF_PIXEL_U8);
  double g[3] = {0, 0, 0};
  uint64_t id = 1;
  float uv[2] = {1, 1};
  vf_stereo_rectification rect;
  CHECK_BAD(vf_frontend_process(fe, 1, &img, &img), VF_ERR_INVALID_ARG, "vf_frontend_process");
  CHECK_BAD(vf_frontend_push_imu(fe, 1, g, g), VF_ERR_INVALID_ARG, "vf_frontend_push_imu");
  CHECK_BAD(vf_frontend_predict(fe, &id, uv, 1), VF_ERR_INVALID_ARG, "vf_frontend_predict");
  CHECK_BAD(vf_frontend_reject(fe, &id, 1), VF_ERR_INVALID_ARG, "vf_frontend_reject");
  CHECK_BAD(vf_frontend_rectification(fe, &rect), VF_ERR_INVALID_ARG, "vf_frontend_rectification");
  CHECK(vf_frontend_last_error(fe)[0] != '\0');
}

typedef struct rig {
  vf_frontend* fe;
  counts n;
  uint8_t* tex;
  vf_image left, right;
  int k; /* next frame */
} rig;

/* The next frame at t_ns: VF_OK and one more callback of each kind, with the next sequence. */
static void good_frame(rig* r, int64_t t_ns) {
  int before = r->n.features;
  uint64_t seq = r->n.last_sequence;
  frame(r->tex, r->k, 0, &r->left);
  frame(r->tex, r->k, 1, &r->right);
  r->k++;
  CHECK_OK(vf_frontend_process(r->fe, t_ns, &r->left, &r->right));
  CHECK(r->n.features == before + 1 && r->n.disparities == r->n.features);
  CHECK(before == 0 || r->n.last_sequence == seq + 1);
  CHECK(r->n.last_t == t_ns);
}

/* A refused frame: the status, a message in both slots, no callback. */
#define CHECK_REFUSED(r, expr, status, word)                           \
  do {                                                                 \
    int before_ = (r)->n.features;                                     \
    CHECK_BAD_ON(expr, status, word, vf_frontend_last_error((r)->fe)); \
    CHECK((r)->n.features == before_);                                 \
  } while (0)

static void test_process(rig* r) {
  const int64_t ms = 1000000;
  /* Any first timestamp is fine; the interval to the next spans more than int64 holds. */
  good_frame(r, INT64_MIN);
  good_frame(r, 100 * ms);
  vf_image wrong, u16 = r->left, thin = r->left, nodata = r->left, dev = r->left;
  CHECK_OK(vf_image_alloc(&wrong, W, H - 1, VF_PIXEL_U8, VF_MEMORY_HOST));
  u16.format = VF_PIXEL_U16;
  u16.width = W / 2;
  thin.stride_bytes = W - 1;
  nodata.data = NULL;
  dev.location = VF_MEMORY_DEVICE;
  vf_frontend* fe = r->fe;
  const int64_t t = 150 * ms;
  CHECK_REFUSED(r, vf_frontend_process(fe, t, &r->left, NULL), VF_ERR_INVALID_ARG, "right");
  CHECK_REFUSED(r, vf_frontend_process(fe, t, NULL, &r->right), VF_ERR_INVALID_ARG, "left");
  CHECK_REFUSED(r, vf_frontend_process(fe, t, NULL, NULL), VF_ERR_INVALID_ARG, "left");
  CHECK_REFUSED(r, vf_frontend_process(fe, t, &r->left, &wrong), VF_ERR_INVALID_ARG, "right");
  CHECK_REFUSED(r, vf_frontend_process(fe, t, &u16, &r->right), VF_ERR_INVALID_ARG, "8-bit");
  CHECK_REFUSED(r, vf_frontend_process(fe, t, &thin, &r->right), VF_ERR_INVALID_ARG, "stride");
  CHECK_REFUSED(r, vf_frontend_process(fe, t, &r->left, &nodata), VF_ERR_INVALID_ARG, "data");
  if (vf_context_backend(ctx) == VF_BACKEND_CPU)
    CHECK_REFUSED(r, vf_frontend_process(fe, t, &dev, &r->right), VF_ERR_UNSUPPORTED, "device");
  /* Timestamps that repeat or go back are refused before the images are looked at. */
  CHECK_REFUSED(r, vf_frontend_process(fe, 100 * ms, &r->left, &r->right), VF_ERR_TIMESTAMP,
                "does not follow");
  CHECK_REFUSED(r, vf_frontend_process(fe, 50 * ms, &r->left, &r->right), VF_ERR_TIMESTAMP,
                "does not follow");
  CHECK_REFUSED(r, vf_frontend_process(fe, INT64_MIN, &r->left, &r->right), VF_ERR_TIMESTAMP,
                "does not follow");
  good_frame(r, t);
  vf_image_free(&wrong);
}

static void test_imu(rig* r) {
  const int64_t ms = 1000000;
  double g[3] = {0.01, -0.02, 0.03}, a[3] = {0, 0, 9.81}, bad[3] = {0, NAN, 0};
  vf_frontend* fe = r->fe;
  const char* msg = vf_frontend_last_error(fe);
  for (int64_t t = 145 * ms; t <= 200 * ms; t += 5 * ms)
    CHECK_OK(vf_frontend_push_imu(fe, t, g, a));
  CHECK_BAD_ON(vf_frontend_push_imu(fe, 200 * ms, g, a), VF_ERR_TIMESTAMP, "does not follow", msg);
  CHECK_BAD_ON(vf_frontend_push_imu(fe, 10 * ms, g, a), VF_ERR_TIMESTAMP, "does not follow", msg);
  CHECK_BAD_ON(vf_frontend_push_imu(fe, 205 * ms, bad, a), VF_ERR_INVALID_ARG, "NaN", msg);
  CHECK_BAD_ON(vf_frontend_push_imu(fe, 205 * ms, g, NULL), VF_ERR_INVALID_ARG, "acc", msg);
  CHECK_BAD_ON(vf_frontend_push_imu(fe, 205 * ms, NULL, a), VF_ERR_INVALID_ARG, "gyro", msg);
  good_frame(r, 200 * ms); /* seeded by the gyroscope */
  /* A 200 ms IMU gap before the next frame: seeding is skipped, the frame goes through. */
  CHECK_OK(vf_frontend_push_imu(fe, 400 * ms, g, a));
  good_frame(r, 250 * ms); /* IMU beyond the frame */
  good_frame(r, 400 * ms); /* IMU gap inside the interval */
  good_frame(r, 450 * ms); /* no IMU after the previous frame */
}

static void test_back_channel(rig* r) {
  const int64_t ms = 1000000;
  vf_frontend* fe = r->fe;
  const char* msg = vf_frontend_last_error(fe);
  CHECK(r->n.nids >= 2);
  float nan_uv[2] = {NAN, 3}, inf_uv[2] = {1, -INFINITY};
  float far_uv[4] = {1e30f, -1e30f, 3.4e38f, 3.4e38f};
  uint64_t unknown[2] = {UINT64_MAX, (uint64_t)1 << 40};
  CHECK_BAD_ON(vf_frontend_predict(fe, r->n.ids, nan_uv, 1), VF_ERR_INVALID_ARG, "uv[0]", msg);
  CHECK_BAD_ON(vf_frontend_predict(fe, r->n.ids, inf_uv, 1), VF_ERR_INVALID_ARG, "uv[0]", msg);
  CHECK_BAD_ON(vf_frontend_predict(fe, r->n.ids, far_uv, -1), VF_ERR_INVALID_ARG, "count", msg);
  CHECK_BAD_ON(vf_frontend_predict(fe, NULL, far_uv, 2), VF_ERR_INVALID_ARG, "ids", msg);
  CHECK_BAD_ON(vf_frontend_predict(fe, r->n.ids, NULL, 2), VF_ERR_INVALID_ARG, "uv", msg);
  CHECK_BAD_ON(vf_frontend_reject(fe, NULL, 1), VF_ERR_INVALID_ARG, "ids", msg);
  CHECK_BAD_ON(vf_frontend_reject(fe, unknown, -3), VF_ERR_INVALID_ARG, "count", msg);
  CHECK_OK(vf_frontend_reject(fe, unknown, 2));
  CHECK_OK(vf_frontend_predict(fe, unknown, far_uv, 2));
  /* Far-away (finite) predictions for live tracks: they are lost, nothing breaks. */
  CHECK_OK(vf_frontend_predict(fe, r->n.ids, far_uv, 2));
  good_frame(r, 500 * ms);
  CHECK_OK(vf_frontend_reject(fe, r->n.ids, r->n.nids));
  good_frame(r, 550 * ms);
  vf_stereo_rectification rect;
  CHECK_BAD(vf_frontend_rectification(fe, NULL), VF_ERR_INVALID_ARG, "out");
  CHECK_OK(vf_frontend_rectification(fe, &rect));
  CHECK(rect.width == W && rect.baseline_m > 0.09);
}

/* The last frames a frontend can take: at the far end of int64, with IMU there too. */
static void test_time_limits(rig* r) {
  double g[3] = {0.01, 0, 0}, a[3] = {0, 0, 9.81};
  CHECK_OK(vf_frontend_push_imu(r->fe, INT64_MAX - 1, g, a));
  CHECK_OK(vf_frontend_push_imu(r->fe, INT64_MAX, g, a));
  good_frame(r, INT64_MAX - 1);
  good_frame(r, INT64_MAX);
  CHECK_REFUSED(r, vf_frontend_process(r->fe, INT64_MAX, &r->left, &r->right), VF_ERR_TIMESTAMP,
                "does not follow");
}

static void test_config_files(void) {
  char path[] = "/tmp/vf_badinput_cfg_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) return;
  static const struct {
    const char* text;
    vf_status status;
    const char* word;
  } bad[] = {
      {"detector: {threshold: .nan}\n", VF_ERR_FORMAT, "threshold"},
      {"features: {min_distance: .inf}\n", VF_ERR_FORMAT, "min_distance"},
      {"rectify: {alpha: nan}\n", VF_ERR_FORMAT, "alpha"},
      {"context: {backend: gpu}\n", VF_ERR_FORMAT, "backend"},
      {"detector: {score: best}\n", VF_ERR_FORMAT, "score"},
      {"tracker: {patch_sizes: [16, 16, 8, 8, 8, 8, 8, 8, 8]}\n", VF_ERR_FORMAT, "patch_sizes"},
      {"frontend: {imu_max_gap_ns: 99999999999999999999}\n", VF_ERR_FORMAT, "imu_max_gap_ns"},
      {"detector: [1, 2\n", VF_ERR_FORMAT, "syntax"},
  };
  vf_frontend_config fc = vf_frontend_config_default();
  int has = -1;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    FILE* f = fopen(path, "w");
    CHECK(f != NULL);
    if (f == NULL) break;
    fputs(bad[i].text, f);
    fclose(f);
    CHECK_BAD(vf_frontend_config_load(path, NULL, &fc, &has), bad[i].status, bad[i].word);
    CHECK(strstr(vf_last_error_message(), path) != NULL);
  }
  CHECK_BAD(vf_frontend_config_load(NULL, NULL, &fc, &has), VF_ERR_INVALID_ARG, "path");
  CHECK_BAD(vf_frontend_config_load(path, NULL, NULL, &has), VF_ERR_INVALID_ARG, "config");
  CHECK_BAD(vf_frontend_config_load("/nonexistent/vf.yaml", NULL, &fc, &has), VF_ERR_IO, "vf.yaml");
  CHECK_BAD(vf_frontend_config_load("/tmp", NULL, &fc, &has), VF_ERR_IO, "/tmp");
  vf_config cfg;
  CHECK_BAD(vf_config_parse(NULL, 4, "mem.yaml", NULL, NULL, &cfg), VF_ERR_INVALID_ARG, "text");
  CHECK_BAD(vf_config_parse("a: 1", 4, "mem.yaml", NULL, NULL, NULL), VF_ERR_INVALID_ARG, "out");
  CHECK_BAD(vf_config_load(NULL, NULL, &cfg), VF_ERR_INVALID_ARG, "path");
  FILE* f = fopen(path, "w");
  if (f != NULL) {
    fputs("detector: {threshold: 30}\nfeatures: {max_features: 100}\n", f);
    fclose(f);
  }
  CHECK_OK(vf_frontend_config_load(path, NULL, &fc, NULL));
  CHECK(fc.detector.threshold == 30 && fc.features.max_features == 100);
  close(fd);
  remove(path);
}

static void test_euroc(void) {
  vf_euroc* e = (vf_euroc*)&e;
  vf_euroc_config ec = vf_euroc_config_default();
  CHECK_BAD(vf_euroc_open("/nonexistent/seq", NULL, NULL, &e), VF_ERR_IO, "/nonexistent/seq");
  CHECK(e == NULL);
  ec.prefetch = -1;
  CHECK_BAD(vf_euroc_open("/nonexistent/seq", &ec, NULL, &e), VF_ERR_INVALID_ARG, "prefetch");
  ec = vf_euroc_config_default();
  ec.stereo_tolerance_ns = -5;
  CHECK_BAD(vf_euroc_open("/nonexistent/seq", &ec, NULL, &e), VF_ERR_INVALID_ARG,
            "stereo_tolerance_ns");
  vf_euroc_event ev;
  CHECK_BAD(vf_euroc_next(e, &ev), VF_ERR_INVALID_ARG, "vf_euroc_next"); /* after failed open */
  CHECK_BAD(vf_euroc_rewind(e), VF_ERR_INVALID_ARG, "vf_euroc_rewind");
  vf_euroc_close(e);
  CHECK(vf_euroc_groundtruth_count(NULL) == 0);
  char buf[512];
  const char* root =
      vf_test_data_path("euroc/V1_01_easy_micro/mav0/cam0/data.csv", buf, sizeof buf);
  if (root == NULL) {
    printf("no EuRoC excerpt: the reader's calls on a real sequence are skipped\n");
    return;
  }
  snprintf(buf, sizeof buf, "%s/euroc/V1_01_easy_micro", VF_DATA_DIR);
  ec = vf_euroc_config_default();
  ec.prefetch = 2;
  CHECK_OK(vf_euroc_open(buf, &ec, NULL, &e));
  vf_euroc_info info;
  vf_camera cam;
  vf_image l, r;
  vf_euroc_state st;
  CHECK_BAD(vf_euroc_get_info(e, NULL), VF_ERR_INVALID_ARG, "vf_euroc_get_info");
  CHECK_OK(vf_euroc_get_info(e, &info));
  CHECK_BAD(vf_euroc_camera(e, 2, &cam), VF_ERR_INVALID_ARG, "camera 2");
  CHECK_BAD(vf_euroc_camera(e, -1, &cam), VF_ERR_INVALID_ARG, "camera -1");
  CHECK_BAD(vf_euroc_imu_calib(e, NULL), VF_ERR_INVALID_ARG, "vf_euroc_imu_calib");
  CHECK_BAD(vf_euroc_load_pair(e, -1, NULL, &l, &r), VF_ERR_INVALID_ARG, "pair -1");
  CHECK_BAD(vf_euroc_load_pair(e, info.stereo_pairs, NULL, &l, &r), VF_ERR_INVALID_ARG, "pair");
  CHECK_BAD(vf_euroc_load_pair(e, 0, NULL, NULL, &r), VF_ERR_INVALID_ARG, "vf_euroc_load_pair");
  CHECK_BAD(vf_euroc_groundtruth(e, -1, &st), VF_ERR_INVALID_ARG, "vf_euroc_groundtruth");
  if (vf_euroc_groundtruth_count(e) > 0) {
    CHECK_BAD(vf_euroc_groundtruth_at(e, INT64_MIN, &st), VF_ERR_INVALID_ARG, "outside");
    CHECK_BAD(vf_euroc_groundtruth_at(e, INT64_MAX, &st), VF_ERR_INVALID_ARG, "outside");
  } else {
    CHECK_BAD(vf_euroc_groundtruth_at(e, 0, &st), VF_ERR_STATE, "no ground truth");
  }
  CHECK_BAD(vf_euroc_next(e, NULL), VF_ERR_INVALID_ARG, "vf_euroc_next");
  /* Still usable: read a few events, rewind mid-stream, and the first event comes again. */
  int64_t first = 0;
  for (int i = 0; i < 5; ++i) {
    CHECK_OK(vf_euroc_next(e, &ev));
    if (i == 0) first = ev.t_ns;
  }
  CHECK_OK(vf_euroc_rewind(e));
  CHECK_OK(vf_euroc_next(e, &ev));
  CHECK(ev.t_ns == first);
  CHECK(vf_euroc_last_error(NULL)[0] != '\0');
  vf_euroc_close(e);
  vf_euroc_close(NULL);
}

static void rig_on_features(int unit, const vf_feature_frame* f, void* user) {
  (void)f;
  ((int*)user)[unit]++;
}

/* The rig frontend: bad handles and arguments, a rig that fails vf_rig_check, a wrong image
 * (refused before any unit runs: no callback), a set without any unit's images, a repeated time. */
static void test_rig_frontend(const uint8_t* tex) {
  vf_rig cams = vf_rig_default();
  for (int k = 0; k < 3; ++k) {
    vf_camera c = small_camera(0.1 * k);
    CHECK_OK(vf_rig_add_camera(&cams, NULL, &c));
  }
  CHECK_OK(vf_rig_add_pair(&cams, 0, 1));
  vf_frontend_config fc = small_config();
  vf_rig empty = vf_rig_default();
  vf_rig_frontend* fe = (vf_rig_frontend*)&fe;
  CHECK_BAD(vf_rig_frontend_create(ctx, &cams, &fc, NULL), VF_ERR_INVALID_ARG, "out");
  CHECK_BAD(vf_rig_frontend_create(NULL, &cams, &fc, &fe), VF_ERR_INVALID_ARG, "ctx");
  CHECK(fe == NULL);
  CHECK_BAD(vf_rig_frontend_create(ctx, NULL, &fc, &fe), VF_ERR_INVALID_ARG, "rig");
  CHECK_BAD(vf_rig_frontend_create(ctx, &cams, NULL, &fe), VF_ERR_INVALID_ARG, "config");
  CHECK_BAD(vf_rig_frontend_create(ctx, &empty, &fc, &fe), VF_ERR_INVALID_ARG, "camera_count");
  fc.pyramid_levels = 0;
  CHECK_BAD(vf_rig_frontend_create(ctx, &cams, &fc, &fe), VF_ERR_INVALID_ARG, "unit 0 (pair 0");
  CHECK(fe == NULL);
  fc.pyramid_levels = 4;
  /* A pair's cameras must share a clock (the left one's shift serves within 1 ms); a camera's
   * shift must be finite and within a second. */
  cams.timeshift_s[1] = 0.0015;
  CHECK_BAD(vf_rig_frontend_create(ctx, &cams, &fc, &fe), VF_ERR_INVALID_ARG,
            "pair 0 (cam0, cam1)");
  CHECK(strstr(vf_last_error_message(), "time shifts differ by 1.5 ms") != NULL);
  cams.timeshift_s[1] = 0.0;
  cams.timeshift_s[2] = 2.0;
  CHECK_BAD(vf_rig_frontend_create(ctx, &cams, &fc, &fe), VF_ERR_INVALID_ARG,
            "unit 1 (camera 2: cam2)");
  CHECK(strstr(vf_last_error_message(), "imu_timeshift_s 2 s") != NULL);
  cams.timeshift_s[2] = NAN;
  CHECK_BAD(vf_rig_frontend_create(ctx, &cams, &fc, &fe), VF_ERR_INVALID_ARG, "timeshift_s");
  CHECK(fe == NULL);
  cams.timeshift_s[2] = 0.0;
  CHECK_OK(vf_rig_frontend_create(ctx, &cams, &fc, &fe));
  if (fe == NULL) return;
  int frames[2] = {0, 0};
  vf_rig_frontend_callbacks cb = {rig_on_features, NULL, frames};
  CHECK_BAD(vf_rig_frontend_set_callbacks(NULL, &cb), VF_ERR_INVALID_ARG, "fe");
  CHECK_OK(vf_rig_frontend_set_callbacks(fe, &cb));
  vf_rig_unit u;
  CHECK_BAD(vf_rig_frontend_unit(fe, 2, &u), VF_ERR_INVALID_ARG, "unit 2");
  CHECK_BAD(vf_rig_frontend_unit(fe, 0, NULL), VF_ERR_INVALID_ARG, "out");
  const double g[3] = {0, 0, 0};
  CHECK_BAD(vf_rig_frontend_add_imu(NULL, 0, g, g), VF_ERR_INVALID_ARG, "fe");
  CHECK_BAD_ON(vf_rig_frontend_add_imu(fe, 0, NULL, g), VF_ERR_INVALID_ARG, "gyro",
               vf_rig_frontend_last_error(fe));
  CHECK_OK(vf_rig_frontend_add_imu(fe, 5, g, g));
  CHECK_BAD(vf_rig_frontend_add_imu(fe, 5, g, g), VF_ERR_TIMESTAMP, "vf_rig_frontend_add_imu");
  vf_image img[3], small;
  memset(img, 0, sizeof img);
  for (int k = 0; k < 3; ++k) {
    CHECK_OK(vf_image_alloc(&img[k], W, H, VF_PIXEL_U8, VF_MEMORY_HOST));
    if (img[k].data != NULL) frame(tex, 0, k == 1, &img[k]);
  }
  CHECK_OK(vf_image_alloc(&small, W / 2, H, VF_PIXEL_U8, VF_MEMORY_HOST));
  const vf_image* wrong[3] = {&img[0], &small, &img[2]};
  const vf_image* none[3] = {NULL, NULL, NULL};
  const vf_image* good[3] = {&img[0], &img[1], &img[2]};
  CHECK_BAD(vf_rig_frontend_process(NULL, 10, good), VF_ERR_INVALID_ARG, "fe");
  CHECK_BAD_ON(vf_rig_frontend_process(fe, 10, NULL), VF_ERR_INVALID_ARG, "images",
               vf_rig_frontend_last_error(fe));
  CHECK_BAD_ON(vf_rig_frontend_process(fe, 10, wrong), VF_ERR_INVALID_ARG, "camera 1 (cam1)",
               vf_rig_frontend_last_error(fe));
  CHECK_BAD(vf_rig_frontend_process(fe, 10, none), VF_ERR_INVALID_ARG, "no unit");
  CHECK(frames[0] == 0 && frames[1] == 0);
  CHECK_OK(vf_rig_frontend_process(fe, 10, good));
  CHECK(frames[0] == 1 && frames[1] == 1);
  CHECK_BAD(vf_rig_frontend_process(fe, 10, good), VF_ERR_TIMESTAMP, "does not follow");
  CHECK_OK(vf_rig_frontend_process(fe, 20, good));
  CHECK(frames[0] == 2 && frames[1] == 2);
  CHECK(vf_rig_frontend_unit_count(NULL) == 0);
  CHECK(vf_rig_frontend_last_error(NULL)[0] != '\0');
  for (int k = 0; k < 3; ++k) vf_image_free(&img[k]);
  vf_image_free(&small);
  vf_rig_frontend_destroy(fe);
  vf_rig_frontend_destroy(NULL);
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  cc.cpu_threads = 2;
  CHECK_OK(vf_context_create(&cc, &ctx));
  test_create();
  test_no_frontend();

  rig r;
  memset(&r, 0, sizeof r);
  unsigned seed = 5u;
  r.tex = malloc((size_t)TEX_W * TEX_H);
  for (int i = 0; r.tex != NULL && i < TEX_W * TEX_H; ++i) {
    /* 4x4 blocks of random grey: corners for FAST, texture for LK and SGM. */
    int x = i % TEX_W / 4, y = i / TEX_W / 4;
    unsigned s = seed + (unsigned)(y * 131 + x) * 2654435761u;
    r.tex[i] = (uint8_t)(vf_test_rand(&s) >> 8);
  }
  vf_frontend_config fc = small_config();
  vf_frontend_callbacks cb = {on_features, on_disparity, &r.n};
  CHECK_OK(vf_frontend_create(ctx, &fc, &cb, &r.fe));
  CHECK_OK(vf_image_alloc(&r.left, W, H, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&r.right, W, H, VF_PIXEL_U8, VF_MEMORY_HOST));
  if (r.fe != NULL && r.tex != NULL) {
    test_process(&r);
    test_imu(&r);
    test_back_channel(&r);
    test_time_limits(&r);
    test_rig_frontend(r.tex);
  }
  vf_frontend_destroy(r.fe);
  vf_image_free(&r.left);
  vf_image_free(&r.right);
  free(r.tex);
  test_config_files();
  test_euroc();
  vf_context_destroy(ctx);
  VF_TEST_END("test_badinput_frontend");
}

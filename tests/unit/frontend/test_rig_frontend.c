// SPDX-License-Identifier: BSD-3-Clause
/* The rig frontend (vf_rig_frontend.h) on rigs built in code, fed crops of the moving scene
 * texture (frontend_scene.h) at 256x192: a two-pair rig gives each pair exactly what a
 * vf_frontend over the pair gives alone (records bit for bit, the same maps), with rig camera
 * indices and ids unique across the rig, its units running at once on two threads, in dense and
 * in sparse stereo (on CUDA the sparse rig queues its units' trackings itself); a rig of one
 * pair and two mono cameras gives camera-1 records for the pair only, skips a unit whose camera
 * has no image (with a warning) and continues its tracks at the next frame; and each unit's
 * gyroscope seed turns with its own camera's extrinsic rotation (a backward camera sees a pitch
 * move its image the other way). Reads the units' internals for the seed. The back channel
 * (predictions and rejections by rig id) reaches the right units. With --gpu the same on the
 * CUDA backend. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <viofront/viofront.h>

#include "frontend/vf_frontend_internal.h"
#include "frontend/vf_rig_frontend_internal.h"
#include "frontend_scene.h"
#include "log_capture.h"
#include "vf_test.h"

enum { W = 256, H = 192, FRAMES = 3, UNITS = 4, MAX_REC = 512, DISP = 16 };

typedef struct unit_log {
  int frames;
  int count[FRAMES];
  vf_feature rec[FRAMES][MAX_REC];
  int maps;
  uint64_t map_hash[FRAMES];
  double baseline[FRAMES];
} unit_log;

typedef struct rig_log {
  unit_log unit[UNITS];
  int pair_maps[UNITS];
} rig_log;

static void keep_frame(unit_log* g, const vf_feature_frame* fr) {
  if (g->frames >= FRAMES) return;
  int n = fr->count < MAX_REC ? fr->count : MAX_REC;
  g->count[g->frames] = fr->count;
  g->baseline[g->frames] = fr->baseline_m;
  memcpy(g->rec[g->frames], fr->features, sizeof *fr->features * (size_t)n);
  g->frames++;
}

/* FNV-1a over the map's rows. */
static uint64_t map_hash(const vf_image* m) {
  uint64_t h = 1469598103934665603u;
  for (int y = 0; y < m->height; ++y) {
    const uint8_t* row = (const uint8_t*)m->data + (size_t)y * m->stride_bytes;
    for (size_t x = 0; x < (size_t)m->width * 2; ++x) h = (h ^ row[x]) * 1099511628211u;
  }
  return h;
}

static void rig_on_features(int unit, const vf_feature_frame* fr, void* user) {
  keep_frame(&((rig_log*)user)->unit[unit], fr);
}

/* The rig's units are numbered pairs first, so pair p is unit p here. */
static void rig_on_disparity(int pair, const vf_disparity_frame* df, void* user) {
  unit_log* g = &((rig_log*)user)->unit[pair];
  ((rig_log*)user)->pair_maps[pair]++;
  if (g->maps < FRAMES) g->map_hash[g->maps++] = map_hash(&df->disparity);
}

static void fe_on_features(const vf_feature_frame* fr, void* user) { keep_frame(user, fr); }

static void fe_on_disparity(const vf_disparity_frame* df, void* user) {
  unit_log* g = user;
  if (g->maps < FRAMES) g->map_hash[g->maps++] = map_hash(&df->disparity);
}

/* A pinhole camera whose body pose is the rotation R (row-major) at position t. */
static vf_camera make_camera(const double R[9], const double t[3]) {
  vf_camera c = scene_pinhole(W, H, 250.0);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) c.T_BS[4 * i + j] = R[3 * i + j];
    c.T_BS[4 * i + 3] = t[i];
  }
  return c;
}

static const double R_FORWARD[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
static const double R_SIDE[9] = {0, 0, 1, 0, 1, 0, -1, 0, 0};  /* 90 degrees about body y */
static const double R_BACK[9] = {-1, 0, 0, 0, 1, 0, 0, 0, -1}; /* 180 degrees about body y */

/* Adds a camera looking along R at t, and, when `pair`, its right partner 0.1 m along its x. */
static void add_cameras(vf_rig* rig, const double R[9], const double t[3], int pair) {
  vf_camera c = make_camera(R, t);
  CHECK_OK(vf_rig_add_camera(rig, NULL, &c));
  if (!pair) return;
  double t1[3] = {t[0] + 0.1 * R[0], t[1] + 0.1 * R[3], t[2] + 0.1 * R[6]};
  vf_camera r = make_camera(R, t1);
  CHECK_OK(vf_rig_add_camera(rig, NULL, &r));
  CHECK_OK(vf_rig_add_pair(rig, rig->camera_count - 2, rig->camera_count - 1));
}

static vf_frontend_config small_config(void) {
  vf_frontend_config fc = vf_frontend_config_default();
  fc.features.max_features = 200;
  fc.features.min_features = 60;
  fc.stereo.paths = 2;
  fc.disparity_location = VF_MEMORY_HOST; /* the maps are hashed on the host (also with --gpu) */
  return fc;
}

/* Frame k of a view of the texture's region `region`, moving 2 px right and 1 down a frame; a
 * right camera (`right`) sees it DISP pixels further. */
static void camera_frame(const uint8_t* tex, int region, int right, int k, vf_image* img) {
  int ox = 40 + 300 * region + 2 * k + (right ? DISP : 0), oy = 30 + k;
  for (int y = 0; y < H; ++y)
    memcpy((uint8_t*)img->data + (size_t)y * img->stride_bytes,
           tex + (size_t)(y + oy) * SCENE_W + ox, W);
}

/* The backend every context of a run takes: the CPU, or CUDA with --gpu. */
static vf_backend test_backend = VF_BACKEND_CPU;

static vf_context* cpu_context(int threads, log_capture* log) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = test_backend;
  cc.cpu_threads = threads;
  if (log != NULL) {
    memset(log, 0, sizeof *log);
    cc.log_fn = log_capture_fn;
    cc.log_user = log;
  }
  vf_context* ctx = NULL;
  CHECK_OK(vf_context_create(&cc, &ctx));
  return ctx;
}

static int records_equal(const vf_feature* a, const vf_feature* b) {
  return a->u == b->u && a->v == b->v && a->u_rect == b->u_rect && a->v_rect == b->v_rect &&
         a->x == b->x && a->y == b->y && a->age == b->age && a->flags == b->flags &&
         memcmp(&a->disparity, &b->disparity, sizeof a->disparity) == 0 &&
         memcmp(&a->depth_m, &b->depth_m, sizeof a->depth_m) == 0;
}

/* Before the last frame, the back channel: each pair's first two left tracks of the frame before
 * are ended and the next two predicted 3 px right and 2 px up of where they were, sent to the
 * rig by rig id and to the lone frontends by their own ids (the records must then still agree);
 * a list naming a unit that does not exist is refused whole. The ended rig ids go to `ended`. */
static void back_channel(vf_rig_frontend* fe, vf_frontend* const lone[2], const rig_log* got,
                         uint64_t ended[4]) {
  const uint64_t own_mask = (1ull << VF_RIG_FRONTEND_ID_SHIFT) - 1;
  const int k = FRAMES - 2;
  uint64_t live = 0;
  for (int p = 0; p < 2; ++p) {
    const unit_log* g = &got->unit[p];
    uint64_t rig_ids[4], own[4];
    float uv[4];
    int n = 0;
    for (int i = 0; i < g->count[k] && i < MAX_REC && n < 4; ++i) {
      const vf_feature* r = &g->rec[k][i];
      if (r->camera != 2 * p) continue;
      rig_ids[n] = r->id;
      own[n] = r->id & own_mask;
      if (n >= 2) {
        uv[2 * (n - 2)] = r->u + 3.0f;
        uv[2 * (n - 2) + 1] = r->v - 2.0f;
      }
      ++n;
    }
    CHECK(n == 4);
    if (n < 4) return;
    ended[2 * p] = rig_ids[0];
    ended[2 * p + 1] = rig_ids[1];
    live = rig_ids[3];
    CHECK_OK(vf_rig_frontend_reject(fe, rig_ids, 2));
    CHECK_OK(vf_frontend_reject(lone[p], own, 2));
    CHECK_OK(vf_rig_frontend_predict(fe, rig_ids + 2, uv, 2));
    CHECK_OK(vf_frontend_predict(lone[p], own + 2, uv, 2));
  }
  const uint64_t bad[2] = {live, (7ull << VF_RIG_FRONTEND_ID_SHIFT) | 1u};
  const float far[4] = {1.0f, 1.0f, 2.0f, 2.0f};
  CHECK(vf_rig_frontend_reject(fe, bad, 2) == VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_rig_frontend_last_error(fe), "names unit 7") != NULL);
  CHECK(vf_rig_frontend_predict(fe, bad, far, 2) == VF_ERR_INVALID_ARG);
  /* A pixel that is not finite refuses the whole list too (the live id's prediction unsent). */
  const float infinite[4] = {1.0f, 1.0f, INFINITY, 2.0f};
  const uint64_t two_live[2] = {live, live};
  CHECK(vf_rig_frontend_predict(fe, two_live, infinite, 2) == VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_rig_frontend_last_error(fe), "uv[1] is not finite") != NULL);
  CHECK(vf_rig_frontend_reject(NULL, bad, 1) == VF_ERR_INVALID_ARG);
  CHECK(vf_rig_frontend_predict(fe, bad, NULL, 1) == VF_ERR_INVALID_ARG);
}

static int env_is_zero(const char* name) {
  const char* e = getenv(name);
  return e != NULL && strcmp(e, "0") == 0;
}

/* Whether the rig queues its units' trackings itself: on CUDA with the units' first steps batched,
 * several units and no dense one, unless VF_RIG_TRACK_AHEAD=0 (vf_rig_frontend_process.c). */
static int tracks_ahead(int sparse) {
  return sparse && test_backend == VF_BACKEND_CUDA && !env_is_zero("VF_RIG_BATCH") &&
         !env_is_zero("VF_RIG_TRACK_AHEAD");
}

/* Two pairs, units at once on two threads, against two lone frontends on another context; dense
 * or sparse stereo (on CUDA from device images, which the rig rectifies batched, so that it also
 * queues the units' trackings). */
static void test_two_pairs(const uint8_t* tex, vf_image* img, int sparse) {
  vf_rig rig = vf_rig_default();
  const double t0[3] = {0, 0, 0}, t2[3] = {0.05, 0, 0.05};
  add_cameras(&rig, R_FORWARD, t0, 1);
  add_cameras(&rig, R_SIDE, t2, 1);
  vf_frontend_config fc = small_config();
  if (sparse) fc.stereo_mode = VF_FRONTEND_STEREO_SPARSE;
  const int device = sparse && test_backend == VF_BACKEND_CUDA;
  vf_image dev[4];
  memset(dev, 0, sizeof dev);
  for (int c = 0; c < 4 && device; ++c)
    CHECK_OK(vf_image_alloc(&dev[c], W, H, VF_PIXEL_U8, VF_MEMORY_DEVICE));
  const vf_image* in = device ? dev : img;
  vf_context* ctx = cpu_context(2, NULL);
  vf_context* ctx_alone = cpu_context(2, NULL);
  static rig_log got;
  static unit_log alone[2];
  memset(&got, 0, sizeof got);
  memset(alone, 0, sizeof alone);
  vf_rig_frontend* fe = NULL;
  vf_frontend* lone[2] = {NULL, NULL};
  CHECK_OK(vf_rig_frontend_create(ctx, &rig, &fc, &fe));
  vf_rig_frontend_callbacks cb = {rig_on_features, rig_on_disparity, &got};
  CHECK_OK(vf_rig_frontend_set_callbacks(fe, &cb));
  CHECK(vf_rig_frontend_unit_count(fe) == 2);
  for (int p = 0; p < 2; ++p) {
    vf_rig_unit u;
    CHECK_OK(vf_rig_frontend_unit(fe, p, &u));
    CHECK(u.camera == 2 * p && u.right_camera == 2 * p + 1 && u.pair == p);
    vf_frontend_config c = fc;
    c.cam0 = rig.cameras[2 * p];
    c.cam1 = rig.cameras[2 * p + 1];
    vf_frontend_callbacks lcb = {fe_on_features, fe_on_disparity, &alone[p]};
    CHECK_OK(vf_frontend_create(ctx_alone, &c, &lcb, &lone[p]));
  }
  /* On CUDA a lone frontend's stereo stream has the greatest priority; two pairs' have normal
   * priority (every unit's SGM would otherwise go before every unit's tracking). */
  for (int p = 0; p < 2 && !sparse && test_backend == VF_BACKEND_CUDA && fe != NULL; ++p) {
    const vf_frontend* unit = fe->units[p].fe;
    CHECK(unit->side != NULL && !unit->side->urgent && unit->ctx->calm_siblings);
    CHECK(lone[p] != NULL && lone[p]->side != NULL && lone[p]->side->urgent);
  }
  uint64_t ended[4] = {0, 0, 0, 0};
  int ahead = 0;
  for (int k = 0; k < FRAMES && fe != NULL; ++k) {
    const vf_image* set[4] = {&in[0], &in[1], &in[2], &in[3]};
    for (int c = 0; c < 4; ++c) camera_frame(tex, c / 2, c % 2, k, &img[c]);
    for (int c = 0; c < 4 && device; ++c) CHECK_OK(vf_image_copy(&img[c], &dev[c]));
    if (k == FRAMES - 1 && lone[0] != NULL && lone[1] != NULL) back_channel(fe, lone, &got, ended);
    CHECK_OK(vf_rig_frontend_process(fe, 1000000 + 50000000LL * k, set));
    ahead += fe->ahead_units;
    for (int p = 0; p < 2 && lone[p] != NULL; ++p)
      CHECK_OK(vf_frontend_process(lone[p], 1000000 + 50000000LL * k, set[2 * p], set[2 * p + 1]));
  }
  int compared = 0, rights = 0;
  for (int p = 0; p < 2; ++p) {
    const unit_log *g = &got.unit[p], *a = &alone[p];
    CHECK(g->frames == FRAMES && a->frames == FRAMES);
    const int maps = sparse ? 0 : FRAMES;
    CHECK(g->maps == maps && a->maps == maps && got.pair_maps[p] == maps);
    for (int k = 0; k < g->frames && k < a->frames; ++k) {
      CHECK(g->count[k] == a->count[k] && g->count[k] > 20);
      CHECK(g->map_hash[k] == a->map_hash[k]);
      for (int i = 0; i < g->count[k] && i < MAX_REC; ++i) {
        const vf_feature *r = &g->rec[k][i], *l = &a->rec[k][i];
        /* the lone frontend's camera 0/1 is the pair's left/right camera of the rig */
        CHECK(r->camera == (l->camera == 0 ? 2 * p : 2 * p + 1));
        CHECK(vf_rig_frontend_id_unit(r->id) == p);
        CHECK((r->id & ((1ull << VF_RIG_FRONTEND_ID_SHIFT) - 1)) == l->id);
        CHECK(records_equal(r, l));
        rights += r->camera == 2 * p + 1;
        compared++;
      }
    }
  }
  /* the left records' ids of the last frame are unique across the rig */
  uint64_t ids[2 * MAX_REC];
  int n = 0, dup = 0;
  for (int p = 0; p < 2; ++p)
    for (int i = 0; i < got.unit[p].count[FRAMES - 1] && i < MAX_REC; ++i)
      if (got.unit[p].rec[FRAMES - 1][i].camera == 2 * p)
        ids[n++] = got.unit[p].rec[FRAMES - 1][i].id;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) dup += ids[i] == ids[j];
  CHECK(n > 40 && dup == 0);
  CHECK(rights > 0);
  /* the ended tracks are gone from the last frame */
  int back = 0;
  for (int i = 0; i < n; ++i)
    for (int e = 0; e < 4; ++e) back += ids[i] == ended[e];
  CHECK(ended[0] != 0 && ended[2] != 0 && back == 0);
  /* both units every frame (the first one's step has nothing to track) */
  CHECK(ahead == (tracks_ahead(sparse) ? 2 * FRAMES : 0));
  printf(
      "two pairs, %s: %d records equal to two lone frontends' (%d right)%s; %d trackings "
      "queued by the rig\n",
      sparse ? "sparse" : "dense", compared, rights, sparse ? "" : ", maps equal", ahead);
  for (int c = 0; c < 4; ++c) vf_image_free(&dev[c]);
  vf_frontend_destroy(lone[0]);
  vf_frontend_destroy(lone[1]);
  vf_rig_frontend_destroy(fe);
  vf_context_destroy(ctx);
  vf_context_destroy(ctx_alone);
}

/* Rig of a pair (cameras 1, 2) and two mono cameras (0 forward, 3 backward). */
static vf_rig pair_and_monos(void) {
  vf_rig rig = vf_rig_default();
  const double t0[3] = {0, 0, 0}, t1[3] = {0, 0.1, 0}, t3[3] = {0, 0, -0.1};
  add_cameras(&rig, R_FORWARD, t0, 0);
  add_cameras(&rig, R_SIDE, t1, 1);
  add_cameras(&rig, R_BACK, t3, 0);
  return rig;
}

static void test_pair_and_monos(const uint8_t* tex, vf_image* img) {
  const vf_rig rig = pair_and_monos();
  const vf_frontend_config fc = small_config();
  log_capture log;
  vf_context* ctx = cpu_context(1, &log);
  static rig_log got;
  memset(&got, 0, sizeof got);
  vf_rig_frontend* fe = NULL;
  CHECK_OK(vf_rig_frontend_create(ctx, &rig, &fc, &fe));
  if (fe == NULL) return;
  vf_rig_frontend_callbacks cb = {rig_on_features, rig_on_disparity, &got};
  CHECK_OK(vf_rig_frontend_set_callbacks(fe, &cb));
  const vf_rig_unit want[3] = {{1, 2, 0}, {0, -1, -1}, {3, -1, -1}};
  CHECK(vf_rig_frontend_unit_count(fe) == 3);
  for (int u = 0; u < 3; ++u) {
    vf_rig_unit info;
    CHECK_OK(vf_rig_frontend_unit(fe, u, &info));
    CHECK(info.camera == want[u].camera && info.right_camera == want[u].right_camera &&
          info.pair == want[u].pair);
  }
  /* Frame 1 lacks camera 3: its unit (2) is skipped, the others go on. */
  for (int k = 0; k < 3; ++k) {
    const vf_image* set[4] = {&img[0], &img[1], &img[2], k == 1 ? NULL : &img[3]};
    static const int region[4] = {0, 1, 1, 2};
    for (int c = 0; c < 4; ++c) camera_frame(tex, region[c], c == 2, k, &img[c]);
    CHECK_OK(vf_rig_frontend_process(fe, 1000000 + 50000000LL * k, set));
  }
  CHECK(got.unit[0].frames == 3 && got.unit[1].frames == 3 && got.unit[2].frames == 2);
  CHECK(strstr(log.text, "camera 3 (cam3) has no image") != NULL);
  CHECK(strstr(log.text, "unit 2 (camera 3: cam3) skipped") != NULL);
  CHECK(got.pair_maps[0] == 3 && got.pair_maps[1] == 0 && got.pair_maps[2] == 0);
  int right = 0, mono_bad = 0, continued = 0;
  for (int u = 0; u < 3; ++u) {
    const unit_log* g = &got.unit[u];
    for (int k = 0; k < g->frames; ++k) {
      if (u > 0) CHECK(g->baseline[k] == 0.0);
      for (int i = 0; i < g->count[k] && i < MAX_REC; ++i) {
        const vf_feature* r = &g->rec[k][i];
        CHECK(vf_rig_frontend_id_unit(r->id) == u);
        if (u == 0) {
          CHECK(r->camera == 1 || r->camera == 2);
          right += r->camera == 2;
        } else {
          mono_bad += r->camera != want[u].camera || !isnan(r->depth_m);
        }
        /* unit 2's tracks of frame 0 go on at its second frame (the set's third) */
        continued += u == 2 && k == 1 && r->age == 2;
      }
    }
  }
  CHECK(right > 0 && mono_bad == 0 && continued > 20);
  printf(
      "pair and monos: camera-1 records (%d) for the pair only, unit 2 skipped with a warning "
      "and %d of its tracks go on\n",
      right, continued);
  vf_rig_frontend_destroy(fe);
  vf_context_destroy(ctx);
}

/* Each unit seeds its tracking with the IMU's rotation seen from its own camera: a pitch about
 * body x moves the forward camera's image one way and the backward camera's the other. */
static void test_gyro_seed(void) {
  const vf_rig rig = pair_and_monos();
  const vf_frontend_config fc = small_config();
  vf_context* ctx = cpu_context(1, NULL);
  vf_rig_frontend* fe = NULL;
  CHECK_OK(vf_rig_frontend_create(ctx, &rig, &fc, &fe));
  if (fe == NULL) return;
  const double gyro[3] = {0.5, 0, 0}, acc[3] = {0, 0, 9.81};
  for (int i = 0; i <= 20; ++i) CHECK_OK(vf_rig_frontend_add_imu(fe, 5000000LL * i, gyro, acc));
  double dv[3];
  for (int u = 0; u < 3; ++u) {
    const vf_frontend* f = fe->units[u].fe;
    const vf_camera* cam = &rig.cameras[fe->units[u].info.camera];
    /* R_b_c is the camera's own R_BS (the rectification turns a mono unit's camera by nothing) */
    double diff = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        diff = fmax(diff, fabs(f->R_b_c[3 * i + j] - cam->T_BS[4 * i + j]));
    if (u > 0) CHECK(diff < 1e-9);
    CHECK(vf_imu_buffer_size(f->imu) == 21);
    const float xy[2] = {(float)f->K[2], (float)f->K[3]};
    float out[2];
    CHECK_OK(vf_tracker_predict_gyro(f->imu, 0, 50000000, f->R_b_c, f->K, xy, 1, out));
    dv[u] = out[1] - xy[1];
  }
  /* 0.025 rad at f = 250: about 6 px, up in one camera and down in the other */
  CHECK(fabs(dv[1]) > 5 && fabs(dv[2]) > 5 && dv[1] * dv[2] < 0);
  printf("gyro seed: a pitch moves the forward camera's centre %.2f px, the backward one's %.2f\n",
         dv[1], dv[2]);
  vf_rig_frontend_destroy(fe);
  vf_context_destroy(ctx);
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--gpu") == 0) {
    VF_TEST_REQUIRE_CUDA();
    test_backend = VF_BACKEND_CUDA;
  }
  uint8_t* tex = scene_texture(7);
  CHECK(tex != NULL);
  vf_image img[4];
  memset(img, 0, sizeof img);
  for (int c = 0; c < 4; ++c) CHECK_OK(vf_image_alloc(&img[c], W, H, VF_PIXEL_U8, VF_MEMORY_HOST));
  if (tex != NULL && vf_test_failures == 0) {
    test_two_pairs(tex, img, 0);
    test_two_pairs(tex, img, 1);
    test_pair_and_monos(tex, img);
    test_gyro_seed();
  }
  for (int c = 0; c < 4; ++c) vf_image_free(&img[c]);
  free(tex);
  VF_TEST_END(test_backend == VF_BACKEND_CUDA ? "test_rig_frontend --gpu" : "test_rig_frontend");
}

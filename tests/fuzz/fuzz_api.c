// SPDX-License-Identifier: BSD-3-Clause
/* libFuzzer target (issue 17): random sequences of API calls on the CPU backend. The input is a
 * program: each operation is one byte (which call) and a few argument bytes (sizes, strides,
 * timestamp steps, ids, values that may be NaN or huge). The frontend (on EuRoC's rig scaled
 * down to a few dozen pixels) and each stage alone (pyramid, detector, tracker, stereo, feature
 * set, IMU buffer) are created, fed, queried and destroyed in any order, also after a failed
 * create (the handle stays NULL). Asserted: every status is one of the documented values, a
 * failure leaves a message, a failed create leaves its handle NULL, callback timestamps and
 * sequence numbers increase, a track id once gone never comes back and new ids are fresh. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <viofront/viofront.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#define FUZZ_ASSERT(cond)          \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

/* Pixel work is what costs (10^6 executions must fit in an hour of one core): images stay small,
 * and an input makes at most HEAVY_MAX frontends, frames or stereo computations. */
enum { MAX_OPS = 48, MAX_IDS = 64, IMG_MAX = 200 * 130, HEAVY_MAX = 5 };

typedef struct reader {
  const uint8_t* p;
  size_t left;
} reader;

static unsigned byte(reader* r) {
  if (r->left == 0) return 0;
  r->left--;
  return *r->p++;
}

static int16_t word(reader* r) { return (int16_t)(byte(r) | byte(r) << 8); }

/* A float that is usually ordinary and sometimes NaN, infinite or huge. */
static float value(reader* r, float scale) {
  unsigned b = byte(r);
  if (b == 255) return NAN;
  if (b == 254) return INFINITY;
  if (b == 253) return -1e30f;
  return (float)word(r) / 32768.0f * scale;
}

/* What the callbacks saw; the invariants are checked as they arrive. */
typedef struct sink {
  int frames;
  int64_t last_t;
  uint64_t last_sequence;
  uint64_t max_id; /* largest id seen: a new id must be larger */
  uint64_t alive[MAX_IDS];
  int alive_count;
  uint64_t ids[MAX_IDS]; /* some ids seen, for predict and reject */
  int id_count;
} sink;

static int was_alive(const sink* s, uint64_t id) {
  for (int i = 0; i < s->alive_count; ++i)
    if (s->alive[i] == id) return 1;
  return 0;
}

static void on_features(const vf_feature_frame* fr, void* user) {
  sink* s = user;
  FUZZ_ASSERT(fr->count >= 0 && (fr->count == 0 || fr->features != NULL));
  if (s->frames > 0) FUZZ_ASSERT(fr->t_ns > s->last_t && fr->sequence > s->last_sequence);
  s->frames++;
  s->last_t = fr->t_ns;
  s->last_sequence = fr->sequence;
  uint64_t max_before = s->max_id, now[MAX_IDS];
  int n = 0;
  for (int i = 0; i < fr->count; ++i) {
    const vf_feature* f = &fr->features[i];
    FUZZ_ASSERT(f->id > 0 && (f->camera == 0 || f->camera == 1));
    if (f->camera != 0) continue;
    /* Continued from the last frame, or new: then larger than every id handed out before. */
    FUZZ_ASSERT(was_alive(s, f->id) || f->id > max_before);
    if (f->id > s->max_id) s->max_id = f->id;
    if (n < MAX_IDS) now[n++] = f->id;
    if (s->id_count < MAX_IDS) s->ids[s->id_count++] = f->id;
  }
  /* Only the first MAX_IDS are followed; a frame with more makes the check partial. */
  memcpy(s->alive, now, sizeof now[0] * (size_t)n);
  s->alive_count = n;
}

static void on_disparity(const vf_disparity_frame* fr, void* user) {
  const sink* s = user;
  FUZZ_ASSERT(fr->t_ns == s->last_t);
}

/* Every status is a documented one, and a failure says why. */
static vf_status checked(vf_status s) {
  FUZZ_ASSERT(s >= VF_OK && s < VF_STATUS_COUNT);
  if (s != VF_OK) FUZZ_ASSERT(vf_last_error_message()[0] != '\0');
  return s;
}

typedef struct world {
  vf_context* ctx;
  vf_frontend* fe;
  sink sink;
  int64_t t_frame, t_imu;
  int cam_w, cam_h, stereo_on;
  int heavy; /* frontends, frames and stereo computations so far */
  vf_pyramid* pyr[2];
  vf_detector* det;
  vf_tracker* trk;
  vf_stereo* st;
  vf_feature_set* fs;
  vf_imu_buffer* imu;
  uint8_t pixels[2][IMG_MAX + 64];
  uint16_t disparity[IMG_MAX];
} world;

/* An image view over the world's pixels: the right size or not, stride below the width or not,
 * sometimes no pixels at all. */
static vf_image image_arg(world* w, reader* r, int which, int want_w, int want_h) {
  unsigned shape = byte(r);
  int width = want_w, height = want_h;
  if (shape & 1) width = 1 + (int)(byte(r) % 200);
  if (shape & 2) height = 1 + (int)(byte(r) % 130);
  size_t stride = (size_t)width + (shape & 4 ? byte(r) % 32 : 0);
  if (shape & 8) stride = (size_t)(byte(r) % (unsigned)(width + 1));
  if (stride * (size_t)height > IMG_MAX || width > 200) return (vf_image){0};
  uint8_t* px = w->pixels[which];
  unsigned seed = byte(r);
  for (size_t i = 0; i < stride * (size_t)height; ++i) {
    seed = seed * 1103515245u + 12345u;
    px[i] = (uint8_t)((seed >> 16) ^ (i * 7));
  }
  if (shape & 16) return vf_image_view(NULL, width, height, stride, VF_MEMORY_HOST, VF_PIXEL_U8);
  return vf_image_view(px, width, height, stride, VF_MEMORY_HOST, VF_PIXEL_U8);
}

static void frontend_create(world* w, reader* r) {
  if (++w->heavy > HEAVY_MAX) return;
  vf_frontend_destroy(w->fe);
  w->fe = NULL;
  memset(&w->sink, 0, sizeof w->sink);
  vf_frontend_config fc = vf_frontend_config_default();
  vf_camera cams[2];
  vf_euroc_vi_sensor(cams, NULL);
  /* EuRoC's rig at 1/11 or 1/10 of its size (68x43, 75x48). */
  double scale = 1.0 / (10 + byte(r) % 2);
  for (int k = 0; k < 2; ++k) {
    cams[k].width = (int)(cams[k].width * scale);
    cams[k].height = (int)(cams[k].height * scale);
    cams[k].fx *= scale;
    cams[k].fy *= scale;
    cams[k].cx *= scale;
    cams[k].cy *= scale;
  }
  fc.cam0 = cams[0];
  fc.cam1 = cams[1];
  w->cam_w = cams[0].width;
  w->cam_h = cams[0].height;
  unsigned opt = byte(r);
  fc.stereo_enabled = (opt & 1) && byte(r) % 4 == 0;
  w->stereo_on = fc.stereo_enabled;
  fc.right_features = (opt >> 1) & 1;
  fc.gyro_seeding = (opt >> 2) & 1;
  fc.tracker.template_mode = (opt >> 3) & 1;
  fc.tracker.refine = (opt >> 4) & 1;
  fc.features.detect_every = (int)(byte(r) % 6) - 1;
  fc.features.max_features = (int)(byte(r) % 90) - 9;
  fc.features.min_features = fc.features.max_features / 2;
  fc.pyramid_levels = 1 + (int)(byte(r) % 5);
  fc.tracker.levels = fc.pyramid_levels < 3 ? fc.pyramid_levels : 3;
  if (fc.detector.max_level >= fc.pyramid_levels) fc.detector.max_level = fc.pyramid_levels - 1;
  if (opt & 128) fc.pyramid_levels = 9 - fc.pyramid_levels; /* sometimes too many for the size */
  fc.imu_capacity = (int)(byte(r) % 64);
  fc.stereo.disparities = 64;
  fc.stereo.paths = opt & 32 ? 2 : 4; /* 8 paths cost the most and add no API behaviour */
  vf_frontend_callbacks cb = {on_features, on_disparity, &w->sink};
  vf_frontend* fe = (vf_frontend*)&w->sink; /* must be overwritten either way */
  vf_status s = checked(vf_frontend_create(w->ctx, &fc, opt & 64 ? NULL : &cb, &fe));
  if (s != VF_OK) FUZZ_ASSERT(fe == NULL);
  w->fe = fe;
  w->t_frame = w->t_imu = 1000000000;
}

static void frontend_process(world* w, reader* r) {
  w->heavy += w->fe != NULL && w->stereo_on ? 2 : 1;
  if (w->heavy > HEAVY_MAX) return;
  w->t_frame += (int64_t)word(r) * 1000000;
  vf_image left = image_arg(w, r, 0, w->cam_w, w->cam_h);
  vf_image right = image_arg(w, r, 1, w->cam_w, w->cam_h);
  unsigned which = byte(r) % 8;
  checked(vf_frontend_process(w->fe, w->t_frame, which == 1 ? NULL : &left,
                              which == 2 ? NULL : &right));
}

static void frontend_imu(world* w, reader* r) {
  w->t_imu += (int64_t)word(r) * 100000;
  double gyro[3], acc[3];
  for (int i = 0; i < 3; ++i) {
    gyro[i] = value(r, 4.0f);
    acc[i] = value(r, 20.0f);
  }
  checked(vf_frontend_push_imu(w->fe, w->t_imu, gyro, acc));
}

/* Ids for predict and reject: seen ones, made-up ones, repeats. */
static int id_args(world* w, reader* r, uint64_t* ids, float* uv) {
  int n = (int)(byte(r) % 9);
  for (int i = 0; i < n; ++i) {
    unsigned b = byte(r);
    ids[i] = w->sink.id_count > 0 && b < 200 ? w->sink.ids[b % (unsigned)w->sink.id_count]
                                             : (uint64_t)b * 977u;
    uv[2 * i] = value(r, 200.0f);
    uv[2 * i + 1] = value(r, 200.0f);
  }
  return byte(r) == 0 ? -n : n;
}

static void frontend_backchannel(world* w, reader* r, int predict) {
  uint64_t ids[8];
  float uv[16];
  int n = id_args(w, r, ids, uv);
  if (predict) {
    checked(vf_frontend_predict(w->fe, n == 0 ? NULL : ids, uv, n));
  } else {
    checked(vf_frontend_reject(w->fe, ids, n));
  }
}

static void frontend_query(world* w) {
  vf_stereo_rectification rect;
  checked(vf_frontend_rectification(w->fe, &rect));
  FUZZ_ASSERT(vf_frontend_last_error(w->fe) != NULL);
}

/* The stages alone: a pair of pyramids, detection, tracking between them, stereo, a feature set. */
static void stage_pyramids(world* w, reader* r) {
  for (int k = 0; k < 2; ++k) vf_pyramid_destroy(w->pyr[k]);
  vf_pyramid_config pc = {8 + (int)(byte(r) % 192), 8 + (int)(byte(r) % 120), (int)(byte(r) % 9)};
  for (int k = 0; k < 2; ++k) {
    w->pyr[k] = NULL;
    if (checked(vf_pyramid_create(w->ctx, &pc, &w->pyr[k])) != VF_OK) FUZZ_ASSERT(!w->pyr[k]);
    vf_image img = image_arg(w, r, k, pc.width, pc.height);
    checked(vf_pyramid_build(w->pyr[k], &img));
    vf_image view;
    checked(vf_pyramid_level(w->pyr[k], (int)(byte(r) % 10) - 1, &view));
  }
}

static void stage_detect(world* w, reader* r) {
  vf_detector_destroy(w->det);
  w->det = NULL;
  vf_detector_config dc = vf_detector_config_default();
  dc.width = 8 + (int)(byte(r) % 192);
  dc.height = 8 + (int)(byte(r) % 120);
  dc.threshold = (int)(byte(r));
  dc.max_level = (int)(byte(r) % 4);
  dc.cell_width = 32 * (1 + (int)(byte(r) % 3));
  dc.cell_height = 8 << (byte(r) % 3);
  if (checked(vf_detector_create(w->ctx, &dc, &w->det)) != VF_OK) FUZZ_ASSERT(w->det == NULL);
  uint8_t occupancy[64];
  for (int i = 0; i < 64; ++i) occupancy[i] = (uint8_t)(byte(r) & 1);
  checked(vf_detector_detect(w->det, w->pyr[0], byte(r) & 1 ? occupancy : NULL, VF_MEMORY_HOST));
  const vf_keypoint* kp = NULL;
  int count = -1;
  if (checked(vf_detector_keypoints(w->det, &kp, &count)) == VF_OK) {
    FUZZ_ASSERT(count >= 0 && (count == 0 || kp != NULL));
    int added = 0;
    if (w->fs != NULL) checked(vf_feature_set_add(w->fs, kp, count, &added));
  }
}

static void stage_track(world* w, reader* r) {
  if (byte(r) & 1 || w->trk == NULL) {
    vf_tracker_destroy(w->trk);
    w->trk = NULL;
    vf_tracker_config tc = vf_tracker_config_default();
    tc.levels = 1 + (int)(byte(r) % 4);
    tc.max_features = (int)(byte(r) % 40);
    tc.template_mode = byte(r) & 1;
    tc.refine = byte(r) & 1;
    if (checked(vf_tracker_create(w->ctx, &tc, &w->trk)) != VF_OK) FUZZ_ASSERT(w->trk == NULL);
  }
  vf_track_request req[16];
  vf_track_result res[16];
  int n = (int)(byte(r) % 17);
  for (int i = 0; i < n; ++i) {
    req[i] = vf_track_request_make(value(r, 200.0f), value(r, 130.0f), (int)(byte(r) % 48) - 8);
    req[i].guess_x = req[i].x + value(r, 8.0f);
    req[i].guess_y = req[i].y + value(r, 8.0f);
  }
  checked(vf_tracker_track(w->trk, w->pyr[0], w->pyr[1], req, n, res));
  if (w->fs != NULL) {
    vf_track_stats stats;
    checked(vf_feature_set_track(w->fs, w->trk, w->pyr[0], w->pyr[1], NULL, &stats));
  }
}

static void stage_stereo(world* w, reader* r) {
  vf_stereo_destroy(w->st);
  w->st = NULL;
  vf_stereo_config sc = vf_stereo_config_default_for((vf_stereo_method)(byte(r) % 7));
  sc.width = 64 + (int)(byte(r) % 40);
  sc.height = 4 + (int)(byte(r) % 20);
  sc.disparities = 64;
  if (checked(vf_stereo_create(w->ctx, &sc, &w->st)) != VF_OK) FUZZ_ASSERT(w->st == NULL);
  w->heavy += 2;
  if (w->heavy > HEAVY_MAX) return;
  vf_image left = image_arg(w, r, 0, sc.width, sc.height);
  vf_image right = image_arg(w, r, 1, sc.width, sc.height);
  vf_image disp = vf_image_view(w->disparity, sc.width, sc.height, (size_t)sc.width * 2,
                                VF_MEMORY_HOST, VF_PIXEL_U16);
  if ((size_t)sc.width * (size_t)sc.height > IMG_MAX) disp.data = NULL;
  checked(vf_stereo_compute(w->st, &left, &right, &disp, NULL));
}

static void stage_features(world* w, reader* r) {
  vf_feature_set_destroy(w->fs);
  w->fs = NULL;
  vf_feature_set_config fc = vf_feature_set_config_default();
  fc.grid.cell_width = 32;
  fc.grid.cell_height = 16;
  fc.width = 8 + (int)(byte(r) % 192);
  fc.height = 8 + (int)(byte(r) % 120);
  fc.grid.cols = (fc.width + 31) / 32 + (byte(r) & 1);
  fc.grid.rows = (fc.height + 15) / 16;
  fc.max_features = (int)(byte(r) % 40);
  fc.detect_every = (int)(byte(r) % 4);
  if (checked(vf_feature_set_create(&fc, &w->fs)) != VF_OK) FUZZ_ASSERT(w->fs == NULL);
  uint64_t ids[8];
  float uv[16];
  int n = id_args(w, r, ids, uv), removed = 0;
  checked(vf_feature_set_remove(w->fs, ids, n, &removed));
  n = id_args(w, r, ids, uv);
  checked(vf_feature_set_refuse(w->fs, ids, n, &removed));
  uint8_t mask[64];
  checked(vf_feature_set_occupancy(w->fs, mask, (int)(byte(r) % 65)));
}

static void stage_imu(world* w, reader* r) {
  if (w->imu == NULL || byte(r) == 0) {
    vf_imu_buffer_destroy(w->imu);
    w->imu = NULL;
    if (checked(vf_imu_buffer_create((int)(byte(r) % 40) - 2, (int64_t)word(r) * 1000000,
                                     &w->imu)) != VF_OK)
      FUZZ_ASSERT(w->imu == NULL);
  }
  vf_imu_sample smp = {w->t_imu, {value(r, 3.0f), value(r, 3.0f), value(r, 3.0f)}, {0, 0, 9.8}};
  w->t_imu += (int64_t)word(r) * 100000;
  checked(vf_imu_buffer_push(w->imu, &smp));
  double R[9];
  checked(vf_imu_buffer_rotation(w->imu, w->t_imu - (int64_t)byte(r) * 10000000,
                                 w->t_imu - (int64_t)byte(r) * 1000000, R));
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static world w;
  reader r = {data, size};
  memset(&w.sink, 0, sizeof w.sink);
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  cc.cpu_threads = 1;
  cc.log_level = VF_LOG_SILENT;
  FUZZ_ASSERT(vf_context_create(&cc, &w.ctx) == VF_OK);
  w.t_frame = w.t_imu = 1000000000;
  for (int op = 0; op < MAX_OPS && r.left > 0; ++op) {
    switch (byte(&r) % 14) {
      case 0: frontend_create(&w, &r); break;
      case 1:
        vf_frontend_destroy(w.fe);
        w.fe = NULL;
        break;
      case 2:
      case 3: frontend_process(&w, &r); break;
      case 4:
      case 5: frontend_imu(&w, &r); break;
      case 6: frontend_backchannel(&w, &r, 1); break;
      case 7: frontend_backchannel(&w, &r, 0); break;
      case 8: frontend_query(&w); break;
      case 9: stage_pyramids(&w, &r); break;
      case 10: stage_detect(&w, &r); break;
      case 11: stage_track(&w, &r); break;
      case 12: stage_stereo(&w, &r); break;
      default: byte(&r) & 1 ? stage_features(&w, &r) : stage_imu(&w, &r); break;
    }
  }
  vf_frontend_destroy(w.fe);
  vf_pyramid_destroy(w.pyr[0]);
  vf_pyramid_destroy(w.pyr[1]);
  vf_detector_destroy(w.det);
  vf_tracker_destroy(w.trk);
  vf_stereo_destroy(w.st);
  vf_feature_set_destroy(w.fs);
  vf_imu_buffer_destroy(w.imu);
  vf_context_destroy(w.ctx);
  memset(&w, 0, sizeof w);
  return 0;
}

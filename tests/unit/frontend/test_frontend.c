// SPDX-License-Identifier: BSD-3-Clause
/* The frontend end to end on a generated moving scene (no data files needed): callbacks once
 * per frame in order with increasing timestamps and sequence numbers, track ids unique and never
 * reused, records consistent (depth from disparity, right records on the same rectified row),
 * and the documented faults: a missing right image, a wrong size, a timestamp going backwards,
 * IMU samples out of order and an IMU gap, reject/predict called from inside a callback,
 * process called from inside a callback. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "euroc_calib.h"
#include "frontend_scene.h"
#include "vf_test.h"

enum { FRAMES = 12, MAX_IDS = 4096 };

typedef struct sink {
  int frames, disparity_frames;
  uint64_t last_sequence;
  int64_t last_t;
  int order_ok;
  unsigned char seen_in_frame[MAX_IDS]; /* ids seen in the frame being checked */
  unsigned char gone[MAX_IDS];          /* ids of tracks that ended: must never come back */
  unsigned char alive[MAX_IDS];
  uint64_t rejected;
  int reject_next; /* reject one track from inside the next callback */
  vf_frontend* fe;
  vf_status reentrant_process;
  int records_ok, depth_ok, right_ok;
  long features;
} sink;

static void on_features(const vf_feature_frame* fr, void* user) {
  sink* s = user;
  if (s->frames > 0 && (fr->sequence != s->last_sequence + 1 || fr->t_ns <= s->last_t))
    s->order_ok = 0;
  s->last_sequence = fr->sequence;
  s->last_t = fr->t_ns;
  s->frames++;
  memset(s->seen_in_frame, 0, sizeof s->seen_in_frame);
  for (int i = 0; i < fr->count; ++i) {
    const vf_feature* f = &fr->features[i];
    if (f->id >= MAX_IDS) {
      s->records_ok = 0;
      continue;
    }
    if (f->camera == 0) {
      s->features++;
      if (s->seen_in_frame[f->id] || s->gone[f->id]) s->records_ok = 0;
      s->seen_in_frame[f->id] = 1;
      if (!isnan(f->disparity) &&
          fabsf(f->depth_m - (float)(fr->f * fr->baseline_m / f->disparity)) > 1e-3f * f->depth_m)
        s->depth_ok = 0;
      if (isnan(f->u) || isnan(f->x) || f->age < 1) s->records_ok = 0;
    } else if (f->camera == 1) {
      /* The right record of a track follows its left record's rectified row. */
      int found = 0;
      for (int j = 0; j < fr->count; ++j) {
        const vf_feature* l = &fr->features[j];
        if (l->camera == 0 && l->id == f->id) {
          found = fabsf(l->v_rect - f->v_rect) < 1e-4f &&
                  fabsf(l->u_rect - l->disparity - f->u_rect) < 1e-3f;
        }
      }
      if (!found) s->right_ok = 0;
    }
  }
  for (int id = 0; id < MAX_IDS; ++id) {
    if (s->alive[id] && !s->seen_in_frame[id]) s->gone[id] = 1;
    s->alive[id] = s->seen_in_frame[id];
  }
  vf_image none = {0};
  s->reentrant_process = vf_frontend_process(s->fe, fr->t_ns + 1, &none, &none);
  if (s->reject_next && fr->count > 0) {
    s->rejected = fr->features[0].id;
    CHECK_OK(vf_frontend_reject(s->fe, &s->rejected, 1));
    float uv[2] = {fr->features[1].u, fr->features[1].v};
    CHECK_OK(vf_frontend_predict(s->fe, &fr->features[1].id, uv, 1));
    s->reject_next = 0;
    s->gone[s->rejected] = 1;
    s->alive[s->rejected] = 0;
  }
}

static void on_disparity(const vf_disparity_frame* fr, void* user) {
  sink* s = user;
  s->disparity_frames++;
  if (fr->disparity.format != VF_PIXEL_U16 || fr->rectified_left.format != VF_PIXEL_U8 ||
      fr->disparity.width != fr->rectified_left.width)
    s->records_ok = 0;
}

int main(void) {
  uint8_t* tex = scene_texture(11);
  CHECK(tex != NULL);
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  vf_context* ctx = NULL;
  CHECK_OK(vf_context_create(&cc, &ctx));
  vf_frontend_config fc = vf_frontend_config_default();
  fc.cam0 = euroc_camera(0);
  fc.cam1 = euroc_camera(1);
  fc.features.min_features = 150;
  /* The scene is a flat texture cropped at a shift and then rectified with EuRoC's calibration,
   * which it was not taken with: its disparity map steps everywhere, and the birth check would
   * keep no track. test_frontend_depth covers the check on a scene with true depth edges. */
  fc.birth_edge_radius = 0;
  sink s;
  memset(&s, 0, sizeof s);
  s.order_ok = s.records_ok = s.depth_ok = s.right_ok = 1;
  vf_frontend_callbacks cb = {on_features, on_disparity, &s};
  vf_frontend* fe = NULL;

  /* Bad configurations are refused with a message naming the field. */
  vf_frontend_config bad = fc;
  bad.features.max_features = 0;
  CHECK_FAILS(vf_frontend_create(ctx, &bad, &cb, &fe), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "max_features") != NULL);
  bad = fc;
  bad.cam1 = bad.cam0; /* no baseline */
  CHECK_FAILS(vf_frontend_create(ctx, &bad, &cb, &fe), VF_ERR_INVALID_ARG);
  CHECK(fe == NULL);
  CHECK_FAILS(vf_frontend_create(ctx, NULL, &cb, &fe), VF_ERR_INVALID_ARG);

  CHECK_OK(vf_frontend_create(ctx, &fc, &cb, &fe));
  s.fe = fe;
  vf_image left, right, small;
  CHECK_OK(vf_image_alloc(&left, 752, 480, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&right, 752, 480, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&small, 640, 480, VF_PIXEL_U8, VF_MEMORY_HOST));
  const int64_t t0 = 1000000000, dt = 50000000;
  int64_t t_imu = t0 - dt, t_pushed = 0;
  double gyro[3] = {0, 0, 0}, acc[3] = {0, 0, 9.81};
  for (int k = 0; k < FRAMES; ++k) {
    int64_t t = t0 + k * dt;
    /* IMU at 200 Hz, with a gap of 100 ms before frame 6 (seeding skipped, nothing fails). */
    for (; t_imu <= t; t_imu += 5000000) {
      if (k == 6 && t_imu > t - 100000000) continue;
      CHECK_OK(vf_frontend_push_imu(fe, t_imu, gyro, acc));
      t_pushed = t_imu;
    }
    CHECK_FAILS(vf_frontend_push_imu(fe, t_pushed, gyro, acc), VF_ERR_TIMESTAMP);
    scene_frame(tex, k, 0, &left);
    scene_frame(tex, k, 1, &right);
    if (k == 4) {
      /* A dropped right frame: refused, the frontend unchanged, the next frame goes on. */
      int before = s.frames;
      CHECK_FAILS(vf_frontend_process(fe, t, &left, NULL), VF_ERR_INVALID_ARG);
      CHECK_FAILS(vf_frontend_process(fe, t, &left, &small), VF_ERR_INVALID_ARG);
      CHECK(s.frames == before);
    }
    if (k == 8) s.reject_next = 1;
    CHECK_OK(vf_frontend_process(fe, t, &left, &right));
    CHECK(s.reentrant_process == VF_ERR_STATE);
    if (k == 5) {
      /* Repeated and earlier timestamps are refused without a callback. */
      int before = s.frames;
      CHECK_FAILS(vf_frontend_process(fe, t, &left, &right), VF_ERR_TIMESTAMP);
      CHECK_FAILS(vf_frontend_process(fe, t - dt, &left, &right), VF_ERR_TIMESTAMP);
      CHECK(s.frames == before);
    }
  }
  printf("frames %d, features per frame %.1f\n", s.frames, (double)s.features / s.frames);
  CHECK(s.frames == FRAMES && s.disparity_frames == FRAMES);
  CHECK(s.order_ok);
  CHECK(s.records_ok);
  CHECK(s.depth_ok);
  CHECK(s.right_ok);
  CHECK(s.features / s.frames >= 100);
  CHECK(vf_frontend_reject(fe, NULL, 1) == VF_ERR_INVALID_ARG);
  float nan_uv[2] = {NAN, 0};
  uint64_t id = 0;
  CHECK_FAILS(vf_frontend_predict(fe, &id, nan_uv, 1), VF_ERR_INVALID_ARG);
  vf_stereo_rectification rect;
  CHECK_OK(vf_frontend_rectification(fe, &rect));
  CHECK(rect.baseline_m > 0.10 && rect.baseline_m < 0.12);
  vf_frontend_destroy(fe);
  vf_frontend_destroy(NULL);
  vf_image_free(&left);
  vf_image_free(&right);
  vf_image_free(&small);
  vf_context_destroy(ctx);
  free(tex);
  VF_TEST_END("test_frontend");
}

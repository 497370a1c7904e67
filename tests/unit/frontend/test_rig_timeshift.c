// SPDX-License-Identifier: BSD-3-Clause
/* The cameras' time shifts (Kalibr's timeshift_cam_imu, t_imu = t_cam + shift) in the rig
 * frontend (issue 37): each unit integrates the gyroscope over its own camera's window on the
 * IMU's clock. A rig whose pair has +12.5 ms (its right camera 0.3 ms more, within the skew
 * allowed) and whose mono camera has -7.5 ms, fed one IMU stream whose rate changes with time,
 * seeds each unit with the very rotation (bit for bit) that the same samples moved onto its
 * camera's clock give without a shift: a lone frontend over the pair (its records equal too) and
 * the integration of a buffer on the mono camera's clock. The same rig without shifts seeds
 * otherwise. A frontend whose IMU does not yet reach a frame's shifted time warns, tracks
 * without the seed, and is seeded again once the samples reach it. Reads the units' internals
 * (the seed's rotation, the records before the rig tags them). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <viofront/viofront.h>

#include "frontend/vf_frontend_internal.h"
#include "frontend/vf_rig_frontend_internal.h"
#include "frontend_scene.h"
#include "log_capture.h"
#include "vf_test.h"

enum { W = 256, H = 192, FRAMES = 4, IMU_N = 71 };
#define T0_NS 1000000LL
#define DT_NS 50000000LL
#define PAIR_SHIFT_NS 12500000LL
#define MONO_SHIFT_NS (-7500000LL)

/* Sample i of the IMU stream, 200 Hz on the IMU's clock from -100 ms. */
static int64_t imu_t(int i) { return -100000000LL + 5000000LL * i; }

/* A rate that changes with time, so that windows a few ms apart integrate different rotations. */
static void gyro_at(int64_t t_ns, double g[3]) {
  const double t = (double)t_ns * 1e-9;
  g[0] = 0.05 + 1.0 * t;
  g[1] = -0.03 + 0.5 * t;
  g[2] = 0.02;
}

/* cam0 and cam1 a forward pair 0.1 m apart, cam2 a mono camera looking back; shifts in s. */
static vf_rig make_rig(double left_s, double right_s, double mono_s) {
  vf_rig rig = vf_rig_default();
  vf_camera c = scene_pinhole(W, H, 250.0);
  CHECK_OK(vf_rig_add_camera(&rig, NULL, &c));
  c.T_BS[3] = 0.1;
  CHECK_OK(vf_rig_add_camera(&rig, NULL, &c));
  vf_camera back = scene_pinhole(W, H, 250.0);
  back.T_BS[0] = back.T_BS[10] = -1.0; /* 180 degrees about body y */
  CHECK_OK(vf_rig_add_camera(&rig, NULL, &back));
  CHECK_OK(vf_rig_add_pair(&rig, 0, 1));
  rig.timeshift_s[0] = left_s;
  rig.timeshift_s[1] = right_s;
  rig.timeshift_s[2] = mono_s;
  return rig;
}

static vf_frontend_config pair_config(const vf_rig* rig) {
  vf_frontend_config fc = vf_frontend_config_default();
  fc.features.max_features = 200;
  fc.disparity_location = VF_MEMORY_HOST;
  fc.cam0 = rig->cameras[0];
  fc.cam1 = rig->cameras[1];
  return fc;
}

/* The frame's records of two frontends agree field by field; returns how many were compared. */
static int same_records(const vf_frontend* a, const vf_frontend* b) {
  CHECK(a->record_count == b->record_count);
  int n = a->record_count < b->record_count ? a->record_count : b->record_count, bad = 0;
  for (int i = 0; i < n; ++i) {
    const vf_feature *p = &a->records[i], *q = &b->records[i];
    bad += p->id != q->id || p->camera != q->camera || p->age != q->age || p->flags != q->flags ||
           memcmp(&p->u, &q->u, (size_t)((const char*)(&p->bias + 1) - (const char*)&p->u)) != 0;
  }
  CHECK(bad == 0);
  return n;
}

static void push_all(vf_rig_frontend* rig, vf_rig_frontend* still, vf_frontend* lone,
                     vf_imu_buffer* mono_clock) {
  const double acc[3] = {0, 0, 9.81};
  for (int i = 0; i < IMU_N; ++i) {
    double g[3];
    gyro_at(imu_t(i), g);
    CHECK_OK(vf_rig_frontend_add_imu(rig, imu_t(i), g, acc));
    CHECK_OK(vf_rig_frontend_add_imu(still, imu_t(i), g, acc));
    /* On a camera's clock a sample's time is t_imu - shift. */
    CHECK_OK(vf_frontend_push_imu(lone, imu_t(i) - PAIR_SHIFT_NS, g, acc));
    vf_imu_sample smp = {imu_t(i) - MONO_SHIFT_NS, {g[0], g[1], g[2]}, {acc[0], acc[1], acc[2]}};
    CHECK_OK(vf_imu_buffer_push(mono_clock, &smp));
  }
}

static void test_seed_on_camera_clock(vf_context* ctx, const uint8_t* tex, vf_image* l,
                                      vf_image* r) {
  const vf_rig rig = make_rig(0.0125, 0.0128, -0.0075), still = make_rig(0, 0, 0);
  const vf_frontend_config fc = pair_config(&rig);
  const vf_frontend_callbacks none = {NULL, NULL, NULL};
  vf_rig_frontend *fe = NULL, *fe0 = NULL;
  vf_frontend* lone = NULL;
  vf_imu_buffer* mono_clock = NULL;
  CHECK_OK(vf_rig_frontend_create(ctx, &rig, &fc, &fe));
  CHECK_OK(vf_rig_frontend_create(ctx, &still, &fc, &fe0));
  CHECK_OK(vf_frontend_create(ctx, &fc, &none, &lone));
  CHECK_OK(vf_imu_buffer_create(IMU_N, fc.imu_max_gap_ns, &mono_clock));
  if (fe != NULL && fe0 != NULL && lone != NULL && mono_clock != NULL) {
    CHECK(vf_rig_frontend_imu_lead_ns(fe) == PAIR_SHIFT_NS);
    CHECK(vf_rig_frontend_imu_lead_ns(fe0) == 0);
    push_all(fe, fe0, lone, mono_clock);
    int same = 0, differ = 0, records = 0;
    for (int k = 0; k < FRAMES; ++k) {
      const int64_t t = T0_NS + DT_NS * k;
      scene_frame(tex, k, 0, l);
      scene_frame(tex, k, 1, r);
      const vf_image* set[3] = {l, r, l};
      CHECK_OK(vf_rig_frontend_process(fe, t, set));
      CHECK_OK(vf_rig_frontend_process(fe0, t, set));
      CHECK_OK(vf_frontend_process(lone, t, l, r));
      const vf_frontend *pair = fe->units[0].fe, *mono = fe->units[1].fe;
      const vf_frontend *pair0 = fe0->units[0].fe, *mono0 = fe0->units[1].fe;
      records += same_records(pair, lone);
      if (k == 0) continue;
      CHECK(pair->frame_R_valid && lone->frame_R_valid && mono->frame_R_valid);
      CHECK(pair0->frame_R_valid && mono0->frame_R_valid);
      /* The mono camera's seed: its own clock's samples over the frame interval. */
      double R[9];
      CHECK_OK(vf_tracker_gyro_rotation(mono_clock, t - DT_NS, t, mono->R_b_c, R));
      same += memcmp(pair->frame_R, lone->frame_R, sizeof R) == 0;
      same += memcmp(mono->frame_R, R, sizeof R) == 0;
      differ += memcmp(pair0->frame_R, lone->frame_R, sizeof R) != 0;
      differ += memcmp(mono0->frame_R, R, sizeof R) != 0;
    }
    CHECK(same == 2 * (FRAMES - 1) && differ == 2 * (FRAMES - 1) && records > 40 * FRAMES);
    printf(
        "shifted rig: %d of %d seeds equal those of the samples on each camera's clock (%d "
        "records equal), %d of them differ without the shifts\n",
        same, 2 * (FRAMES - 1), records, differ);
  }
  vf_imu_buffer_destroy(mono_clock);
  vf_frontend_destroy(lone);
  vf_rig_frontend_destroy(fe0);
  vf_rig_frontend_destroy(fe);
}

/* IMU pushed only up to each frame's camera time, as a replay in time order would: with a
 * positive shift the window is not covered, and the frame goes on without the seed, warned
 * about once; samples up to the shifted time bring the seed back. */
static void test_uncovered_warns(const uint8_t* tex, vf_image* l, vf_image* r) {
  log_capture log;
  vf_context* ctx = log_capture_context(&log);
  const vf_rig rig = make_rig(0, 0, 0);
  vf_frontend_config fc = pair_config(&rig);
  fc.imu_timeshift_s = PAIR_SHIFT_NS * 1e-9;
  const vf_frontend_callbacks none = {NULL, NULL, NULL};
  vf_frontend* fe = NULL;
  CHECK(ctx != NULL);
  if (ctx != NULL) CHECK_OK(vf_frontend_create(ctx, &fc, &none, &fe));
  int i = 0, seeded[3] = {0, 0, 0};
  const double acc[3] = {0, 0, 9.81};
  for (int k = 0; k < 3 && fe != NULL; ++k) {
    /* Frame 2: up to the first sample past its shifted time, which ends its window. */
    const int64_t t = T0_NS + DT_NS * k, reach = k < 2 ? t : t + PAIR_SHIFT_NS + 5000000;
    for (double g[3]; i < IMU_N && imu_t(i) <= reach; ++i) {
      gyro_at(imu_t(i), g);
      CHECK_OK(vf_frontend_push_imu(fe, imu_t(i), g, acc));
    }
    scene_frame(tex, k, 0, l);
    scene_frame(tex, k, 1, r);
    CHECK_OK(vf_frontend_process(fe, t, l, r));
    seeded[k] = fe->frame_R_valid;
    CHECK(fe->record_count > 40);
  }
  CHECK(!seeded[1] && seeded[2]);
  const char* want = "frame 51000000 ns (IMU time 63500000 ns): no gyroscope seeding";
  CHECK(strstr(log.text, want) != NULL);
  CHECK(strstr(log.text, "frame 101000000 ns") == NULL);
  printf("IMU short of the shifted time: '%s', seeded again once it reaches it\n", want);
  vf_frontend_destroy(fe);
  vf_context_destroy(ctx);
}

int main(void) {
  uint8_t* tex = scene_texture(7);
  CHECK(tex != NULL);
  vf_image l, r;
  memset(&l, 0, sizeof l);
  memset(&r, 0, sizeof r);
  CHECK_OK(vf_image_alloc(&l, W, H, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&r, W, H, VF_PIXEL_U8, VF_MEMORY_HOST));
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  cc.cpu_threads = 2;
  vf_context* ctx = NULL;
  CHECK_OK(vf_context_create(&cc, &ctx));
  if (tex != NULL && ctx != NULL && vf_test_failures == 0) {
    test_seed_on_camera_clock(ctx, tex, &l, &r);
    test_uncovered_warns(tex, &l, &r);
  }
  vf_context_destroy(ctx);
  vf_image_free(&l);
  vf_image_free(&r);
  free(tex);
  VF_TEST_END("test_rig_timeshift");
}

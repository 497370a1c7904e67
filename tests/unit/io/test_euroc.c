// SPDX-License-Identifier: BSD-3-Clause
/* EuRoC reader on the real V1_01_easy excerpt: 95 pairs, the 4 rows of cam1/data.csv that name
 * missing files reported, IMU outside the image span skipped, a time-ordered stream whose values
 * match the files, identical replays with and without prefetch, with pools of 2 to 16 decoding
 * threads, and after rewind. Skips when the shared data is absent. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "euroc_calib.h"
#include "log_capture.h"
#include "vf_test.h"

#define SEQ "euroc/V1_01_easy_micro"

/* The IMU rows inside [t0, t1] plus one on each side, counted with sscanf. */
static int count_imu_in_span(const char* path, int64_t t0, int64_t t1, int* rows) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return -1;
  char line[512];
  int kept = 0, before = 0, after = 0;
  *rows = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    long long t;
    if (line[0] == '#' || sscanf(line, "%lld,", &t) != 1) continue;
    ++*rows;
    if (t < t0) {
      before = 1;
    } else if (t <= t1) {
      ++kept;
    } else {
      after = 1;
    }
  }
  fclose(f);
  return kept + before + after;
}

/* Replays the whole stream; returns a checksum of every image and sample, or 0 on error. */
static uint64_t replay(vf_euroc* e, int* stereo, int* imu) {
  uint64_t sum = 1469598103934665603ull;
  int64_t last_t = INT64_MIN;
  int last_type = 0, order_ok = 1;
  *stereo = *imu = 0;
  for (;;) {
    vf_euroc_event ev;
    vf_status s = vf_euroc_next(e, &ev);
    if (s != VF_OK) {
      fprintf(stderr, "replay: %s\n", vf_euroc_last_error(e));
      return 0;
    }
    if (ev.type == VF_EUROC_END) break;
    /* Time never goes back; at equal times the IMU comes first. */
    order_ok &= ev.t_ns > last_t ||
                (ev.t_ns == last_t && !(last_type == VF_EUROC_STEREO && ev.type == VF_EUROC_IMU));
    last_t = ev.t_ns;
    last_type = ev.type;
    if (ev.type == VF_EUROC_IMU) {
      ++*imu;
      sum = (sum ^ (uint64_t)ev.t_ns) * 1099511628211ull;
      sum = (sum ^ (uint64_t)(ev.imu.acc[0] * 1e6)) * 1099511628211ull;
      continue;
    }
    order_ok &= ev.pair == *stereo;
    ++*stereo;
    for (int k = 0; k < 2; ++k) {
      const vf_image* im = k ? &ev.right : &ev.left;
      order_ok &= im->width == 752 && im->height == 480 && im->data != NULL;
      for (int y = 0; im->data != NULL && y < im->height; y += 7) {
        const uint8_t* row = (const uint8_t*)im->data + (size_t)y * im->stride_bytes;
        for (int x = 0; x < im->width; x += 5) sum = (sum ^ row[x]) * 1099511628211ull;
      }
    }
  }
  CHECK(order_ok);
  return sum;
}

int main(void) {
  char root[1024], imu_path[1100];
  if (vf_test_data_path(SEQ "/mav0/cam0/data.csv", root, sizeof root) == NULL) {
    VF_TEST_SKIP("%s/%s absent", VF_DATA_DIR, SEQ);
  }
  snprintf(root, sizeof root, "%s/%s", VF_DATA_DIR, SEQ);
  snprintf(imu_path, sizeof imu_path, "%s/mav0/imu0/data.csv", root);
  log_capture logs;
  vf_context* ctx = log_capture_context(&logs);
  vf_euroc* e = NULL;
  CHECK_OK(vf_euroc_open(root, NULL, ctx, &e));
  if (e == NULL) VF_TEST_END("test_euroc");

  vf_euroc_info info;
  CHECK_OK(vf_euroc_get_info(e, &info));
  printf(
      "pairs %d, cam rows %d/%d, missing %d/%d, unpaired %d/%d, imu rows %d, replayed %d, "
      "skipped %d\n",
      info.stereo_pairs, info.cam_rows[0], info.cam_rows[1], info.cam_missing[0],
      info.cam_missing[1], info.cam_unpaired[0], info.cam_unpaired[1], info.imu_rows,
      info.imu_replayed, info.imu_skipped);
  CHECK(info.stereo_pairs == 95);
  CHECK(info.cam_rows[0] == 95 && info.cam_rows[1] == 99);
  CHECK(info.cam_missing[0] == 0 && info.cam_missing[1] == 4);
  CHECK(info.cam_unpaired[0] == 0 && info.cam_unpaired[1] == 0);
  CHECK(info.t_first_ns == 1403715273262142976LL && info.t_last_ns == 1403715277962142976LL);
  int rows = 0;
  int expect_imu = count_imu_in_span(imu_path, info.t_first_ns, info.t_last_ns, &rows);
  CHECK(info.imu_rows == rows && rows == 29120);
  CHECK(info.imu_replayed == expect_imu && info.imu_skipped == rows - expect_imu);
  CHECK(info.imu_replayed > 900 && info.imu_replayed < 1000);
  CHECK(info.groundtruth_rows == 0 && vf_euroc_groundtruth_count(e) == 0);
  /* Each missing file warned about by name. */
  CHECK(logs.count >= 4);
  CHECK(strstr(logs.text, "1403715278012143104.png") != NULL);
  CHECK(strstr(logs.text, "1403715278162142976.png") != NULL);

  vf_camera cam, want = euroc_camera(1);
  CHECK_OK(vf_euroc_camera(e, 1, &cam));
  CHECK(camera_equal(&cam, &want));
  vf_imu_calib ic;
  CHECK_OK(vf_euroc_imu_calib(e, &ic));
  CHECK(ic.rate_hz == 200 && ic.acc_random_walk == 3.0e-3);

  /* The first event is the file's first IMU row, exactly. */
  vf_euroc_event ev;
  CHECK_OK(vf_euroc_next(e, &ev));
  CHECK(ev.type == VF_EUROC_IMU && ev.t_ns == 1403715273262142976LL);
  CHECK(ev.imu.gyro[0] == -0.0020943951023931952 && ev.imu.acc[0] == 9.0874956666666655 &&
        ev.imu.acc[2] == -3.6938381666666662);
  /* The same sample through the accessor, and the last one; none past the span. */
  vf_imu_sample smp;
  CHECK_OK(vf_euroc_imu_sample(e, 0, &smp));
  CHECK(smp.t_ns == ev.t_ns && memcmp(smp.gyro, ev.imu.gyro, sizeof smp.gyro) == 0 &&
        memcmp(smp.acc, ev.imu.acc, sizeof smp.acc) == 0);
  CHECK_OK(vf_euroc_imu_sample(e, info.imu_replayed - 1, &smp));
  CHECK(smp.t_ns >= info.t_last_ns);
  CHECK_FAILS(vf_euroc_imu_sample(e, info.imu_replayed, &smp), VF_ERR_INVALID_ARG);
  /* Then the first pair (same timestamp), equal to the PNGs read directly. */
  CHECK_OK(vf_euroc_next(e, &ev));
  CHECK(ev.type == VF_EUROC_STEREO && ev.pair == 0 && ev.t_ns == 1403715273262142976LL);
  char png[1200];
  snprintf(png, sizeof png, "%s/mav0/cam1/data/1403715273262142976.png", root);
  vf_image direct;
  CHECK_OK(vf_png_read_gray8(png, &direct));
  int same = direct.data != NULL && ev.right.data != NULL;
  for (int y = 0; same && y < 480; ++y) {
    same = memcmp((uint8_t*)direct.data + y * direct.stride_bytes,
                  (uint8_t*)ev.right.data + y * ev.right.stride_bytes, 752) == 0;
  }
  CHECK(same);
  vf_image_free(&direct);

  /* Whole replays: with prefetch, after rewind, and synchronous; all identical. */
  CHECK_OK(vf_euroc_rewind(e));
  int stereo = 0, imu = 0;
  uint64_t a = replay(e, &stereo, &imu);
  CHECK(stereo == 95 && imu == info.imu_replayed && a != 0);
  CHECK_OK(vf_euroc_rewind(e));
  uint64_t b = replay(e, &stereo, &imu);
  CHECK(a == b && stereo == 95);
  CHECK_OK(vf_euroc_next(e, &ev));
  CHECK(ev.type == VF_EUROC_END);
  vf_euroc_close(e);
  vf_euroc_config cfg = vf_euroc_config_default();
  cfg.prefetch = 0;
  CHECK_OK(vf_euroc_open(root, &cfg, NULL, &e));
  uint64_t c = e != NULL ? replay(e, &stereo, &imu) : 0;
  CHECK(a == c && stereo == 95);
  vf_euroc_close(e);
  /* Page-locked buffers asked for, queued and synchronous: the same events (without a device,
   * ordinary buffers and a warning). */
  for (int prefetch = 0; prefetch <= 8; prefetch += 8) {
    cfg.prefetch = prefetch;
    cfg.pinned = 1;
    CHECK_OK(vf_euroc_open(root, &cfg, NULL, &e));
    uint64_t p = e != NULL ? replay(e, &stereo, &imu) : 0;
    CHECK(a == p && stereo == 95);
    vf_euroc_close(e);
  }
  cfg = vf_euroc_config_default();
  cfg.prefetch = 0;
  /* Pools of decoding threads, with queues shorter and longer than the pool: the same events
   * in the same order; a rewind in the middle starts the same stream again. */
  static const int pool_threads[4] = {2, 4, 8, 16}, pool_slots[4] = {8, 2, 16, 5};
  for (int m = 0; m < 4; ++m) {
    cfg.prefetch = pool_slots[m];
    cfg.decode_threads = pool_threads[m];
    CHECK_OK(vf_euroc_open(root, &cfg, NULL, &e));
    if (e == NULL) continue;
    uint64_t d = replay(e, &stereo, &imu);
    CHECK(a == d && stereo == 95);
    CHECK_OK(vf_euroc_rewind(e));
    for (int i = 0; i < 60; ++i) CHECK_OK(vf_euroc_next(e, &ev));
    CHECK_OK(vf_euroc_rewind(e));
    d = replay(e, &stereo, &imu);
    CHECK(a == d && stereo == 95);
    int64_t t_pair = 0;
    CHECK_OK(vf_euroc_pair_time(e, 94, &t_pair));
    CHECK(t_pair == info.t_last_ns);
    /* Closed with a pool mid-stream. */
    CHECK_OK(vf_euroc_rewind(e));
    for (int i = 0; i < 25; ++i) CHECK_OK(vf_euroc_next(e, &ev));
    vf_euroc_close(e);
  }
  /* Stop halfway: closing with decoded pairs in flight frees everything. */
  cfg.decode_threads = 1;
  cfg.prefetch = 3;
  CHECK_OK(vf_euroc_open(root, &cfg, NULL, &e));
  for (int i = 0; i < 40; ++i) CHECK_OK(vf_euroc_next(e, &ev));

  vf_image l, r;
  int64_t t;
  CHECK_OK(vf_euroc_load_pair(e, 94, &t, &l, &r));
  CHECK(t == 1403715277962142976LL && l.width == 752 && r.height == 480);
  vf_image_free(&l);
  vf_image_free(&r);
  CHECK_FAILS(vf_euroc_load_pair(e, 95, &t, &l, &r), VF_ERR_INVALID_ARG);
  vf_euroc_state st;
  CHECK_FAILS(vf_euroc_groundtruth_at(e, t, &st), VF_ERR_STATE);
  CHECK_FAILS(vf_euroc_camera(e, 2, &cam), VF_ERR_INVALID_ARG);
  vf_euroc_close(e);
  vf_context_destroy(ctx);
  VF_TEST_END("test_euroc");
}

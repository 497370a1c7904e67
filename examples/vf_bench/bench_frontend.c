// SPDX-License-Identifier: BSD-3-Clause
/* vf_bench: a full stereo frame through the frontend: upload of the 752x480 pair (or device
 * input), rectification, pyramids, tracking of 200 features forward and backward, replenishment,
 * SGM (64 disparities, 4 paths, sub-pixel, LR check), features to the host and the callbacks.
 * The pair moves by whole pixels between frames so tracking works in steady state; the
 * per-stage times come from the frontend's own stage clock (mean over the timed frames). */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { BENCH_FRAMES = 8 };

typedef struct frontend_job {
  vf_frontend* fe;
  vf_image frames[BENCH_FRAMES][2];
  int next;
  int64_t t_ns;
  vf_stage_times sum;
  long calls, features;
} frontend_job;

static void on_features(const vf_feature_frame* fr, void* user) {
  frontend_job* j = user;
  const vf_stage_times* t = &fr->times;
  j->sum.rectify_ms += t->rectify_ms;
  j->sum.pyramid_ms += t->pyramid_ms;
  j->sum.track_ms += t->track_ms;
  j->sum.detect_ms += t->detect_ms;
  j->sum.stereo_ms += t->stereo_ms;
  j->sum.features_ms += t->features_ms;
  j->calls++;
  j->features += fr->tracked + fr->detected;
}

static vf_status frontend_step(void* arg) {
  frontend_job* j = arg;
  /* Back and forth over the frames so the motion stays small. */
  int k = j->next % (2 * BENCH_FRAMES - 2);
  k = k < BENCH_FRAMES ? k : 2 * BENCH_FRAMES - 2 - k;
  j->next++;
  j->t_ns += 50000000;
  return vf_frontend_process(j->fe, j->t_ns, &j->frames[k][0], &j->frames[k][1]);
}

/* Crops of one large texture: frame k shifted by k pixels, the right image by 20 more. */
static vf_status make_frames(frontend_job* j, vf_memory where) {
  vf_image tex;
  vf_status s = bench_make_texture(752 + 2 * BENCH_FRAMES + 40, 480 + BENCH_FRAMES, 3, &tex);
  for (int k = 0; s == VF_OK && k < BENCH_FRAMES; ++k) {
    for (int c = 0; s == VF_OK && c < 2; ++c) {
      vf_image view = vf_image_view((uint8_t*)tex.data + (size_t)k * tex.stride_bytes + k + 20 * c,
                                    752, 480, tex.stride_bytes, VF_MEMORY_HOST, VF_PIXEL_U8);
      s = vf_image_alloc(&j->frames[k][c], 752, 480, VF_PIXEL_U8, where);
      if (s == VF_OK) s = vf_image_copy(&view, &j->frames[k][c]);
    }
  }
  vf_image_free(&tex);
  return s;
}

static int bench_frontend_input(vf_context* ctx, const bench_options* opt, bench_out* out,
                                vf_memory where) {
  frontend_job* j = calloc(1, sizeof *j);
  if (j == NULL) return 1;
  j->t_ns = 1000000000;
  vf_frontend_config fc = vf_frontend_config_default();
  vf_camera rig[2];
  vf_euroc_vi_sensor(rig, NULL);
  fc.cam0 = rig[0];
  fc.cam1 = rig[1];
  fc.features.max_features = 200;
  fc.features.min_features = 200;
  fc.stereo.median = 0;
  vf_frontend_callbacks cb = {on_features, NULL, j};
  vf_status s = make_frames(j, where);
  if (s == VF_OK) s = vf_frontend_create(ctx, &fc, &cb, &j->fe);
  bench_stats st = {0};
  if (s == VF_OK) s = bench_time(ctx, opt, frontend_step, j, &st);
  if (s == VF_OK) {
    /* Stage means over every processed frame, warm-up included. */
    double n = j->calls > 0 ? (double)j->calls : 1.0;
    bench_result_begin(out, "frontend", 752, 480, &st);
    bench_result_str(out, "input", where == VF_MEMORY_DEVICE ? "device" : "host");
    bench_result_num(out, "features_per_frame", j->features / n);
    bench_result_num(out, "rectify_ms", j->sum.rectify_ms / n);
    bench_result_num(out, "pyramid_ms", j->sum.pyramid_ms / n);
    bench_result_num(out, "track_ms", j->sum.track_ms / n);
    bench_result_num(out, "detect_ms", j->sum.detect_ms / n);
    bench_result_num(out, "stereo_ms", j->sum.stereo_ms / n);
    bench_result_num(out, "features_ms", j->sum.features_ms / n);
    bench_result_end(out);
  } else {
    fprintf(stderr, "frontend: %s: %s\n", vf_status_str(s), vf_last_error_message());
  }
  vf_frontend_destroy(j->fe);
  for (int k = 0; k < BENCH_FRAMES; ++k) {
    vf_image_free(&j->frames[k][0]);
    vf_image_free(&j->frames[k][1]);
  }
  free(j);
  return s == VF_OK ? 0 : 1;
}

int bench_frontend(vf_context* ctx, const bench_options* opt, bench_out* out) {
  int failed = bench_frontend_input(ctx, opt, out, VF_MEMORY_HOST);
  if (vf_context_backend(ctx) == VF_BACKEND_CUDA)
    failed |= bench_frontend_input(ctx, opt, out, VF_MEMORY_DEVICE);
  return failed;
}

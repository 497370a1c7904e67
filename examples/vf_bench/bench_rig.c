// SPDX-License-Identifier: BSD-3-Clause
/* vf_bench: a camera rig through the rig frontend (issue 37's goals: two stereo pairs of 752x480
 * in at most 1.4 times one pair's frame, four in 2.2 times). Rigs of 1, 2 and 4 pairs of EuRoC's
 * VI-Sensor cameras, pair p turned by p x 360 / N degrees about the body's z axis, every pair
 * fed the "frontend" stage's moving 752x480 pair (bench_frontend.c) with its configuration; the
 * timed step is one vf_rig_frontend_process. Rows "rig" with pairs=N and, beside it, the plain
 * frontend over the same input in the same run (pairs=0: no rig) for the ratio. Host input, and
 * on CUDA device input too. VF_BENCH_RIG_PAIRS="1,2,4" picks other counts (up to 8);
 * VF_BENCH_RIG_STEREO=sparse runs every unit (and the plain frontend) in sparse stereo mode. Each
 * row also gives the units' stage times (unit_*_ms: the mean of vf_feature_frame.times). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { BENCH_RIG_MAX_PAIRS = 8 };

typedef struct rig_job {
  vf_rig_frontend* fe;
  vf_frontend* plain; /* pairs = 0: the frontend alone */
  bench_frontend_input in;
  const vf_image* set[2 * BENCH_RIG_MAX_PAIRS];
  int pairs;
  long calls, features;
  vf_stage_times sum; /* the units' stage times summed over their frames */
} rig_job;

static void on_unit_features(int unit, const vf_feature_frame* fr, void* user) {
  (void)unit;
  rig_job* j = user;
  j->calls++;
  j->features += fr->tracked + fr->detected;
  j->sum.rectify_ms += fr->times.rectify_ms;
  j->sum.track_ms += fr->times.track_ms;
  j->sum.detect_ms += fr->times.detect_ms;
  j->sum.stereo_ms += fr->times.stereo_ms;
  j->sum.features_ms += fr->times.features_ms;
}

static void on_features(const vf_feature_frame* fr, void* user) { on_unit_features(0, fr, user); }

static vf_status rig_step(void* arg) {
  rig_job* j = arg;
  if (j->plain != NULL) return bench_frontend_step(j->plain, &j->in);
  const int k = bench_frontend_next(&j->in);
  for (int p = 0; p < j->pairs; ++p) {
    j->set[2 * p] = &j->in.frames[k][0];
    j->set[2 * p + 1] = &j->in.frames[k][1];
  }
  return vf_rig_frontend_process(j->fe, j->in.t_ns, j->set);
}

/* EuRoC's pair turned by `yaw` radians about the body's z axis (T_BS' = Rz T_BS). */
static void turned_pair(double yaw, vf_camera pair[2]) {
  vf_euroc_vi_sensor(pair, NULL);
  const double c = cos(yaw), s = sin(yaw);
  for (int k = 0; k < 2; ++k) {
    double t[16];
    memcpy(t, pair[k].T_BS, sizeof t);
    for (int col = 0; col < 4; ++col) {
      pair[k].T_BS[col] = c * t[col] - s * t[4 + col];
      pair[k].T_BS[4 + col] = s * t[col] + c * t[4 + col];
    }
  }
}

static vf_status rig_make(vf_context* ctx, int pairs, int sparse, rig_job* j) {
  vf_frontend_config fc = bench_frontend_config(0);
  if (sparse) fc.stereo_mode = VF_FRONTEND_STEREO_SPARSE;
  if (pairs == 0) {
    vf_frontend_callbacks cb = {on_features, NULL, j};
    return vf_frontend_create(ctx, &fc, &cb, &j->plain);
  }
  vf_rig rig = vf_rig_default();
  vf_status s = VF_OK;
  for (int p = 0; s == VF_OK && p < pairs; ++p) {
    vf_camera pair[2];
    turned_pair(2.0 * 3.14159265358979323846 * p / pairs, pair);
    s = vf_rig_add_camera(&rig, NULL, &pair[0]);
    if (s == VF_OK) s = vf_rig_add_camera(&rig, NULL, &pair[1]);
    if (s == VF_OK) s = vf_rig_add_pair(&rig, 2 * p, 2 * p + 1);
  }
  if (s == VF_OK) s = vf_rig_frontend_create(ctx, &rig, &fc, &j->fe);
  vf_rig_frontend_callbacks cb = {on_unit_features, NULL, j};
  if (s == VF_OK) s = vf_rig_frontend_set_callbacks(j->fe, &cb);
  return s;
}

static int bench_rig_run(vf_context* ctx, const bench_options* opt, bench_out* out,
                         bench_input where, int pairs, int sparse) {
  rig_job* j = calloc(1, sizeof *j);
  if (j == NULL) return 1;
  j->pairs = pairs;
  vf_status s = bench_frontend_input_make(where, &j->in);
  if (s == VF_OK) s = rig_make(ctx, pairs, sparse, j);
  bench_stats st = {0};
  if (s == VF_OK) s = bench_time(ctx, opt, rig_step, j, &st);
  if (s == VF_OK) {
    bench_result_begin(out, "rig", 752, 480, &st);
    bench_result_str(out, "input", bench_input_name(where));
    bench_result_int(out, "pairs", pairs);
    bench_result_str(out, "stereo", sparse ? "sparse" : "dense");
    const double n = j->calls > 0 ? (double)j->calls : 1.0;
    bench_result_num(out, "features_per_pair", (double)j->features / n);
    /* Each unit's stages, mean over its frames (warm-up included): on CUDA the stereo stage is
     * the pair's SGM on its own stream, overlapping the others. */
    bench_result_num(out, "unit_rectify_ms", j->sum.rectify_ms / n);
    bench_result_num(out, "unit_track_ms", j->sum.track_ms / n);
    bench_result_num(out, "unit_detect_ms", j->sum.detect_ms / n);
    bench_result_num(out, "unit_stereo_ms", j->sum.stereo_ms / n);
    bench_result_num(out, "unit_features_ms", j->sum.features_ms / n);
    bench_result_end(out);
  } else {
    fprintf(stderr, "rig: %d pairs: %s: %s\n", pairs, vf_status_str(s),
            j->fe != NULL ? vf_rig_frontend_last_error(j->fe) : vf_last_error_message());
  }
  const int untracked = s == VF_OK && j->features == 0;
  if (untracked) fprintf(stderr, "rig: %d pairs: no frame held a feature\n", pairs);
  vf_rig_frontend_destroy(j->fe);
  vf_frontend_destroy(j->plain);
  bench_frontend_input_free(&j->in);
  free(j);
  return s == VF_OK && !untracked ? 0 : 1;
}

int bench_rig(vf_context* ctx, const bench_options* opt, bench_out* out) {
  int counts[BENCH_RIG_MAX_PAIRS] = {1, 2, 4}, n = 3;
  const char* list = getenv("VF_BENCH_RIG_PAIRS");
  if (list != NULL && *list != '\0') {
    n = 0;
    for (const char* p = list; *p != '\0' && n < BENCH_RIG_MAX_PAIRS;) {
      char* end = NULL;
      const long v = strtol(p, &end, 10);
      if (end == p || v < 1 || v > BENCH_RIG_MAX_PAIRS) {
        fprintf(stderr, "rig: VF_BENCH_RIG_PAIRS is a list of 1..%d, not '%s'\n",
                BENCH_RIG_MAX_PAIRS, list);
        return 1;
      }
      counts[n++] = (int)v;
      p = *end == ',' ? end + 1 : end;
    }
  }
  const char* mode = getenv("VF_BENCH_RIG_STEREO");
  if (mode != NULL && *mode != '\0' && strcmp(mode, "dense") != 0 && strcmp(mode, "sparse") != 0) {
    fprintf(stderr, "rig: VF_BENCH_RIG_STEREO is dense or sparse, not '%s'\n", mode);
    return 1;
  }
  const int sparse = mode != NULL && strcmp(mode, "sparse") == 0;
  int failed = 0;
  const int cuda = vf_context_backend(ctx) == VF_BACKEND_CUDA;
  for (int w = 0; w < (cuda ? 2 : 1); ++w) {
    const bench_input where = w == 0 ? BENCH_INPUT_HOST : BENCH_INPUT_DEVICE;
    failed |= bench_rig_run(ctx, opt, out, where, 0, sparse);
    for (int i = 0; i < n; ++i) failed |= bench_rig_run(ctx, opt, out, where, counts[i], sparse);
  }
  return failed;
}

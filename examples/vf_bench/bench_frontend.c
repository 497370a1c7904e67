// SPDX-License-Identifier: BSD-3-Clause
/* vf_bench: a full stereo frame through the frontend: upload of the 752x480 pair (or device
 * input), rectification, pyramids, tracking of 200 features forward and backward, replenishment,
 * SGM (64 disparities, 4 paths, sub-pixel, LR check), features to the host and the callbacks.
 * The pair moves by whole pixels between frames so tracking works in steady state; the
 * per-stage times come from the frontend's own stage clock (mean over the timed frames). The
 * input and configuration are shared with the "streams" stage (bench.h). features_per_frame
 * tells how many features a frame holds: a frame that tracks none measures no tracking.
 * VF_BENCH_FRONTEND_STEREO=sparse runs the frame with sparse stereo instead (each feature matched
 * alone, no map: rows with "stereo": "sparse" and matched_per_frame, the camera-1 records a
 * frame), =both the dense rows then the sparse ones; the dense rows carry no "stereo" field.
 * VF_BENCH_FRONTEND_PAIR=rectified gives the pair ideal cameras (one pinhole model, no distortion,
 * the right camera 11 cm along x): the texture's 20-pixel shift is then a true disparity of 20
 * everywhere and the points match, where with EuRoC's calibration (the default) almost none does;
 * those rows carry "pair": "rectified". */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct frontend_job {
  vf_frontend* fe;
  bench_frontend_input in;
  vf_stage_times sum;
  long calls, features, matched;
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
  j->matched += fr->count - (fr->tracked + fr->detected);
}

static vf_status frontend_step(void* arg) {
  frontend_job* j = arg;
  return bench_frontend_step(j->fe, &j->in);
}

int bench_frontend_next(bench_frontend_input* in) {
  /* Back and forth over the frames so the motion stays small. */
  int k = in->next % (2 * BENCH_FRONTEND_FRAMES - 2);
  k = k < BENCH_FRONTEND_FRAMES ? k : 2 * BENCH_FRONTEND_FRAMES - 2 - k;
  in->next++;
  in->t_ns += 50000000;
  return k;
}

vf_status bench_frontend_step(vf_frontend* fe, bench_frontend_input* in) {
  const int k = bench_frontend_next(in);
  return vf_frontend_process(fe, in->t_ns, &in->frames[k][0], &in->frames[k][1]);
}

/* Crops of one large texture: frame k shifted by k pixels, the right image by 20 more. */
const char* bench_input_name(bench_input input) {
  return input == BENCH_INPUT_DEVICE   ? "device"
         : input == BENCH_INPUT_PINNED ? "pinned"
         : input == BENCH_INPUT_LOCKED ? "host_pinned_in_place"
                                       : "host";
}

vf_status bench_frontend_input_make(bench_input where, bench_frontend_input* in) {
  memset(in, 0, sizeof *in);
  in->t_ns = 1000000000;
  vf_image tex;
  vf_status s = bench_make_texture(752 + 2 * BENCH_FRONTEND_FRAMES + 40,
                                   480 + BENCH_FRONTEND_FRAMES, 3, &tex);
  for (int k = 0; s == VF_OK && k < BENCH_FRONTEND_FRAMES; ++k) {
    for (int c = 0; s == VF_OK && c < 2; ++c) {
      vf_image view = vf_image_view((uint8_t*)tex.data + (size_t)k * tex.stride_bytes + k + 20 * c,
                                    752, 480, tex.stride_bytes, VF_MEMORY_HOST, VF_PIXEL_U8);
      s = where == BENCH_INPUT_PINNED
              ? vf_image_alloc_pinned(&in->frames[k][c], 752, 480, VF_PIXEL_U8)
              : vf_image_alloc(&in->frames[k][c], 752, 480, VF_PIXEL_U8,
                               where == BENCH_INPUT_DEVICE ? VF_MEMORY_DEVICE : VF_MEMORY_HOST);
      if (s == VF_OK) s = vf_image_copy(&view, &in->frames[k][c]);
      if (s == VF_OK && where == BENCH_INPUT_LOCKED) {
        s = vf_image_pin(&in->frames[k][c]);
        if (s != VF_OK) vf_image_free(&in->frames[k][c]); /* freed unlocked, not left to free */
      }
    }
  }
  vf_image_free(&tex);
  in->locked = where == BENCH_INPUT_LOCKED;
  if (s != VF_OK) bench_frontend_input_free(in);
  return s;
}

void bench_frontend_input_free(bench_frontend_input* in) {
  for (int k = 0; k < BENCH_FRONTEND_FRAMES; ++k) {
    for (int c = 0; c < 2; ++c) {
      if (in->locked && in->frames[k][c].data != NULL) vf_image_unpin(&in->frames[k][c]);
      vf_image_free(&in->frames[k][c]);
    }
  }
}

int bench_frontend_pair_rectified(void) {
  const char* pair = getenv("VF_BENCH_FRONTEND_PAIR");
  return pair != NULL && strcmp(pair, "rectified") == 0;
}

vf_frontend_config bench_frontend_config(int rectified) {
  vf_frontend_config fc = vf_frontend_config_default();
  vf_camera rig[2];
  vf_euroc_vi_sensor(rig, NULL);
  if (rectified) {
    rig[0] = rig[1] = vf_camera_default();
    rig[1].T_BS[3] = 0.11;
  }
  fc.cam0 = rig[0];
  fc.cam1 = rig[1];
  fc.features.max_features = 200;
  fc.features.min_features = 200;
  fc.stereo.median = 0;
  /* With EuRoC's calibration the pair is one texture shifted, rectified with a calibration it was
   * not taken with: its disparity map steps everywhere, so the birth check (on by default) would
   * refuse every corner and the frame would track nothing. Its probe still runs (the features
   * stage). The rectified pair is one plane: its check stays on. */
  if (!rectified) fc.birth_edge_radius = 0;
  return fc;
}

static int bench_frontend_run(vf_context* ctx, const bench_options* opt, bench_out* out,
                              bench_input where, int sparse) {
  frontend_job* j = calloc(1, sizeof *j);
  if (j == NULL) return 1;
  vf_frontend_config fc = bench_frontend_config(bench_frontend_pair_rectified());
  if (sparse) fc.stereo_mode = VF_FRONTEND_STEREO_SPARSE;
  vf_frontend_callbacks cb = {on_features, NULL, j};
  vf_status s = bench_frontend_input_make(where, &j->in);
  if (s == VF_OK) s = vf_frontend_create(ctx, &fc, &cb, &j->fe);
  bench_stats st = {0};
  if (s == VF_OK) s = bench_time(ctx, opt, frontend_step, j, &st);
  if (s == VF_OK) {
    /* Stage means over every processed frame, warm-up included. */
    double n = j->calls > 0 ? (double)j->calls : 1.0;
    bench_result_begin(out, "frontend", 752, 480, &st);
    bench_result_str(out, "input", bench_input_name(where));
    if (sparse) bench_result_str(out, "stereo", "sparse");
    if (bench_frontend_pair_rectified()) bench_result_str(out, "pair", "rectified");
    bench_result_num(out, "features_per_frame", j->features / n);
    if (sparse) bench_result_num(out, "matched_per_frame", j->matched / n);
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
  /* A frame that holds no feature times no tracking: the row is printed but the run fails, so
   * that such a row is not taken for the frame's time (as once happened: docs/perf/frontend.md,
   * "Correction"). */
  const int untracked = s == VF_OK && j->features == 0;
  if (untracked) fprintf(stderr, "frontend: no frame held a feature; this row tracks nothing\n");
  vf_frontend_destroy(j->fe);
  bench_frontend_input_free(&j->in);
  free(j);
  return s == VF_OK && !untracked ? 0 : 1;
}

/* The rows of one stereo mode: host input, and on CUDA the other inputs. */
static int bench_frontend_mode(vf_context* ctx, const bench_options* opt, bench_out* out,
                               int sparse) {
  int failed = bench_frontend_run(ctx, opt, out, BENCH_INPUT_HOST, sparse);
  if (vf_context_backend(ctx) == VF_BACKEND_CUDA) {
    failed |= bench_frontend_run(ctx, opt, out, BENCH_INPUT_PINNED, sparse);
    failed |= bench_frontend_run(ctx, opt, out, BENCH_INPUT_LOCKED, sparse);
    failed |= bench_frontend_run(ctx, opt, out, BENCH_INPUT_DEVICE, sparse);
  }
  return failed;
}

int bench_frontend(vf_context* ctx, const bench_options* opt, bench_out* out) {
  const char* mode = getenv("VF_BENCH_FRONTEND_STEREO");
  if (mode != NULL && *mode == '\0') mode = NULL; /* set but empty: the default */
  const char* pair = getenv("VF_BENCH_FRONTEND_PAIR");
  if (pair != NULL && *pair != '\0' && strcmp(pair, "euroc") != 0 &&
      !bench_frontend_pair_rectified()) {
    fprintf(stderr, "frontend: VF_BENCH_FRONTEND_PAIR is euroc or rectified, not '%s'\n", pair);
    return 1;
  }
  if (mode != NULL && strcmp(mode, "dense") != 0 && strcmp(mode, "sparse") != 0 &&
      strcmp(mode, "both") != 0) {
    fprintf(stderr, "frontend: VF_BENCH_FRONTEND_STEREO is dense, sparse or both, not '%s'\n",
            mode);
    return 1;
  }
  const int sparse = mode != NULL && strcmp(mode, "dense") != 0;
  const int dense = mode == NULL || strcmp(mode, "sparse") != 0;
  int failed = dense ? bench_frontend_mode(ctx, opt, out, 0) : 0;
  if (sparse) failed |= bench_frontend_mode(ctx, opt, out, 1);
  return failed;
}

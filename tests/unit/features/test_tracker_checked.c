// SPDX-License-Identifier: BSD-3-Clause
/* vf_tracker_track_checked against what it replaces: vf_tracker_track, then a second call that
 * tracks each converged result back with the pyramids swapped, its requests built here from the
 * documented rule. Two trackers with the same configuration follow the same features over frames
 * of growing zoom and rotation, with and without the reference refinement, previous-frame and
 * first-observation templates, guesses from a prediction and without: the forward results and
 * the backward results of the converged features have the same bits on the CPU backend and, with
 * --gpu, on CUDA (one launch there against two); non-converged ones get an echo with status
 * invalid. Also the argument checks. Skips (77) with --gpu without a device. */
#include <math.h>
#include <string.h>

#include "test_tracker_util.h"

enum { FRAMES = 5, N_MAX = 160 };

/* The backward requests of the two-call path, written out as the feature set did. */
static int back_requests(const vf_track_request* req, const vf_track_result* fw, int n,
                         int from_guess, vf_track_request* back, int* index) {
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (fw[i].status != VF_TRACK_CONVERGED) continue;
    const int refined = (fw[i].flags & VF_TRACK_REFINED) != 0;
    back[m] = vf_track_request_make(refined ? fw[i].frame_x : fw[i].x,
                                    refined ? fw[i].frame_y : fw[i].y, -1);
    back[m].new_template = 0;
    if (from_guess) {
      back[m].guess_x = back[m].x - (req[i].guess_x - req[i].x);
      back[m].guess_y = back[m].y - (req[i].guess_y - req[i].y);
    }
    index[m++] = i;
  }
  return m;
}

static void run_case(vf_context* ctx, const vf_image* frames, int refine, vf_template_mode mode,
                     int from_guess) {
  vf_tracker_config tc = vf_tracker_config_default();
  tc.template_mode = mode;
  tc.refine = refine;
  tc.max_features = N_MAX;
  static float xy[2 * N_MAX];
  static vf_track_request req[N_MAX], breq[N_MAX];
  static vf_track_result a[N_MAX], ab[N_MAX], b[N_MAX], bb[N_MAX];
  static int index[N_MAX];
  const int n = tt_pick_corners(&frames[0], 40, 24, 25.0, xy, N_MAX);
  CHECK(n >= 40);
  for (int i = 0; i < n; ++i) req[i] = vf_track_request_make(xy[2 * i], xy[2 * i + 1], i);
  vf_tracker *one = NULL, *two = NULL;
  CHECK_OK(vf_tracker_create(ctx, &tc, &one));
  CHECK_OK(vf_tracker_create(ctx, &tc, &two));
  int converged = 0, kept_same = 0, kept = 0, echoes = 0;
  for (int f = 1; f < FRAMES; ++f) {
    /* A prediction off the start, so that from_guess matters. */
    for (int i = 0; i < n; ++i) {
      req[i].guess_x = req[i].x + 0.75f;
      req[i].guess_y = req[i].y - 0.5f;
    }
    vf_pyramid* p0 = tt_pyramid(ctx, &frames[f - 1], tc.levels);
    vf_pyramid* p1 = tt_pyramid(ctx, &frames[f], tc.levels);
    CHECK_OK(vf_tracker_track_checked(one, p0, p1, req, n, from_guess, a, ab));
    CHECK_OK(vf_tracker_track(two, p0, p1, req, n, b));
    const int m = back_requests(req, b, n, from_guess, breq, index);
    CHECK_OK(vf_tracker_track(two, p1, p0, breq, m, bb));
    int fw_same = 0;
    for (int i = 0; i < n; ++i) fw_same += tt_same_bits(&a[i], &b[i]);
    CHECK(fw_same == n);
    for (int j = 0; j < m; ++j) kept_same += tt_same_bits(&ab[index[j]], &bb[j]);
    kept += m;
    converged += m;
    for (int i = 0; i < n; ++i) {
      if (a[i].status == VF_TRACK_CONVERGED) continue;
      echoes += ab[i].status == VF_TRACK_INVALID && ab[i].iterations == 0;
      CHECK(ab[i].status == VF_TRACK_INVALID);
    }
    /* The next call starts where this one ended, templates and references kept (lost features
     * start again where they were). */
    for (int i = 0; i < n; ++i) {
      req[i].new_template = 0;
      if (a[i].status != VF_TRACK_CONVERGED) continue;
      req[i].x = a[i].x;
      req[i].y = a[i].y;
      req[i].gain = a[i].gain;
      req[i].bias = a[i].bias;
    }
    vf_pyramid_destroy(p0);
    vf_pyramid_destroy(p1);
  }
  printf(
      "%s, refine %d, %s templates, from_guess %d: %d backward results, %d the same bits, "
      "%d echoes\n",
      vf_backend_name(vf_context_backend(ctx)), refine,
      mode == VF_TEMPLATE_FIRST_OBSERVATION ? "first-observation" : "previous-frame", from_guess,
      kept, kept_same, echoes);
  CHECK(kept_same == kept);
  CHECK(converged >= 2 * n);
  vf_tracker_destroy(one);
  vf_tracker_destroy(two);
}

static void argument_checks(vf_context* ctx, const vf_image* frames) {
  vf_tracker_config tc = vf_tracker_config_default();
  tc.max_features = 8;
  vf_tracker* t = NULL;
  CHECK_OK(vf_tracker_create(ctx, &tc, &t));
  vf_pyramid* p0 = tt_pyramid(ctx, &frames[0], tc.levels);
  vf_pyramid* p1 = tt_pyramid(ctx, &frames[1], tc.levels);
  vf_track_request req[9];
  vf_track_result res[9], back[9];
  for (int i = 0; i < 9; ++i) req[i] = vf_track_request_make(100.0f + 20.0f * i, 200.0f, -1);
  CHECK_STATUS(vf_tracker_track_checked(NULL, p0, p1, req, 1, 0, res, back), VF_ERR_INVALID_ARG);
  CHECK_STATUS(vf_tracker_track_checked(t, NULL, p1, req, 1, 0, res, back), VF_ERR_INVALID_ARG);
  CHECK_STATUS(vf_tracker_track_checked(t, p0, p1, req, 9, 0, res, back), VF_ERR_INVALID_ARG);
  CHECK_STATUS(vf_tracker_track_checked(t, p0, p1, req, 1, 0, res, NULL), VF_ERR_INVALID_ARG);
  CHECK_STATUS(vf_tracker_track_checked(t, p0, p1, NULL, 1, 0, res, back), VF_ERR_INVALID_ARG);
  CHECK_OK(vf_tracker_track_checked(t, p0, p1, req, 0, 0, NULL, NULL));
  CHECK_OK(vf_tracker_track_checked(t, p0, p1, req, 8, 1, res, back));
  vf_pyramid_destroy(p0);
  vf_pyramid_destroy(p1);
  vf_tracker_destroy(t);
}

int main(int argc, char** argv) {
  int gpu = 0;
  vf_context* ctx = NULL;
  VF_TEST_BACKEND_CONTEXT(argc, argv, ctx, gpu);
  const tt_texture tex = tt_texture_make(911u);
  vf_image frames[FRAMES];
  for (int f = 0; f < FRAMES; ++f) {
    const double m[4] = {1.0 + 0.02 * f, 0.02 * f, 1.3 * f, -0.8 * f}; /* zoom, angle, shift */
    tt_render(&tex, 640, 480, tt_map_similarity, m, 1.0 + 0.02 * f, 2.0 * f, &frames[f]);
  }
  run_case(ctx, frames, 0, VF_TEMPLATE_PREVIOUS_FRAME, 0);
  run_case(ctx, frames, 0, VF_TEMPLATE_FIRST_OBSERVATION, 1);
  run_case(ctx, frames, 1, VF_TEMPLATE_FIRST_OBSERVATION, 0);
  run_case(ctx, frames, 1, VF_TEMPLATE_PREVIOUS_FRAME, 1);
  argument_checks(ctx, frames);
  for (int f = 0; f < FRAMES; ++f) vf_image_free(&frames[f]);
  vf_context_destroy(ctx);
  VF_TEST_END(gpu ? "test_tracker_checked --gpu" : "test_tracker_checked");
}

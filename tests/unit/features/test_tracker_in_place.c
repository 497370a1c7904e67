// SPDX-License-Identifier: BSD-3-Clause
/* Requests and results where the tracker keeps them (vf_tracker_request_buffer,
 * vf_tracker_collect_in_place) against the copying calls: two trackers with the same
 * configuration follow the same features over frames of growing zoom and rotation, one from the
 * caller's arrays, one writing its requests into its own buffer and reading its results in place;
 * every result has the same bits, frame after frame (so a rewrite of the buffer never reaches a
 * submission still running), with and without the forward-backward check and the reference
 * refinement. Also the argument and state checks. CPU backend; --gpu: CUDA (skips, 77, without
 * a device). */
#include <math.h>
#include <string.h>

#include "test_tracker_util.h"

enum { FRAMES = 6, N_MAX = 150 };

static int make_requests(const vf_image* img, vf_track_request* req) {
  int n = 0;
  for (int y = 40; y < img->height - 40 && n < N_MAX; y += 36) {
    for (int x = 40; x < img->width - 40 && n < N_MAX; x += 44) {
      req[n] = vf_track_request_make((float)x + 0.25f, (float)y - 0.5f, n);
      ++n;
    }
  }
  return n;
}

/* The next frame's requests from the results: the converged ones follow, the others restart. */
static void follow(vf_track_request* req, const vf_track_result* res, int n) {
  for (int i = 0; i < n; ++i) {
    if (res[i].status == VF_TRACK_CONVERGED) {
      req[i].x = req[i].guess_x = res[i].x;
      req[i].y = req[i].guess_y = res[i].y;
      req[i].gain = res[i].gain;
      req[i].bias = res[i].bias;
      req[i].new_template = 0;
    } else {
      req[i].new_template = 1;
    }
  }
}

static void run_case(vf_context* ctx, vf_pyramid** pyr, int refine, int checked) {
  vf_tracker_config tc = vf_tracker_config_default();
  tc.template_mode = VF_TEMPLATE_FIRST_OBSERVATION;
  tc.refine = refine;
  tc.max_features = N_MAX;
  vf_tracker *copying = NULL, *in_place = NULL;
  CHECK_OK(vf_tracker_create(ctx, &tc, &copying));
  CHECK_OK(vf_tracker_create(ctx, &tc, &in_place));
  static vf_track_request req[N_MAX];
  static vf_track_result want[N_MAX], want_back[N_MAX], got_back[N_MAX];
  vf_image first;
  CHECK_OK(vf_pyramid_level(pyr[0], 0, &first));
  const int n = make_requests(&first, req);
  vf_track_request* buffer = NULL;
  for (int f = 1; f < FRAMES; ++f) {
    CHECK_OK(vf_tracker_request_buffer(in_place, &buffer));
    if (buffer == NULL) break;
    memcpy(buffer, req, (size_t)n * sizeof *req);
    const vf_track_result* got = NULL;
    int count = -1;
    if (checked) {
      CHECK_OK(vf_tracker_track_checked(copying, pyr[f - 1], pyr[f], req, n, 1, want, want_back));
      static vf_track_result scratch[N_MAX];
      CHECK_OK(
          vf_tracker_track_checked(in_place, pyr[f - 1], pyr[f], buffer, n, 1, scratch, got_back));
      CHECK(memcmp(want_back, got_back, (size_t)n * sizeof *got_back) == 0);
      CHECK_OK(vf_tracker_collect_in_place(in_place, &got, &count));
    } else {
      CHECK_OK(vf_tracker_submit(copying, pyr[f - 1], pyr[f], req, n));
      CHECK_OK(vf_tracker_submit(in_place, pyr[f - 1], pyr[f], buffer, n));
      CHECK_OK(vf_tracker_collect(copying, want));
      CHECK_OK(vf_tracker_collect_in_place(in_place, &got, &count));
    }
    CHECK(count == n && got != NULL);
    if (got == NULL || count != n) break;
    int converged = 0, same = 1;
    for (int i = 0; i < n; ++i) {
      converged += want[i].status == VF_TRACK_CONVERGED;
      same &= memcmp(&want[i], &got[i], sizeof want[i]) == 0;
    }
    CHECK(same);
    CHECK(converged > n / 2); /* the case tracks, not only fails alike */
    /* The next frame's requests come from the copying tracker's results, written into the
     * in-place tracker's buffer only after vf_tracker_request_buffer at the loop's top. */
    follow(req, want, n);
  }
  vf_tracker_destroy(copying);
  vf_tracker_destroy(in_place);
}

static void argument_checks(vf_context* ctx, vf_pyramid* p) {
  vf_tracker_config tc = vf_tracker_config_default();
  tc.max_features = 8;
  vf_tracker* t = NULL;
  CHECK_OK(vf_tracker_create(ctx, &tc, &t));
  vf_track_request* buffer = NULL;
  const vf_track_result* res = NULL;
  int count = -1;
  CHECK_FAILS(vf_tracker_request_buffer(NULL, &buffer), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_request_buffer(t, NULL), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_tracker_last_error(t), "vf_tracker_request_buffer") != NULL);
  CHECK_FAILS(vf_tracker_collect_in_place(NULL, &res, &count), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_collect_in_place(t, NULL, &count), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_collect_in_place(t, &res, NULL), VF_ERR_INVALID_ARG);
  /* Nothing submitted yet: a state error, and the outputs say "none". */
  CHECK_FAILS(vf_tracker_collect_in_place(t, &res, &count), VF_ERR_STATE);
  CHECK(res == NULL && count == 0);
  CHECK(strstr(vf_tracker_last_error(t), "vf_tracker_collect_in_place") != NULL);
  CHECK_OK(vf_tracker_request_buffer(t, &buffer));
  CHECK(buffer != NULL);
  if (buffer == NULL) {
    vf_tracker_destroy(t);
    return;
  }
  vf_track_request* again = NULL;
  CHECK_OK(vf_tracker_request_buffer(t, &again));
  CHECK(again == buffer); /* one array for the tracker's life */
  /* A failed submission leaves nothing to collect. */
  CHECK_FAILS(vf_tracker_submit(t, p, p, buffer, 9), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_collect_in_place(t, &res, &count), VF_ERR_STATE);
  /* An empty submission: zero results. */
  CHECK_OK(vf_tracker_submit(t, p, p, buffer, 0));
  CHECK_OK(vf_tracker_collect_in_place(t, &res, &count));
  CHECK(count == 0 && res != NULL);
  /* The buffer's full size; results stay readable in place. */
  for (int i = 0; i < 8; ++i) buffer[i] = vf_track_request_make(60.0f + 20.0f * i, 70.0f, -1);
  CHECK_OK(vf_tracker_submit(t, p, p, buffer, 8));
  CHECK_OK(vf_tracker_collect_in_place(t, &res, &count));
  CHECK(count == 8);
  for (int i = 0; res != NULL && i < count; ++i) {
    /* Tracked onto the same image: converged where it started. */
    CHECK(res[i].status == VF_TRACK_CONVERGED);
    CHECK(fabsf(res[i].x - buffer[i].x) < 0.01f && fabsf(res[i].y - buffer[i].y) < 0.01f);
  }
  /* A later part of the buffer is taken like any caller's array: the same results as the
   * requests at its start. */
  vf_track_result tail[4];
  CHECK_OK(vf_tracker_request_buffer(t, &buffer));
  CHECK_OK(vf_tracker_track(t, p, p, buffer + 4, 4, tail));
  CHECK_OK(vf_tracker_request_buffer(t, &buffer));
  for (int i = 0; i < 4; ++i) buffer[i] = vf_track_request_make(60.0f + 20.0f * (i + 4), 70.0f, -1);
  CHECK_OK(vf_tracker_submit(t, p, p, buffer, 4));
  CHECK_OK(vf_tracker_collect_in_place(t, &res, &count));
  CHECK(count == 4 && res != NULL && memcmp(res, tail, sizeof tail) == 0);
  vf_tracker_destroy(t);
}

/* Frame f: the texture zoomed by 1.5% a frame, turned by 0.015 rad, moved by (1.1, -0.6) px, and
 * brightened (gain 1% and bias 1.5 a frame), with its 4-level pyramid. */
static vf_pyramid* frame_pyramid(vf_context* ctx, const tt_texture* tex, int f, vf_image* img) {
  const double similarity[4] = {1.0 + 0.015 * f, 0.015 * f, 1.1 * f, -0.6 * f};
  tt_render(tex, 480, 360, tt_map_similarity, similarity, 1.0 + 0.01 * f, 1.5 * f, img);
  return tt_pyramid(ctx, img, 4);
}

int main(int argc, char** argv) {
  vf_image frames[FRAMES];
  vf_pyramid* pyr[FRAMES];
  const tt_texture tex = tt_texture_make(4242u);
  int gpu = 0;
  vf_context* ctx = NULL;
  VF_TEST_BACKEND_CONTEXT(argc, argv, ctx, gpu);
  for (int f = 0; f < FRAMES; ++f) pyr[f] = frame_pyramid(ctx, &tex, f, &frames[f]);
  for (int refine = 0; refine <= 1; ++refine) {
    for (int checked = 0; checked <= 1; ++checked) run_case(ctx, pyr, refine, checked);
  }
  argument_checks(ctx, pyr[0]);
  for (int f = 0; f < FRAMES; ++f) {
    vf_pyramid_destroy(pyr[f]);
    vf_image_free(&frames[f]);
  }
  vf_context_destroy(ctx);
  VF_TEST_END(gpu ? "test_tracker_in_place --gpu" : "test_tracker_in_place");
}

// SPDX-License-Identifier: BSD-3-Clause
/* Bad input to the tracker: every invalid configuration field and call argument gives
 * VF_ERR_INVALID_ARG with a message naming it; bad features (NaN, outside the image, on the
 * border, flat, unknown template slot) are flagged in their result, never a crash; an empty
 * feature set is fine; collect without a submission is an error. Runs on the CPU backend (the
 * checks are shared with CUDA). */
#include "test_tracker_util.h"

static vf_context* ctx;

static void tt_bad_config(void) {
  vf_tracker* t = (vf_tracker*)0x1;
  const vf_tracker_config good = vf_tracker_config_default();
  CHECK_FAILS(vf_tracker_create(ctx, &good, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_create(NULL, &good, &t), VF_ERR_INVALID_ARG);
  CHECK(t == NULL);
  CHECK_FAILS(vf_tracker_create(ctx, NULL, &t), VF_ERR_INVALID_ARG);
  vf_tracker_config c;
  c = good;
  c.levels = 0;
  CHECK_FAILS(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "levels") != NULL);
  c.levels = VF_PYRAMID_MAX_LEVELS + 1;
  CHECK_FAILS(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG);
  c = good;
  c.patch_size[3] = 2;
  CHECK_FAILS(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "patch_size[3]") != NULL);
  c.patch_size[3] = VF_TRACKER_MAX_PATCH + 1;
  CHECK_FAILS(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG);
  c.patch_size[3] = 8;
  c.patch_size[5] = 1000; /* level 5 is not used: ignored */
  CHECK_OK(vf_tracker_create(ctx, &c, &t));
  vf_tracker_destroy(t);
  c = good;
  c.max_features = 0;
  CHECK_FAILS(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "max_features") != NULL);
  c = good;
  c.max_iterations = 101;
  CHECK_FAILS(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "max_iterations") != NULL);
  c = good;
  c.coarse_iterations = 0;
  CHECK_FAILS(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "coarse_iterations") != NULL);
  c = good;
  c.min_update = NAN;
  CHECK_FAILS(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "min_update") != NULL);
  c.min_update = 0.0f;
  CHECK_FAILS(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG);
  c = good;
  c.max_residual = INFINITY;
  CHECK_FAILS(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "max_residual") != NULL);
  c = good;
  c.min_gain = 1.5f;
  CHECK_FAILS(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "min_gain") != NULL);
  c = good;
  c.template_mode = (vf_template_mode)7;
  CHECK_FAILS(vf_tracker_create(ctx, &c, &t), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "template_mode") != NULL);
  vf_tracker_destroy(NULL);
}

static vf_track_request tt_req(float x, float y) { return vf_track_request_make(x, y, -1); }

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&cc, &ctx));
  tt_bad_config();

  const tt_texture tex = tt_texture_make(31u);
  vf_image img = {0}, flat = {0}, small = {0};
  tt_render(&tex, 320, 240, NULL, NULL, 1.0, 0.0, &img);
  CHECK_OK(vf_image_alloc(&flat, 320, 240, VF_PIXEL_U8, VF_MEMORY_HOST));
  memset(flat.data, 90, flat.stride_bytes * 240);
  tt_render(&tex, 160, 120, NULL, NULL, 1.0, 0.0, &small);
  vf_pyramid* p = tt_pyramid(ctx, &img, 4);
  vf_pyramid* pf = tt_pyramid(ctx, &flat, 4);
  vf_pyramid* ps = tt_pyramid(ctx, &small, 4);
  vf_pyramid* p2 = tt_pyramid(ctx, &img, 2);

  vf_tracker_config tc = vf_tracker_config_default();
  tc.max_features = 16;
  vf_tracker* t = NULL;
  CHECK_OK(vf_tracker_create(ctx, &tc, &t));
  vf_tracker_config got;
  CHECK_OK(vf_tracker_get_config(t, &got));
  CHECK(got.max_features == 16 && got.levels == 4);
  CHECK_FAILS(vf_tracker_get_config(NULL, &got), VF_ERR_INVALID_ARG);

  vf_track_request req[16];
  vf_track_result res[16];
  req[0] = tt_req(160, 120);
  /* Call arguments. */
  CHECK_FAILS(vf_tracker_track(NULL, p, p, req, 1, res), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_track(t, NULL, p, req, 1, res), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_tracker_last_error(t), "prev") != NULL);
  CHECK_FAILS(vf_tracker_track(t, p, NULL, req, 1, res), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_track(t, p, p, req, -1, res), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_track(t, p, p, req, 17, res), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_tracker_last_error(t), "count") != NULL);
  CHECK_FAILS(vf_tracker_track(t, p, p, NULL, 1, res), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_track(t, p, p, req, 1, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_track(t, p, ps, req, 1, res), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_tracker_last_error(t), "level 0") != NULL);
  CHECK_FAILS(vf_tracker_track(t, p2, p, req, 1, res), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_tracker_last_error(t), "levels") != NULL);
  /* An empty feature set. */
  CHECK_OK(vf_tracker_track(t, p, p, NULL, 0, NULL));
  /* Submit and collect: nothing to collect after a failed submit; the same results as track. */
  CHECK_FAILS(vf_tracker_submit(t, p, ps, req, 1), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_tracker_collect(t, res), VF_ERR_STATE);
  CHECK_FAILS(vf_tracker_collect(NULL, res), VF_ERR_INVALID_ARG);
  req[0] = tt_req(150.3f, 100.7f);
  req[1] = tt_req(60.0f, 80.0f);
  vf_track_result again[2];
  CHECK_OK(vf_tracker_submit(t, p, p, req, 2));
  CHECK_FAILS(vf_tracker_collect(t, NULL), VF_ERR_INVALID_ARG);
  CHECK_OK(vf_tracker_collect(t, res));
  CHECK_OK(vf_tracker_track(t, p, p, req, 2, again));
  CHECK(memcmp(res, again, sizeof again) == 0);

  /* Bad features: flagged one by one, the good one beside them still tracked. */
  req[0] = tt_req(NAN, 120);
  req[1] = tt_req(160, 120);
  req[1].guess_x = INFINITY;
  req[2] = tt_req(160, 120);
  req[2].gain = 0.0f;
  req[3] = tt_req(-50, 120); /* outside */
  req[4] = tt_req(2, 120);   /* on the border: no level-0 patch */
  req[5] = tt_req(1e30f, 5); /* far outside */
  req[6] = tt_req(160, 120); /* fine */
  req[7] = tt_req(160, 120);
  req[7].guess_x = 5000.0f; /* guess outside the image */
  req[8] = tt_req(160, 120);
  req[8].bias = NAN;
  CHECK_OK(vf_tracker_track(t, p, p, req, 9, res));
  const vf_track_status want[9] = {
      VF_TRACK_INVALID,      VF_TRACK_INVALID,      VF_TRACK_INVALID,
      VF_TRACK_OUT_OF_IMAGE, VF_TRACK_OUT_OF_IMAGE, VF_TRACK_OUT_OF_IMAGE,
      VF_TRACK_CONVERGED,    VF_TRACK_OUT_OF_IMAGE, VF_TRACK_INVALID};
  for (int i = 0; i < 9; ++i) {
    if (res[i].status != want[i]) {
      fprintf(stderr, "feature %d: %s, expected %s\n", i, vf_track_status_str(res[i].status),
              vf_track_status_str(want[i]));
    }
    CHECK(res[i].status == want[i]);
  }
  CHECK_NEAR(res[6].x, 160, 0.01);
  CHECK_NEAR(res[6].y, 120, 0.01);
  /* A flat image has no texture to track. */
  req[0] = tt_req(160, 120);
  CHECK_OK(vf_tracker_track(t, pf, pf, req, 1, res));
  CHECK(res[0].status == VF_TRACK_DIVERGED);

  /* First-observation slots: out of range or never filled are flagged; -1 takes the image. */
  vf_tracker_destroy(t);
  tc.template_mode = VF_TEMPLATE_FIRST_OBSERVATION;
  CHECK_OK(vf_tracker_create(ctx, &tc, &t));
  req[0] = vf_track_request_make(160, 120, 16);
  req[1] = vf_track_request_make(160, 120, -2);
  req[2] = vf_track_request_make(160, 120, 3);
  req[2].new_template = 0;
  req[3] = vf_track_request_make(160, 120, -1);
  req[4] = vf_track_request_make(160, 120, 4);
  CHECK_OK(vf_tracker_track(t, p, p, req, 5, res));
  CHECK(res[0].status == VF_TRACK_INVALID);
  CHECK(res[1].status == VF_TRACK_INVALID);
  CHECK(res[2].status == VF_TRACK_INVALID);
  CHECK(res[3].status == VF_TRACK_CONVERGED);
  CHECK(res[4].status == VF_TRACK_CONVERGED);
  req[4].new_template = 0; /* slot 4 is filled now */
  CHECK_OK(vf_tracker_track(t, p, p, &req[4], 1, res));
  CHECK(res[0].status == VF_TRACK_CONVERGED);

  for (int s = 0; s <= (int)VF_TRACK_INVALID; ++s) {
    CHECK(strcmp(vf_track_status_str((vf_track_status)s), "unknown") != 0);
  }
  CHECK(strcmp(vf_track_status_str((vf_track_status)99), "unknown") == 0);
  CHECK(vf_tracker_last_error(NULL) != NULL);

  vf_tracker_destroy(t);
  vf_pyramid_destroy(p);
  vf_pyramid_destroy(pf);
  vf_pyramid_destroy(ps);
  vf_pyramid_destroy(p2);
  vf_image_free(&img);
  vf_image_free(&flat);
  vf_image_free(&small);
  vf_context_destroy(ctx);
  VF_TEST_END("test_tracker_input");
}

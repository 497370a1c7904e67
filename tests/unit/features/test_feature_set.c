// SPDX-License-Identifier: BSD-3-Clause
/* Feature management (CPU backend, no detector: keypoints are the best Shi-Tomasi corner per
 * cell, computed here). Checks: ids unique, increasing, never reused and stable along a
 * 12-frame sequence (with positions following the known motion and ages counting frames), in
 * both template modes; replenishment only in cells without a live track, one per cell, at the
 * minimum distance, up to the cap; the forward-backward check removes planted wrong tracks (a
 * prediction one period off on a periodic texture) that the tracker alone accepts; the border
 * check; removal by id; the detection schedule (every detect_every frames, forced below
 * min_features) and the back-off of a cell whose new feature is gone by the next detection (none
 * for a refused one); bad input. */
#include <viofront/vf_feature_set.h>

#include "test_tracker_util.h"

#define MAXK 2048

static vf_context* ctx;

/* Keypoints of an image: the best corner of every 16x16 block, tagged with its grid cell. */
static int tt_keypoints(const vf_image* img, const vf_grid* g, vf_keypoint* kp) {
  static float xy[2 * MAXK], score[MAXK];
  const int n = tt_pick_corners_scored(img, 16, 10, 25.0, xy, score, MAXK);
  for (int i = 0; i < n; ++i) {
    kp[i].x = xy[2 * i];
    kp[i].y = xy[2 * i + 1];
    kp[i].score = score[i];
    kp[i].level = 0;
    kp[i].cell = (int)(xy[2 * i + 1] / g->cell_height) * g->cols + (int)(xy[2 * i] / g->cell_width);
  }
  return n;
}

static vf_tracker* tt_tracker(int max, vf_template_mode mode, int levels) {
  vf_tracker_config tc = vf_tracker_config_default();
  tc.max_features = max;
  tc.template_mode = mode;
  tc.levels = levels;
  vf_tracker* t = NULL;
  CHECK_OK(vf_tracker_create(ctx, &tc, &t));
  return t;
}

/* A texture moving by v px a frame: ids, ages and positions over 12 frames. */
static void tt_sequence(vf_template_mode mode) {
  const tt_texture tex = tt_texture_make(9u);
  const double v[2] = {1.3, -0.7};
  vf_feature_set_config fc = vf_feature_set_config_default();
  fc.width = 640;
  fc.height = 480;
  fc.grid.cols = 20;
  fc.grid.rows = 15;
  fc.min_features = 200;
  vf_feature_set* s = NULL;
  CHECK_OK(vf_feature_set_create(&fc, &s));
  vf_tracker* t = tt_tracker(fc.max_features, mode, 4);
  static uint8_t gone[4096]; /* per id - 1: lost before */
  static int born_frame[4096];
  static float born_x[4096], born_y[4096];
  static vf_keypoint kp[MAXK];
  memset(gone, 0, sizeof gone);
  int nseen = 0, wrong_pos = 0, wrong_age = 0, reused = 0, lost_total = 0;
  vf_pyramid* prev = NULL;
  for (int f = 0; f < 12; ++f) {
    const double d[2] = {v[0] * f, v[1] * f};
    vf_image img = {0};
    tt_render(&tex, 640, 480, tt_map_shift, d, 1.0 + 0.02 * f, -1.0 * f, &img);
    vf_pyramid* cur = tt_pyramid(ctx, &img, 4);
    if (prev != NULL) {
      vf_track_stats st;
      CHECK_OK(vf_feature_set_track(s, t, prev, cur, NULL, &st));
      int nl = 0;
      const uint64_t* lost = vf_feature_set_lost(s, &nl);
      CHECK(nl ==
            st.out_of_image + st.diverged + st.residual + st.invalid + st.backward + st.border);
      CHECK(lost != NULL || nl == 0);
      for (int i = 0; i < nl; ++i) {
        if (lost[i] >= 1 && lost[i] <= (uint64_t)nseen) gone[lost[i] - 1] = 1;
      }
      lost_total += nl;
    }
    const vf_track* fs = vf_feature_set_features(s);
    for (int i = 0; i < vf_feature_set_count(s); ++i) {
      const uint64_t id = fs[i].id;
      if (id == 0 || id > (uint64_t)nseen) {
        ++reused;
        continue;
      }
      const int k = (int)id - 1;
      reused += gone[k]; /* a lost id must never come back */
      wrong_age += fs[i].age != f - born_frame[k];
      wrong_pos += hypot(fs[i].x - (born_x[k] + v[0] * (f - born_frame[k])),
                         fs[i].y - (born_y[k] + v[1] * (f - born_frame[k]))) > 0.1;
    }
    if (vf_feature_set_needs_detection(s)) {
      const int nk = tt_keypoints(&img, &fc.grid, kp);
      const uint64_t before = (uint64_t)nseen;
      int added = 0;
      CHECK_OK(vf_feature_set_add(s, kp, nk, &added));
      fs = vf_feature_set_features(s);
      for (int i = 0; i < vf_feature_set_count(s); ++i) {
        if (fs[i].id <= before) continue;
        /* New ids: the next integers, in order. */
        if (fs[i].id != (uint64_t)nseen + 1) ++reused;
        born_frame[nseen] = f;
        born_x[nseen] = fs[i].x;
        born_y[nseen] = fs[i].y;
        CHECK(fs[i].age == 0);
        ++nseen;
      }
      CHECK(added == nseen - (int)before);
    }
    vf_pyramid_destroy(prev);
    prev = cur;
    vf_image_free(&img);
  }
  printf("%-18s ids issued %d, alive %d, lost %d, wrong positions %d, wrong ages %d, reused %d\n",
         mode == VF_TEMPLATE_FIRST_OBSERVATION ? "first observation" : "previous frame", nseen,
         vf_feature_set_count(s), lost_total, wrong_pos, wrong_age, reused);
  CHECK(nseen >= 200);
  CHECK(reused == 0);
  CHECK(wrong_age == 0);
  CHECK(wrong_pos <= nseen / 50);
  CHECK(vf_feature_set_count(s) >= 150);
  vf_pyramid_destroy(prev);
  vf_tracker_destroy(t);
  vf_feature_set_destroy(s);
}

static int tt_cmp_float_desc(const void* a, const void* b) {
  const float x = *(const float*)a, y = *(const float*)b;
  return (x < y) - (x > y);
}

/* New features only in empty cells, at most one per cell, min distance kept, cap kept. */
static void tt_replenish(void) {
  const tt_texture tex = tt_texture_make(10u);
  vf_image img = {0};
  tt_render(&tex, 640, 480, NULL, NULL, 1.0, 0.0, &img);
  vf_feature_set_config fc = vf_feature_set_config_default();
  fc.width = 640;
  fc.height = 480;
  fc.grid.cols = 20;
  fc.grid.rows = 15;
  fc.max_features = 250;
  fc.min_distance = 20.0f;
  vf_feature_set* s = NULL;
  CHECK_OK(vf_feature_set_create(&fc, &s));
  static vf_keypoint kp[MAXK];
  const int nk = tt_keypoints(&img, &fc.grid, kp);
  /* A first batch: every third keypoint. */
  static vf_keypoint some[MAXK];
  int ns = 0;
  for (int i = 0; i < nk; i += 3) some[ns++] = kp[i];
  int added = 0;
  CHECK_OK(vf_feature_set_add(s, some, ns, &added));
  const int first = vf_feature_set_count(s);
  CHECK(first == added && first > 50);
  uint8_t mask[300];
  CHECK_OK(vf_feature_set_occupancy(s, mask, 300));
  int occupied = 0;
  for (int c = 0; c < 300; ++c) occupied += mask[c];
  CHECK(occupied == first); /* one per cell */
  /* Then everything: new ones only where the mask was empty, one per cell. */
  CHECK_OK(vf_feature_set_add(s, kp, nk, &added));
  const vf_track* fs = vf_feature_set_features(s);
  const int total = vf_feature_set_count(s);
  int in_occupied = 0, twice = 0, close = 0;
  uint8_t used[300] = {0};
  for (int i = first; i < total; ++i) {
    const int c = (int)(fs[i].y / 32) * 20 + (int)(fs[i].x / 32);
    in_occupied += mask[c] != 0;
    twice += used[c]++ != 0;
  }
  for (int i = 0; i < total; ++i) {
    for (int j = i + 1; j < total; ++j) {
      close += hypot(fs[i].x - fs[j].x, fs[i].y - fs[j].y) < fc.min_distance;
    }
  }
  printf(
      "replenishment: %d then %d more (cap %d), in occupied cells %d, two in a cell %d, "
      "closer than %.0f px %d\n",
      first, total - first, fc.max_features, in_occupied, twice, fc.min_distance, close);
  CHECK(total > first);
  CHECK(in_occupied == 0 && twice == 0 && close == 0);
  CHECK(total <= fc.max_features);
  /* The cap: a set of 10 takes 10. */
  vf_feature_set_destroy(s);
  fc.max_features = 10;
  fc.min_features = 5;
  CHECK_OK(vf_feature_set_create(&fc, &s));
  CHECK(vf_feature_set_needs_detection(s));
  CHECK_OK(vf_feature_set_add(s, kp, nk, &added));
  CHECK(added == 10 && vf_feature_set_count(s) == 10);
  CHECK(!vf_feature_set_needs_detection(s));
  /* The strongest go first: the strongest keypoint is taken, and every one taken is among the
   * 20 best cells (10 taken, some skipped by the distance rule). */
  float cell_best[300] = {0}, strongest = 0;
  for (int i = 0; i < nk; ++i) {
    cell_best[kp[i].cell] = fmaxf(cell_best[kp[i].cell], kp[i].score);
    strongest = fmaxf(strongest, kp[i].score);
  }
  qsort(cell_best, 300, sizeof(float), tt_cmp_float_desc);
  int has_strongest = 0, weak = 0;
  for (int i = 0; i < 10; ++i) {
    has_strongest |= vf_feature_set_features(s)[i].score == strongest;
    weak += vf_feature_set_features(s)[i].score < cell_best[19];
  }
  CHECK(has_strongest && weak == 0);
  /* Removal by id. */
  const uint64_t ids[3] = {3, 7, 999};
  int removed = 0;
  CHECK_OK(vf_feature_set_remove(s, ids, 3, &removed));
  CHECK(removed == 2 && vf_feature_set_count(s) == 8);
  int nl = 0;
  const uint64_t* lost = vf_feature_set_lost(s, &nl);
  CHECK(nl == 2 && lost[0] == 3 && lost[1] == 7);
  CHECK_OK(vf_feature_set_add(s, kp, nk, &added));
  for (int i = 0; i < vf_feature_set_count(s); ++i) CHECK(vf_feature_set_features(s)[i].id != 3);
  vf_feature_set_destroy(s);
  vf_image_free(&img);
}

/* A texture of period 8 px: a prediction one period off tracks to a wrong copy that matches
 * perfectly. */
static void tt_forward_backward(void) {
  const double d[2] = {1.3, 0.7};
  vf_image img0 = {0}, img1 = {0};
  CHECK_OK(vf_image_alloc(&img0, 320, 240, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&img1, 320, 240, VF_PIXEL_U8, VF_MEMORY_HOST));
  for (int f = 0; f < 2; ++f) {
    vf_image* im = f ? &img1 : &img0;
    for (int y = 0; y < 240; ++y) {
      for (int x = 0; x < 320; ++x) {
        const double sx = x - f * d[0], sy = y - f * d[1];
        const double w = 6.283185307179586 / 8.0;
        const double v = 128 + 50 * sin(w * sx) + 40 * sin(w * sy + 1.0) + 20 * sin(w * (sx + sy));
        ((uint8_t*)im->data)[(size_t)y * im->stride_bytes + (size_t)x] = tt_clamp_round(v);
      }
    }
  }
  vf_pyramid* p0 = tt_pyramid(ctx, &img0, 2);
  vf_pyramid* p1 = tt_pyramid(ctx, &img1, 2);
  vf_tracker* t = tt_tracker(400, VF_TEMPLATE_PREVIOUS_FRAME, 2);
  static vf_keypoint kp[MAXK];
  for (int fb = 0; fb < 3; ++fb) {
    vf_feature_set_config fc = vf_feature_set_config_default();
    fc.width = 320;
    fc.height = 240;
    fc.grid.cols = 10;
    fc.grid.rows = 8;
    fc.fb_threshold = fb ? 0.5f : 0.0f;
    fc.fb_from_prediction = fb == 2;
    vf_feature_set* s = NULL;
    CHECK_OK(vf_feature_set_create(&fc, &s));
    int nk = 0;
    for (int y = 40; y <= 200; y += 32) {
      for (int x = 40; x <= 280; x += 32) kp[nk++] = (vf_keypoint){(float)x, (float)y, 1.0f, 0, 0};
    }
    CHECK_OK(vf_feature_set_add(s, kp, nk, NULL));
    const int n = vf_feature_set_count(s);
    /* Every fourth feature gets a prediction one period (8 px) off: planted wrong tracks. */
    static float pred[2 * MAXK];
    static uint64_t planted[MAXK];
    int np = 0;
    const vf_track* fs = vf_feature_set_features(s);
    for (int i = 0; i < n; ++i) {
      pred[2 * i] = fs[i].x + (float)d[0] + (i % 4 == 0 ? 8.0f : 0.0f);
      pred[2 * i + 1] = fs[i].y + (float)d[1];
      if (i % 4 == 0) planted[np++] = fs[i].id;
    }
    vf_track_stats st;
    CHECK_OK(vf_feature_set_track(s, t, p0, p1, pred, &st));
    int planted_left = 0, good_left = 0;
    fs = vf_feature_set_features(s);
    for (int i = 0; i < vf_feature_set_count(s); ++i) {
      int is_planted = 0;
      for (int k = 0; k < np; ++k) is_planted |= fs[i].id == planted[k];
      planted_left += is_planted;
      good_left += !is_planted;
    }
    printf("forward-backward %-16s %d planted wrong tracks, %d left; %d right ones, %d left\n",
           fb == 0   ? "off:"
           : fb == 1 ? "on:"
                     : "from prediction:",
           np, planted_left, n - np, good_left);
    CHECK(good_left >= (n - np) * 95 / 100);
    if (fb == 1) {
      CHECK(planted_left == 0);
      CHECK(st.backward >= np);
    } else {
      /* The tracker alone, and a backward track handed the same wrong prediction, accept them. */
      CHECK(planted_left >= np * 9 / 10);
    }
    vf_feature_set_destroy(s);
  }
  vf_tracker_destroy(t);
  vf_pyramid_destroy(p0);
  vf_pyramid_destroy(p1);
  vf_image_free(&img0);
  vf_image_free(&img1);
}

/* Features carried within `border` px of the edge are dropped. */
static void tt_border(void) {
  const tt_texture tex = tt_texture_make(12u);
  const double d[2] = {6.0, 0.0};
  vf_image img0 = {0}, img1 = {0};
  tt_render(&tex, 320, 240, NULL, NULL, 1.0, 0.0, &img0);
  tt_render(&tex, 320, 240, tt_map_shift, d, 1.0, 0.0, &img1);
  vf_feature_set_config fc = vf_feature_set_config_default();
  fc.width = 320;
  fc.height = 240;
  fc.grid.cols = 10;
  fc.grid.rows = 8;
  fc.border = 20.0f;
  vf_feature_set* s = NULL;
  CHECK_OK(vf_feature_set_create(&fc, &s));
  const vf_keypoint kp[3] = {{296, 100, 1, 0, 0}, {150, 120, 1, 0, 0}, {10, 100, 1, 0, 0}};
  int added = 0;
  CHECK_OK(vf_feature_set_add(s, kp, 3, &added));
  CHECK(added == 2); /* (10, 100) is inside the border */
  vf_tracker* t = tt_tracker(400, VF_TEMPLATE_PREVIOUS_FRAME, 4);
  vf_pyramid* p0 = tt_pyramid(ctx, &img0, 4);
  vf_pyramid* p1 = tt_pyramid(ctx, &img1, 4);
  vf_track_stats st;
  CHECK_OK(vf_feature_set_track(s, t, p0, p1, NULL, &st));
  CHECK(st.border == 1 && st.tracked == 1);
  CHECK(vf_feature_set_count(s) == 1 && vf_feature_set_features(s)[0].id == 2);
  /* Bad input. */
  vf_tracker* small = tt_tracker(10, VF_TEMPLATE_PREVIOUS_FRAME, 4);
  CHECK_FAILS(vf_feature_set_track(s, small, p0, p1, NULL, NULL), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_feature_set_last_error(s), "tracker") != NULL);
  CHECK_FAILS(vf_feature_set_track(NULL, t, p0, p1, NULL, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_feature_set_track(s, NULL, p0, p1, NULL, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_feature_set_track(s, t, p0, NULL, NULL, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_feature_set_add(s, NULL, 3, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_feature_set_add(s, kp, -1, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_feature_set_remove(s, NULL, 1, NULL), VF_ERR_INVALID_ARG);
  uint8_t mask[80];
  CHECK_FAILS(vf_feature_set_occupancy(s, mask, 79), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_feature_set_occupancy(s, NULL, 80), VF_ERR_INVALID_ARG);
  const vf_keypoint odd[3] = {{NAN, 100, 1, 0, 0}, {100, 100, NAN, 0, 0}, {1e9f, 5, 1, 0, 0}};
  CHECK_OK(vf_feature_set_add(s, odd, 3, &added));
  CHECK(added == 0);
  CHECK_OK(vf_feature_set_add(s, NULL, 0, &added));
  vf_tracker_destroy(small);
  vf_tracker_destroy(t);
  vf_pyramid_destroy(p0);
  vf_pyramid_destroy(p1);
  vf_feature_set_destroy(s);
  vf_image_free(&img0);
  vf_image_free(&img1);
}

static void tt_bad_config(void) {
  vf_feature_set* s = NULL;
  vf_feature_set_config c = vf_feature_set_config_default();
  CHECK_FAILS(vf_feature_set_create(&c, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_feature_set_create(NULL, &s), VF_ERR_INVALID_ARG);
  c.grid.cols = 23;
  CHECK_FAILS(vf_feature_set_create(&c, &s), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "grid") != NULL);
  c = vf_feature_set_config_default();
  c.min_features = c.max_features + 1;
  CHECK_FAILS(vf_feature_set_create(&c, &s), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "min_features") != NULL);
  c = vf_feature_set_config_default();
  c.fb_threshold = NAN;
  CHECK_FAILS(vf_feature_set_create(&c, &s), VF_ERR_INVALID_ARG);
  c = vf_feature_set_config_default();
  c.start_radius = NAN;
  CHECK_FAILS(vf_feature_set_create(&c, &s), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "start_radius") != NULL);
  c = vf_feature_set_config_default();
  c.border = 300.0f;
  CHECK_FAILS(vf_feature_set_create(&c, &s), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "border") != NULL);
  c = vf_feature_set_config_default();
  c.max_features = 0;
  CHECK_FAILS(vf_feature_set_create(&c, &s), VF_ERR_INVALID_ARG);
  CHECK(s == NULL);
  vf_feature_set_destroy(NULL);
  CHECK(vf_feature_set_count(NULL) == 0 && !vf_feature_set_needs_detection(NULL));
}

static void tt_schedule(void) {
  vf_feature_set_config c = vf_feature_set_config_default();
  c.max_features = 4;
  c.min_features = 1;
  c.detect_every = 3;
  c.min_distance = 0.0f;
  vf_feature_set* s = NULL;
  CHECK_OK(vf_feature_set_create(&c, &s));
  CHECK(vf_feature_set_detection_due(s, 1)); /* empty: forced whatever the frame */
  vf_keypoint kp = {100.0f, 100.0f, 50.0f, 0, 0};
  int added = 0;
  CHECK_OK(vf_feature_set_add(s, &kp, 1, &added));
  CHECK(added == 1);
  CHECK(vf_feature_set_detection_due(s, 0) && vf_feature_set_detection_due(s, 6));
  CHECK(!vf_feature_set_detection_due(s, 1) && !vf_feature_set_detection_due(s, 5));
  /* The feature is gone by the next detection: its cell waits 8 detections, other cells not. */
  uint64_t id = vf_feature_set_features(s)[0].id;
  CHECK_OK(vf_feature_set_remove(s, &id, 1, NULL));
  vf_keypoint two[2] = {{100.0f, 100.0f, 50.0f, 0, 0}, {300.0f, 300.0f, 40.0f, 0, 0}};
  CHECK_OK(vf_feature_set_add(s, two, 2, &added));
  CHECK(added == 1 && vf_feature_set_features(s)[0].x == 300.0f);
  int calls = 1;
  for (added = 0; added == 0 && calls < 20; ++calls)
    CHECK_OK(vf_feature_set_add(s, two, 1, &added));
  CHECK(added == 1 && calls == 9); /* detections 1..8 passed it by */
  /* A new feature refused (not tracked: e.g. born on a depth edge) leaves its cell free for the
   * next detection, and is counted as removed. */
  vf_keypoint three = {500.0f, 200.0f, 30.0f, 0, 0};
  CHECK_OK(vf_feature_set_add(s, &three, 1, &added));
  CHECK(added == 1);
  const int live = vf_feature_set_count(s);
  id = vf_feature_set_features(s)[live - 1].id;
  int refused = 0;
  CHECK_OK(vf_feature_set_refuse(s, &id, 1, &refused));
  CHECK(refused == 1 && vf_feature_set_count(s) == live - 1);
  CHECK_OK(vf_feature_set_add(s, &three, 1, &added));
  CHECK(added == 1);
  CHECK_FAILS(vf_feature_set_refuse(s, NULL, 1, NULL), VF_ERR_INVALID_ARG);
  c.detect_every = 0;
  vf_feature_set_destroy(s);
  CHECK_OK(vf_feature_set_create(&c, &s));
  CHECK_OK(vf_feature_set_add(s, &kp, 1, NULL));
  CHECK(!vf_feature_set_detection_due(s, 0) && !vf_feature_set_detection_due(s, 3));
  c.detect_every = -1;
  vf_feature_set_destroy(s);
  CHECK_FAILS(vf_feature_set_create(&c, &s), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "detect_every") != NULL);
  CHECK(!vf_feature_set_detection_due(NULL, 0));
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&cc, &ctx));
  tt_bad_config();
  tt_sequence(VF_TEMPLATE_PREVIOUS_FRAME);
  tt_sequence(VF_TEMPLATE_FIRST_OBSERVATION);
  tt_replenish();
  tt_forward_backward();
  tt_border();
  tt_schedule();
  vf_context_destroy(ctx);
  VF_TEST_END("test_feature_set");
}

// SPDX-License-Identifier: BSD-3-Clause
/* The tracker's per-request start levels (vf_tracker_set_start_levels, internal; the frontend
 * sets them from each track's last miss of its guess): levels 0 give the same bits as no call; a
 * guess near the answer tracked from one or two levels lands within 0.05 px of the descent over
 * all levels (the stopping rule's step of 0.01 px leaves each a few hundredths from where the steps
 * would end), in fewer iterations; a guess 12 px off tracked from level 0 alone does not
 * converge there and is tracked again from the top, giving the all-level result's bits (its
 * iterations summed over both descents), most of the time; the levels apply to one submission only;
 * the backward pass of a checked call uses all levels. vf_lk_levels_for's rule is checked on the
 * CPU. With
 * --gpu the same on CUDA, and the CUDA results with start levels agree with the CPU's (status,
 * 0.01 px). Skips (77) with --gpu without a device. */
#include <math.h>
#include <string.h>

#include "features/kernels/vf_lk_rules.h"
#include "features/vf_tracker_internal.h"
#include "test_tracker_util.h"

enum { N_MAX = 200 };

typedef struct case_data {
  int n;
  vf_track_request req[N_MAX];
  vf_track_result all[N_MAX], some[N_MAX];
  uint8_t levels[N_MAX];
} case_data;

static void track(vf_tracker* t, const vf_pyramid* p0, const vf_pyramid* p1,
                  const vf_track_request* req, int n, const uint8_t* levels, vf_track_result* out) {
  vf_tracker_set_start_levels(t, levels);
  CHECK_OK(vf_tracker_track(t, p0, p1, req, n, out));
}

static int same_but_iterations(const vf_track_result* a, const vf_track_result* b) {
  vf_track_result c = *b;
  c.iterations = a->iterations;
  return tt_same_bits(a, &c);
}

static void rule_checks(void) {
  CHECK(vf_lk_levels_for(0.0f, 1.0f, 4) == 2);
  CHECK(vf_lk_levels_for(0.3f, 1.0f, 4) == 2);
  CHECK(vf_lk_levels_for(1.0f, 1.0f, 4) == 2);
  CHECK(vf_lk_levels_for(1.5f, 1.0f, 4) == 3);
  CHECK(vf_lk_levels_for(2.0f, 1.0f, 4) == 3);
  CHECK(vf_lk_levels_for(2.1f, 1.0f, 4) == 4);
  CHECK(vf_lk_levels_for(2.1f, 1.0f, 5) == 4);
  CHECK(vf_lk_levels_for(4.1f, 1.0f, 5) == 5);
  CHECK(vf_lk_levels_for(100.0f, 1.0f, 4) == 4);
  CHECK(vf_lk_levels_for(NAN, 1.0f, 4) == 4);
  CHECK(vf_lk_levels_for(-1.0f, 1.0f, 4) == 4);
  CHECK(vf_lk_levels_for(INFINITY, 1.0f, 3) == 3);
  CHECK(vf_lk_levels_for(0.1f, 0.0f, 4) == 4);
  CHECK(vf_lk_levels_for(0.1f, 1.0f, 2) == 2);
  CHECK(vf_lk_levels_for(0.1f, 1.0f, 1) == 1);
}

/* Small motion (guesses 0.4 px off the all-level answer) and a large one (guesses at the start,
 * the image shifted by 12 px), on the backend of ctx; the results with start levels in *d. */
static void run(vf_context* ctx, const vf_image* frames, int large, int start, case_data* d) {
  vf_tracker_config tc = vf_tracker_config_default();
  tc.max_features = N_MAX;
  vf_tracker* t = NULL;
  CHECK_OK(vf_tracker_create(ctx, &tc, &t));
  static float xy[2 * N_MAX];
  d->n = tt_pick_corners(&frames[0], 40, 40, 25.0, xy, N_MAX);
  CHECK(d->n >= 40);
  const int n = d->n;
  vf_pyramid* p0 = tt_pyramid(ctx, &frames[0], tc.levels);
  vf_pyramid* p1 = tt_pyramid(ctx, &frames[large ? 2 : 1], tc.levels);
  for (int i = 0; i < n; ++i) d->req[i] = vf_track_request_make(xy[2 * i], xy[2 * i + 1], -1);
  static vf_track_result first[N_MAX], zero[N_MAX], again[N_MAX];
  static uint8_t zeros[N_MAX];
  memset(zeros, 0, sizeof zeros);
  if (!large) {
    /* The guesses: near the all-level answer from the start. */
    CHECK_OK(vf_tracker_track(t, p0, p1, d->req, n, first));
    for (int i = 0; i < n; ++i) {
      if (first[i].status != VF_TRACK_CONVERGED) continue;
      d->req[i].guess_x = first[i].x + 0.3f;
      d->req[i].guess_y = first[i].y - 0.25f;
    }
  }
  for (int i = 0; i < n; ++i) d->levels[i] = (uint8_t)start;
  track(t, p0, p1, d->req, n, NULL, d->all);
  track(t, p0, p1, d->req, n, zeros, zero);
  track(t, p0, p1, d->req, n, d->levels, d->some);
  track(t, p0, p1, d->req, n, NULL, again); /* the levels were the last call's alone */
  int zero_same = 0, again_same = 0, close = 0, converged = 0, retried = 0, fewer = 0;
  long it_all = 0, it_some = 0;
  for (int i = 0; i < n; ++i) {
    zero_same += tt_same_bits(&d->all[i], &zero[i]);
    again_same += tt_same_bits(&d->all[i], &again[i]);
    if (d->all[i].status != VF_TRACK_CONVERGED) continue;
    ++converged;
    it_all += d->all[i].iterations;
    it_some += d->some[i].iterations;
    fewer += d->some[i].iterations < d->all[i].iterations;
    const int same = same_but_iterations(&d->all[i], &d->some[i]);
    retried += same && d->some[i].iterations > d->all[i].iterations;
    close += d->some[i].status == VF_TRACK_CONVERGED &&
             hypotf(d->some[i].x - d->all[i].x, d->some[i].y - d->all[i].y) <= 0.05f;
  }
  printf(
      "%s, %s motion, start levels %d: %d converged, %d within 0.05 px, %d retried with the "
      "all-level bits, %d in fewer iterations (%ld against %ld)\n",
      vf_backend_name(vf_context_backend(ctx)), large ? "large" : "small", start, converged, close,
      retried, fewer, it_some, it_all);
  CHECK(zero_same == n);
  CHECK(again_same == n);
  CHECK(converged >= n * 9 / 10);
  if (large) {
    /* Level 0 alone does not reach 12 px: most tracks ran again from the top (the all-level
     * bits); of the others most reached the all-level answer anyway, and a few settled elsewhere
     * (3 of 140 here): why the frontend asks for fewer levels only where a track's last miss
     * was small. */
    CHECK(retried >= converged / 2);
    CHECK(close >= converged * 95 / 100);
  } else {
    CHECK(close >= converged * 98 / 100);
    CHECK(it_some < it_all);
    CHECK(fewer >= converged / 2);
  }
  /* A checked call: the forward results as above, the backward ones those of all levels. */
  static vf_track_result fw[N_MAX], back[N_MAX], fw_all[N_MAX], back_all[N_MAX];
  CHECK_OK(vf_tracker_track_checked(t, p0, p1, d->req, n, 0, fw_all, back_all));
  vf_tracker_set_start_levels(t, d->levels);
  CHECK_OK(vf_tracker_track_checked(t, p0, p1, d->req, n, 0, fw, back));
  int fw_same = 0, back_same = 0, both = 0;
  for (int i = 0; i < n; ++i) {
    fw_same += tt_same_bits(&fw[i], &d->some[i]);
    /* Where both forward results have the same bits, so have the backward ones. */
    if (!same_but_iterations(&fw[i], &fw_all[i])) continue;
    ++both;
    back_same += tt_same_bits(&back[i], &back_all[i]);
  }
  CHECK(fw_same == n);
  CHECK(back_same == both);
  vf_pyramid_destroy(p0);
  vf_pyramid_destroy(p1);
  vf_tracker_destroy(t);
}

/* CUDA against the CPU with the same start levels: statuses and positions. */
static void parity(const case_data* gpu, const case_data* cpu) {
  CHECK(gpu->n == cpu->n);
  int status_same = 0, close = 0, converged = 0;
  for (int i = 0; i < gpu->n; ++i) {
    status_same += gpu->some[i].status == cpu->some[i].status;
    if (cpu->some[i].status != VF_TRACK_CONVERGED) continue;
    ++converged;
    close += hypotf(gpu->some[i].x - cpu->some[i].x, gpu->some[i].y - cpu->some[i].y) <= 0.01f;
  }
  printf("cuda against cpu: %d of %d statuses equal, %d of %d converged within 0.01 px\n",
         status_same, gpu->n, close, converged);
  CHECK(status_same >= gpu->n * 99 / 100);
  CHECK(close >= converged * 99 / 100);
}

int main(int argc, char** argv) {
  int gpu = 0;
  vf_context* ctx = NULL;
  VF_TEST_BACKEND_CONTEXT(argc, argv, ctx, gpu);
  rule_checks();
  const tt_texture tex = tt_texture_make(4242u);
  vf_image frames[3];
  const double shifts[3][2] = {{0.0, 0.0}, {1.3, -0.8}, {12.0, 0.0}};
  for (int f = 0; f < 3; ++f)
    tt_render(&tex, 640, 480, tt_map_shift, shifts[f], 1.0, 0.0, &frames[f]);
  static case_data dev[3], host[3];
  const int starts[3] = {1, 2, 1};
  for (int c = 0; c < 3; ++c) run(ctx, frames, c == 2, starts[c], &dev[c]);
  if (gpu) {
    vf_context* cpu = NULL;
    vf_context_config cc = vf_context_config_default();
    cc.backend = VF_BACKEND_CPU;
    CHECK_OK(vf_context_create(&cc, &cpu));
    for (int c = 0; c < 3; ++c) {
      run(cpu, frames, c == 2, starts[c], &host[c]);
      parity(&dev[c], &host[c]);
    }
    vf_context_destroy(cpu);
  }
  for (int f = 0; f < 3; ++f) vf_image_free(&frames[f]);
  vf_context_destroy(ctx);
  VF_TEST_END(gpu ? "test_tracker_start_levels --gpu" : "test_tracker_start_levels");
}

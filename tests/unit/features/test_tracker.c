// SPDX-License-Identifier: BSD-3-Clause
/* Tracker accuracy by construction (CPU backend): real photographs (moved with Lanczos-3 and
 * with bilinear interpolation) and a procedural texture (rendered exactly) moved by known
 * sub-pixel translations up to the pyramid's reach (about 15 px for 4 levels with 8x8 coarse
 * patches) and changed by gain 0.6..1.5 and bias -40..+40. With gain and bias estimated:
 * median error < 0.05 px and >= 95% of the features within 0.1 px (failures count as wrong).
 * Features whose patch the photometric change saturates by more than a quarter have lost their
 * texture and are left out (counted); a change that does so to over a third of an image's
 * features (gain 1.3..1.5 on the bright birds photograph) is reported, not held to the bounds
 * (the procedural texture covers it). The same cases without the photometric model show what
 * it buys; gain-only and bias-only modes are checked on the changes they model; TARGETS.md's
 * vilib case (birds, bilinear, all features) must do at least as well as vilib. */
#include "test_tracker_util.h"

static vf_context* ctx;

typedef struct tt_case {
  double dx, dy, gain, bias;
} tt_case;

static const tt_case cases[] = {{1.3, 0.7, 1.1, 5.0},      {-2.6, 3.4, 0.6, 40.0},
                                {5.25, -4.75, 1.5, -40.0}, {-9.8, 7.3, 0.8, -20.0},
                                {11.6, -8.2, 1.3, 25.0},   {0.4, -0.45, 1.0, 0.0},
                                {-12.3, 9.6, 0.7, 30.0}};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))
#define MAXF 1024

typedef struct tt_run {
  tt_stats st;
  double gain_err, bias_err; /* medians over converged features */
} tt_run;

static double tt_median(double* v, int n) {
  if (n == 0) return INFINITY;
  qsort(v, (size_t)n, sizeof *v, tt_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Tracks the features xy from img0 to img1 (moved by c) with config tc. */
static tt_run tt_track(const vf_image* img0, const vf_image* img1, const float* xy, int n,
                       const tt_case* c, const vf_tracker_config* tc) {
  tt_run run;
  memset(&run, 0, sizeof run);
  static vf_track_request req[MAXF];
  static vf_track_result res[MAXF];
  static float truth[2 * MAXF];
  static double gerr[MAXF], berr[MAXF];
  vf_pyramid* p0 = tt_pyramid(ctx, img0, tc->levels);
  vf_pyramid* p1 = tt_pyramid(ctx, img1, tc->levels);
  vf_tracker* t = NULL;
  CHECK_OK(vf_tracker_create(ctx, tc, &t));
  for (int i = 0; i < n; ++i) {
    req[i] = vf_track_request_make(xy[2 * i], xy[2 * i + 1], -1);
    truth[2 * i] = (float)(xy[2 * i] + c->dx);
    truth[2 * i + 1] = (float)(xy[2 * i + 1] + c->dy);
  }
  CHECK_OK(vf_tracker_track(t, p0, p1, req, n, res));
  run.st = tt_evaluate(res, truth, n, 0.1);
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (res[i].status != VF_TRACK_CONVERGED) continue;
    gerr[m] = fabs(res[i].gain - c->gain);
    berr[m++] = fabs(res[i].bias - c->bias);
  }
  run.gain_err = tt_median(gerr, m);
  run.bias_err = tt_median(berr, m);
  vf_tracker_destroy(t);
  vf_pyramid_destroy(p0);
  vf_pyramid_destroy(p1);
  return run;
}

static void tt_print(const char* what, const tt_case* c, int n, const tt_run* r) {
  printf(
      "%-12s d=(%6.2f,%6.2f) g=%.2f b=%+5.1f  n=%4d conv %5.1f%%  median %.4f px  "
      "within 0.1 px %5.1f%%  |gain err| %.4f  |bias err| %.3f\n",
      what, c->dx, c->dy, c->gain, c->bias, n, 100 * r->st.converged, r->st.median,
      100 * r->st.within, r->gain_err, r->bias_err);
}

/* Keeps the features whose 16x16 patch around their true position in img1 is at most a quarter
 * saturated; returns how many are kept (in place). */
static int tt_unsaturated(const vf_image* img1, const tt_case* c, float* xy, int n) {
  int kept = 0;
  for (int i = 0; i < n; ++i) {
    const int x = (int)lround(xy[2 * i] + c->dx), y = (int)lround(xy[2 * i + 1] + c->dy);
    int sat = 0;
    for (int v = -8; v < 8; ++v) {
      for (int u = -8; u < 8; ++u) {
        const double p = tt_pixel(img1, x + u, y + v);
        sat += p == 0 || p == 255;
      }
    }
    if (sat <= 64) {
      xy[2 * kept] = xy[2 * i];
      xy[2 * kept + 1] = xy[2 * i + 1];
      ++kept;
    }
  }
  return kept;
}

/* Every case with the full model (must meet the bounds) and without it (for comparison). */
static void tt_image_cases(const char* name, const vf_image* img0, const vf_image* img1s[NCASES],
                           const float* xy_all, int n_all, int exact) {
  vf_tracker_config on = vf_tracker_config_default();
  vf_tracker_config off = on;
  off.estimate_gain = off.estimate_bias = 0;
  static float xy[2 * MAXF];
  for (int i = 0; i < NCASES; ++i) {
    const tt_case* c = &cases[i];
    memcpy(xy, xy_all, 2 * sizeof(float) * (size_t)n_all);
    const int n = tt_unsaturated(img1s[i], c, xy, n_all);
    tt_run a = tt_track(img0, img1s[i], xy, n, c, &on);
    tt_run b = tt_track(img0, img1s[i], xy, n, c, &off);
    tt_print(name, c, n, &a);
    tt_print("  no gain/bias", c, n, &b);
    if (n < n_all)
      printf("  (%d of %d features left out: patch over 25%% saturated)\n", n_all - n, n_all);
    if (3 * n < 2 * n_all) {
      printf("  (not held to the bounds: the change saturates most of this image)\n");
      continue;
    }
    CHECK(a.st.median < 0.05);
    CHECK(a.st.within >= 0.95);
    /* Bilinear sampling attenuates fine texture, which the gain absorbs: a few percent. */
    CHECK(a.gain_err < (exact ? 0.03 : 0.1));
    CHECK(a.bias_err < (exact ? 4.0 : 10.0));
    /* Strong photometric changes defeat the plain model. */
    if (fabs(c->gain - 1.0) >= 0.2) CHECK(a.st.within > b.st.within + 0.2);
  }
}

/* Gain only / bias only: each mode handles the change it models. */
static void tt_partial_models(const vf_image* img0, const tt_texture* tex, const float* xy, int n) {
  const tt_case bias_only = {2.3, -1.6, 1.0, 30.0}, gain_only = {-3.1, 2.2, 1.35, 0.0};
  vf_image a = {0}, b = {0};
  tt_render(tex, img0->width, img0->height, tt_map_shift, &bias_only.dx, 1.0, 30.0, &a);
  tt_render(tex, img0->width, img0->height, tt_map_shift, &gain_only.dx, 1.35, 0.0, &b);
  vf_tracker_config tc = vf_tracker_config_default();
  tc.estimate_gain = 0;
  tt_run r = tt_track(img0, &a, xy, n, &bias_only, &tc);
  tt_print("bias only", &bias_only, n, &r);
  CHECK(r.st.median < 0.05 && r.st.within >= 0.95);
  CHECK(r.bias_err < 1.0);
  tc = vf_tracker_config_default();
  tc.estimate_bias = 0;
  r = tt_track(img0, &b, xy, n, &gain_only, &tc);
  tt_print("gain only", &gain_only, n, &r);
  CHECK(r.st.median < 0.05 && r.st.within >= 0.95);
  CHECK(r.gain_err < 0.01);
  vf_image_free(&a);
  vf_image_free(&b);
}

/* TARGETS.md: birds moved by (1.3, 0.7), gain 1.1, bias +5, bilinear; every feature counts.
 * vilib: 99% converge, median error 0.040 px, 76.5% within 0.1 px. */
static void tt_vilib_case(const vf_image* img0, const float* xy, int n) {
  const tt_case c = {1.3, 0.7, 1.1, 5.0};
  vf_image img1 = {0};
  tt_warp(img0, c.dx, c.dy, c.gain, c.bias, &img1);
  const vf_tracker_config tc = vf_tracker_config_default();
  tt_run r = tt_track(img0, &img1, xy, n, &c, &tc);
  tt_print("vilib case", &c, n, &r);
  CHECK(r.st.converged >= 0.99);
  CHECK(r.st.median <= 0.040);
  CHECK(r.st.within >= 0.765);
  vf_image_free(&img1);
}

static void tt_real_image(const char* rel, int lanczos) {
  char buf[1024];
  const char* path = vf_test_data_path(rel, buf, sizeof buf);
  if (path == NULL) {
    printf("SKIP %s: %s/%s is absent\n", rel, VF_DATA_DIR, rel);
    return;
  }
  vf_image img0 = {0};
  CHECK_OK(vf_png_read_gray8(path, &img0));
  static float xy[2 * MAXF];
  /* 20 px cells; the margin keeps the largest move inside the image. */
  const int n = tt_pick_corners(&img0, 20, 32, 25.0, xy, MAXF);
  CHECK(n >= 200);
  vf_image warped[NCASES];
  const vf_image* ptrs[NCASES];
  for (int i = 0; i < NCASES; ++i) {
    if (lanczos) {
      tt_warp_lanczos(&img0, cases[i].dx, cases[i].dy, cases[i].gain, cases[i].bias, &warped[i]);
    } else {
      tt_warp(&img0, cases[i].dx, cases[i].dy, cases[i].gain, cases[i].bias, &warped[i]);
    }
    ptrs[i] = &warped[i];
  }
  char name[64];
  snprintf(name, sizeof name, "%.5s %s", rel + 7, lanczos ? "lanczos" : "bilinear");
  tt_image_cases(name, &img0, ptrs, xy, n, 0);
  if (!lanczos && strstr(rel, "birds") != NULL) tt_vilib_case(&img0, xy, n);
  for (int i = 0; i < NCASES; ++i) vf_image_free(&warped[i]);
  vf_image_free(&img0);
}

static void tt_procedural(void) {
  const tt_texture tex = tt_texture_make(12345u);
  vf_image img0 = {0};
  tt_render(&tex, 640, 480, NULL, NULL, 1.0, 0.0, &img0);
  static float xy[2 * MAXF];
  const int n = tt_pick_corners(&img0, 24, 32, 25.0, xy, MAXF);
  CHECK(n >= 200);
  vf_image rendered[NCASES];
  const vf_image* ptrs[NCASES];
  for (int i = 0; i < NCASES; ++i) {
    tt_render(&tex, 640, 480, tt_map_shift, &cases[i].dx, cases[i].gain, cases[i].bias,
              &rendered[i]);
    ptrs[i] = &rendered[i];
  }
  tt_image_cases("procedural", &img0, ptrs, xy, n, 1);
  tt_partial_models(&img0, &tex, xy, n);
  for (int i = 0; i < NCASES; ++i) vf_image_free(&rendered[i]);
  vf_image_free(&img0);
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&cc, &ctx));
  tt_procedural();
  for (int lanczos = 0; lanczos < 2; ++lanczos) {
    tt_real_image("images/birds_752x480.png", lanczos);
    tt_real_image("images/peru_640x480.png", lanczos);
  }
  vf_context_destroy(ctx);
  VF_TEST_END("test_tracker");
}

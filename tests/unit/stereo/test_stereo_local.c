// SPDX-License-Identifier: BSD-3-Clause
/* ZNCC + FastDT on the CPU backend: the 8-bit cost code, ZNCC costs against the definition
 * computed in double, direct and integral window sums giving the same volume, known disparities
 * (random dots under a gain and offset change, a slanted plane), strides, and accuracy on
 * Middlebury Cones. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "stereo/kernels/vf_local_rules.h"
#include "stereo_local_util.h"
#include "vf_test.h"

static vf_context* ctx;

/* Every 16-bit cost survives the 8-bit code within half a step of its band, small ones exactly,
 * and the code keeps the order of costs. */
static void check_pack8(void) {
  uint32_t prev = 0;
  int bad = 0;
  for (int s = -(1 << VF_COST_SCALE_LOG2); s <= (1 << VF_COST_SCALE_LOG2); ++s) {
    uint32_t u = (uint32_t)((int)VF_COST_ZERO + s);
    uint32_t back = vf_cost_unpack8(vf_cost_pack8(u));
    int err = abs((int)back - (int)u), a = abs(s);
    int tol = a < 32 ? 0 : a < 252 ? 4 : a < 2016 ? 32 : 512;
    if (err > tol || back < prev) ++bad;
    prev = back;
  }
  if (bad) fprintf(stderr, "pack8: %d costs out of tolerance or order\n", bad);
  CHECK(bad == 0);
  CHECK(vf_cost_unpack8(vf_cost_pack8(VF_COST_ZERO)) == VF_COST_ZERO);
  /* The extremes of the cost scale stay at their ends. */
  const uint32_t one = 1u << VF_COST_SCALE_LOG2; /* ZNCC = -1 and +1 */
  CHECK(vf_cost_unpack8(vf_cost_pack8(VF_COST_ZERO + one)) > VF_COST_ZERO + 15000);
  CHECK(vf_cost_unpack8(vf_cost_pack8(VF_COST_ZERO - one)) < VF_COST_ZERO - 15000);
}

static vf_stereo_local_config zncc_config(int w, int h, int nd, int window, int dt, int pack8) {
  vf_stereo_local_config c = vf_stereo_local_config_default();
  c.width = w;
  c.height = h;
  c.disparities = nd;
  c.zncc.window = window;
  c.fastdt.enabled = dt;
  c.fastdt.pack8 = pack8;
  return c;
}

/* Runs a configuration and copies out its cost volume (caller frees). */
static uint8_t* run_volume(const vf_stereo_local_config* c, const test_pair* p, uint16_t* disp,
                           size_t* bytes) {
  vf_stereo_local* st = NULL;
  CHECK_OK(vf_stereo_local_create(ctx, c, &st));
  if (st == NULL) return NULL;
  vf_image l = vf_image_view(p->left, p->w, p->h, p->w, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image r = vf_image_view(p->right, p->w, p->h, p->w, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image d = vf_image_view(disp, p->w, p->h, (size_t)p->w * 2, VF_MEMORY_HOST, VF_PIXEL_U16);
  CHECK_OK(vf_stereo_local_compute(st, &l, &r, &d));
  const void* vol = NULL;
  size_t cb = 0;
  CHECK_OK(vf_stereo_local_cost_volume(st, &vol, &cb));
  *bytes = (size_t)p->w * p->h * c->disparities * cb;
  uint8_t* copy = malloc(*bytes);
  memcpy(copy, vol, *bytes);
  vf_stereo_local_destroy(st);
  return copy;
}

/* ZNCC from its definition, in double, for one pixel and disparity. */
static double zncc_ref(const test_pair* p, int x, int y, int d, int r) {
  double sl = 0, sr = 0, sll = 0, srr = 0, slr = 0, n = (2 * r + 1) * (2 * r + 1);
  for (int dy = -r; dy <= r; ++dy) {
    for (int dx = -r; dx <= r; ++dx) {
      double a = p->left[(y + dy) * p->w + x + dx], b = p->right[(y + dy) * p->w + x + dx - d];
      sl += a;
      sr += b;
      sll += a * a;
      srr += b * b;
      slr += a * b;
    }
  }
  double vl = sll - sl * sl / n, vr = srr - sr * sr / n;
  if (vl <= 0 || vr <= 0) return 2.0; /* flat: no value */
  return (slr - sl * sr / n) / sqrt(vl * vr);
}

/* 16-bit ZNCC costs equal -ZNCC * 2^14 within one unit; windows or matches outside the image
 * have the neutral cost. */
static void check_zncc_definition(int window) {
  test_pair p;
  CHECK(test_pair_plane(&p, 48, 30, 6.0f, 0.0f, 0.0f, 0.9f, 12.0f, 11u + window));
  const int nd = 14, r = window / 2;
  uint16_t* disp = malloc((size_t)p.w * p.h * 2);
  vf_stereo_local_config c = zncc_config(p.w, p.h, nd, window, 0, 0);
  size_t bytes = 0;
  uint16_t* vol = (uint16_t*)run_volume(&c, &p, disp, &bytes);
  int bad = 0;
  for (int y = 0; vol != NULL && y < p.h; ++y) {
    for (int x = 0; x < p.w; ++x) {
      for (int d = 0; d < nd; ++d) {
        int code = vol[((size_t)y * p.w + x) * nd + d];
        if (y < r || y >= p.h - r || x < r || x >= p.w - r || x - r - d < 0) {
          bad += code != (int)VF_COST_ZERO;
        } else {
          double z = zncc_ref(&p, x, y, d, r);
          double want = z > 1.5 ? 0.0 : -z * (1 << VF_COST_SCALE_LOG2);
          bad += fabs((code - (double)VF_COST_ZERO) - want) > 1.0;
        }
      }
    }
  }
  if (bad) fprintf(stderr, "window %d: %d costs differ from the definition\n", window, bad);
  CHECK(bad == 0);
  free(vol);
  free(disp);
  test_pair_free(&p);
}

/* Direct summation and integral images give the same window sums, so the same volume. */
static void check_sums_agree(int window) {
  test_pair p;
  CHECK(test_pair_plane(&p, 71, 43, 9.0f, 0.02f, 0.01f, 1.0f, 0.0f, 5u + window));
  uint16_t* disp = malloc((size_t)p.w * p.h * 2);
  vf_stereo_local_config c = zncc_config(p.w, p.h, 20, window, 0, 1);
  size_t b1 = 0, b2 = 0;
  c.zncc.sums = VF_ZNCC_SUMS_DIRECT;
  uint8_t* v1 = run_volume(&c, &p, disp, &b1);
  c.zncc.sums = VF_ZNCC_SUMS_INTEGRAL;
  uint8_t* v2 = run_volume(&c, &p, disp, &b2);
  CHECK(v1 != NULL && v2 != NULL && b1 == b2 && memcmp(v1, v2, b1) == 0);
  free(v1);
  free(v2);
  free(disp);
  test_pair_free(&p);
}

/* Share of pixels with known truth at column >= margin whose error is at most tol. */
static double share_within(const test_pair* p, const uint16_t* disp, int margin, double tol) {
  long n = 0, good = 0;
  for (int y = margin; y < p->h - margin; ++y) {
    for (int x = margin; x < p->w - margin; ++x) {
      ++n;
      uint16_t d = disp[(size_t)y * p->w + x];
      good += d != VF_STEREO_LOCAL_INVALID && fabs(d - p->truth[(size_t)y * p->w + x]) <= tol;
    }
  }
  return n ? (double)good / n : 0.0;
}

/* Random dots at disparity 11 seen with gain 0.8 and offset 20 (ZNCC ignores both). */
static void check_constant_disparity(int window, int dt, int pack8) {
  test_pair p;
  CHECK(test_pair_plane(&p, 96, 64, 11.0f, 0.0f, 0.0f, 0.8f, 20.0f, 77u));
  uint16_t* disp = malloc((size_t)p.w * p.h * 2);
  vf_stereo_local_config c = zncc_config(p.w, p.h, 24, window, dt, pack8);
  CHECK_OK(test_run(ctx, &c, &p, 0, disp));
  /* Every pixel whose window and match are inside; with aggregation a few more columns, where
   * pixels of the same dot (|dI| = 0, strong weight) have no match at disparity 11. */
  double share = share_within(&p, disp, 11 + window / 2 + (dt ? 4 : 0), 0.0);
  printf("constant disparity, window %d, fastdt %d, pack8 %d: %.2f%% exact\n", window, dt, pack8,
         100 * share);
  CHECK(share == 1.0);
  free(disp);
  test_pair_free(&p);
}

static void check_slanted_plane(void) {
  test_pair p;
  CHECK(test_pair_plane(&p, 160, 120, 6.0f, 0.05f, 0.04f, 1.0f, 0.0f, 123u));
  uint16_t* disp = malloc((size_t)p.w * p.h * 2);
  vf_stereo_local_config c = zncc_config(p.w, p.h, 32, 5, 1, 1);
  CHECK_OK(test_run(ctx, &c, &p, 0, disp));
  double share = share_within(&p, disp, 24, 1.0);
  printf("slanted plane 6 + 0.05x + 0.04y, ZNCC 5x5 + FastDT: %.2f%% within 1 px\n", 100 * share);
  CHECK(share >= 0.97);
  /* Padded rows give the same map. */
  uint16_t* padded = malloc((size_t)p.w * p.h * 2);
  CHECK_OK(test_run(ctx, &c, &p, 37, padded));
  CHECK(memcmp(disp, padded, (size_t)p.w * p.h * 2) == 0);
  free(padded);
  free(disp);
  test_pair_free(&p);
}

static void check_cones(void) {
  test_pair p;
  if (!test_pair_cones(&p)) {
    printf("middlebury/cones absent: accuracy skipped\n");
    return;
  }
  uint16_t* disp = malloc((size_t)p.w * p.h * 2);
  static const struct {
    int window, dt, pack8;
    double max_bad2, min_density;
  } runs[] = {{5, 1, 1, 0.06, 0.995},
              {5, 1, 0, 0.06, 0.995},
              {9, 1, 1, 0.085, 0.995},
              {9, 0, 1, 0.13, 0.95}};
  double bad2[4];
  for (int i = 0; i < 4; ++i) {
    vf_stereo_local_config c = zncc_config(p.w, p.h, 64, runs[i].window, runs[i].dt, runs[i].pack8);
    CHECK_OK(test_run(ctx, &c, &p, 0, disp));
    char what[80];
    snprintf(what, sizeof what, "Cones ZNCC %dx%d%s%s", runs[i].window, runs[i].window,
             runs[i].dt ? " + FastDT" : "", runs[i].pack8 ? " (8-bit)" : " (16-bit)");
    test_score s = test_score_report(&p, disp, what);
    CHECK(s.bad[2] <= runs[i].max_bad2);
    CHECK(s.density >= runs[i].min_density);
    bad2[i] = s.bad[2];
  }
  /* The 8-bit storage costs little accuracy against 16 bits. */
  CHECK(fabs(bad2[0] - bad2[1]) <= 0.005);
  free(disp);
  test_pair_free(&p);
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&cc, &ctx));
  check_pack8();
  check_zncc_definition(3);
  check_zncc_definition(7);
  check_zncc_definition(15);
  for (int w = 3; w <= 15; w += 2) check_sums_agree(w);
  check_constant_disparity(5, 0, 0);
  check_constant_disparity(9, 0, 1);
  check_constant_disparity(5, 1, 1);
  check_constant_disparity(13, 1, 0);
  check_slanted_plane();
  check_cones();
  vf_context_destroy(ctx);
  VF_TEST_END("test_stereo_local");
}

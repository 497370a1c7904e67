// SPDX-License-Identifier: BSD-3-Clause
/* Sparse stereo matching (vf_sampler_match_stereo) on constructed rectified pairs with known
 * answers: a smooth texture seen at sub-pixel disparities with another gain and bias on the right
 * (matches within 0.05 px, zncc > 0.9, with no prior, priors near the truth, just past the prior
 * window, outside the range, NAN), a flat square (no match), stripes of a period shorter than the
 * range (ambiguous, unless the uniqueness test is off), a left window the left image repeats and
 * background hidden by a near strip (the left-right check), an unrelated right image (the
 * correlation check), points at and beyond the borders (no match), a depth edge (a larger spread
 * than on a plane); one and four worker threads give the same bits; every bad argument fails with
 * its message and leaves the sampler usable. With --gpu the CUDA backend on the same pairs, with
 * many random points and priors, and on Middlebury Cones when present: result, zncc and spread
 * equal the CPU's bit for bit, the disparity within 1e-3 px. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "test_tracker_util.h"
#include "vf_test.h"

enum { W = 320, H = 120, N = 200, NG = 4096 };

static vf_context* make_ctx(vf_backend backend, int threads) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = backend;
  cc.cpu_threads = threads;
  vf_context* ctx = NULL;
  CHECK_OK(vf_context_create(&cc, &ctx));
  return ctx;
}

static uint8_t* row_of(vf_image* im, int y) {
  return (uint8_t*)im->data + (size_t)y * im->stride_bytes;
}

static int count_result(const vf_stereo_match* m, int n, int result) {
  int k = 0;
  for (int i = 0; i < n; ++i) k += m[i].result == result;
  return k;
}

/* The constructed pairs, each W x H. */
typedef enum pair_kind {
  PAIR_SHIFT,     /* the texture; the right sees it d px to the right, R(x) = 0.9 T(x + d) + 10 */
  PAIR_FLAT,      /* PAIR_SHIFT at 12 px with a flat square, left columns 150..189, rows 40..79 */
  PAIR_STRIPES,   /* vertical stripes of period 8 px at 12 px */
  PAIR_REPEAT,    /* PAIR_SHIFT at 12 px; at repeat_point(i) the left window carries noise and its
                     clean copy stands repeat_gap() px farther right in the left image */
  PAIR_HIDDEN,    /* a near strip at 24 px (left columns 160..220) over background at 8 px */
  PAIR_UNRELATED, /* the texture on the left, white noise on the right */
  PAIR_EDGE,      /* a depth edge at left column 160: disparity 8 left of it, 16 right of it */
  PAIRS
} pair_kind;

static const char* const pair_names[PAIRS] = {"texture",         "flat square",       "stripes",
                                              "repeated window", "hidden background", "unrelated",
                                              "depth edge"};

/* The left-right pair's points (15) and the copy's distance for search radius r: two windows
 * and 2 px, so that the copy and the point's window do not touch. */
static int repeat_gap(int r) { return 2 * (2 * r + 1) + 2; }

static void repeat_point(int i, int* x, int* y) {
  *x = 60 + 50 * (i % 5);
  *y = 30 + 30 * (i / 5);
}

static double stripes(double x) { return 128.0 + 60.0 * sin(0.785398163397448 * x); }

/* The right image's pixel x, y of the near strip over background. */
static double hidden_right(const tt_texture* bg, const tt_texture* fg, int x, int y) {
  const int near = x + 24 >= 160 && x + 24 <= 220;
  return 0.9 * (near ? tt_texture_at(fg, x + 24, y) : tt_texture_at(bg, x + 8, y)) + 10.0;
}

static void make_pair(pair_kind kind, unsigned seed, double d, vf_image* left, vf_image* right) {
  const tt_texture tex = tt_texture_make(seed), fg = tt_texture_make(seed + 1u);
  const double none[2] = {0.0, 0.0}, shift[2] = {-d, 0.0};
  tt_render(&tex, W, H, tt_map_shift, none, 1.0, 0.0, left);
  tt_render(&tex, W, H, tt_map_shift, shift, 0.9, 10.0, right);
  unsigned noise = seed;
  for (int y = 0; y < H && kind != PAIR_SHIFT && kind != PAIR_FLAT && kind != PAIR_REPEAT; ++y) {
    for (int x = 0; x < W; ++x) {
      uint8_t *l = row_of(left, y) + x, *r = row_of(right, y) + x;
      if (kind == PAIR_STRIPES) {
        *l = tt_clamp_round(stripes(x));
        *r = tt_clamp_round(0.9 * stripes(x + d) + 10.0);
      } else if (kind == PAIR_HIDDEN) {
        *l = tt_clamp_round(tt_texture_at(x >= 160 && x <= 220 ? &fg : &tex, x, y));
        *r = tt_clamp_round(hidden_right(&tex, &fg, x, y));
      } else if (kind == PAIR_UNRELATED) {
        *r = (uint8_t)vf_test_rand(&noise);
      } else {
        *r = tt_clamp_round(0.9 * tt_texture_at(&tex, x + 16 >= 160 ? x + 16 : x + 8, y) + 10.0);
      }
    }
  }
  for (int y = 40; kind == PAIR_FLAT && y < 80; ++y) {
    memset(row_of(left, y) + 150, 100, 40);
    memset(row_of(right, y) + 150 - (int)d, 100, 40); /* 0.9 * 100 + 10 */
  }
  const int r = vf_stereo_match_config_default().search_radius, gap = repeat_gap(r);
  for (int i = 0; kind == PAIR_REPEAT && i < 15; ++i) {
    int x, y;
    repeat_point(i, &x, &y);
    for (int j = -r; j <= r; ++j) {
      uint8_t* row = row_of(left, y + j);
      memcpy(row + x + gap - r, row + x - r, (size_t)(2 * r + 1));
      for (int k = -r; k <= r; ++k)
        row[x + k] = tt_clamp_round(row[x + k] + (double)(vf_test_rand(&noise) % 13) - 6.0);
    }
  }
}

/* N points at sub-pixel positions whose matches and windows lie inside the pair (d <= 32). */
static void inner_points(unsigned seed, float* xy) {
  for (int i = 0; i < N; ++i) {
    xy[2 * i] = 48.0f + (float)(vf_test_rand(&seed) % 25000) / 100.0f;
    xy[2 * i + 1] = 12.0f + (float)(vf_test_rand(&seed) % 9600) / 100.0f;
  }
}

/* The OK matches of m: at least min_ok of n, each within 0.05 px of d with zncc > 0.9; the
 * others without a disparity. */
static void check_matches(const vf_stereo_match* m, int n, double d, int min_ok, const char* what) {
  int ok = 0, far = 0, weak = 0, stray = 0;
  double worst = 0.0, sum = 0.0;
  for (int i = 0; i < n; ++i) {
    if (m[i].result != VF_STEREO_MATCH_OK) {
      stray += !isnan(m[i].disparity);
      continue;
    }
    ++ok;
    const double e = m[i].disparity - d;
    sum += e;
    worst = fmax(worst, fabs(e));
    far += !(fabs(e) <= 0.05);
    weak += !(m[i].zncc > 0.9f);
  }
  printf(
      "%s, disparity %.2f: %d of %d matched, mean error %+.4f px, worst %.4f px; none %d, "
      "ambiguous %d, left-right %d, correlation %d\n",
      what, d, ok, n, ok ? sum / ok : 0.0, worst, count_result(m, n, VF_STEREO_MATCH_NONE),
      count_result(m, n, VF_STEREO_MATCH_AMBIGUOUS), count_result(m, n, VF_STEREO_MATCH_LEFT_RIGHT),
      count_result(m, n, VF_STEREO_MATCH_CORRELATION));
  CHECK(ok >= min_ok);
  CHECK(far == 0 && weak == 0 && stray == 0);
}

/* The texture at five disparities: no prior, priors near the truth, just past the prior window
 * above and below it (its minimum at an end: the whole range searched), outside the range (the
 * whole range), NAN (the whole range). Each prior jittered by up to 0.5 px. */
static void known_disparities(vf_sampler* s) {
  const vf_stereo_match_config c = vf_stereo_match_config_default();
  static float xy[2 * N], prior[N];
  static vf_stereo_match m[N];
  const double ds[5] = {12.0, 12.25, 12.5, 17.75, 30.4};
  const float past = (float)c.prior_range + 1.0f;
  const float offsets[6] = {0.0f, past, -past, 100.0f, -60.0f, NAN};
  const char* names[6] = {"prior near",
                          "prior past the window above",
                          "prior past the window below",
                          "prior above the range",
                          "prior below the range",
                          "NAN prior"};
  for (int k = 0; k < 5; ++k) {
    vf_image left, right;
    make_pair(PAIR_SHIFT, 4242u + (unsigned)k, ds[k], &left, &right);
    inner_points(99u + (unsigned)k, xy);
    CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy, NULL, N, &c, m));
    check_matches(m, N, ds[k], N * 97 / 100, "no prior");
    unsigned seed = 5u;
    for (int p = 0; p < 6; ++p) {
      for (int i = 0; i < N; ++i) {
        const float jitter = ((float)(vf_test_rand(&seed) % 101) - 50.0f) / 100.0f;
        prior[i] = (float)ds[k] + offsets[p] + jitter;
      }
      CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy, prior, N, &c, m));
      check_matches(m, N, ds[k], N * 97 / 100, names[p]);
    }
    vf_image_free(&left);
    vf_image_free(&right);
  }
}

/* Points on a grid of nx x ny from (x0, y0), steps sx and sy; returns the count. */
static int grid(float x0, float y0, int nx, int ny, float sx, float sy, float* xy) {
  for (int i = 0; i < nx * ny; ++i) {
    xy[2 * i] = x0 + (float)(i % nx) * sx;
    xy[2 * i + 1] = y0 + (float)(i / nx) * sy;
  }
  return nx * ny;
}

/* The flat square, stripes, the left-right pairs and the unrelated right image. */
static void refusals(vf_sampler* s) {
  vf_stereo_match_config c = vf_stereo_match_config_default();
  static float xy[2 * 270];
  static vf_stereo_match m[270];
  vf_image left, right;
  /* No texture in the window: no match and no correlation. */
  make_pair(PAIR_FLAT, 7u, 12.0, &left, &right);
  int n = grid(160.0f, 50.0f, 5, 5, 4.3f, 4.6f, xy), flat = 0;
  CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy, NULL, n, &c, m));
  for (int i = 0; i < n; ++i)
    flat += m[i].result == VF_STEREO_MATCH_NONE && isnan(m[i].zncc) && isnan(m[i].disparity);
  printf("flat square: %d of %d points without a match\n", flat, n);
  CHECK(flat == n);
  vf_image_free(&left);
  vf_image_free(&right);
  /* Disparities 4, 12, 20, ... cost the same: ambiguous, unless the test is off. */
  make_pair(PAIR_STRIPES, 1u, 12.0, &left, &right);
  inner_points(31u, xy);
  CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy, NULL, N, &c, m));
  const int ambiguous = count_result(m, N, VF_STEREO_MATCH_AMBIGUOUS);
  int high = 0;
  for (int i = 0; i < N; ++i) high += m[i].zncc > 0.9f && isnan(m[i].disparity);
  c.uniqueness = 0;
  CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy, NULL, N, &c, m));
  const int without = count_result(m, N, VF_STEREO_MATCH_AMBIGUOUS);
  printf("stripes of period 8 px: %d of %d ambiguous with uniqueness 10, %d with 0\n", ambiguous, N,
         without);
  CHECK(ambiguous == N && high == N && without == 0);
  vf_image_free(&left);
  vf_image_free(&right);
  /* The right window's best match in the left image is the clean copy, not the point. */
  c = vf_stereo_match_config_default();
  make_pair(PAIR_REPEAT, 11u, 12.0, &left, &right);
  for (int i = 0; i < 15; ++i) {
    int x, y;
    repeat_point(i, &x, &y);
    xy[2 * i] = (float)x;
    xy[2 * i + 1] = (float)y;
  }
  CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy, NULL, 15, &c, m));
  const int repeated = count_result(m, 15, VF_STEREO_MATCH_LEFT_RIGHT);
  c.max_lr_diff = -1;
  CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy, NULL, 15, &c, m));
  const int unchecked = count_result(m, 15, VF_STEREO_MATCH_OK);
  vf_image_free(&left);
  vf_image_free(&right);
  /* Background left columns 146..154: the right camera sees the strip there. */
  c.max_lr_diff = 1;
  make_pair(PAIR_HIDDEN, 12u, 8.0, &left, &right);
  n = grid(146.0f, 15.0f, 9, 30, 1.0f, 3.0f, xy);
  CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy, NULL, n, &c, m));
  const int hidden_ok = count_result(m, n, VF_STEREO_MATCH_OK);
  const int hidden_lr = count_result(m, n, VF_STEREO_MATCH_LEFT_RIGHT);
  printf(
      "left-right: %d of 15 repeated windows fail the check (%d match without it); %d of %d "
      "hidden background points match, %d fail the check\n",
      repeated, unchecked, hidden_ok, n, hidden_lr);
  CHECK(repeated == 15 && unchecked == 15);
  CHECK(hidden_ok == 0 && hidden_lr > n / 4);
  vf_image_free(&left);
  vf_image_free(&right);
  /* Unrelated: ambiguous or too little correlation; without uniqueness, the latter. */
  make_pair(PAIR_UNRELATED, 21u, 12.0, &left, &right);
  grid(80.0f, 15.0f, 20, 10, 11.0f, 10.0f, xy); /* N points, the whole range inside the image */
  CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy, NULL, N, &c, m));
  const int ok = count_result(m, N, VF_STEREO_MATCH_OK);
  c.max_lr_diff = -1;
  CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy, NULL, N, &c, m));
  const int either = count_result(m, N, VF_STEREO_MATCH_AMBIGUOUS) +
                     count_result(m, N, VF_STEREO_MATCH_CORRELATION);
  c.uniqueness = 0;
  CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy, NULL, N, &c, m));
  int weak = 0;
  for (int i = 0; i < N; ++i)
    weak += m[i].result == VF_STEREO_MATCH_CORRELATION && m[i].zncc < c.min_zncc;
  printf(
      "unrelated right image: %d of %d matched; without the left-right check %d ambiguous or "
      "weak; without uniqueness too, %d weak\n",
      ok, N, either, weak);
  CHECK(ok == 0 && either == N && weak == N);
  vf_image_free(&left);
  vf_image_free(&right);
}

/* Points whose windows leave the image (the search's, radius 4, or the refinement's, radius 7),
 * points outside it and not finite: no match, with or without a prior; points whose match, or
 * its window, lies beyond the right image's left edge: no match either (at most a failed check). */
static void borders(vf_sampler* s) {
  vf_stereo_match_config c = vf_stereo_match_config_default();
  c.search_radius = 4;
  c.refine.radius = 7;
  vf_image left, right;
  make_pair(PAIR_SHIFT, 4242u, 12.3, &left, &right);
  const float w = (float)W, h = (float)H;
  const float xy[][2] = {
      {-3.0f, 60.0f},     {-0.51f, 60.0f},    {0.0f, 60.0f},       {2.0f, 60.0f},
      {3.4f, 60.0f},      {w - 4.4f, 60.0f},  {w - 1.0f, 60.0f},   {w - 0.5f, 60.0f},
      {w + 2.0f, 60.0f},  {w - 9.6f, 60.0f},  {100.0f, -1.0f},     {100.0f, 0.0f},
      {100.0f, 3.4f},     {100.0f, 5.0f},     {100.0f, 8.4f},      {100.0f, h - 9.0f},
      {100.0f, h - 4.4f}, {100.0f, h - 1.0f}, {100.0f, h + 5.0f},  {NAN, 60.0f},
      {100.0f, NAN},      {INFINITY, 60.0f},  {-INFINITY, 60.0f},  {100.0f, 1e30f},
      {-1e30f, -1e30f},   {0.0f, 0.0f},       {w - 1.0f, h - 1.0f}};
  enum { NB = (int)(sizeof xy / sizeof xy[0]) };
  float prior[NB];
  for (int i = 0; i < NB; ++i) prior[i] = i % 2 ? NAN : 12.3f;
  vf_stereo_match m[NB];
  int none = 0;
  for (int k = 0; k < 2; ++k) {
    CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy[0], k ? NULL : prior, NB, &c, m));
    for (int i = 0; i < NB; ++i)
      none += m[i].result == VF_STEREO_MATCH_NONE && isnan(m[i].disparity);
  }
  static float cut[2 * 13 * 30];
  static vf_stereo_match mc[13 * 30];
  const int n = grid(4.2f, 15.0f, 13, 30, 1.0f, 3.0f, cut); /* left columns 4..16 */
  CHECK_OK(vf_sampler_match_stereo(s, &left, &right, cut, NULL, n, &c, mc));
  const int cut_ok = count_result(mc, n, VF_STEREO_MATCH_OK);
  printf(
      "borders: %d of %d points outside or at the edges without a match; %d of %d points whose "
      "match is cut off matched\n",
      none, 2 * NB, cut_ok, n);
  CHECK(none == 2 * NB && cut_ok == 0);
  vf_image_free(&left);
  vf_image_free(&right);
}

/* The mean spread of 3 x 60 points around column x (NAN skipped; 90% must have one). */
static double mean_spread(vf_sampler* s, const vf_image* left, const vf_image* right, int x,
                          const vf_stereo_match_config* c) {
  float xy[2 * 180];
  vf_stereo_match m[180];
  const int n = grid((float)(x - 1), 15.0f, 3, 60, 1.0f, 1.5f, xy);
  CHECK_OK(vf_sampler_match_stereo(s, left, right, xy, NULL, n, c, m));
  double sum = 0.0;
  int k = 0;
  for (int i = 0; i < n; ++i) {
    if (isnan(m[i].spread)) continue;
    sum += m[i].spread;
    ++k;
  }
  CHECK(c->step_radius == 0 ? k == 0 : k >= n * 9 / 10);
  return k > 0 ? sum / k : NAN;
}

/* Points on the depth edge (the window's left half at 8, its right half at 16) show a larger
 * spread than points of either surface (60 px left, 40 px right), the spread measured without
 * the checks that refuse most edge points. */
static void depth_edge(vf_sampler* s) {
  vf_image left, right;
  make_pair(PAIR_EDGE, 77u, 8.0, &left, &right);
  vf_stereo_match_config c = vf_stereo_match_config_default();
  c.uniqueness = 0;
  c.max_lr_diff = -1;
  c.min_zncc = -1.0f;
  const int radii[2] = {c.step_radius, 12};
  for (int k = 0; k < 2; ++k) {
    c.step_radius = radii[k];
    const double edge = mean_spread(s, &left, &right, 160, &c);
    const double far = mean_spread(s, &left, &right, 100, &c);
    const double near = mean_spread(s, &left, &right, 200, &c);
    printf(
        "depth edge 8 -> 16 px, step_radius %d: mean spread %.3f px on the edge, %.3f and "
        "%.3f px on the planes\n",
        c.step_radius, edge, far, near);
    CHECK(edge > fmax(far, near) + 0.5);
  }
  c.step_radius = 0;
  CHECK(isnan(mean_spread(s, &left, &right, 160, &c)));
  vf_image_free(&left);
  vf_image_free(&right);
}

/* NG points anywhere in (and around) the pair, some not finite; priors: none, near d, 8..20 px
 * off, anywhere in -10..80. */
static void random_points(unsigned seed, int w, int h, double d, float* xy, float* prior) {
  for (int i = 0; i < NG; ++i) {
    xy[2 * i] = (float)(vf_test_rand(&seed) % (100 * (w + 6))) / 100.0f - 3.0f;
    xy[2 * i + 1] = (float)(vf_test_rand(&seed) % (100 * (h + 6))) / 100.0f - 3.0f;
    if (i % 97 == 0) xy[2 * i + (i & 1)] = NAN;
    const float u = (float)(vf_test_rand(&seed) % 1001) / 1000.0f;
    prior[i] = i % 4 == 0   ? NAN
               : i % 4 == 1 ? (float)d + u - 0.5f
               : i % 4 == 2 ? (float)d + (i & 8 ? 1.0f : -1.0f) * (8.0f + 12.0f * u)
                            : -10.0f + 90.0f * u;
  }
}

/* The same points on one worker thread and on four: the same matches, bit for bit. */
static void threads(void) {
  vf_context *one = make_ctx(VF_BACKEND_CPU, 1), *four = make_ctx(VF_BACKEND_CPU, 4);
  vf_sampler *s1 = NULL, *s4 = NULL;
  CHECK_OK(vf_sampler_create(one, NG, &s1));
  CHECK_OK(vf_sampler_create(four, NG, &s4));
  vf_image left, right;
  make_pair(PAIR_SHIFT, 5u, 21.6, &left, &right);
  static float xy[2 * NG], prior[NG];
  random_points(8u, W, H, 21.6, xy, prior);
  static vf_stereo_match a[NG], b[NG];
  const vf_stereo_match_config c = vf_stereo_match_config_default();
  CHECK_OK(vf_sampler_match_stereo(s1, &left, &right, xy, prior, NG, &c, a));
  CHECK_OK(vf_sampler_match_stereo(s4, &left, &right, xy, prior, NG, &c, b));
  CHECK(memcmp(a, b, sizeof a) == 0);
  printf("one and four worker threads: %d points, %d matched, the same bits\n", NG,
         count_result(a, NG, VF_STEREO_MATCH_OK));
  vf_image_free(&left);
  vf_image_free(&right);
  vf_sampler_destroy(s1);
  vf_sampler_destroy(s4);
  vf_context_destroy(one);
  vf_context_destroy(four);
}

/* The defaults with one field set to v: k 0..8 the int fields as listed, 9 min_zncc, 10
 * refine.max_change. */
static vf_stereo_match_config with_field(int k, double v) {
  vf_stereo_match_config c = vf_stereo_match_config_default();
  int* ints[10] = {&c.min_disparity, &c.max_disparity, &c.prior_range,
                   &c.search_radius, &c.uniqueness,    &c.max_lr_diff,
                   &c.step_radius,   &c.refine.radius, &c.refine.max_iterations};
  if (k == 9)
    c.min_zncc = (float)v;
  else if (k == 10)
    c.refine.max_change = (float)v;
  else
    *ints[k] = (int)v;
  return c;
}

/* Bad arguments: each fails with VF_ERR_INVALID_ARG and a message naming what is wrong, in the
 * thread's slot and the sampler's; the sampler then matches as before. */
static void arguments(vf_context* ctx) {
  enum { M = 4 };
  vf_sampler* s = NULL;
  CHECK_OK(vf_sampler_create(ctx, M, &s));
  vf_image left, right, narrow, u16;
  make_pair(PAIR_SHIFT, 3u, 10.5, &left, &right);
  CHECK_OK(vf_image_alloc(&narrow, W - 1, H, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&u16, W, H, VF_PIXEL_U16, VF_MEMORY_HOST));
  vf_image dev = left;
  dev.location = VF_MEMORY_DEVICE;
  const float xy[2 * M] = {60.0f, 40.0f, 100.5f, 60.2f, 200.0f, 80.7f, 250.3f, 30.0f};
  const float prior[M] = {10.0f, NAN, 40.0f, 11.0f};
  vf_stereo_match good[M], out[M];
  const vf_stereo_match_config c = vf_stereo_match_config_default();
  CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy, prior, M, &c, good));
  CHECK(count_result(good, M, VF_STEREO_MATCH_OK) == M);
  static const struct {
    int field;
    double value;
    const char* word;
  } bad[] = {{0, -1, "disparities"},  {1, 0, "disparities"},    {1, 1025, "disparities"},
             {2, 0, "prior_range"},   {2, 65, "prior_range"},   {3, 0, "search_radius"},
             {3, 8, "search_radius"}, {4, -1, "uniqueness"},    {4, 100, "uniqueness"},
             {5, -2, "max_lr_diff"},  {5, 9, "max_lr_diff"},    {6, -1, "step_radius"},
             {6, 2, "step_radius"},   {6, 16, "step_radius"},   {7, 0, "radius"},
             {7, 11, "radius"},       {8, 0, "max_iterations"}, {8, 51, "max_iterations"},
             {9, -1.01, "min_zncc"},  {9, 1.01, "min_zncc"},    {9, NAN, "min_zncc"},
             {10, 0.0, "max_change"}, {10, 2.5, "max_change"},  {10, NAN, "max_change"}};
  const int nbad = (int)(sizeof bad / sizeof bad[0]);
  int named = 0, own_fields = 0, checked = 0, refine_checked = 0, usable = 0;
  for (int i = 0; i < nbad; ++i) {
    const vf_stereo_match_config b = with_field(bad[i].field, bad[i].value);
    CHECK_FAILS(vf_sampler_match_stereo(s, &left, &right, xy, prior, M, &b, out),
                VF_ERR_INVALID_ARG);
    const char* msg = vf_sampler_last_error(s);
    named += strstr(msg, bad[i].word) != NULL && strstr(msg, "vf_sampler_match_stereo") != NULL &&
             strcmp(msg, vf_last_error_message()) == 0;
    /* The public check of a configuration refuses the matcher's own fields alike. */
    const int own = bad[i].field < 7 || bad[i].field == 9;
    own_fields += own;
    checked += own && vf_stereo_match_config_check(&b) == VF_ERR_INVALID_ARG &&
               strstr(vf_last_error_message(), bad[i].word) != NULL;
    refine_checked += !own && vf_stereo_match_config_check(&b) == VF_ERR_INVALID_ARG;
    CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy, prior, M, &c, out));
    usable += memcmp(out, good, sizeof good) == 0;
  }
  CHECK(named == nbad && checked == own_fields && usable == nbad);
  CHECK_OK(vf_stereo_match_config_check(&c));
  CHECK_FAILS(vf_stereo_match_config_check(NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_sampler_match_stereo(NULL, &left, &right, xy, prior, M, &c, out),
              VF_ERR_INVALID_ARG);
  const struct {
    const vf_image *l, *r;
    const float* xy;
    int count;
    const vf_stereo_match_config* c;
    vf_stereo_match* out;
    const char* word;
  } calls[] = {
      {&left, &right, xy, M, NULL, out, "config"}, {NULL, &right, xy, M, &c, out, "image"},
      {&left, NULL, xy, M, &c, out, "image"},      {&left, &right, NULL, M, &c, out, "xy"},
      {&left, &right, xy, M, &c, NULL, "out"},     {&left, &right, xy, M + 1, &c, out, "count"},
      {&left, &right, xy, -1, &c, out, "count"},   {&left, &narrow, xy, M, &c, out, "one size"},
      {&u16, &u16, xy, M, &c, out, "U8"},          {&dev, &dev, xy, M, &c, out, "host"}};
  const int ncalls = (int)(sizeof calls / sizeof calls[0]);
  for (int i = 0; i < ncalls; ++i) {
    CHECK_FAILS(vf_sampler_match_stereo(s, calls[i].l, calls[i].r, calls[i].xy, prior,
                                        calls[i].count, calls[i].c, calls[i].out),
                VF_ERR_INVALID_ARG);
    CHECK(strstr(vf_sampler_last_error(s), calls[i].word) != NULL);
    CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy, prior, M, &c, out));
    CHECK(memcmp(out, good, sizeof good) == 0);
  }
  /* Count 0 does nothing, whatever the pointers; no priors is allowed. */
  CHECK_OK(vf_sampler_match_stereo(s, &left, &right, NULL, NULL, 0, &c, NULL));
  CHECK_OK(vf_sampler_match_stereo(s, &left, &right, xy, NULL, M, &c, out));
  CHECK(count_result(out, M, VF_STEREO_MATCH_OK) == M);
  printf(
      "arguments: %d of %d bad fields refused and named, %d of the matcher's own %d by "
      "vf_stereo_match_config_check (which refuses %d of the %d bad refine fields), the sampler "
      "usable after each; %d bad calls refused\n",
      named, nbad, checked, own_fields, refine_checked, nbad - own_fields, ncalls);
  vf_image_free(&left);
  vf_image_free(&right);
  vf_image_free(&narrow);
  vf_image_free(&u16);
  vf_sampler_destroy(s);
}

/* CPU and CUDA on one host pair (copied to the device here): result, zncc and spread the same
 * bits (NAN equal to NAN), the disparity within 1e-3 px. */
static void compare(vf_sampler* sc, vf_sampler* sg, const vf_image* left, const vf_image* right,
                    const float* xy, const float* prior, int n, const vf_stereo_match_config* c,
                    const char* what) {
  vf_image dl, dr;
  CHECK_OK(vf_image_alloc(&dl, left->width, left->height, VF_PIXEL_U8, VF_MEMORY_DEVICE));
  CHECK_OK(vf_image_alloc(&dr, left->width, left->height, VF_PIXEL_U8, VF_MEMORY_DEVICE));
  CHECK_OK(vf_image_copy(left, &dl));
  CHECK_OK(vf_image_copy(right, &dr));
  static vf_stereo_match a[NG], b[NG];
  memset(b, 0xA5, sizeof b);
  CHECK_OK(vf_sampler_match_stereo(sc, left, right, xy, prior, n, c, a));
  CHECK_OK(vf_sampler_match_stereo(sg, &dl, &dr, xy, prior, n, c, b));
  int results = 0, znccs = 0, spreads = 0, disparities = 0;
  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    results += a[i].result != b[i].result;
    znccs += isnan(a[i].zncc) ? !isnan(b[i].zncc) : memcmp(&a[i].zncc, &b[i].zncc, 4) != 0;
    spreads +=
        isnan(a[i].spread) ? !isnan(b[i].spread) : memcmp(&a[i].spread, &b[i].spread, 4) != 0;
    if (isnan(a[i].disparity) || isnan(b[i].disparity)) {
      disparities += isnan(a[i].disparity) != isnan(b[i].disparity);
      continue;
    }
    const double e = fabs((double)a[i].disparity - (double)b[i].disparity);
    worst = fmax(worst, e);
    disparities += e > 1e-3;
  }
  printf(
      "%s: %d points (%d ok, %d none, %d ambiguous, %d left-right, %d correlation); differ: "
      "%d results, %d zncc, %d spreads, %d disparities (worst %.2e px)\n",
      what, n, count_result(a, n, VF_STEREO_MATCH_OK), count_result(a, n, VF_STEREO_MATCH_NONE),
      count_result(a, n, VF_STEREO_MATCH_AMBIGUOUS), count_result(a, n, VF_STEREO_MATCH_LEFT_RIGHT),
      count_result(a, n, VF_STEREO_MATCH_CORRELATION), results, znccs, spreads, disparities, worst);
  CHECK(results == 0 && znccs == 0 && spreads == 0 && disparities == 0);
  vf_image_free(&dl);
  vf_image_free(&dr);
}

/* Middlebury Cones (im2 left, im6 right, disp2 / 4 the left truth for the priors). */
static void gpu_cones(vf_sampler* sc, vf_sampler* sg) {
  char pl[1024], pr[1024], pd[1024];
  if (vf_test_data_path("middlebury/cones/im2.png", pl, sizeof pl) == NULL ||
      vf_test_data_path("middlebury/cones/im6.png", pr, sizeof pr) == NULL ||
      vf_test_data_path("middlebury/cones/disp2.png", pd, sizeof pd) == NULL) {
    printf("middlebury/cones absent under %s: real-image parity skipped\n", VF_DATA_DIR);
    return;
  }
  vf_image left = {0}, right = {0}, truth = {0};
  CHECK_OK(vf_png_read_gray8(pl, &left));
  CHECK_OK(vf_png_read_gray8(pr, &right));
  CHECK_OK(vf_png_read_gray8(pd, &truth));
  static float xy[2 * NG], prior[NG];
  random_points(61u, left.width, left.height, 0.0, xy, prior);
  for (int i = 0; i < NG; ++i) {
    const int x = (int)floorf(xy[2 * i] + 0.5f), y = (int)floorf(xy[2 * i + 1] + 0.5f);
    const int inside = x >= 0 && y >= 0 && x < truth.width && y < truth.height;
    const uint8_t t = inside ? row_of(&truth, y)[x] : 0;
    /* Near (and far) priors from the truth where it is known. */
    if (i % 4 == 1 || i % 4 == 2) prior[i] = t == 0 ? NAN : prior[i] + (float)t / 4.0f;
  }
  vf_stereo_match_config c = vf_stereo_match_config_default();
  compare(sc, sg, &left, &right, xy, prior, NG, &c, "Cones, defaults");
  c.step_radius = 10; /* the frontend's default depth-step window */
  c.search_radius = 3;
  compare(sc, sg, &left, &right, xy, prior, NG, &c, "Cones, search radius 3, step radius 10");
  vf_image_free(&left);
  vf_image_free(&right);
  vf_image_free(&truth);
}

static void gpu_parity(void) {
  VF_TEST_REQUIRE_CUDA();
  vf_context *cpu = make_ctx(VF_BACKEND_CPU, 0), *gpu = make_ctx(VF_BACKEND_CUDA, 0);
  vf_sampler *sc = NULL, *sg = NULL;
  CHECK_OK(vf_sampler_create(cpu, NG, &sc));
  CHECK_OK(vf_sampler_create(gpu, NG, &sg));
  static float xy[2 * NG], prior[NG];
  /* Defaults; no checks and large cells (most points matched, refined and measured); the
   * largest windows over a range of 201 disparities (several per lane) from 10. */
  vf_stereo_match_config cs[3] = {vf_stereo_match_config_default(),
                                  vf_stereo_match_config_default(),
                                  vf_stereo_match_config_default()};
  cs[1].uniqueness = 0;
  cs[1].max_lr_diff = -1;
  cs[1].min_zncc = -1.0f;
  cs[1].step_radius = 12;
  cs[1].search_radius = 3;
  cs[2].min_disparity = 10;
  cs[2].max_disparity = 210;
  cs[2].prior_range = 9;
  cs[2].search_radius = 7;
  cs[2].step_radius = 15;
  cs[2].refine.radius = 10;
  const double ds[PAIRS] = {14.3, 12.0, 12.0, 12.0, 8.0, 12.0, 12.0};
  for (int k = 0; k < PAIRS; ++k) {
    vf_image left, right;
    make_pair((pair_kind)k, 50u + (unsigned)k, ds[k], &left, &right);
    random_points(70u + (unsigned)k, W, H, ds[k], xy, prior);
    for (int j = 0; j < 3; ++j) {
      char what[96];
      snprintf(what, sizeof what, "%s, configuration %d%s", pair_names[k], j,
               j == 0 ? ", no priors" : "");
      compare(sc, sg, &left, &right, xy, j == 0 ? NULL : prior, NG, &cs[j], what);
    }
    if (k == PAIR_SHIFT) compare(sc, sg, &left, &right, xy, prior, NG, &cs[0], "texture, priors");
    vf_image_free(&left);
    vf_image_free(&right);
  }
  gpu_cones(sc, sg);
  vf_sampler_destroy(sc);
  vf_sampler_destroy(sg);
  vf_context_destroy(cpu);
  vf_context_destroy(gpu);
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--gpu") == 0) {
    gpu_parity();
    VF_TEST_END("test_stereo_match --gpu");
  }
  vf_context* ctx = make_ctx(VF_BACKEND_CPU, 0);
  vf_sampler* s = NULL;
  CHECK_OK(vf_sampler_create(ctx, 1024, &s));
  known_disparities(s);
  refusals(s);
  borders(s);
  depth_edge(s);
  threads();
  arguments(ctx);
  vf_sampler_destroy(s);
  vf_context_destroy(ctx);
  VF_TEST_END("test_stereo_match");
}

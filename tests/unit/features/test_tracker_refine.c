// SPDX-License-Identifier: BSD-3-Clause
/* Reference refinement by construction (CPU backend): a procedural texture rendered exactly
 * through known maps, so every feature's true position is known in every frame.
 * - One step with zoom, rotation and shift (3%, 2 degrees: a fast video frame): refined
 *   positions within 0.05 px (median).
 * - 60 frames of growing zoom (to 1.3x), in-plane rotation (to 15 degrees) and perspective
 *   (a tilt that foreshortens one side), tracked frame to frame as a backend would: the drift
 *   from the first observation at the last frame stays <= 0.1 px (median) with refinement,
 *   where translation-only first-observation templates slide farther (printed and checked).
 * - A feature occluded mid-track by another texture ends (no longer converged) instead of
 *   sliding onto the occluder, and no converged result lies more than 1 px off its point.
 * - A camera roll with the gyroscope's rotation as the shape prior (vf_tracker_set_rotation):
 *   fewer iterations and no fewer tracks than without it; bad arguments refused.
 * - A camera yaw of 25 degrees through a wide lens: with the gyroscope's rotation the tracks do
 *   not lead their points along their motion (an affine fit to the rotation's curved warp put
 *   them about 0.06 px ahead, docs/estimator.md). */
#include "test_tracker_util.h"

static vf_context* ctx;

#define W 640
#define H 480
#define MAXF 512

/* A homography from frame-0 pixels to frame-k pixels, row-major. */
typedef struct rt_view {
  double h[9], inv[9];
} rt_view;

static void rt_invert(const double m[9], double out[9]) {
  const double a = m[4] * m[8] - m[5] * m[7], b = m[5] * m[6] - m[3] * m[8],
               c = m[3] * m[7] - m[4] * m[6];
  const double det = m[0] * a + m[1] * b + m[2] * c;
  out[0] = a / det;
  out[1] = (m[2] * m[7] - m[1] * m[8]) / det;
  out[2] = (m[1] * m[5] - m[2] * m[4]) / det;
  out[3] = b / det;
  out[4] = (m[0] * m[8] - m[2] * m[6]) / det;
  out[5] = (m[2] * m[3] - m[0] * m[5]) / det;
  out[6] = c / det;
  out[7] = (m[1] * m[6] - m[0] * m[7]) / det;
  out[8] = (m[0] * m[4] - m[1] * m[3]) / det;
}

static void rt_apply(const double m[9], double x, double y, double* ox, double* oy) {
  const double z = m[6] * x + m[7] * y + m[8];
  *ox = (m[0] * x + m[1] * y + m[2]) / z;
  *oy = (m[3] * x + m[4] * y + m[5]) / z;
}

/* Zoom s and rotation a (radians) about the image centre, a perspective term p (a tilt: the
 * scale grows by p per pixel downwards) and a shift. */
static rt_view rt_view_make(double s, double a, double p, double tx, double ty) {
  const double cx = 0.5 * (W - 1), cy = 0.5 * (H - 1);
  const double c = cos(a) * s, si = sin(a) * s;
  /* x' = c0 + R s (x - c0) + t, then the tilt divides by 1 - p (y - cy). */
  rt_view v;
  const double m[9] = {c,   -si, cx + tx - c * cx + si * cy, si, c, cy + ty - si * cx - c * cy, 0.0,
                       0.0, 1.0};
  const double tilt[9] = {1, 0, 0, 0, 1, 0, 0, -p, 1 + p * cy};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      v.h[3 * i + j] = tilt[3 * i] * m[j] + tilt[3 * i + 1] * m[3 + j] + tilt[3 * i + 2] * m[6 + j];
  rt_invert(v.h, v.inv);
  return v;
}

static void rt_map(double x, double y, const void* arg, double* sx, double* sy) {
  rt_apply(((const rt_view*)arg)->inv, x, y, sx, sy);
}

/* Occluder: a second texture over x >= edge in frame pixels. */
typedef struct rt_occluded {
  const tt_texture* front;
  double edge;
} rt_occluded;

static void rt_render(const tt_texture* tex, const rt_view* v, const rt_occluded* occ,
                      vf_image* out) {
  tt_render(tex, W, H, rt_map, v, 1.0, 0.0, out);
  if (occ == NULL) return;
  for (int y = 0; y < H; ++y)
    for (int x = (int)ceil(occ->edge); x < W; ++x)
      ((uint8_t*)out->data)[(size_t)y * out->stride_bytes + (size_t)x] =
          tt_clamp_round(tt_texture_at(occ->front, x + 1000.0, y + 1000.0));
}

/* The frontend's setting: previous-frame templates refined against the reference; without
 * refinement, first-observation templates (translation only), the best that drifts less. */
static vf_tracker_config rt_config(int refine) {
  vf_tracker_config tc = vf_tracker_config_default();
  tc.max_features = MAXF;
  tc.template_mode = refine ? VF_TEMPLATE_PREVIOUS_FRAME : VF_TEMPLATE_FIRST_OBSERVATION;
  tc.refine = refine;
  return tc;
}

static double rt_median(double* v, int n) {
  if (n == 0) return INFINITY;
  qsort(v, (size_t)n, sizeof *v, tt_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The next call's request of a converged track, as a backend keeps it: from the result, with a new
 * reference when the tracker asks for one. */
static vf_track_request rt_next(const vf_track_result* r, int slot) {
  vf_track_request next = vf_track_request_make(r->x, r->y, slot);
  next.gain = r->gain;
  next.bias = r->bias;
  next.new_template = (r->flags & VF_TRACK_REANCHOR) != 0;
  return next;
}

/* Median distance of the live tracks' positions (pos, x y pairs) from where the homography h takes
 * their first observations xy0; lost tracks count as infinite. *alive: the share still live. */
static double rt_final_drift(const double h[9], const float* xy0, const float* pos, const int* live,
                             int n, double* alive) {
  static double err[MAXF];
  int kept = 0;
  for (int i = 0; i < n; ++i) {
    err[i] = INFINITY;
    if (!live[i]) continue;
    double tx, ty;
    rt_apply(h, xy0[2 * i], xy0[2 * i + 1], &tx, &ty);
    err[i] = hypot(pos[2 * i] - tx, pos[2 * i + 1] - ty);
    ++kept;
  }
  *alive = (double)kept / n;
  return rt_median(err, n);
}

/* Tracks xy (frame 0) through views[0..frames-1] frame to frame, re-anchoring when asked.
 * Returns the median drift at the last frame over all features (lost ones count as
 * infinite); *alive: the share still tracked. */
static double rt_sequence(const tt_texture* tex, const rt_view* views, int frames, const float* xy,
                          int n, int refine, double* alive) {
  vf_tracker_config tc = rt_config(refine);
  vf_tracker* t = NULL;
  CHECK_OK(vf_tracker_create(ctx, &tc, &t));
  static vf_track_request req[MAXF];
  static vf_track_result res[MAXF];
  static float pos[2 * MAXF];
  static int live[MAXF];
  for (int i = 0; i < n; ++i) {
    req[i] = vf_track_request_make(xy[2 * i], xy[2 * i + 1], i);
    live[i] = 1;
  }
  vf_image img = {0};
  rt_render(tex, &views[0], NULL, &img);
  vf_pyramid* prev = tt_pyramid(ctx, &img, tc.levels);
  vf_image_free(&img);
  for (int k = 1; k < frames; ++k) {
    rt_render(tex, &views[k], NULL, &img);
    vf_pyramid* cur = tt_pyramid(ctx, &img, tc.levels);
    vf_image_free(&img);
    CHECK_OK(vf_tracker_track(t, prev, cur, req, n, res));
    for (int i = 0; i < n; ++i) {
      if (!live[i]) continue;
      if (res[i].status != VF_TRACK_CONVERGED) {
        live[i] = 0;
        req[i].slot = -1;
        continue;
      }
      req[i] = rt_next(&res[i], i);
      pos[2 * i] = res[i].x;
      pos[2 * i + 1] = res[i].y;
    }
    vf_pyramid_destroy(prev);
    prev = cur;
  }
  const double drift = rt_final_drift(views[frames - 1].h, xy, pos, live, n, alive);
  vf_pyramid_destroy(prev);
  vf_tracker_destroy(t);
  return drift;
}

/* Features inside the middle of frame 0, so that they stay in view over the sequence. */
static int rt_features(const tt_texture* tex, float* xy) {
  vf_image img0 = {0};
  rt_view id = rt_view_make(1, 0, 0, 0, 0);
  rt_render(tex, &id, NULL, &img0);
  static float all[2 * MAXF];
  const int m = tt_pick_corners(&img0, 24, 40, 25.0, all, MAXF);
  vf_image_free(&img0);
  int n = 0;
  for (int i = 0; i < m; ++i) {
    const float x = all[2 * i], y = all[2 * i + 1];
    if (fabsf(x - 0.5f * W) > 0.3f * W || fabsf(y - 0.5f * H) > 0.3f * H) continue;
    xy[2 * n] = x;
    xy[2 * n + 1] = y;
    ++n;
  }
  return n;
}

static void rt_one_step(const tt_texture* tex, const float* xy, int n) {
  const rt_view v[2] = {rt_view_make(1, 0, 0, 0, 0), rt_view_make(1.03, 0.035, 0.0, 2.3, -1.7)};
  double alive;
  const double on = rt_sequence(tex, v, 2, xy, n, 1, &alive);
  printf("one step (zoom 1.03, 2 deg, shift): refined median error %.4f px, %.1f%% tracked\n", on,
         100 * alive);
  CHECK(on <= 0.05);
  CHECK(alive >= 0.95);
}

static void rt_long(const tt_texture* tex, const float* xy, int n) {
  enum { FRAMES = 60 };
  static rt_view v[FRAMES];
  for (int k = 0; k < FRAMES; ++k) {
    const double f = (double)k / (FRAMES - 1);
    v[k] = rt_view_make(1.0 + 0.3 * f, 0.2618 * f, 0.0004 * f, 6.0 * sin(3.0 * f), 4.0 * f);
  }
  double alive_on, alive_off;
  const double on = rt_sequence(tex, v, FRAMES, xy, n, 1, &alive_on);
  const double off = rt_sequence(tex, v, FRAMES, xy, n, 0, &alive_off);
  printf(
      "60 frames (zoom 1.3, 15 deg, tilt): drift at the end %.4f px refined (%.1f%% alive), "
      "%.4f px translation-only (%.1f%% alive)\n",
      on, 100 * alive_on, off, 100 * alive_off);
  CHECK(on <= 0.1);
  CHECK(alive_on >= 0.9);
  CHECK(on < off);
}

/* An occluder (another texture) slides in from the right, 6 px a frame, over a scene that
 * drifts 0.7 px a frame: a feature it covers must end, never follow the occluder or report a
 * position off its point. */
static void rt_occlusion(const tt_texture* tex, const float* xy, int n) {
  enum { FRAMES = 40 };
  const tt_texture front = tt_texture_make(4243u);
  vf_tracker_config tc = rt_config(1);
  vf_tracker* t = NULL;
  CHECK_OK(vf_tracker_create(ctx, &tc, &t));
  static vf_track_request req[MAXF];
  static vf_track_result res[MAXF];
  static int live[MAXF];
  for (int i = 0; i < n; ++i) {
    req[i] = vf_track_request_make(xy[2 * i], xy[2 * i + 1], i);
    live[i] = 1;
  }
  vf_image img = {0};
  rt_view v = rt_view_make(1, 0, 0, 0, 0);
  rt_render(tex, &v, NULL, &img);
  vf_pyramid* prev = tt_pyramid(ctx, &img, tc.levels);
  vf_image_free(&img);
  int touched = 0, covered = 0, ended = 0, wrong = 0;
  for (int k = 1; k < FRAMES; ++k) {
    v = rt_view_make(1, 0, 0, 0.7 * k, 0);
    const rt_occluded occ = {&front, W - 6.0 * k};
    rt_render(tex, &v, &occ, &img);
    vf_pyramid* cur = tt_pyramid(ctx, &img, tc.levels);
    vf_image_free(&img);
    CHECK_OK(vf_tracker_track(t, prev, cur, req, n, res));
    for (int i = 0; i < n; ++i) {
      if (!live[i]) continue;
      double tx, ty;
      rt_apply(v.h, xy[2 * i], xy[2 * i + 1], &tx, &ty);
      /* The feature's own pixel, half its patch or more, under the occluder. */
      const int under = tx >= occ.edge;
      const int ok = res[i].status == VF_TRACK_CONVERGED;
      touched += tx + 10.0 >= occ.edge; /* part of its reference patch is covered */
      if (under) {
        ++covered;
        ended += !ok;
      }
      if (ok && hypot(res[i].x - tx, res[i].y - ty) > 1.0) ++wrong;
      if (!ok) {
        live[i] = 0;
        continue;
      }
      req[i] = vf_track_request_make(res[i].x, res[i].y, i);
      req[i].gain = res[i].gain;
      req[i].bias = res[i].bias;
      req[i].new_template = (res[i].flags & VF_TRACK_REANCHOR) != 0;
    }
    vf_pyramid_destroy(prev);
    prev = cur;
  }
  printf(
      "occluder: %d track-frames with part of the patch covered; %d tracks with the point "
      "itself covered, %d of them ended; %d converged results off their point by > 1 px\n",
      touched, covered, ended, wrong);
  CHECK(touched >= 10);
  CHECK(ended == covered);
  CHECK(wrong == 0);
  vf_pyramid_destroy(prev);
  vf_tracker_destroy(t);
}

/* Tracks the n points xy through views v[0..frames-1] of a camera turning by R each frame, each
 * frame guessed from the rotation (vf_tracker_predict_rotation), with (prior) or without
 * vf_tracker_set_rotation. Leaves each point's last position in pos and whether it is still
 * tracked in live; returns the mean iterations per result (frame to frame and refinement). */
static double rt_track_rotation(const tt_texture* tex, const rt_view* v, int frames,
                                const double K[4], const double R[9], int prior, const float* xy,
                                int n, float* pos, int* live) {
  vf_tracker_config tc = rt_config(1);
  vf_tracker* t = NULL;
  CHECK_OK(vf_tracker_create(ctx, &tc, &t));
  if (prior) CHECK_OK(vf_tracker_set_rotation(t, K, R));
  static vf_track_request req[MAXF];
  static vf_track_result res[MAXF];
  static float guess[2 * MAXF];
  for (int i = 0; i < n; ++i) {
    pos[2 * i] = xy[2 * i];
    pos[2 * i + 1] = xy[2 * i + 1];
    live[i] = 1;
    req[i] = vf_track_request_make(xy[2 * i], xy[2 * i + 1], i);
  }
  vf_image img = {0};
  rt_render(tex, &v[0], NULL, &img);
  vf_pyramid* prev = tt_pyramid(ctx, &img, tc.levels);
  vf_image_free(&img);
  long it_sum = 0, results = 0;
  for (int k = 1; k < frames; ++k) {
    rt_render(tex, &v[k], NULL, &img);
    vf_pyramid* cur = tt_pyramid(ctx, &img, tc.levels);
    vf_image_free(&img);
    CHECK_OK(vf_tracker_predict_rotation(K, R, pos, n, guess));
    for (int i = 0; i < n; ++i) {
      req[i].guess_x = guess[2 * i];
      req[i].guess_y = guess[2 * i + 1];
    }
    CHECK_OK(vf_tracker_track(t, prev, cur, req, n, res));
    for (int i = 0; i < n; ++i) {
      if (!live[i]) continue;
      if (res[i].status != VF_TRACK_CONVERGED) {
        live[i] = 0;
        req[i].slot = -1;
        continue;
      }
      it_sum += res[i].iterations;
      ++results;
      req[i] = rt_next(&res[i], i);
      pos[2 * i] = res[i].x;
      pos[2 * i + 1] = res[i].y;
    }
    vf_pyramid_destroy(prev);
    prev = cur;
  }
  vf_pyramid_destroy(prev);
  vf_tracker_destroy(t);
  return results > 0 ? (double)it_sum / results : 0.0;
}

/* A camera roll of 3 degrees a frame about the optical axis (every patch turns by as much), tracked
 * with the rotation's homography as the guess; with vf_tracker_set_rotation the refinement starts
 * each shape turned too. Returns the median drift at the end; *alive, *iterations: the share
 * still tracked and the mean iterations per result (frame to frame and refinement). */
static double rt_roll(const tt_texture* tex, const float* xy, int n, int prior, double* alive,
                      double* iterations) {
  enum { FRAMES = 12 };
  const double step = 3.0 * 3.14159265358979 / 180.0, c = cos(step), si = sin(step);
  /* R_c0_c1 whose homography K R^T K^-1 turns the image by +step about the principal point. */
  const double R[9] = {c, si, 0, -si, c, 0, 0, 0, 1};
  const double K[4] = {400.0, 400.0, 0.5 * (W - 1), 0.5 * (H - 1)};
  static rt_view v[FRAMES];
  for (int k = 0; k < FRAMES; ++k) v[k] = rt_view_make(1.0, step * k, 0, 0, 0);
  static float pos[2 * MAXF];
  static int live[MAXF];
  *iterations = rt_track_rotation(tex, v, FRAMES, K, R, prior, xy, n, pos, live);
  return rt_final_drift(v[FRAMES - 1].h, xy, pos, live, n, alive);
}

static void rt_rotation_prior(const tt_texture* tex, const float* xy, int n) {
  double alive_on, alive_off, it_on, it_off;
  const double on = rt_roll(tex, xy, n, 1, &alive_on, &it_on);
  const double off = rt_roll(tex, xy, n, 0, &alive_off, &it_off);
  printf(
      "roll 3 deg/frame, 11 frames: with the rotation prior drift %.4f px, %.1f%% alive, "
      "%.2f iterations; without %.4f px, %.1f%% alive, %.2f iterations\n",
      on, 100 * alive_on, it_on, off, 100 * alive_off, it_off);
  CHECK(on <= 0.1);
  CHECK(alive_on >= alive_off);
  CHECK(it_on < it_off);
  vf_tracker* t = NULL;
  vf_tracker_config tc = rt_config(1);
  CHECK_OK(vf_tracker_create(ctx, &tc, &t));
  const double K[4] = {400.0, 400.0, 320.0, 240.0}, bad_K[4] = {-1.0, 400.0, 320.0, 240.0};
  const double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, bad_R[9] = {1, 0, 0, 0, NAN, 0, 0, 0, 1};
  CHECK(vf_tracker_set_rotation(NULL, K, R) == VF_ERR_INVALID_ARG);
  CHECK(vf_tracker_set_rotation(t, NULL, R) == VF_ERR_INVALID_ARG);
  CHECK(vf_tracker_set_rotation(t, bad_K, R) == VF_ERR_INVALID_ARG);
  CHECK(vf_tracker_set_rotation(t, K, bad_R) == VF_ERR_INVALID_ARG);
  CHECK_OK(vf_tracker_set_rotation(t, K, R));
  CHECK_OK(vf_tracker_set_rotation(t, NULL, NULL));
  vf_tracker_destroy(t);
}

/* A yaw of 1 degree a frame seen with f = 300 px (about 5 px a frame, 140 px in all), tracked
 * with the rotation's guess, with (prior) or without vf_tracker_set_rotation. Returns the mean
 * signed error of the live tracks at the end along their motion (+: ahead of their point);
 * *alive: the share still tracked. */
static double rt_yaw(const tt_texture* tex, const float* xy, int n, int prior, double* alive) {
  enum { FRAMES = 26 };
  const double step = 3.14159265358979 / 180.0, c = cos(step), si = sin(step);
  const double K[4] = {300.0, 300.0, 0.5 * (W - 1), 0.5 * (H - 1)};
  const double R[9] = {c, 0, si, 0, 1, 0, -si, 0, c};
  /* One frame's homography K R^T K^-1 and its powers: frame 0 to frame k. */
  const double Ki[9] = {1 / K[0], 0, -K[2] / K[0], 0, 1 / K[1], -K[3] / K[1], 0, 0, 1};
  const double Km[9] = {K[0], 0, K[2], 0, K[1], K[3], 0, 0, 1};
  double rk[9], h1[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      rk[3 * i + j] = R[i] * Ki[j] + R[3 + i] * Ki[3 + j] + R[6 + i] * Ki[6 + j];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      h1[3 * i + j] = Km[3 * i] * rk[j] + Km[3 * i + 1] * rk[3 + j] + Km[3 * i + 2] * rk[6 + j];
  static rt_view v[FRAMES];
  const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  memcpy(v[0].h, id, sizeof id);
  for (int k = 1; k < FRAMES; ++k) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        v[k].h[3 * i + j] = h1[3 * i] * v[k - 1].h[j] + h1[3 * i + 1] * v[k - 1].h[3 + j] +
                            h1[3 * i + 2] * v[k - 1].h[6 + j];
  }
  for (int k = 0; k < FRAMES; ++k) rt_invert(v[k].h, v[k].inv);
  static float pos[2 * MAXF];
  static int live[MAXF];
  rt_track_rotation(tex, v, FRAMES, K, R, prior, xy, n, pos, live);
  double lead = 0.0;
  int kept = 0;
  for (int i = 0; i < n; ++i) {
    if (!live[i]) continue;
    double tx, ty;
    rt_apply(v[FRAMES - 1].h, xy[2 * i], xy[2 * i + 1], &tx, &ty);
    const double mx = tx - xy[2 * i], my = ty - xy[2 * i + 1], m = hypot(mx, my);
    lead += ((pos[2 * i] - tx) * mx + (pos[2 * i + 1] - ty) * my) / m;
    ++kept;
  }
  *alive = (double)kept / n;
  return kept > 0 ? lead / kept : INFINITY;
}

static void rt_yaw_lead(const tt_texture* tex, const float* xy, int n) {
  double alive_on, alive_off;
  const double on = rt_yaw(tex, xy, n, 1, &alive_on);
  const double off = rt_yaw(tex, xy, n, 0, &alive_off);
  printf(
      "yaw 1 deg/frame, 25 frames, f = 300 px: mean lead along the motion %+.4f px with the "
      "rotation (%.1f%% alive), %+.4f px without (%.1f%% alive)\n",
      on, 100 * alive_on, off, 100 * alive_off);
  CHECK(alive_on >= 0.5 && fabs(on) <= 0.015);
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&cc, &ctx));
  const tt_texture tex = tt_texture_make(777u);
  static float xy[2 * MAXF];
  const int n = rt_features(&tex, xy);
  printf("%d features\n", n);
  CHECK(n >= 50);
  rt_one_step(&tex, xy, n);
  rt_long(&tex, xy, n);
  rt_occlusion(&tex, xy, n);
  rt_rotation_prior(&tex, xy, n);
  rt_yaw_lead(&tex, xy, n);
  vf_context_destroy(ctx);
  VF_TEST_END("test_tracker_refine");
}

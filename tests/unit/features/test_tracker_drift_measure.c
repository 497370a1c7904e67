// SPDX-License-Identifier: BSD-3-Clause
/* The drift harness itself (examples/vf_drift), not the tracker's drift: the homographies are
 * what the configuration says (identity at frame 0, the zoom, rotation and tilt at the last
 * frame, the image centre fixed); an integer translation renders exactly the shifted pixels; a
 * sub-pixel translation puts the picture where the truth says, by a whole-image estimate that
 * does not use the tracker; with no motion every track stays put with no drift; with a pure
 * translation the tracks agree with the truth mapping; the change bins take what they should. */
#include <math.h>
#include <stdlib.h>

#include "drift_measure.h"
#include "vf_test.h"

#define W 376
#define H 240
#define PI_ 3.14159265358979323846

static drift_options small_options(int frames) {
  drift_options o = drift_options_default();
  o.sequence.width = W;
  o.sequence.height = H;
  o.sequence.frames = frames;
  o.sequence.seed = 7;
  return o;
}

static void check_homographies(void) {
  drift_sequence_config c = small_options(31).sequence;
  c.motion.zoom = 1.3;
  c.motion.rotation_deg = 15;
  drift_sequence* s = NULL;
  CHECK_OK(drift_sequence_create(&c, &s));
  double H0[9], Hl[9], scale, rot, x, y;
  drift_sequence_homography(s, 0, H0);
  double off = 0;
  for (int i = 0; i < 9; ++i) off = fmax(off, fabs(H0[i] - (i % 4 == 0 ? 1.0 : 0.0)));
  drift_sequence_homography(s, 30, Hl);
  drift_h_local(Hl, 40.0, 200.0, &scale, &rot);
  drift_h_apply(Hl, 0.5 * (W - 1), 0.5 * (H - 1), &x, &y);
  printf(
      "H_0 off identity by %.2g; last frame: scale %.6f rotation %.6f deg, centre -> (%.6f, "
      "%.6f)\n",
      off, scale, rot, x, y);
  CHECK(off < 1e-12);
  CHECK_NEAR(scale, 1.3, 1e-9);
  CHECK_NEAR(rot, 15.0, 1e-9);
  CHECK_NEAR(x, 0.5 * (W - 1), 1e-9);
  CHECK_NEAR(y, 0.5 * (H - 1), 1e-9);
  drift_sequence_destroy(s);
  /* A tilt keeps the centre and foreshortens it vertically by cos(tilt). */
  c.motion.zoom = 1.0;
  c.motion.rotation_deg = 0;
  c.motion.tilt_deg = 20;
  CHECK_OK(drift_sequence_create(&c, &s));
  drift_sequence_homography(s, 30, Hl);
  drift_h_local(Hl, 0.5 * (W - 1), 0.5 * (H - 1), &scale, &rot);
  drift_h_apply(Hl, 0.5 * (W - 1), 0.5 * (H - 1), &x, &y);
  printf("tilt 20 deg: centre scale %.6f (sqrt(cos 20) %.6f), rotation %.2g, centre moved %.2g\n",
         scale, sqrt(cos(20 * PI_ / 180)), rot, hypot(x - 0.5 * (W - 1), y - 0.5 * (H - 1)));
  CHECK_NEAR(scale, sqrt(cos(20 * PI_ / 180)), 1e-9);
  CHECK_NEAR(rot, 0.0, 1e-9);
  CHECK_NEAR(hypot(x - 0.5 * (W - 1), y - 0.5 * (H - 1)), 0.0, 1e-9);
  drift_sequence_destroy(s);
}

static double pix(const vf_image* im, int x, int y) {
  return ((const uint8_t*)im->data)[(size_t)y * im->stride_bytes + (size_t)x];
}

/* A frame smoothed by a Gaussian (sigma 2 px, edges replicated): a filter that commutes with
 * translation, and leaves content smooth enough for bilinear look-ups to be exact to well
 * under 0.01 px. */
typedef struct smooth_image {
  double* v;
  int w, h;
} smooth_image;

static smooth_image smooth(const vf_image* im) {
  smooth_image s = {malloc(sizeof(double) * im->width * im->height), im->width, im->height};
  double* tmp = malloc(sizeof(double) * im->width * im->height);
  double k[13], sum = 0;
  for (int i = 0; i < 13; ++i) sum += k[i] = exp(-0.125 * (i - 6) * (i - 6));
  for (int y = 0; y < s.h; ++y) {
    for (int x = 0; x < s.w; ++x) {
      double acc = 0;
      for (int i = 0; i < 13; ++i) {
        const int xx = x + i - 6 < 0 ? 0 : x + i - 6 >= s.w ? s.w - 1 : x + i - 6;
        acc += k[i] * pix(im, xx, y);
      }
      tmp[(size_t)y * s.w + x] = acc / sum;
    }
  }
  for (int y = 0; y < s.h; ++y) {
    for (int x = 0; x < s.w; ++x) {
      double acc = 0;
      for (int i = 0; i < 13; ++i) {
        const int yy = y + i - 6 < 0 ? 0 : y + i - 6 >= s.h ? s.h - 1 : y + i - 6;
        acc += k[i] * tmp[(size_t)yy * s.w + x];
      }
      s.v[(size_t)y * s.w + x] = acc / sum;
    }
  }
  free(tmp);
  return s;
}

static double bilinear(const smooth_image* im, double x, double y) {
  const int ix = (int)floor(x), iy = (int)floor(y);
  const double fx = x - ix, fy = y - iy;
  const double* p = &im->v[(size_t)iy * im->w + ix];
  return (1 - fx) * (1 - fy) * p[0] + fx * (1 - fy) * p[1] + (1 - fx) * fy * p[im->w] +
         fx * fy * p[im->w + 1];
}

/* The shift e with b(x + e/2) = a(x - e/2) over the interior, by Gauss-Newton on the smoothed
 * frames: both are resampled by half of it, so that interpolation treats them alike. */
static void global_shift(const vf_image* fa, const vf_image* fb, double e[2]) {
  smooth_image a = smooth(fa), b = smooth(fb);
  e[0] = e[1] = 0;
  for (int it = 0; it < 20; ++it) {
    double A[3] = {0}, g[2] = {0};
    for (int y = 16; y < a.h - 16; ++y) {
      for (int x = 16; x < a.w - 16; ++x) {
        const double bx = x + e[0] / 2, by = y + e[1] / 2, ax = x - e[0] / 2, ay = y - e[1] / 2;
        const double r = bilinear(&b, bx, by) - bilinear(&a, ax, ay);
        const double gx = 0.25 * (bilinear(&b, bx + 1, by) - bilinear(&b, bx - 1, by) +
                                  bilinear(&a, ax + 1, ay) - bilinear(&a, ax - 1, ay));
        const double gy = 0.25 * (bilinear(&b, bx, by + 1) - bilinear(&b, bx, by - 1) +
                                  bilinear(&a, ax, ay + 1) - bilinear(&a, ax, ay - 1));
        A[0] += gx * gx, A[1] += gx * gy, A[2] += gy * gy;
        g[0] += gx * r, g[1] += gy * r;
      }
    }
    const double det = A[0] * A[2] - A[1] * A[1];
    e[0] -= (A[2] * g[0] - A[1] * g[1]) / det;
    e[1] -= (A[0] * g[1] - A[1] * g[0]) / det;
  }
  free(a.v);
  free(b.v);
}

static void check_rendering(void) {
  drift_sequence_config c = small_options(3).sequence;
  c.motion.shift_x = 3;
  c.motion.shift_y = -2;
  drift_sequence* s = NULL;
  vf_image f0 = {0}, f1 = {0};
  CHECK_OK(vf_image_alloc(&f0, W, H, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&f1, W, H, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(drift_sequence_create(&c, &s));
  CHECK_OK(drift_sequence_render(s, 0, &f0));
  CHECK_OK(drift_sequence_render(s, 1, &f1));
  long differ = 0;
  for (int y = 2; y < H; ++y) {
    for (int x = 0; x < W - 3; ++x) differ += pix(&f1, x + 3, y - 2) != pix(&f0, x, y);
  }
  printf("integer shift (3, -2): %ld of %d pixels differ from frame 0 moved\n", differ,
         (W - 3) * (H - 2));
  CHECK(differ == 0);
  drift_sequence_destroy(s);
  /* Sub-pixel shifts, measured without the tracker. */
  const double shifts[3][2] = {{0.37, -0.21}, {0.5, 0.5}, {-1.73, 0.9}};
  double worst = 0;
  for (int i = 0; i < 3; ++i) {
    c.motion.shift_x = shifts[i][0];
    c.motion.shift_y = shifts[i][1];
    CHECK_OK(drift_sequence_create(&c, &s));
    CHECK_OK(drift_sequence_render(s, 0, &f0));
    CHECK_OK(drift_sequence_render(s, 1, &f1));
    double e[2];
    global_shift(&f0, &f1, e);
    worst = fmax(worst, hypot(e[0] - shifts[i][0], e[1] - shifts[i][1]));
    printf("sub-pixel shift (%.2f, %.2f): whole-image estimate (%.4f, %.4f)\n", shifts[i][0],
           shifts[i][1], e[0], e[1]);
    drift_sequence_destroy(s);
  }
  CHECK(worst < 0.01);
  vf_image_free(&f0);
  vf_image_free(&f1);
}

static void check_measure(void) {
  drift_stats st;
  /* No motion: every frame is frame 0, so no track moves. Tracks end only where the patch
   * leaves the image (the detector's border is narrower), and the cell refills at once, so
   * the tracks alive at the end are those of frame 0, observed in every frame. */
  drift_options o = small_options(10);
  /* The harness refills every frame itself: no back-off of cells whose new track failed. */
  o.features.detect_every = 0;
  CHECK_OK(drift_measure_run(&o, &st));
  printf(
      "no motion: %ld tracks, %ld alive at the end (mean age %.2f), drift mean %.4f px, p90 "
      "%.4f px\n",
      st.tracks, st.last_frame.count, st.last_frame_age, st.drift.mean, st.drift.p90);
  CHECK(st.last_frame.count > 50 && st.last_frame_age == 9.0);
  CHECK(st.observations == 9 * st.last_frame.count);
  CHECK(st.drift.mean < 1e-3 && st.drift.p90 < 1e-3);
  CHECK(st.max_scale_change < 1e-12 && st.max_rotation_deg < 1e-9);
  CHECK(st.by_age[1].count == 3 * st.last_frame.count && st.by_age[3].count == 0);
  /* Whole-pixel translation: the tracks land on the truth exactly (a truth mapping off by a
   * sign or a frame would miss by pixels). */
  o = small_options(20);
  o.sequence.motion.shift_x = 2;
  o.sequence.motion.shift_y = -1;
  CHECK_OK(drift_measure_run(&o, &st));
  printf("shift (2, -1) px/frame: %ld observations, drift median %.4f px, step median %.4f px\n",
         st.observations, st.drift.median, st.step.median);
  CHECK(st.observations > 1000 && st.drift.median < 0.01 && st.step.median < 0.01);
  /* Sub-pixel translation: the tracker's own error (a few hundredths), nothing of a pixel. */
  o.sequence.motion.shift_x = 1.37;
  o.sequence.motion.shift_y = -0.61;
  CHECK_OK(drift_measure_run(&o, &st));
  printf("shift (1.37, -0.61) px/frame: drift median %.4f px, within 0.5 px %.1f%%\n",
         st.drift.median, 100 * st.within[1]);
  CHECK(st.drift.median < 0.1 && st.within[1] > 0.95);
  /* Zoom only: scale bins fill up to the zoom, rotation stays in its first bin. */
  o.sequence.motion.zoom = 1.25;
  o.sequence.motion.shift_x = o.sequence.motion.shift_y = 0;
  CHECK_OK(drift_measure_run(&o, &st));
  printf("zoom 1.25: largest scale change %.4f, rotation %.2g deg, >20%% bin %ld observations\n",
         st.max_scale_change, st.max_rotation_deg, st.by_scale[DRIFT_SCALE_BINS - 1].count);
  CHECK(st.max_scale_change <= 0.25 + 1e-6 && st.max_scale_change > 0.2);
  CHECK(st.by_scale[DRIFT_SCALE_BINS - 1].count > 0);
  CHECK(st.by_rotation[0].count == st.observations && st.max_rotation_deg < 1e-6);
}

int main(void) {
  check_homographies();
  check_rendering();
  check_measure();
  VF_TEST_END("test_tracker_drift_measure");
}

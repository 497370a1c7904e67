// SPDX-License-Identifier: BSD-3-Clause
/* Shared pieces of the tracker tests: images with known motion (real photographs warped by a
 * sub-pixel translation and a gain/bias, and a procedural texture rendered exactly at any
 * offset), corner picking without the detector (Shi-Tomasi score, best per cell), pyramids
 * built from host images, and error statistics. */
#ifndef TEST_TRACKER_UTIL_H
#define TEST_TRACKER_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <viofront/viofront.h>

#include "vf_test.h"

static inline uint8_t tt_clamp_round(double v) {
  v = floor(v + 0.5);
  return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

static inline double tt_pixel(const vf_image* im, int x, int y) {
  x = x < 0 ? 0 : x >= im->width ? im->width - 1 : x;
  y = y < 0 ? 0 : y >= im->height ? im->height - 1 : y;
  return ((const uint8_t*)im->data)[(size_t)y * im->stride_bytes + (size_t)x];
}

/* out(x) = gain * in(x - d) + bias, bilinear, rounded to 8 bits (edges replicated): the warp of
 * TARGETS.md's vilib comparison. Bilinear interpolation also blurs by up to a quarter pixel^2. */
static inline void tt_warp(const vf_image* in, double dx, double dy, double gain, double bias,
                           vf_image* out) {
  CHECK_OK(vf_image_alloc(out, in->width, in->height, VF_PIXEL_U8, VF_MEMORY_HOST));
  for (int y = 0; y < in->height; ++y) {
    for (int x = 0; x < in->width; ++x) {
      const double sx = x - dx, sy = y - dy;
      const int ix = (int)floor(sx), iy = (int)floor(sy);
      const double fx = sx - ix, fy = sy - iy;
      const double v =
          (1 - fx) * (1 - fy) * tt_pixel(in, ix, iy) + fx * (1 - fy) * tt_pixel(in, ix + 1, iy) +
          (1 - fx) * fy * tt_pixel(in, ix, iy + 1) + fx * fy * tt_pixel(in, ix + 1, iy + 1);
      ((uint8_t*)out->data)[(size_t)y * out->stride_bytes + (size_t)x] =
          tt_clamp_round(gain * v + bias);
    }
  }
}

/* The 6 Lanczos-3 weights for a source point f in [0, 1) past tap 0 (taps -2..3), normalised. */
static inline void tt_lanczos_weights(double f, double w[6]) {
  double sum = 0;
  for (int j = 0; j < 6; ++j) {
    const double t = f - (j - 2), pt = 3.141592653589793 * t;
    w[j] = fabs(t) < 1e-12 ? 1.0 : 3.0 * sin(pt) * sin(pt / 3.0) / (pt * pt);
    sum += w[j];
  }
  for (int j = 0; j < 6; ++j) w[j] /= sum;
}

/* The same move with Lanczos-3 interpolation: close to the band-limited shift of the scene,
 * without bilinear's blur. */
static inline void tt_warp_lanczos(const vf_image* in, double dx, double dy, double gain,
                                   double bias, vf_image* out) {
  CHECK_OK(vf_image_alloc(out, in->width, in->height, VF_PIXEL_U8, VF_MEMORY_HOST));
  const int w = in->width, h = in->height;
  double* rows = malloc((size_t)w * (size_t)h * sizeof *rows);
  if (rows == NULL) return;
  double wx[6], wy[6];
  const int ox = (int)floor(-dx), oy = (int)floor(-dy);
  tt_lanczos_weights(-dx - ox, wx);
  tt_lanczos_weights(-dy - oy, wy);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      double v = 0;
      for (int j = 0; j < 6; ++j) v += wx[j] * tt_pixel(in, x + ox + j - 2, y);
      rows[(size_t)y * w + x] = v;
    }
  }
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      double v = 0;
      for (int j = 0; j < 6; ++j) {
        int yy = y + oy + j - 2;
        yy = yy < 0 ? 0 : yy >= h ? h - 1 : yy;
        v += wy[j] * rows[(size_t)yy * w + x];
      }
      ((uint8_t*)out->data)[(size_t)y * out->stride_bytes + (size_t)x] =
          tt_clamp_round(gain * v + bias);
    }
  }
  free(rows);
}

/* A smooth procedural texture: a sum of plane waves of wavelengths 6..60 px in many directions,
 * defined at every real point, so a shifted copy is rendered exactly. */
typedef struct tt_texture {
  double kx[16], ky[16], phase[16], amp[16];
} tt_texture;

static inline tt_texture tt_texture_make(unsigned seed) {
  tt_texture t;
  for (int i = 0; i < 16; ++i) {
    const double angle = 6.283185307179586 * (vf_test_rand(&seed) % 3600) / 3600.0;
    const double wavelength = 6.0 + 54.0 * (vf_test_rand(&seed) % 1000) / 1000.0;
    const double k = 6.283185307179586 / wavelength;
    t.kx[i] = k * cos(angle);
    t.ky[i] = k * sin(angle);
    t.phase[i] = 6.283185307179586 * (vf_test_rand(&seed) % 1000) / 1000.0;
    t.amp[i] = 8.0 + 8.0 * (vf_test_rand(&seed) % 1000) / 1000.0;
  }
  return t;
}

/* sin(a) for the texture, |a| < 1e6: a table of 1024 steps per turn and the angle-sum rule with
 * short Taylor series for the remainder |d| <= pi / 1024 (error below 1e-15 + |a| 1e-16). A
 * quarter of libm's sin()'s operations: under qemu-user every double operation is emulated in
 * software, and libm's sin() made the tracker tests crawl there (docs/jetson.md). */
static inline double tt_sin(double a) {
  enum { TT_SIN_STEPS = 1024 };
  static double tab_s[TT_SIN_STEPS], tab_c[TT_SIN_STEPS];
  static int ready = 0;
  const double step = 6.283185307179586 / TT_SIN_STEPS;
  if (!ready) {
    for (int i = 0; i < TT_SIN_STEPS; ++i) {
      tab_s[i] = sin(i * step);
      tab_c[i] = cos(i * step);
    }
    ready = 1;
  }
  /* k = a / step rounded to nearest by the 1.5 * 2^52 trick (no division, no libm call). */
  const double k =
      (a * (TT_SIN_STEPS / 6.283185307179586) + 6755399441055744.0) - 6755399441055744.0;
  const double d = a - k * step, d2 = d * d;
  const int i = (int)((int64_t)k & (TT_SIN_STEPS - 1));
  const double sd = d * (1.0 - d2 / 6.0 * (1.0 - d2 / 20.0));
  const double cd = 1.0 - d2 / 2.0 * (1.0 - d2 / 12.0 * (1.0 - d2 / 30.0));
  return tab_s[i] * cd + tab_c[i] * sd;
}

static inline double tt_texture_at(const tt_texture* t, double x, double y) {
  double v = 128.0;
  for (int i = 0; i < 16; ++i) v += t->amp[i] * tt_sin(t->kx[i] * x + t->ky[i] * y + t->phase[i]);
  return v;
}

/* The texture seen through a map from output pixels to texture points, with gain and bias. */
typedef void (*tt_map_fn)(double x, double y, const void* arg, double* sx, double* sy);

static inline void tt_map_shift(double x, double y, const void* arg, double* sx, double* sy) {
  const double* d = arg;
  *sx = x - d[0];
  *sy = y - d[1];
}

/* Zoom z and rotation a about (320, 240), then a shift: output pixel -> texture point. */
static inline void tt_map_similarity(double x, double y, const void* arg, double* sx, double* sy) {
  const double* m = arg; /* z, a, dx, dy */
  const double u = x - 320.0 - m[2], v = y - 240.0 - m[3];
  const double c = cos(m[1]) / m[0], s = sin(m[1]) / m[0];
  *sx = 320.0 + c * u + s * v;
  *sy = 240.0 - s * u + c * v;
}

/* A row of the texture at (x0 + i, y), i = 0..w-1, into v: each wave's sine advanced along the
 * row by the angle-sum rule (one sin and cos per wave and row, not per pixel; the difference
 * from sin() is ~1e-12 grey levels). Under qemu-user every double operation is emulated, and 16
 * libm sin() per pixel made the tracker tests crawl (docs/jetson.md). */
static inline void tt_texture_row(const tt_texture* t, double x0, double y, int w, double* v) {
  for (int x = 0; x < w; ++x) v[x] = 128.0;
  for (int i = 0; i < 16; ++i) {
    const double a0 = t->kx[i] * x0 + t->ky[i] * y + t->phase[i];
    const double ds = sin(t->kx[i]), dc = cos(t->kx[i]);
    double s = sin(a0), c = cos(a0);
    for (int x = 0; x < w; ++x) {
      v[x] += t->amp[i] * s;
      const double s1 = s * dc + c * ds;
      c = c * dc - s * ds;
      s = s1;
    }
  }
}

static inline void tt_render(const tt_texture* t, int w, int h, tt_map_fn map, const void* arg,
                             double gain, double bias, vf_image* out) {
  CHECK_OK(vf_image_alloc(out, w, h, VF_PIXEL_U8, VF_MEMORY_HOST));
  if (map == NULL || map == tt_map_shift) {
    const double* d = arg;
    double* row = malloc((size_t)w * sizeof *row);
    CHECK(row != NULL);
    for (int y = 0; row != NULL && y < h; ++y) {
      tt_texture_row(t, d != NULL ? -d[0] : 0.0, d != NULL ? y - d[1] : y, w, row);
      uint8_t* o = (uint8_t*)out->data + (size_t)y * out->stride_bytes;
      for (int x = 0; x < w; ++x) o[x] = tt_clamp_round(gain * row[x] + bias);
    }
    free(row);
    return;
  }
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      double sx = x, sy = y;
      if (map != NULL) map(x, y, arg, &sx, &sy);
      ((uint8_t*)out->data)[(size_t)y * out->stride_bytes + (size_t)x] =
          tt_clamp_round(gain * tt_texture_at(t, sx, sy) + bias);
    }
  }
}

/* Good features to track (Shi and Tomasi 1994): the smaller eigenvalue of the gradient
 * structure tensor over the tracker's 16x16 window, per pixel (grey levels^2 / px^2). The best
 * pixel per cell x cell block, `margin` px from the edges, is kept when its score reaches
 * min_score. Returns the count; scores (may be NULL) gets each one's score. */
static inline int tt_pick_corners_scored(const vf_image* im, int cell, int margin, double min_score,
                                         float* xy, float* scores, int max) {
  const int w = im->width, h = im->height, win = 16;
  /* Integral images of gx^2, gx gy, gy^2 (one row and column of zeros in front). */
  double* ii = calloc((size_t)(w + 1) * (size_t)(h + 1) * 3, sizeof *ii);
  if (ii == NULL) return 0;
#define TT_II(x, y, c) ii[(((size_t)(y) * (size_t)(w + 1)) + (size_t)(x)) * 3 + (c)]
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const double gx = 0.5 * (tt_pixel(im, x + 1, y) - tt_pixel(im, x - 1, y));
      const double gy = 0.5 * (tt_pixel(im, x, y + 1) - tt_pixel(im, x, y - 1));
      const double g[3] = {gx * gx, gx * gy, gy * gy};
      for (int c = 0; c < 3; ++c) {
        TT_II(x + 1, y + 1, c) = g[c] + TT_II(x, y + 1, c) + TT_II(x + 1, y, c) - TT_II(x, y, c);
      }
    }
  }
  int n = 0;
  for (int cy = margin; cy + cell <= h - margin; cy += cell) {
    for (int cx = margin; cx + cell <= w - margin; cx += cell) {
      double best = min_score;
      int bx = -1, by = -1;
      for (int y = cy; y < cy + cell; ++y) {
        for (int x = cx; x < cx + cell; ++x) {
          const int x0 = x - win / 2, y0 = y - win / 2, x1 = x0 + win, y1 = y0 + win;
          double s[3];
          for (int c = 0; c < 3; ++c) {
            s[c] = (TT_II(x1, y1, c) - TT_II(x0, y1, c) - TT_II(x1, y0, c) + TT_II(x0, y0, c)) /
                   (win * win);
          }
          const double score =
              0.5 * (s[0] + s[2] - sqrt((s[0] - s[2]) * (s[0] - s[2]) + 4 * s[1] * s[1]));
          if (score > best) {
            best = score;
            bx = x;
            by = y;
          }
        }
      }
      if (bx >= 0 && n < max) {
        xy[2 * n] = (float)bx;
        xy[2 * n + 1] = (float)by;
        if (scores != NULL) scores[n] = (float)best;
        ++n;
      }
    }
  }
#undef TT_II
  free(ii);
  return n;
}

static inline int tt_pick_corners(const vf_image* im, int cell, int margin, double min_score,
                                  float* xy, int max) {
  return tt_pick_corners_scored(im, cell, margin, min_score, xy, NULL, max);
}

/* A pyramid of `levels` levels built from a host image on ctx's backend. */
/* Two results with the same bits in every field. */
static inline int tt_same_bits(const vf_track_result* a, const vf_track_result* b) {
  const float fa[] = {a->x,        a->y,        a->gain,     a->bias,     a->residual, a->ncc,
                      a->shape[0], a->shape[1], a->shape[2], a->shape[3], a->frame_x,  a->frame_y};
  const float fb[] = {b->x,        b->y,        b->gain,     b->bias,     b->residual, b->ncc,
                      b->shape[0], b->shape[1], b->shape[2], b->shape[3], b->frame_x,  b->frame_y};
  return a->status == b->status && a->flags == b->flags && a->iterations == b->iterations &&
         memcmp(fa, fb, sizeof fa) == 0;
}

static inline vf_pyramid* tt_pyramid(vf_context* ctx, const vf_image* host, int levels) {
  vf_pyramid_config pc = {host->width, host->height, levels};
  vf_pyramid* p = NULL;
  CHECK_OK(vf_pyramid_create(ctx, &pc, &p));
  if (p != NULL) CHECK_OK(vf_pyramid_build(p, host));
  return p;
}

static inline int tt_cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

typedef struct tt_stats {
  int count;
  double converged; /* fraction */
  double median;    /* px; failures count as infinite error */
  double within;    /* fraction within the bound */
} tt_stats;

/* Error statistics of results against truth (count pairs); non-converged results count as
 * infinitely wrong. */
static inline tt_stats tt_evaluate(const vf_track_result* res, const float* truth, int count,
                                   double bound) {
  tt_stats st = {count, 0, INFINITY, 0};
  if (count <= 0) return st;
  double* err = malloc((size_t)(unsigned)count * sizeof *err);
  if (err == NULL) return st;
  int conv = 0, within = 0;
  for (int i = 0; i < count; ++i) {
    err[i] = INFINITY;
    if (res[i].status == VF_TRACK_CONVERGED) {
      ++conv;
      err[i] = hypot(res[i].x - truth[2 * i], res[i].y - truth[2 * i + 1]);
      within += err[i] <= bound;
    }
  }
  qsort(err, (size_t)count, sizeof *err, tt_cmp_double);
  st.converged = (double)conv / count;
  st.median = count % 2 ? err[count / 2] : 0.5 * (err[count / 2 - 1] + err[count / 2]);
  st.within = (double)within / count;
  free(err);
  return st;
}

#endif

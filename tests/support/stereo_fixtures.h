// SPDX-License-Identifier: BSD-3-Clause
/* Synthetic stereo pairs for the stereo tests: random dots at a constant disparity, and a
 * smooth texture on a slanted plane with known disparity. */
#ifndef STEREO_FIXTURES_H
#define STEREO_FIXTURES_H

#include <math.h>
#include <stdint.h>
#include <viofront/viofront.h>

#include "vf_test.h"

static inline uint8_t* fx_row(vf_image* im, int y) {
  return (uint8_t*)im->data + (size_t)y * im->stride_bytes;
}

static inline uint16_t fx_at16(const vf_image* im, int x, int y) {
  return ((const uint16_t*)((const uint8_t*)im->data + (size_t)y * im->stride_bytes))[x];
}

/* Runs configuration c once on host images: new host outputs out (and outf when not NULL). */
static inline vf_status fx_run(vf_context* ctx, const vf_stereo_config* c, const vf_image* l,
                               const vf_image* r, vf_image* out, vf_image* outf) {
  vf_stereo* s = NULL;
  vf_status st = vf_stereo_create(ctx, c, &s);
  if (st != VF_OK) return st;
  vf_image_alloc(out, c->width, c->height, VF_PIXEL_U16, VF_MEMORY_HOST);
  if (outf != NULL) vf_image_alloc(outf, c->width, c->height, VF_PIXEL_F32, VF_MEMORY_HOST);
  st = vf_stereo_compute(s, l, r, out, outf);
  vf_stereo_destroy(s);
  return st;
}

/* Right image random dots; left(x) = right(x - d), fresh dots where x < d (occluded). */
static inline void fx_random_dots(int w, int h, int d, unsigned seed, vf_image* left,
                                  vf_image* right) {
  vf_image_alloc(left, w, h, VF_PIXEL_U8, VF_MEMORY_HOST);
  vf_image_alloc(right, w, h, VF_PIXEL_U8, VF_MEMORY_HOST);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) fx_row(right, y)[x] = (uint8_t)vf_test_rand(&seed);
    for (int x = 0; x < w; ++x) {
      fx_row(left, y)[x] = x >= d ? fx_row(right, y)[x - d] : (uint8_t)vf_test_rand(&seed);
    }
  }
}

/* A smooth texture (sum of sines) sampled at real-valued x. */
static inline double fx_texture(double x, int y) {
  return 128.0 + 45.0 * sin(0.61 * x + 0.37 * y) + 35.0 * sin(0.23 * x - 0.52 * y + 1.0) +
         25.0 * sin(1.37 * x + 0.11 * y * y * 0.01 + 2.0);
}

/* Plane d(x, y) = d0 + ax * x + ay * y: right(x) = T(x), left(x) = T(x - d(x, y)). */
static inline double fx_plane_disparity(int x, int y) { return 20.0 + 0.04 * x + 0.02 * y; }

static inline void fx_slanted_plane(int w, int h, vf_image* left, vf_image* right) {
  vf_image_alloc(left, w, h, VF_PIXEL_U8, VF_MEMORY_HOST);
  vf_image_alloc(right, w, h, VF_PIXEL_U8, VF_MEMORY_HOST);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      fx_row(right, y)[x] = (uint8_t)lrint(fx_texture(x, y));
      fx_row(left, y)[x] = (uint8_t)lrint(fx_texture(x - fx_plane_disparity(x, y), y));
    }
  }
}

/* Random image with some structure (for GPU/CPU parity on odd sizes). */
static inline void fx_random_pair(int w, int h, int d, unsigned seed, vf_image* left,
                                  vf_image* right) {
  fx_random_dots(w, h, d, seed, left, right);
  /* Blur-free variation: a second disparity on the lower half makes the paths disagree. */
  for (int y = h / 2; y < h; ++y) {
    for (int x = d + 7; x < w; ++x) fx_row(left, y)[x] = fx_row(right, y)[x - d - 7];
  }
}

/* Runs c (size and method set, sub-pixel on) on a 200x60 slanted plane: every pixel of the
 * interior within 0.5 px of the plane, at most 2% invalid, the float map equal to the 16-bit. */
static inline void fx_check_plane(vf_context* ctx, vf_stereo_config c, const char* label) {
  const int w = 200, h = 60;
  vf_image l, r, out, outf;
  fx_slanted_plane(w, h, &l, &r);
  c.width = w;
  c.height = h;
  CHECK_OK(fx_run(ctx, &c, &l, &r, &out, &outf));
  long n = 0, far = 0, invalid = 0;
  double worst = 0.0;
  for (int y = 4; y < h - 4; ++y) {
    for (int x = 40; x < w - 5; ++x) {
      float v = ((const float*)((const uint8_t*)outf.data + (size_t)y * outf.stride_bytes))[x];
      ++n;
      if (isnan(v)) {
        ++invalid;
        continue;
      }
      CHECK(fx_at16(&out, x, y) != VF_STEREO_INVALID &&
            fabsf(v - fx_at16(&out, x, y) / 16.0f) < 1e-6f);
      double e = fabs(v - fx_plane_disparity(x, y));
      if (e > worst) worst = e;
      far += e > 0.5;
    }
  }
  printf("slanted plane, %s: %ld of %ld pixels beyond 0.5 px, %ld invalid, worst %.3f px\n", label,
         far, n, invalid, worst);
  CHECK(far == 0);
  CHECK(invalid <= n / 50);
  vf_image_free(&l);
  vf_image_free(&r);
  vf_image_free(&out);
  vf_image_free(&outf);
}

#endif

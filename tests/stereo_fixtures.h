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

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* Helpers for the detector tests: test images and one-call detection into a caller-owned list. */
#ifndef TEST_DETECTOR_UTIL_H
#define TEST_DETECTOR_UTIL_H

#include <stdint.h>
#include <viofront/viofront.h>

#include "vf_test.h"

typedef struct det_result {
  vf_keypoint* kp; /* malloc'd copy of the host list (NULL when count == 0) */
  int count;
  vf_status status;
} det_result;

static inline uint8_t* det_pixel(vf_image* img, int x, int y) {
  return (uint8_t*)img->data + (size_t)y * img->stride_bytes + (size_t)x;
}

static inline void det_fill(vf_image* img, uint8_t value) {
  for (int y = 0; y < img->height; ++y) memset(det_pixel(img, 0, y), value, (size_t)img->width);
}

/* Uniform noise in [lo, lo + range). */
static inline void det_fill_random(vf_image* img, unsigned seed, int lo, int range) {
  for (int y = 0; y < img->height; ++y) {
    for (int x = 0; x < img->width; ++x)
      *det_pixel(img, x, y) = (uint8_t)(lo + (int)(vf_test_rand(&seed) % (unsigned)range));
  }
}

/* Blocks of random grey levels with a little noise: corners at block corners, plateaus between
 * them (equal responses next to each other exercise the tie rule). */
static inline void det_fill_blocks(vf_image* img, unsigned seed, int block) {
  unsigned noise = seed * 7u + 1u;
  for (int y = 0; y < img->height; ++y) {
    for (int x = 0; x < img->width; ++x) {
      unsigned s = seed + (unsigned)(x / block) * 2654435761u + (unsigned)(y / block) * 40503u;
      int v = (int)(vf_test_rand(&s) % 200u) + (int)(vf_test_rand(&noise) % 8u);
      *det_pixel(img, x, y) = (uint8_t)v;
    }
  }
}

/* Builds a pyramid of `img` (host) on ctx and detects with cfg and an optional host mask. */
static inline det_result det_run(vf_context* ctx, const vf_image* img,
                                 const vf_detector_config* cfg, const uint8_t* mask) {
  det_result r = {NULL, 0, VF_OK};
  vf_pyramid_config pc = {img->width, img->height, cfg->max_level + 1};
  vf_pyramid* p = NULL;
  vf_detector* d = NULL;
  r.status = vf_pyramid_create(ctx, &pc, &p);
  if (r.status == VF_OK) r.status = vf_detector_create(ctx, cfg, &d);
  if (r.status == VF_OK) r.status = vf_pyramid_build(p, img);
  if (r.status == VF_OK) r.status = vf_detector_detect(d, p, mask, VF_MEMORY_HOST);
  const vf_keypoint* kp = NULL;
  if (r.status == VF_OK) r.status = vf_detector_keypoints(d, &kp, &r.count);
  if (r.status == VF_OK && r.count > 0) {
    r.kp = malloc((size_t)r.count * sizeof *r.kp);
    memcpy(r.kp, kp, (size_t)r.count * sizeof *r.kp);
  }
  if (r.status != VF_OK) fprintf(stderr, "det_run: %s\n", vf_last_error_message());
  vf_detector_destroy(d);
  vf_pyramid_destroy(p);
  return r;
}

static inline void det_free(det_result* r) {
  free(r->kp);
  r->kp = NULL;
  r->count = 0;
}

/* The keypoint of `cell` in a result, or NULL. */
static inline const vf_keypoint* det_find_cell(const det_result* r, int cell) {
  for (int i = 0; i < r->count; ++i) {
    if (r->kp[i].cell == cell) return &r->kp[i];
  }
  return NULL;
}

#endif

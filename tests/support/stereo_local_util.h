// SPDX-License-Identifier: BSD-3-Clause
/* Test helpers for the local stereo methods: synthetic pairs with known disparity, the
 * Middlebury evaluation rule of ../shared/docs/DATA.md, and one-call runs of a configuration. */
#ifndef STEREO_ALT_UTIL_H
#define STEREO_ALT_UTIL_H

#include <stdint.h>
#include <viofront/viofront.h>

#include "stereo/vf_stereo_local.h"
#include "vf_test.h"

typedef struct test_pair {
  int w, h;
  uint8_t* left; /* tight rows */
  uint8_t* right;
  float* truth; /* ground-truth disparity of the left image, < 0 unknown */
} test_pair;

static inline void test_pair_free(test_pair* p) {
  free(p->left);
  free(p->right);
  free(p->truth);
  memset(p, 0, sizeof *p);
}

static inline int test_pair_alloc(test_pair* p, int w, int h) {
  p->w = w;
  p->h = h;
  p->left = malloc((size_t)w * h);
  p->right = malloc((size_t)w * h);
  p->truth = malloc((size_t)w * h * sizeof(float));
  return p->left != NULL && p->right != NULL && p->truth != NULL;
}

/* Random dots (each 2x1 pixels, so that sub-pixel shifts keep texture) seen at disparity
 * d(x, y) = d0 + sx * x + sy * y: right(x', y) = texture at x' + d. The right image is sampled
 * linearly between dots; gain and offset change its intensities (clamped to 0..255). */
static inline int test_pair_plane(test_pair* p, int w, int h, float d0, float sx, float sy,
                                  float gain, float offset, unsigned seed) {
  if (!test_pair_alloc(p, w, h)) return 0;
  const int tw = w + 512;
  uint8_t* tex = malloc((size_t)tw * h);
  if (tex == NULL) return 0;
  for (int i = 0; i < tw * h; i += 2) {
    uint8_t v = (uint8_t)vf_test_rand(&seed);
    tex[i] = v;
    if (i + 1 < tw * h) tex[i + 1] = v;
  }
  for (int y = 0; y < h; ++y) {
    const uint8_t* t = tex + (size_t)y * tw;
    for (int x = 0; x < w; ++x) {
      p->left[(size_t)y * w + x] = t[x];
      p->truth[(size_t)y * w + x] = d0 + sx * x + sy * y;
    }
    for (int x = 0; x < w; ++x) {
      /* The left pixel u seen at right x satisfies u = x + d(u, y) (the plane is linear in u). */
      float u = (x + d0 + sy * y) / (1.0f - sx);
      int u0 = (int)floorf(u);
      float a = u - u0;
      float v = 0.0f;
      if (u0 >= 0 && u0 + 1 < tw) v = (1.0f - a) * t[u0] + a * t[u0 + 1];
      v = gain * v + offset;
      p->right[(size_t)y * w + x] = (uint8_t)(v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v + 0.5f);
    }
  }
  free(tex);
  return 1;
}

/* Middlebury Cones (quarter size) with the non-occlusion rule of DATA.md; 0 when absent. */
static inline int test_pair_cones(test_pair* p) {
  char path[1024];
  if (vf_test_data_path("middlebury/cones/im2.png", path, sizeof path) == NULL) return 0;
  vf_image im[4];
  static const char* names[4] = {"im2.png", "im6.png", "disp2.png", "disp6.png"};
  for (int i = 0; i < 4; ++i) {
    char rel[128];
    snprintf(rel, sizeof rel, "middlebury/cones/%s", names[i]);
    if (vf_test_data_path(rel, path, sizeof path) == NULL) return 0;
    if (vf_png_read_gray8(path, &im[i]) != VF_OK) return 0;
  }
  const int w = im[0].width, h = im[0].height;
  test_pair_alloc(p, w, h);
  for (int y = 0; y < h; ++y) {
    const uint8_t* l = (const uint8_t*)im[0].data + y * im[0].stride_bytes;
    const uint8_t* r = (const uint8_t*)im[1].data + y * im[1].stride_bytes;
    const uint8_t* gl = (const uint8_t*)im[2].data + y * im[2].stride_bytes;
    const uint8_t* gr = (const uint8_t*)im[3].data + y * im[3].stride_bytes;
    for (int x = 0; x < w; ++x) {
      p->left[(size_t)y * w + x] = l[x];
      p->right[(size_t)y * w + x] = r[x];
      float dl = gl[x] / 4.0f;
      int xr = (int)lrintf(x - dl);
      int ok = gl[x] != 0 && xr >= 0 && xr < w && gr[xr] != 0 && fabsf(gr[xr] / 4.0f - dl) <= 1.0f;
      p->truth[(size_t)y * w + x] = ok ? dl : -1.0f;
    }
  }
  for (int i = 0; i < 4; ++i) vf_image_free(&im[i]);
  return 1;
}

typedef struct test_score {
  double bad[5]; /* bad-t for t = 0..4 px (share of known pixels, invalid counts as bad) */
  double bad2_valid;
  double density; /* valid share of known pixels */
  double mae;
  int known;
} test_score;

/* Scores a disparity map (tight, 16-bit) against p->truth over the pixels with known truth whose
 * column is at least `margin` (skip the band where no match can exist). */
static inline test_score test_score_map(const test_pair* p, const uint16_t* disp, int margin) {
  test_score s;
  memset(&s, 0, sizeof s);
  long bad[5] = {0}, valid = 0, bad2v = 0;
  double err_sum = 0.0;
  for (int y = 0; y < p->h; ++y) {
    for (int x = margin; x < p->w; ++x) {
      float t = p->truth[(size_t)y * p->w + x];
      if (t < 0.0f) continue;
      ++s.known;
      uint16_t d = disp[(size_t)y * p->w + x];
      if (d == VF_STEREO_LOCAL_INVALID) {
        for (int k = 0; k < 5; ++k) ++bad[k];
        continue;
      }
      ++valid;
      double e = fabs((double)d - t);
      err_sum += e;
      for (int k = 0; k < 5; ++k) bad[k] += e > k;
      bad2v += e > 2;
    }
  }
  for (int k = 0; k < 5; ++k) s.bad[k] = s.known ? (double)bad[k] / s.known : 1.0;
  s.bad2_valid = valid ? (double)bad2v / valid : 1.0;
  s.density = s.known ? (double)valid / s.known : 0.0;
  s.mae = valid ? err_sum / valid : 0.0;
  return s;
}

/* Scores a map over the whole width, prints it as one line named `what`, returns the score. */
static inline test_score test_score_report(const test_pair* p, const uint16_t* disp,
                                           const char* what) {
  test_score s = test_score_map(p, disp, 0);
  printf(
      "%-34s bad-1 %6.2f%%  bad-2 %6.2f%%  bad-3 %6.2f%%  bad-4 %6.2f%%  bad-2 valid %6.2f%%"
      "  density %6.2f%%  mae %.2f\n",
      what, 100 * s.bad[1], 100 * s.bad[2], 100 * s.bad[3], 100 * s.bad[4], 100 * s.bad2_valid,
      100 * s.density, s.mae);
  return s;
}

/* Runs `cfg` on a pair (host images, `pad` extra bytes per row) into a tight host map. */
static inline vf_status test_run(vf_context* ctx, const vf_stereo_local_config* cfg,
                                 const test_pair* p, int pad, uint16_t* disp) {
  vf_stereo_local* st = NULL;
  vf_status s = vf_stereo_local_create(ctx, cfg, &st);
  if (s != VF_OK) return s;
  const size_t stride = (size_t)p->w + pad;
  uint8_t* l = calloc(stride * p->h, 1);
  uint8_t* r = calloc(stride * p->h, 1);
  for (int y = 0; y < p->h; ++y) {
    memcpy(l + y * stride, p->left + (size_t)y * p->w, (size_t)p->w);
    memcpy(r + y * stride, p->right + (size_t)y * p->w, (size_t)p->w);
  }
  vf_image li = vf_image_view(l, p->w, p->h, stride, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image ri = vf_image_view(r, p->w, p->h, stride, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image di = vf_image_view(disp, p->w, p->h, (size_t)p->w * 2, VF_MEMORY_HOST, VF_PIXEL_U16);
  s = vf_stereo_local_compute(st, &li, &ri, &di);
  free(l);
  free(r);
  vf_stereo_local_destroy(st);
  return s;
}

#endif

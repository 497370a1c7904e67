// SPDX-License-Identifier: BSD-3-Clause
/* Overlay pictures: the rectified left image with every tracked feature marked (colour by track
 * age: blue new, through green, to red for 20 frames and more), beside the disparity map in a
 * blue-to-red colour ramp (black where invalid). */
#include <math.h>
#include <stdlib.h>

#include "replay.h"

/* A blue -> cyan -> green -> yellow -> red ramp over t in [0, 1]. */
static void ramp(double t, uint8_t rgb[3]) {
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  double r = fmin(fmax(4 * t - 2, 0), 1), g = fmin(fmin(4 * t, 4 - 4 * t), 1),
         b = fmin(fmax(2 - 4 * t, 0), 1);
  rgb[0] = (uint8_t)(255 * r);
  rgb[1] = (uint8_t)(255 * fmax(g, 0));
  rgb[2] = (uint8_t)(255 * b);
}

static void put(vf_image* out, int x, int y, const uint8_t rgb[3]) {
  if (x < 0 || y < 0 || x >= out->width || y >= out->height) return;
  uint8_t* p = (uint8_t*)out->data + (size_t)y * out->stride_bytes + (size_t)x * 3;
  p[0] = rgb[0];
  p[1] = rgb[1];
  p[2] = rgb[2];
}

vf_status replay_overlay_write(const char* path, const vf_image* left,
                               const vf_feature_frame* frame, const vf_image* disparity,
                               int fractional_bits, int max_disparity) {
  int w = left->width, h = left->height;
  vf_image out;
  vf_status s = vf_image_alloc(&out, 2 * w, h, VF_PIXEL_RGB8, VF_MEMORY_HOST);
  if (s != VF_OK) return s;
  for (int y = 0; y < h; ++y) {
    const uint8_t* g = (const uint8_t*)left->data + (size_t)y * left->stride_bytes;
    const uint16_t* d =
        (const uint16_t*)((const uint8_t*)disparity->data + (size_t)y * disparity->stride_bytes);
    for (int x = 0; x < w; ++x) {
      uint8_t grey[3] = {g[x], g[x], g[x]}, col[3] = {0, 0, 0};
      put(&out, x, y, grey);
      if (d[x] != VF_STEREO_INVALID) {
        ramp(d[x] / (double)(1 << fractional_bits) / max_disparity, col);
      }
      put(&out, w + x, y, col);
    }
  }
  for (int i = 0; i < frame->count; ++i) {
    const vf_feature* p = &frame->features[i];
    if (p->camera != 0) continue;
    uint8_t col[3];
    ramp(p->age / 20.0, col);
    int cx = (int)lrintf(p->u_rect), cy = (int)lrintf(p->v_rect);
    for (int k = -3; k <= 3; ++k) {
      put(&out, cx + k, cy, col);
      put(&out, cx, cy + k, col);
      put(&out, w + cx + k, cy, col);
      put(&out, w + cx, cy + k, col);
    }
  }
  s = vf_png_write(path, &out);
  vf_image_free(&out);
  return s;
}

// SPDX-License-Identifier: BSD-3-Clause
/* Disparity evaluation and ground-truth reading for examples/vf_stereo and the accuracy test. */
#include "stereo_eval.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static float px_at(const vf_image* im, int x, int y) {
  return ((const float*)((const unsigned char*)im->data + (size_t)y * im->stride_bytes))[x];
}

static int known(float v) { return v > 0.0f && !isnan(v) && !isinf(v); }

vf_status stereo_evaluate(const vf_image* disparity, const vf_image* gt_left,
                          const vf_image* gt_right, stereo_eval* out) {
  memset(out, 0, sizeof *out);
  if (disparity->width != gt_left->width || disparity->height != gt_left->height ||
      (gt_right != NULL &&
       (gt_right->width != gt_left->width || gt_right->height != gt_left->height))) {
    fprintf(stderr, "stereo_evaluate: image sizes differ\n");
    return VF_ERR_INVALID_ARG;
  }
  long n = 0, valid = 0, bad[5] = {0}, bad2_valid = 0;
  double abs_sum = 0.0;
  for (int y = 0; y < gt_left->height; ++y) {
    for (int x = 0; x < gt_left->width; ++x) {
      float gt = px_at(gt_left, x, y);
      if (!known(gt)) continue;
      if (gt_right != NULL) {
        /* Non-occluded: the right truth at the matched pixel agrees within 1 px. */
        int xr = (int)lrintf((float)x - gt);
        if (xr < 0) continue;
        float gr = px_at(gt_right, xr, y);
        if (!known(gr) || fabsf(gr - gt) > 1.0f) continue;
      }
      ++n;
      float d = px_at(disparity, x, y);
      if (isnan(d)) {
        for (int t = 1; t <= 4; ++t) ++bad[t];
        continue;
      }
      ++valid;
      float e = fabsf(d - gt);
      abs_sum += e;
      for (int t = 1; t <= 4; ++t) bad[t] += e > (float)t;
      bad2_valid += e > 2.0f;
    }
  }
  out->pixels = n;
  if (n == 0) return VF_OK;
  for (int t = 1; t <= 4; ++t) out->bad[t] = 100.0 * bad[t] / n;
  out->density = 100.0 * valid / n;
  out->bad2_valid = valid ? 100.0 * bad2_valid / valid : 0.0;
  out->mae = valid ? abs_sum / valid : 0.0;
  return VF_OK;
}

static int has_suffix(const char* s, const char* suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

vf_status stereo_read_truth(const char* path, float scale8, vf_image* out) {
  if (has_suffix(path, ".pfm") || has_suffix(path, ".PFM")) {
    vf_status s = vf_pfm_read(path, out);
    for (int y = 0; s == VF_OK && y < out->height; ++y) {
      float* o = (float*)((unsigned char*)out->data + (size_t)y * out->stride_bytes);
      for (int x = 0; x < out->width; ++x) o[x] = known(o[x]) ? o[x] : NAN;
    }
    return s;
  }
  vf_image raw;
  int bits = 16;
  vf_status s = vf_png_read_gray16(path, &raw);
  if (s == VF_ERR_FORMAT) {
    bits = 8;
    s = vf_png_read_gray8(path, &raw);
  }
  if (s != VF_OK) return s;
  s = vf_image_alloc(out, raw.width, raw.height, VF_PIXEL_F32, VF_MEMORY_HOST);
  for (int y = 0; s == VF_OK && y < raw.height; ++y) {
    const unsigned char* r = (const unsigned char*)raw.data + (size_t)y * raw.stride_bytes;
    float* o = (float*)((unsigned char*)out->data + (size_t)y * out->stride_bytes);
    for (int x = 0; x < raw.width; ++x) {
      float v = bits == 16 ? ((const unsigned short*)r)[x] / 256.0f : r[x] / scale8;
      o[x] = v > 0.0f ? v : NAN;
    }
  }
  vf_image_free(&raw);
  return s;
}

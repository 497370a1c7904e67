// SPDX-License-Identifier: BSD-3-Clause
/* PFM reading and writing for disparity ground truth and output. The 16-bit grey PNG reader
 * declared in vf_disparity_io.h shares the 8-bit one in vf_png.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/vf_error.h"
#include "viofront/vf_disparity_io.h"

vf_status vf_pfm_read(const char* path, vf_image* out) {
  if (path == NULL || out == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_pfm_read: %s is NULL", path ? "out" : "path");
  }
  memset(out, 0, sizeof *out);
  FILE* f = fopen(path, "rb");
  if (f == NULL) return vf_fail(NULL, VF_ERR_IO, "vf_pfm_read: cannot open %s", path);
  char tag[3] = {0};
  int w = 0, h = 0;
  double scale = 0.0;
  if (fscanf(f, "%2s %d %d %lf", tag, &w, &h, &scale) != 4 || strcmp(tag, "Pf") != 0 || w <= 0 ||
      h <= 0 || w > 32768 || h > 32768 || !isfinite(scale) || scale == 0.0 || fgetc(f) == EOF) {
    fclose(f);
    return vf_fail(NULL, VF_ERR_FORMAT, "vf_pfm_read: %s: not a one-channel PFM header", path);
  }
  /* A forged header must not make us allocate gigabytes: the pixels must be in the file. */
  long data_start = ftell(f);
  long data_end = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (data_start < 0 || data_end < data_start ||
      (uint64_t)(data_end - data_start) < (uint64_t)w * (uint64_t)h * 4u ||
      fseek(f, data_start, SEEK_SET) != 0) {
    fclose(f);
    return vf_fail(NULL, VF_ERR_FORMAT, "vf_pfm_read: %s is truncated: %dx%d pixels promised", path,
                   w, h);
  }
  vf_status s = vf_image_alloc(out, w, h, VF_PIXEL_F32, VF_MEMORY_HOST);
  if (s != VF_OK) {
    fclose(f);
    return s;
  }
  const uint16_t one = 1;
  int host_little = *(const uint8_t*)&one == 1;
  int swap = (scale < 0.0) != host_little;
  /* PFM stores the bottom row first. */
  for (int y = h - 1; y >= 0 && s == VF_OK; --y) {
    uint8_t* row = (uint8_t*)out->data + (size_t)y * out->stride_bytes;
    if (fread(row, 4, (size_t)w, f) != (size_t)w) {
      s = vf_fail(NULL, VF_ERR_FORMAT, "vf_pfm_read: %s is truncated", path);
      break;
    }
    for (int x = 0; swap && x < w; ++x) {
      uint8_t* p = row + 4 * x;
      uint8_t t0 = p[0], t1 = p[1];
      p[0] = p[3];
      p[1] = p[2];
      p[2] = t1;
      p[3] = t0;
    }
  }
  fclose(f);
  if (s != VF_OK) vf_image_free(out);
  return s;
}

vf_status vf_pfm_write(const char* path, const vf_image* image) {
  if (path == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_pfm_write: path is NULL");
  vf_status s = vf_image_check(image, "vf_pfm_write");
  if (s != VF_OK) return s;
  if (image->format != VF_PIXEL_F32 || image->location != VF_MEMORY_HOST) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_pfm_write: image must be F32 in host memory");
  }
  FILE* f = fopen(path, "wb");
  if (f == NULL) return vf_fail(NULL, VF_ERR_IO, "vf_pfm_write: cannot create %s", path);
  const uint16_t one = 1;
  int ok = fprintf(f, "Pf\n%d %d\n%s\n", image->width, image->height,
                   *(const uint8_t*)&one == 1 ? "-1.0" : "1.0") > 0;
  for (int y = image->height - 1; ok && y >= 0; --y) {
    const uint8_t* row = (const uint8_t*)image->data + (size_t)y * image->stride_bytes;
    ok = fwrite(row, 4, (size_t)image->width, f) == (size_t)image->width;
  }
  ok = (fclose(f) == 0) && ok;
  return ok ? VF_OK : vf_fail(NULL, VF_ERR_IO, "vf_pfm_write: writing %s failed", path);
}

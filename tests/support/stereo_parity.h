// SPDX-License-Identifier: BSD-3-Clause
/* GPU/CPU parity of vf_stereo for the GPU tests: runs one configuration on both backends (host
 * images, or device images with padded strides when device_io) and compares the 16-bit and the
 * float outputs bit for bit, the GPU outputs poisoned first so that every pixel must be written. */
#ifndef STEREO_PARITY_H
#define STEREO_PARITY_H

#include <stdint.h>
#include <viofront/viofront.h>

#include "stereo_fixtures.h"
#include "vf_test.h"

static float atf(const vf_image* im, int x, int y) {
  return ((const float*)((const uint8_t*)im->data + (size_t)y * im->stride_bytes))[x];
}

/* Runs both backends on host images l, r and compares the 16-bit and float outputs. */
static void stereo_compare(vf_context* cpu_ctx, vf_context* gpu_ctx, const vf_stereo_config* c,
                           const vf_image* l, const vf_image* r, int device_io, const char* what) {
  vf_stereo *sc = NULL, *sg = NULL;
  CHECK_OK(vf_stereo_create(cpu_ctx, c, &sc));
  CHECK_OK(vf_stereo_create(gpu_ctx, c, &sg));
  if (sc == NULL || sg == NULL) {
    fprintf(stderr, "%s: create failed: %s\n", what, vf_last_error_message());
    vf_stereo_destroy(sc);
    vf_stereo_destroy(sg);
    return;
  }
  int w = c->width, h = c->height;
  vf_image a16, af, b16, bf, dl = {0}, dr = {0}, d16 = {0}, df = {0};
  CHECK_OK(vf_image_alloc(&a16, w, h, VF_PIXEL_U16, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&af, w, h, VF_PIXEL_F32, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&b16, w, h, VF_PIXEL_U16, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&bf, w, h, VF_PIXEL_F32, VF_MEMORY_HOST));
  /* Poison the GPU outputs: every pixel must be written. */
  memset(b16.data, 0x5A, b16.stride_bytes * (size_t)h);
  memset(bf.data, 0x5A, bf.stride_bytes * (size_t)h);
  CHECK_OK(vf_stereo_compute(sc, l, r, &a16, &af));
  if (device_io) {
    CHECK_OK(vf_image_alloc(&dl, w, h, VF_PIXEL_U8, VF_MEMORY_DEVICE));
    CHECK_OK(vf_image_alloc(&dr, w, h, VF_PIXEL_U8, VF_MEMORY_DEVICE));
    CHECK_OK(vf_image_alloc(&d16, w, h, VF_PIXEL_U16, VF_MEMORY_DEVICE));
    CHECK_OK(vf_image_alloc(&df, w, h, VF_PIXEL_F32, VF_MEMORY_DEVICE));
    CHECK_OK(vf_image_copy(l, &dl));
    CHECK_OK(vf_image_copy(r, &dr));
    CHECK_OK(vf_image_copy(&b16, &d16));
    CHECK_OK(vf_image_copy(&bf, &df));
    CHECK_OK(vf_stereo_compute(sg, &dl, &dr, &d16, &df));
    CHECK_OK(vf_context_synchronize(gpu_ctx));
    CHECK_OK(vf_image_copy(&d16, &b16));
    CHECK_OK(vf_image_copy(&df, &bf));
  } else {
    CHECK_OK(vf_stereo_compute(sg, l, r, &b16, &bf));
  }
  long diff = 0, fdiff = 0, valid = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      uint16_t u = fx_at16(&a16, x, y), v = fx_at16(&b16, x, y);
      valid += u != VF_STEREO_INVALID;
      if (u != v && diff++ < 5) {
        fprintf(stderr, "  %s: (%d,%d) cpu %u gpu %u\n", what, x, y, u, v);
      }
      float fa = atf(&af, x, y), fb = atf(&bf, x, y);
      fdiff += !((isnan(fa) && isnan(fb)) || fa == fb);
    }
  }
  printf("%-58s %s: %ld of %d pixels differ (float %ld), %.1f%% valid\n", what,
         diff || fdiff ? "FAIL" : "ok", diff, w * h, fdiff, 100.0 * valid / (w * h));
  CHECK(diff == 0);
  CHECK(fdiff == 0);
  CHECK(valid > 0);
  vf_image_free(&a16);
  vf_image_free(&af);
  vf_image_free(&b16);
  vf_image_free(&bf);
  vf_image_free(&dl);
  vf_image_free(&dr);
  vf_image_free(&d16);
  vf_image_free(&df);
  vf_stereo_destroy(sc);
  vf_stereo_destroy(sg);
}

/* Real pair i (0: Middlebury Cones, 1: a raw EuRoC pair) into l, r; 0 when the data is absent. */
static int stereo_real_pair(int i, vf_image* l, vf_image* r, const char** name) {
  static const char* pairs[][2] = {
      {"middlebury/cones/im2.png", "middlebury/cones/im6.png"},
      {"euroc/V1_01_easy_micro/mav0/cam0/data/1403715273262142976.png",
       "euroc/V1_01_easy_micro/mav0/cam1/data/1403715273262142976.png"}};
  char pl[1024], pr[1024];
  *name = pairs[i][0];
  if (vf_test_data_path(pairs[i][0], pl, sizeof pl) == NULL ||
      vf_test_data_path(pairs[i][1], pr, sizeof pr) == NULL) {
    printf("real pair %s absent: skipped\n", pairs[i][0]);
    return 0;
  }
  CHECK_OK(vf_png_read_gray8(pl, l));
  CHECK_OK(vf_png_read_gray8(pr, r));
  return 1;
}

#endif

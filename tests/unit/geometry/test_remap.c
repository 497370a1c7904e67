// SPDX-License-Identifier: BSD-3-Clause
/* CPU remap: the map against an independent double-precision computation of each output
 * pixel's source position, the output against float bilinear interpolation (within 1 grey
 * level), identity maps exact, the fill value outside the source, strided images, bad input. */
#include <math.h>
#include <stdint.h>
#include <viofront/viofront.h>

#include "euroc_calib.h"
#include "vf_test.h"

static vf_context* ctx;

static void random_image(vf_image* img, int w, int h, size_t extra_stride, unsigned seed) {
  img->data = NULL;
  size_t stride = (size_t)w + extra_stride;
  uint8_t* p = malloc(stride * (size_t)h);
  for (size_t i = 0; p != NULL && i < stride * (size_t)h; ++i) p[i] = (uint8_t)vf_test_rand(&seed);
  /* Smooth a little so that bilinear interpolation has something meaningful to do. */
  for (int y = 0; p != NULL && y < h; ++y) {
    for (int x = 1; x < w; ++x)
      p[y * stride + x] = (uint8_t)((p[y * stride + x] + p[y * stride + x - 1]) / 2);
  }
  *img = vf_image_view(p, w, h, stride, VF_MEMORY_HOST, VF_PIXEL_U8);
}

static double bilinear(const vf_image* img, double x, double y) {
  int x0 = (int)floor(x), y0 = (int)floor(y);
  double fx = x - x0, fy = y - y0;
  int x1 = x0 + 1 < img->width ? x0 + 1 : x0, y1 = y0 + 1 < img->height ? y0 + 1 : y0;
  const uint8_t* p = img->data;
  size_t s = img->stride_bytes;
  return (1 - fy) * ((1 - fx) * p[y0 * s + x0] + fx * p[y0 * s + x1]) +
         fy * ((1 - fx) * p[y1 * s + x0] + fx * p[y1 * s + x1]);
}

/* The output against the integer formula of vf_rectify.h evaluated from the map (clamped reads at
 * the last column and row), bit for bit: the CPU kernel's planned SIMD path and its tail. */
static long integer_mismatches(const vf_remap* m, const vf_image* src, const vf_image* dst,
                               uint8_t fill) {
  const uint8_t* s = src->data;
  const size_t st = src->stride_bytes;
  long bad = 0;
  for (int y = 0; y < dst->height; ++y) {
    for (int x = 0; x < dst->width; ++x) {
      int32_t sx, sy;
      if (vf_remap_lookup(m, x, y, &sx, &sy) != VF_OK) return -1;
      int want = fill;
      if (sx >= 0) {
        int x0 = sx >> 8, y0 = sy >> 8, fx = sx & 255, fy = sy & 255;
        int x1 = x0 + 1 < src->width ? x0 + 1 : x0, y1 = y0 + 1 < src->height ? y0 + 1 : y0;
        int top = s[y0 * st + x0] * (256 - fx) + s[y0 * st + x1] * fx;
        int bot = s[y1 * st + x0] * (256 - fx) + s[y1 * st + x1] * fx;
        want = (top * (256 - fy) + bot * fy + 32768) >> 16;
      }
      bad += ((const uint8_t*)dst->data)[y * dst->stride_bytes + x] != want;
    }
  }
  return bad;
}

/* Rectify map of EuRoC camera `which`, checked pixel by pixel. */
static void check_rectify_map(int which, double alpha) {
  vf_camera c0 = euroc_camera(0), c1 = euroc_camera(1);
  const vf_camera* cam = which == 0 ? &c0 : &c1;
  vf_rectify_config rc = vf_rectify_config_default();
  rc.alpha = alpha;
  vf_stereo_rectification rect;
  CHECK_OK(vf_stereo_rectify(&c0, &c1, &rc, &rect));
  vf_remap_config mc;
  CHECK_OK(vf_remap_config_rectify(cam, &rect, which, &mc));
  mc.fill = 7;
  vf_remap* m = NULL;
  CHECK_OK(vf_remap_create(ctx, &mc, &m));
  if (m == NULL) return;
  vf_image src, dst;
  random_image(&src, 752, 480, 13, 3u + (unsigned)which);
  CHECK_OK(vf_image_alloc(&dst, rect.width, rect.height, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_remap_apply(m, &src, &dst));
  CHECK(integer_mismatches(m, &src, &dst, 7) == 0);
  /* Another source stride: the CPU plan's offsets are recomputed. */
  vf_image wide;
  random_image(&wide, 752, 480, 100, 5u + (unsigned)which);
  CHECK_OK(vf_remap_apply(m, &wide, &dst));
  CHECK(integer_mismatches(m, &wide, &dst, 7) == 0);
  free(wide.data);
  CHECK_OK(vf_remap_apply(m, &src, &dst));
  const double* R = which == 0 ? rect.R1 : rect.R2;
  long pos_bad = 0, val_bad = 0, filled = 0, valid = 0;
  double worst = 0;
  for (int y = 0; y < rect.height; ++y) {
    for (int x = 0; x < rect.width; ++x) {
      /* Source position: ray R^T [(x - cx)/f, (y - cy)/f, 1] through the raw camera. */
      double n[3] = {(x - rect.cx) / rect.f, (y - rect.cy) / rect.f, 1}, ray[3], uv[2];
      for (int k = 0; k < 3; ++k) ray[k] = R[k] * n[0] + R[3 + k] * n[1] + R[6 + k] * n[2];
      int32_t sx, sy;
      CHECK_OK(vf_remap_lookup(m, x, y, &sx, &sy));
      uint8_t out = ((uint8_t*)dst.data)[y * dst.stride_bytes + x];
      int inside = vf_camera_project(cam, ray, uv) == VF_OK && uv[0] >= 0 && uv[1] >= 0 &&
                   uv[0] <= 751 && uv[1] <= 479;
      if (!inside) {
        /* Within 1/256 px of the border either answer is right. */
        if (sx >= 0 && !(uv[0] > -0.01 && uv[1] > -0.01 && uv[0] < 751.01 && uv[1] < 479.01))
          ++pos_bad;
        if (sx < 0) filled += out == 7;
        continue;
      }
      if (sx < 0) {
        pos_bad += !(uv[0] < 0.01 || uv[1] < 0.01 || uv[0] > 750.99 || uv[1] > 478.99);
        continue;
      }
      ++valid;
      if (fabs(sx / 256.0 - uv[0]) > 1.0 / 256 || fabs(sy / 256.0 - uv[1]) > 1.0 / 256) ++pos_bad;
      double ref = bilinear(&src, sx / 256.0, sy / 256.0);
      worst = fmax(worst, fabs(out - ref));
      val_bad += fabs(out - ref) > 1.0;
    }
  }
  printf("camera %d alpha %g: %ld valid, %ld filled, worst |cpu - float bilinear| %.3f\n", which,
         alpha, valid, filled, worst);
  CHECK(pos_bad == 0);
  CHECK(val_bad == 0);
  CHECK(alpha == 1 || valid > 752 * 480 * 8 / 10);
  CHECK(alpha != 1 || filled > 0);
  vf_image_free(&dst);
  free(src.data);
  vf_remap_destroy(m);
}

/* No distortion, P = K: every pixel maps to itself and the output equals the input. */
static void check_identity(void) {
  vf_camera c = vf_camera_default();
  c.width = 97, c.height = 41;
  c.cx = 40.5, c.cy = 20;
  vf_remap_config mc;
  CHECK_OK(vf_remap_config_undistort(&c, &mc));
  vf_remap* m = NULL;
  CHECK_OK(vf_remap_create(ctx, &mc, &m));
  vf_image src, dst;
  random_image(&src, 97, 41, 3, 9);
  CHECK_OK(vf_image_alloc(&dst, 97, 41, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_remap_apply(m, &src, &dst));
  int same = 1;
  for (int y = 0; y < 41; ++y) {
    same &= memcmp((uint8_t*)src.data + y * src.stride_bytes,
                   (uint8_t*)dst.data + y * dst.stride_bytes, 97) == 0;
  }
  CHECK(same);
  /* Half a pixel to the right: (a + b + 1) / 2 exactly, the last column filled. */
  mc.P[2] -= 0.5;
  vf_remap* h = NULL;
  CHECK_OK(vf_remap_create(ctx, &mc, &h));
  CHECK_OK(vf_remap_apply(h, &src, &dst));
  const uint8_t* s = src.data;
  const uint8_t* d = dst.data;
  int half_ok = 1;
  for (int y = 0; y < 41; ++y) {
    for (int x = 0; x < 96; ++x) {
      int want = (s[y * src.stride_bytes + x] + s[y * src.stride_bytes + x + 1] + 1) / 2;
      half_ok &= d[y * dst.stride_bytes + x] == want;
    }
    half_ok &= d[y * dst.stride_bytes + 96] == 0;
  }
  CHECK(half_ok);
  CHECK(integer_mismatches(h, &src, &dst, 0) == 0);
  /* Sources a pixel wide or high (read per pixel, no neighbour to move a weight to), under 16
   * pixels wide (gathered pairs only: no 16-byte row loads), and a quarter pixel down and left
   * so that the last row and column are read. */
  const int sizes[4][2] = {{1, 9}, {13, 1}, {15, 12}, {23, 17}};
  for (int k = 0; k < 4; ++k) {
    vf_camera tc = vf_camera_default();
    tc.width = sizes[k][0], tc.height = sizes[k][1];
    tc.cx = tc.width / 2.0, tc.cy = tc.height / 2.0;
    vf_remap_config tmc;
    CHECK_OK(vf_remap_config_undistort(&tc, &tmc));
    tmc.P[2] += 0.25, tmc.P[6] -= 0.25;
    tmc.fill = 3;
    vf_remap* t = NULL;
    vf_image ts, td;
    random_image(&ts, tc.width, tc.height, 1, 20u + (unsigned)k);
    CHECK_OK(vf_image_alloc(&td, tc.width, tc.height, VF_PIXEL_U8, VF_MEMORY_HOST));
    CHECK_OK(vf_remap_create(ctx, &tmc, &t));
    CHECK_OK(vf_remap_apply(t, &ts, &td));
    CHECK(integer_mismatches(t, &ts, &td, 3) == 0);
    vf_remap_destroy(t);
    vf_image_free(&td);
    free(ts.data);
  }

  /* Bad input. */
  vf_image wrong;
  CHECK_OK(vf_image_alloc(&wrong, 96, 41, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_FAILS(vf_remap_apply(m, &wrong, &dst), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_remap_last_error(m), "96x41") != NULL);
  CHECK_FAILS(vf_remap_apply(m, &src, &src), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_remap_apply(NULL, &src, &dst), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_remap_apply(m, NULL, &dst), VF_ERR_INVALID_ARG);
  vf_image dev = dst;
  dev.location = VF_MEMORY_DEVICE;
  CHECK_FAILS(vf_remap_apply(m, &src, &dev), VF_ERR_UNSUPPORTED);
  vf_image f32 = dst;
  f32.format = VF_PIXEL_F32;
  f32.stride_bytes = dst.stride_bytes * 4;
  CHECK_FAILS(vf_remap_apply(m, &src, &f32), VF_ERR_INVALID_ARG);
  int32_t sx, sy;
  CHECK_FAILS(vf_remap_lookup(m, 97, 0, &sx, &sy), VF_ERR_INVALID_ARG);
  vf_remap* none = NULL;
  vf_remap_config bad = mc;
  bad.out_width = 0;
  CHECK_FAILS(vf_remap_create(ctx, &bad, &none), VF_ERR_INVALID_ARG);
  bad = mc;
  bad.P[0] = 0; /* singular */
  CHECK_FAILS(vf_remap_create(ctx, &bad, &none), VF_ERR_INVALID_ARG);
  bad = mc;
  bad.R[0] = NAN;
  CHECK_FAILS(vf_remap_create(ctx, &bad, &none), VF_ERR_INVALID_ARG);
  bad = mc;
  bad.camera.fy = -1;
  CHECK_FAILS(vf_remap_create(ctx, &bad, &none), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_remap_create(NULL, &mc, &none), VF_ERR_INVALID_ARG);
  CHECK(none == NULL);
  vf_image_free(&wrong);
  vf_image_free(&dst);
  free(src.data);
  vf_remap_destroy(h);
  vf_remap_destroy(m);
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  cc.cpu_threads = 2;
  CHECK_OK(vf_context_create(&cc, &ctx));
  check_rectify_map(0, -1);
  check_rectify_map(1, -1);
  check_rectify_map(0, 1);
  check_identity();
  vf_context_destroy(ctx);
  VF_TEST_END("test_remap");
}

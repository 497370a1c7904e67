// SPDX-License-Identifier: BSD-3-Clause
/* vf_stereo on the CPU: known answers (random dots at a constant disparity, a slanted plane
 * with sub-pixel, occluded borders flagged by the left-right check), config validation and
 * bad input. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "stereo/kernels/vf_sgm_rules.h"
#include "stereo_fixtures.h"
#include "vf_test.h"

static vf_context* ctx;

static vf_status run(const vf_stereo_config* c, const vf_image* l, const vf_image* r, vf_image* out,
                     vf_image* outf) {
  return fx_run(ctx, c, l, r, out, outf);
}

static void test_random_dots(int paths, vf_census_type census, int min_disp) {
  const int w = 160, h = 48, d = 23;
  vf_image l, r, out;
  fx_random_dots(w, h, d, 11u + (unsigned)paths, &l, &r);
  vf_stereo_config c = vf_stereo_config_default();
  c.width = w;
  c.height = h;
  c.paths = paths;
  c.census = census;
  c.min_disparity = min_disp;
  c.subpixel = 0;
  c.median = 0;
  CHECK_OK(run(&c, &l, &r, &out, NULL));
  long wrong = 0, invalid = 0, n = 0, border_invalid = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      uint16_t v = fx_at16(&out, x, y);
      if (x < d) {
        /* Occluded band (no match in the right image). Its first columns match the start of
         * the right image at small disparities consistently, so the check starts at x = 10. */
        if (x >= 10) border_invalid += v == VF_STEREO_INVALID;
        continue;
      }
      /* Interior: away from the census window at the image edges and from the occlusion
       * boundary, where the right-image disparities are biased towards the path starts. */
      if (x < d + 10 || x >= w - VF_CENSUS_RX || y < VF_CENSUS_RY || y >= h - VF_CENSUS_RY)
        continue;
      ++n;
      if (v == VF_STEREO_INVALID)
        ++invalid;
      else if (v != d)
        ++wrong;
    }
  }
  printf(
      "random dots d=%d paths=%d census=%d min=%d: %ld wrong, %ld invalid of %ld; "
      "%ld of %d occluded pixels (x in 10..d-1) invalid\n",
      d, paths, (int)census, min_disp, wrong, invalid, n, border_invalid, (d - 10) * h);
  CHECK(wrong == 0);
  CHECK(invalid == 0);
  /* The left-right check flags the occluded band; without it most of the band is "valid". */
  if (min_disp == 0) CHECK(border_invalid >= (long)(0.95 * (d - 10) * h));
  c.lr_check = 0;
  vf_image_free(&out);
  CHECK_OK(run(&c, &l, &r, &out, NULL));
  long without = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 10; x < d; ++x) without += fx_at16(&out, x, y) == VF_STEREO_INVALID;
  }
  printf("  without the LR check %ld of %d occluded pixels invalid\n", without, (d - 10) * h);
  if (min_disp == 0) CHECK(without < (long)(d - 10) * h / 2);
  vf_image_free(&l);
  vf_image_free(&r);
  vf_image_free(&out);
}

static void test_slanted_plane(int paths) {
  vf_stereo_config c = vf_stereo_config_default(); /* sub-pixel and median on */
  c.paths = paths;
  char label[32];
  snprintf(label, sizeof label, "paths=%d", paths);
  fx_check_plane(ctx, c, label);
}

static void test_bad_config(void) {
  vf_stereo* s = NULL;
  vf_stereo_config c = vf_stereo_config_default();
  CHECK_FAILS(vf_stereo_create(NULL, &c, &s), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_stereo_create(ctx, NULL, &s), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_stereo_create(ctx, &c, NULL), VF_ERR_INVALID_ARG);
#define BAD(field, value, status)                           \
  do {                                                      \
    vf_stereo_config b = vf_stereo_config_default();        \
    b.field = value;                                        \
    CHECK_FAILS(vf_stereo_create(ctx, &b, &s), status);     \
    CHECK(s == NULL);                                       \
    CHECK(strstr(vf_last_error_message(), #field) != NULL); \
  } while (0)
  BAD(disparities, 0, VF_ERR_INVALID_ARG);
  BAD(disparities, 96, VF_ERR_INVALID_ARG);
  BAD(min_disparity, -1, VF_ERR_INVALID_ARG);
  BAD(width, 60, VF_ERR_INVALID_ARG); /* smaller than the disparity range */
  BAD(width, 0, VF_ERR_INVALID_ARG);
  BAD(p1, -1, VF_ERR_INVALID_ARG);
  BAD(p2, 5, VF_ERR_INVALID_ARG); /* P2 < P1 */
  BAD(p2, 300, VF_ERR_INVALID_ARG);
  BAD(paths, 3, VF_ERR_INVALID_ARG);
  BAD(paths, 12, VF_ERR_INVALID_ARG);
  BAD(census, 7, VF_ERR_INVALID_ARG);
  BAD(uniqueness, 0.0f, VF_ERR_INVALID_ARG);
  BAD(uniqueness, 1.5f, VF_ERR_INVALID_ARG);
  BAD(lr_check, 2, VF_ERR_INVALID_ARG);
  BAD(lr_max_diff, -1, VF_ERR_INVALID_ARG);
  BAD(subpixel, -1, VF_ERR_INVALID_ARG);
  BAD(median, 5, VF_ERR_INVALID_ARG);
  BAD(method, 42, VF_ERR_INVALID_ARG);
  vf_stereo_config f = vf_stereo_config_default();
  f.census = VF_CENSUS_FULL_9X7;
  f.p2 = 200; /* 62 + 200 > 255 */
  CHECK_FAILS(vf_stereo_create(ctx, &f, &s), VF_ERR_INVALID_ARG);
  f.p2 = 193;
  CHECK_OK(vf_stereo_create(ctx, &f, &s));
  vf_stereo_destroy(s);
#undef BAD
}

static void test_bad_input(void) {
  vf_stereo_config c = vf_stereo_config_default();
  c.width = 96;
  c.height = 32;
  vf_stereo* s = NULL;
  CHECK_OK(vf_stereo_create(ctx, &c, &s));
  vf_image l, r, out, small, f32, u8out;
  fx_random_dots(96, 32, 5, 3u, &l, &r);
  vf_image_alloc(&out, 96, 32, VF_PIXEL_U16, VF_MEMORY_HOST);
  vf_image_alloc(&small, 95, 32, VF_PIXEL_U8, VF_MEMORY_HOST);
  vf_image_alloc(&f32, 96, 32, VF_PIXEL_F32, VF_MEMORY_HOST);
  vf_image_alloc(&u8out, 96, 32, VF_PIXEL_U8, VF_MEMORY_HOST);
  CHECK_OK(vf_stereo_compute(s, &l, &r, &out, &f32));
  CHECK_FAILS(vf_stereo_compute(NULL, &l, &r, &out, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_stereo_compute(s, NULL, &r, &out, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_stereo_compute(s, &l, NULL, &out, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_stereo_compute(s, &l, &r, NULL, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_stereo_compute(s, &l, &small, &out, NULL), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_stereo_last_error(s), "right") != NULL);
  CHECK_FAILS(vf_stereo_compute(s, &l, &r, &u8out, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_stereo_compute(s, &l, &r, &out, &out), VF_ERR_INVALID_ARG);
  vf_image bad = l;
  bad.data = NULL;
  CHECK_FAILS(vf_stereo_compute(s, &bad, &r, &out, NULL), VF_ERR_INVALID_ARG);
  vf_image mis = out;
  mis.data = (uint8_t*)out.data + 1; /* misaligned 16-bit buffer */
  CHECK_FAILS(vf_stereo_compute(s, &l, &r, &mis, NULL), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_stereo_last_error(s), "aligned") != NULL);
  mis = f32;
  mis.stride_bytes = f32.stride_bytes - 2;
  mis.width = 96;
  CHECK_FAILS(vf_stereo_compute(s, &l, &r, &out, &mis), VF_ERR_INVALID_ARG);
  vf_image dev = l;
  dev.location = VF_MEMORY_DEVICE;
  CHECK_FAILS(vf_stereo_compute(s, &dev, &r, &out, NULL), VF_ERR_UNSUPPORTED);
  CHECK(strcmp(vf_stereo_last_error(NULL), "") != 0);
  vf_stereo_destroy(NULL);
  vf_stereo_destroy(s);
  vf_image_free(&l);
  vf_image_free(&r);
  vf_image_free(&out);
  vf_image_free(&small);
  vf_image_free(&f32);
  vf_image_free(&u8out);
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&cc, &ctx));
  test_bad_config();
  test_bad_input();
  test_random_dots(2, VF_CENSUS_CS_9X7, 0);
  test_random_dots(4, VF_CENSUS_CS_9X7, 0);
  test_random_dots(8, VF_CENSUS_FULL_9X7, 0);
  test_random_dots(8, VF_CENSUS_CS_9X7, 10);
  test_slanted_plane(4);
  test_slanted_plane(8);
  vf_context_destroy(ctx);
  VF_TEST_END("test_stereo");
}

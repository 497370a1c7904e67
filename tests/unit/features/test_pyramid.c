// SPDX-License-Identifier: BSD-3-Clause
/* CPU pyramid: known small inputs, odd sizes, 1x1 limits, strides, and argument checks. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "pyramid_reference.h"
#include "vf_test.h"

/* Builds a pyramid of a random w x h image (given stride) and compares every level. */
static void check_random(vf_context* ctx, int w, int h, int levels, int pad, unsigned seed) {
  size_t stride = (size_t)w + (size_t)pad;
  uint8_t* img = malloc(stride * h);
  uint8_t* tight = malloc((size_t)w * h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < (int)stride; ++x) img[y * stride + x] = (uint8_t)vf_test_rand(&seed);
    memcpy(tight + (size_t)y * w, img + y * stride, (size_t)w);
  }
  vf_pyramid_config pc = {w, h, levels};
  vf_pyramid* p = NULL;
  CHECK_OK(vf_pyramid_create(ctx, &pc, &p));
  vf_image in = vf_image_view(img, w, h, stride, VF_MEMORY_HOST, VF_PIXEL_U8);
  CHECK_OK(vf_pyramid_build(p, &in));
  for (int k = 0; k < levels; ++k) {
    vf_image lv;
    CHECK_OK(vf_pyramid_level(p, k, &lv));
    CHECK(lv.width == w >> k && lv.height == h >> k);
    uint8_t* ref = ref_pyramid_level(tight, w, h, k);
    int diff = 0;
    for (int y = 0; y < lv.height; ++y) {
      diff += memcmp((uint8_t*)lv.data + y * lv.stride_bytes, ref + (size_t)y * lv.width,
                     (size_t)lv.width) != 0;
    }
    if (diff) fprintf(stderr, "%dx%d level %d: %d rows differ\n", w, h, k, diff);
    CHECK(diff == 0);
    free(ref);
  }
  vf_pyramid_destroy(p);
  free(img);
  free(tight);
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  cc.cpu_threads = 3;
  vf_context* ctx = NULL;
  CHECK_OK(vf_context_create(&cc, &ctx));

  /* Known answer, 4x4 -> 2x2 -> 1x1, with the round-half-up rule visible: (1+2+3+4+2)/4 = 3. */
  uint8_t k4[16] = {1, 2, 10, 10, 3, 4, 10, 11, 0, 0, 255, 255, 0, 1, 255, 254};
  vf_pyramid_config pc = {4, 4, 3};
  vf_pyramid* p = NULL;
  CHECK_OK(vf_pyramid_create(ctx, &pc, &p));
  vf_image in = vf_image_view(k4, 4, 4, 4, VF_MEMORY_HOST, VF_PIXEL_U8);
  CHECK_OK(vf_pyramid_build(p, &in));
  vf_image l1, l2;
  CHECK_OK(vf_pyramid_level(p, 1, &l1));
  CHECK_OK(vf_pyramid_level(p, 2, &l2));
  const uint8_t* a = l1.data;
  const uint8_t* b = (const uint8_t*)l1.data + l1.stride_bytes;
  CHECK(a[0] == 3 && a[1] == 10 && b[0] == 0 && b[1] == 255); /* 10.25->10, 0.25->0, 254.75->255 */
  CHECK(((uint8_t*)l2.data)[0] == 67);                        /* (3+10+0+255+2)/4 = 67.5 -> 67 */
  vf_pyramid_destroy(p);

  /* Random images: even, odd, tiny, padded strides, deep pyramids, the 1x1 limit. */
  check_random(ctx, 752, 480, 4, 0, 1);
  check_random(ctx, 753, 481, 5, 3, 2);
  check_random(ctx, 31, 17, 5, 1, 3);
  check_random(ctx, 1, 1, 1, 0, 4);
  check_random(ctx, 128, 128, 8, 0, 5);
  check_random(ctx, 255, 129, 8, 13, 6);
  check_random(ctx, 3, 2, 2, 0, 7);

  /* Bad configurations. */
  pc = (vf_pyramid_config){752, 480, 0};
  CHECK_FAILS(vf_pyramid_create(ctx, &pc, &p), VF_ERR_INVALID_ARG);
  pc.levels = 9;
  CHECK_FAILS(vf_pyramid_create(ctx, &pc, &p), VF_ERR_INVALID_ARG);
  pc = (vf_pyramid_config){100, 3, 3}; /* level 2 would be 0 rows high */
  CHECK_FAILS(vf_pyramid_create(ctx, &pc, &p), VF_ERR_INVALID_ARG);
  CHECK(p == NULL);
  pc = (vf_pyramid_config){0, 10, 1};
  CHECK_FAILS(vf_pyramid_create(ctx, &pc, &p), VF_ERR_INVALID_ARG);
  pc = (vf_pyramid_config){-5, 10, 1};
  CHECK_FAILS(vf_pyramid_create(ctx, &pc, &p), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_pyramid_create(NULL, &pc, &p), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_pyramid_create(ctx, NULL, &p), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_pyramid_create(ctx, &pc, NULL), VF_ERR_INVALID_ARG);

  /* Bad builds leave the pyramid usable. */
  pc = (vf_pyramid_config){16, 8, 2};
  CHECK_OK(vf_pyramid_create(ctx, &pc, &p));
  uint8_t small[16 * 8] = {0};
  vf_image wrong = vf_image_view(small, 8, 8, 16, VF_MEMORY_HOST, VF_PIXEL_U8);
  CHECK_FAILS(vf_pyramid_build(p, &wrong), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_pyramid_last_error(p), "8x8") != NULL);
  wrong = vf_image_view(small, 8, 8, 16, VF_MEMORY_HOST, VF_PIXEL_U16);
  CHECK_FAILS(vf_pyramid_build(p, &wrong), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_pyramid_build(p, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_pyramid_build(NULL, &wrong), VF_ERR_INVALID_ARG);
  wrong = vf_image_view(small, 16, 8, 16, VF_MEMORY_DEVICE, VF_PIXEL_U8);
  CHECK_FAILS(vf_pyramid_build(p, &wrong), VF_ERR_UNSUPPORTED);
  vf_image good = vf_image_view(small, 16, 8, 16, VF_MEMORY_HOST, VF_PIXEL_U8);
  CHECK_OK(vf_pyramid_build(p, &good));
  vf_image lv;
  CHECK_FAILS(vf_pyramid_level(p, 2, &lv), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_pyramid_level(p, -1, &lv), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_pyramid_level(p, 0, NULL), VF_ERR_INVALID_ARG);
  CHECK(vf_pyramid_levels(p) == 2 && vf_pyramid_levels(NULL) == 0);
  vf_pyramid_destroy(p);
  vf_pyramid_destroy(NULL);
  vf_context_destroy(ctx);
  VF_TEST_END("test_pyramid");
}

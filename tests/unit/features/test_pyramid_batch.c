// SPDX-License-Identifier: BSD-3-Clause
/* vf_pyramid_build_batch (a rig's pyramids in one launch) gives every level of every job the
 * pixels of the CPU pyramid: sizes and level counts that take the batched kernel (2 to 6 levels),
 * those built alone (1 level, 7 and 8), both CUDA block layouts in one call, host and device
 * images mixed, more jobs than one launch takes. Its checks refuse a bad job before anything is
 * queued. CPU backend by default; the CUDA one with --gpu (skips without a device). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <viofront/viofront.h>

#include "badinput.h"
#include "features/vf_pyramid_batch.h"
#include "vf_test.h"

static const int kSizes[][3] = {{752, 480, 4}, {753, 481, 5}, {640, 480, 4}, {31, 17, 5},
                                {255, 129, 8}, {1, 1, 1},     {65, 33, 6},   {640, 480, 7},
                                {64, 32, 2},   {100, 70, 4},  {752, 480, 3}, {96, 64, 4},
                                {96, 64, 4},   {96, 64, 4},   {96, 64, 4},   {96, 64, 4},
                                {96, 64, 4},   {96, 64, 4},   {96, 64, 4},   {96, 64, 4}};
#define JOBS ((int)(sizeof kSizes / sizeof kSizes[0]))

static void random_image(vf_image* img, int w, int h, unsigned seed) {
  CHECK_OK(vf_image_alloc(img, w, h, VF_PIXEL_U8, VF_MEMORY_HOST));
  for (int y = 0; y < h; ++y) {
    uint8_t* row = (uint8_t*)img->data + (size_t)y * img->stride_bytes;
    for (int x = 0; x < w; ++x) row[x] = (uint8_t)vf_test_rand(&seed);
  }
}

/* How many pixels of every level differ between the two pyramids. */
static long levels_differ(const vf_pyramid* ref, const vf_pyramid* got, int levels) {
  long diff = 0;
  for (int k = 0; k < levels; ++k) {
    vf_image a, d, b;
    CHECK_OK(vf_pyramid_level(ref, k, &a));
    CHECK_OK(vf_pyramid_level(got, k, &d));
    CHECK_OK(vf_image_alloc(&b, d.width, d.height, VF_PIXEL_U8, VF_MEMORY_HOST));
    CHECK_OK(vf_image_copy(&d, &b));
    for (int y = 0; y < a.height; ++y) {
      const uint8_t* ra = (const uint8_t*)a.data + (size_t)y * a.stride_bytes;
      const uint8_t* rb = (const uint8_t*)b.data + (size_t)y * b.stride_bytes;
      for (int x = 0; x < a.width; ++x) diff += ra[x] != rb[x];
    }
    vf_image_free(&b);
  }
  return diff;
}

int main(int argc, char** argv) {
  int gpu = 0;
  vf_context* ctx = NULL;
  VF_TEST_BACKEND_CONTEXT(argc, argv, ctx, gpu);
  vf_context* cpu_ctx = NULL;
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&cc, &cpu_ctx));

  vf_pyramid *ref[JOBS], *pyr[JOBS];
  vf_image img[JOBS], dev[JOBS];
  const vf_image* in[JOBS];
  for (int k = 0; k < JOBS; ++k) {
    vf_pyramid_config pc = {kSizes[k][0], kSizes[k][1], kSizes[k][2]};
    /* Both CUDA block layouts in one call (read when a pyramid is created). */
    CHECK(setenv("VF_PYRAMID_QUAD", k % 2 ? "1" : "0", 1) == 0);
    CHECK_OK(vf_pyramid_create(cpu_ctx, &pc, &ref[k]));
    CHECK_OK(vf_pyramid_create(ctx, &pc, &pyr[k]));
    random_image(&img[k], pc.width, pc.height, 300u + (unsigned)k);
    CHECK_OK(vf_pyramid_build(ref[k], &img[k]));
    in[k] = &img[k];
    if (gpu && k % 3 == 2) {
      CHECK_OK(vf_image_alloc(&dev[k], pc.width, pc.height, VF_PIXEL_U8, VF_MEMORY_DEVICE));
      CHECK_OK(vf_image_copy(&img[k], &dev[k]));
      in[k] = &dev[k];
    }
  }
  CHECK(unsetenv("VF_PYRAMID_QUAD") == 0);

  /* Bad jobs: nothing queued, the message names the fault. */
  CHECK_BAD(vf_pyramid_build_batch(NULL, pyr, in, 1), VF_ERR_INVALID_ARG, "NULL");
  CHECK_BAD(vf_pyramid_build_batch(ctx, pyr, in, -1), VF_ERR_INVALID_ARG, "pyramids");
  CHECK_BAD(vf_pyramid_build_batch(ctx, pyr, in, VF_PYRAMID_BATCH_MAX + 1), VF_ERR_INVALID_ARG,
            "pyramids");
  const vf_image* swapped[2] = {in[0], in[2]}; /* job 1 gets a 640x480 image for 753x481 */
  CHECK_BAD(vf_pyramid_build_batch(ctx, pyr, swapped, 2), VF_ERR_INVALID_ARG, "job 1");
  if (gpu) {
    vf_pyramid* cpu_one[1] = {ref[0]};
    CHECK_BAD(vf_pyramid_build_batch(ctx, cpu_one, in, 1), VF_ERR_INVALID_ARG, "backend");
  }
  CHECK_OK(vf_pyramid_build_batch(ctx, pyr, in, 0));

  CHECK_OK(vf_pyramid_build_batch(ctx, pyr, in, JOBS));
  CHECK_OK(vf_context_synchronize(ctx));
  long diff = 0;
  for (int k = 0; k < JOBS; ++k) {
    const long d = levels_differ(ref[k], pyr[k], kSizes[k][2]);
    if (d) {
      fprintf(stderr, "job %d (%dx%d, %d levels): %ld pixels differ\n", k, kSizes[k][0],
              kSizes[k][1], kSizes[k][2], d);
    }
    diff += d;
  }
  CHECK(diff == 0);
  printf("%s: %d pyramids in one call, every level identical to the CPU's\n", gpu ? "CUDA" : "CPU",
         JOBS);
  for (int k = 0; k < JOBS; ++k) {
    vf_pyramid_destroy(ref[k]);
    vf_pyramid_destroy(pyr[k]);
    vf_image_free(&img[k]);
    if (gpu && k % 3 == 2) vf_image_free(&dev[k]);
  }
  vf_context_destroy(ctx);
  vf_context_destroy(cpu_ctx);
  VF_TEST_END("test_pyramid_batch");
}

// SPDX-License-Identifier: BSD-3-Clause
/* GPU pyramid equals the CPU pyramid bit for bit: random images of many sizes and level
 * counts, host and device input, and the real images of the shared data. Skips without a
 * device. */
#include <stdint.h>
#include <stdlib.h>
#include <viofront/viofront.h>

#include "vf_test.h"

static vf_context* cpu_ctx;
static vf_context* gpu_ctx;

/* Builds on both backends from `img` (host) and compares every level. */
static void compare(const vf_image* img, int levels, int device_input, const char* what) {
  vf_pyramid_config pc = {img->width, img->height, levels};
  vf_pyramid *pc_cpu = NULL, *pc_gpu = NULL;
  CHECK_OK(vf_pyramid_create(cpu_ctx, &pc, &pc_cpu));
  CHECK_OK(vf_pyramid_create(gpu_ctx, &pc, &pc_gpu));
  if (pc_cpu == NULL || pc_gpu == NULL) return;
  vf_image dev = {0};
  const vf_image* gpu_in = img;
  if (device_input) {
    CHECK_OK(vf_image_alloc(&dev, img->width, img->height, VF_PIXEL_U8, VF_MEMORY_DEVICE));
    CHECK_OK(vf_image_copy(img, &dev));
    gpu_in = &dev;
  }
  CHECK_OK(vf_pyramid_build(pc_cpu, img));
  CHECK_OK(vf_pyramid_build(pc_gpu, gpu_in));
  CHECK_OK(vf_context_synchronize(gpu_ctx));
  for (int k = 0; k < levels; ++k) {
    vf_image a, d, b;
    CHECK_OK(vf_pyramid_level(pc_cpu, k, &a));
    CHECK_OK(vf_pyramid_level(pc_gpu, k, &d));
    CHECK_OK(vf_image_alloc(&b, d.width, d.height, VF_PIXEL_U8, VF_MEMORY_HOST));
    memset(b.data, 0xA5,
           b.stride_bytes * (size_t)b.height); /* poison: every byte must be written */
    CHECK_OK(vf_image_copy(&d, &b));
    long diff = 0;
    for (int y = 0; y < a.height; ++y) {
      const uint8_t* ra = (const uint8_t*)a.data + y * a.stride_bytes;
      const uint8_t* rb = (const uint8_t*)b.data + y * b.stride_bytes;
      for (int x = 0; x < a.width; ++x) diff += ra[x] != rb[x];
    }
    if (diff) fprintf(stderr, "%s level %d: %ld pixels differ\n", what, k, diff);
    CHECK(diff == 0);
    vf_image_free(&b);
  }
  vf_image_free(&dev);
  vf_pyramid_destroy(pc_cpu);
  vf_pyramid_destroy(pc_gpu);
}

static void compare_random(int w, int h, int levels, unsigned seed) {
  vf_image img;
  CHECK_OK(vf_image_alloc(&img, w, h, VF_PIXEL_U8, VF_MEMORY_HOST));
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x)
      ((uint8_t*)img.data)[y * img.stride_bytes + x] = (uint8_t)vf_test_rand(&seed);
  }
  char what[64];
  snprintf(what, sizeof what, "random %dx%d/%d", w, h, levels);
  compare(&img, levels, 1, what);
  compare(&img, levels, 0, what);
  vf_image_free(&img);
}

int main(void) {
  VF_TEST_GPU_CONTEXTS(cpu_ctx, gpu_ctx);

  static const int sizes[][3] = {{752, 480, 4},  {753, 481, 5}, {1920, 1080, 6}, {31, 17, 5},
                                 {1, 1, 1},      {2, 2, 2},     {640, 480, 7},   {255, 129, 8},
                                 {1024, 768, 8}, {65, 33, 6},   {753, 481, 4},   {752, 480, 3},
                                 {100, 70, 4},   {64, 32, 2}};
  /* Both block layouts of the CUDA kernel: a thread a word of the tile, and four words (the
   * layout of small GPUs), pinned through VF_PYRAMID_QUAD (read when a pyramid is created). Up to
   * 4 levels the tiles inside the image take the unrolled path, the edge tiles the loop. */
  static const char* layouts[] = {"0", "1"};
  for (int q = 0; q < 2; ++q) {
    CHECK(setenv("VF_PYRAMID_QUAD", layouts[q], 1) == 0);
    for (int i = 0; i < (int)(sizeof sizes / sizeof sizes[0]); ++i) {
      compare_random(sizes[i][0], sizes[i][1], sizes[i][2], 100u + (unsigned)i);
    }
  }
  CHECK(unsetenv("VF_PYRAMID_QUAD") == 0);
  static const char* real[] = {"images/birds_752x480.png", "images/peru_640x480.png",
                               "middlebury/cones/im2.png",
                               "euroc/V1_01_easy_micro/mav0/cam0/data/1403715273262142976.png"};
  for (int i = 0; i < 4; ++i) {
    char path[1024];
    if (vf_test_data_path(real[i], path, sizeof path) == NULL) {
      printf("real image %s absent: skipped\n", real[i]);
      continue;
    }
    vf_image img;
    CHECK_OK(vf_png_read_gray8(path, &img));
    compare(&img, 4, 1, real[i]);
    vf_image_free(&img);
  }
  vf_context_destroy(gpu_ctx);
  vf_context_destroy(cpu_ctx);
  VF_TEST_END("test_pyramid_gpu");
}

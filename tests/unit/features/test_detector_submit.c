// SPDX-License-Identifier: BSD-3-Clause
/* vf_detector_submit + vf_detector_collect against vf_detector_detect: on a real image (or a
 * random texture without the data folder), with no mask, a checkerboard of occupied cells and
 * every cell occupied, the keypoints are the same bytes, in the same order. Also the state and
 * argument checks. CPU backend; with --gpu the CUDA one (skips, 77, without a device). */
#include <string.h>

#include "test_detector_util.h"

/* A detector with `cfg` and the pyramid of img, built. */
static void open_detector(vf_context* ctx, const vf_image* img, const vf_detector_config* cfg,
                          vf_pyramid** p, vf_detector** d) {
  vf_pyramid_config pc = {img->width, img->height, cfg->max_level + 1};
  CHECK_OK(vf_pyramid_create(ctx, &pc, p));
  CHECK_OK(vf_detector_create(ctx, cfg, d));
  CHECK_OK(vf_pyramid_build(*p, img));
}

static void compare(vf_context* ctx, const vf_image* img, const uint8_t* mask, const char* what) {
  const vf_detector_config cfg = vf_detector_config_default();
  const det_result want = det_run(ctx, img, &cfg, mask);
  CHECK_OK(want.status);
  vf_pyramid* p = NULL;
  vf_detector* d = NULL;
  open_detector(ctx, img, &cfg, &p, &d);
  CHECK_OK(vf_detector_submit(d, p));
  CHECK_OK(vf_detector_collect(d, mask));
  const vf_keypoint* kp = NULL;
  int count = -1;
  CHECK_OK(vf_detector_keypoints(d, &kp, &count));
  printf("%s: %d keypoints, detect gave %d\n", what, count, want.count);
  CHECK(count == want.count);
  CHECK(count == 0 || (kp != NULL && memcmp(kp, want.kp, (size_t)count * sizeof *kp) == 0));
  /* Collected once: a second collect has nothing to wait for. */
  CHECK_STATUS(vf_detector_collect(d, mask), VF_ERR_STATE);
  vf_detector_destroy(d);
  vf_pyramid_destroy(p);
  det_result copy = want;
  det_free(&copy);
}

static void argument_checks(vf_context* ctx, const vf_image* img) {
  const vf_detector_config cfg = vf_detector_config_default();
  vf_pyramid* p = NULL;
  vf_detector* d = NULL;
  open_detector(ctx, img, &cfg, &p, &d);
  CHECK_STATUS(vf_detector_submit(NULL, p), VF_ERR_INVALID_ARG);
  CHECK_STATUS(vf_detector_submit(d, NULL), VF_ERR_INVALID_ARG);
  CHECK_STATUS(vf_detector_collect(NULL, NULL), VF_ERR_INVALID_ARG);
  CHECK_STATUS(vf_detector_collect(d, NULL), VF_ERR_STATE);
  /* A detect in between replaces the submission. */
  CHECK_OK(vf_detector_submit(d, p));
  CHECK_OK(vf_detector_detect(d, p, NULL, VF_MEMORY_HOST));
  CHECK_STATUS(vf_detector_collect(d, NULL), VF_ERR_STATE);
  vf_detector_destroy(d);
  vf_pyramid_destroy(p);
  if (vf_context_backend(ctx) == VF_BACKEND_CUDA) {
    vf_detector_config dev = cfg;
    dev.host_results = 0;
    open_detector(ctx, img, &dev, &p, &d);
    CHECK_STATUS(vf_detector_submit(d, p), VF_ERR_UNSUPPORTED);
    vf_detector_destroy(d);
    vf_pyramid_destroy(p);
  }
}

int main(int argc, char** argv) {
  int gpu = 0;
  vf_context* ctx = NULL;
  VF_TEST_BACKEND_CONTEXT(argc, argv, ctx, gpu);
  vf_image img = {0};
  char buf[1024];
  const char* path = vf_test_data_path("images/birds_752x480.png", buf, sizeof buf);
  if (path != NULL) {
    CHECK_OK(vf_png_read_gray8(path, &img));
  } else {
    CHECK_OK(vf_image_alloc(&img, 752, 480, VF_PIXEL_U8, VF_MEMORY_HOST));
    det_fill_blocks(&img, 17u, 3);
  }
  vf_grid grid;
  {
    const vf_detector_config cfg = vf_detector_config_default();
    vf_detector* d = NULL;
    CHECK_OK(vf_detector_create(ctx, &cfg, &d));
    CHECK_OK(vf_detector_grid(d, &grid));
    vf_detector_destroy(d);
  }
  const int cells = grid.cols * grid.rows;
  uint8_t* mask = calloc((size_t)cells, 1);
  CHECK(mask != NULL);
  compare(ctx, &img, NULL, "no mask");
  for (int c = 0; c < cells; ++c) mask[c] = (uint8_t)(((c % grid.cols) + (c / grid.cols)) & 1);
  compare(ctx, &img, mask, "checkerboard");
  memset(mask, 1, (size_t)cells);
  compare(ctx, &img, mask, "every cell occupied");
  argument_checks(ctx, &img);
  free(mask);
  vf_image_free(&img);
  vf_context_destroy(ctx);
  VF_TEST_END(gpu ? "test_detector_submit --gpu" : "test_detector_submit");
}

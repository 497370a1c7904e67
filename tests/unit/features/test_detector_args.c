// SPDX-License-Identifier: BSD-3-Clause
/* Bad detector configurations and calls are refused with a status and a message that names the
 * problem; nothing crashes. */
#include <string.h>

#include "test_detector_util.h"

static vf_context* ctx;

/* Creating with one field changed fails with INVALID_ARG and a message containing `word`. */
static void refuse(vf_detector_config c, const char* word) {
  vf_detector* d = NULL;
  CHECK_FAILS(vf_detector_create(ctx, &c, &d), VF_ERR_INVALID_ARG);
  CHECK(d == NULL);
  if (strstr(vf_last_error_message(), word) == NULL) {
    fprintf(stderr, "message \"%s\" does not name %s\n", vf_last_error_message(), word);
    CHECK(0);
  }
  vf_detector_destroy(d);
}

/* `ok` with one field set to `value` is refused with a message naming `word`. */
#define REFUSE(field, value, word) \
  do {                             \
    vf_detector_config c_ = ok;    \
    c_.field = (value);            \
    refuse(c_, word);              \
  } while (0)

static void test_bad_configs(void) {
  const vf_detector_config ok = vf_detector_config_default();
  static const int bad_n[] = {-1, 0, 8, 13, 16};
  for (int i = 0; i < 5; ++i) REFUSE(arc_length, bad_n[i], "arc_length");
  static const int bad_cell_width[] = {0, -32, 16, 40, 100, 16384};
  for (int i = 0; i < 6; ++i) REFUSE(cell_width, bad_cell_width[i], "cell_width");
  REFUSE(cell_height, 0, "cell_height");
  REFUSE(cell_height, 30, "cell_height"); /* not a multiple of 2^2 */
  REFUSE(width, 0, "width");
  REFUSE(height, -5, "height");
  REFUSE(threshold, 0, "threshold");
  REFUSE(threshold, 255, "threshold");
  REFUSE(border, 2, "border");
  REFUSE(score, (vf_fast_score)7, "score");
  REFUSE(min_level, 3, "levels");
  REFUSE(min_level, -1, "levels");
  REFUSE(max_level, VF_PYRAMID_MAX_LEVELS, "levels");
  REFUSE(width, 3, "max_level"); /* level 2 of a 3-pixel-wide image does not exist */
  REFUSE(host_results, 2, "host_results");
  /* Cells of 32 cannot be halved six times; cells of 64 high can, 32 high cannot. */
  vf_detector_config c = ok;
  c.max_level = 6;
  c.width = c.height = 4096;
  refuse(c, "cell_width");
  c.cell_width = 64;
  refuse(c, "cell_height");
  vf_detector* d = NULL;
  CHECK_FAILS(vf_detector_create(NULL, &ok, &d), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_detector_create(ctx, NULL, &d), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_detector_create(ctx, &ok, NULL), VF_ERR_INVALID_ARG);
}

static void test_bad_calls(void) {
  vf_detector_config c = vf_detector_config_default();
  vf_detector* d = NULL;
  CHECK_OK(vf_detector_create(ctx, &c, &d));
  if (d == NULL) return;
  const vf_keypoint* kp = NULL;
  int count = -1;
  CHECK_FAILS(vf_detector_keypoints(d, &kp, &count), VF_ERR_STATE);
  CHECK_FAILS(vf_detector_cells(d, &kp), VF_ERR_STATE);
  CHECK_FAILS(vf_detector_keypoints(d, NULL, &count), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_detector_keypoints(NULL, &kp, &count), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_detector_grid(d, NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_detector_detect(NULL, NULL, NULL, VF_MEMORY_HOST), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_detector_detect(d, NULL, NULL, VF_MEMORY_HOST), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_detector_last_error(d), "pyramid") != NULL);

  vf_image img;
  CHECK_OK(vf_image_alloc(&img, 752, 480, VF_PIXEL_U8, VF_MEMORY_HOST));
  det_fill_random(&img, 3, 0, 256);
  /* A pyramid with too few levels for max_level 2. */
  vf_pyramid_config pc = {752, 480, 2};
  vf_pyramid* p = NULL;
  CHECK_OK(vf_pyramid_create(ctx, &pc, &p));
  CHECK_OK(vf_pyramid_build(p, &img));
  CHECK_FAILS(vf_detector_detect(d, p, NULL, VF_MEMORY_HOST), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_detector_last_error(d), "levels") != NULL);
  vf_pyramid_destroy(p);
  /* A pyramid of another size. */
  vf_pyramid_config other = {640, 480, 3};
  CHECK_OK(vf_pyramid_create(ctx, &other, &p));
  CHECK_FAILS(vf_detector_detect(d, p, NULL, VF_MEMORY_HOST), VF_ERR_INVALID_ARG);
  vf_pyramid_destroy(p);
  /* The right pyramid, but a device mask on the CPU backend, and a bogus mask location. */
  pc.levels = 3;
  CHECK_OK(vf_pyramid_create(ctx, &pc, &p));
  CHECK_OK(vf_pyramid_build(p, &img));
  uint8_t mask[360] = {0};
  CHECK_FAILS(vf_detector_detect(d, p, mask, VF_MEMORY_DEVICE), VF_ERR_UNSUPPORTED);
  CHECK_FAILS(vf_detector_detect(d, p, mask, (vf_memory)9), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_detector_keypoints(d, &kp, &count), VF_ERR_STATE);
  /* And a good call afterwards works: failures leave the detector usable. */
  CHECK_OK(vf_detector_detect(d, p, mask, VF_MEMORY_HOST));
  CHECK_OK(vf_detector_keypoints(d, &kp, &count));
  CHECK(count > 300 && count <= 360);
  CHECK_OK(vf_detector_cells(d, &kp));
  /* Submit and collect: the same keypoints as detect; a collect needs a pending submit. */
  vf_keypoint first[360];
  const int n_first = count;
  memcpy(first, kp, (size_t)count * sizeof *kp);
  CHECK_FAILS(vf_detector_collect(d), VF_ERR_STATE);
  CHECK_FAILS(vf_detector_collect(NULL), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_detector_submit(d, NULL, mask, VF_MEMORY_HOST), VF_ERR_INVALID_ARG);
  /* Each message names the call the user made. */
  CHECK(strstr(vf_detector_last_error(d), "vf_detector_submit: pyramid") != NULL);
  CHECK_FAILS(vf_detector_collect(d), VF_ERR_STATE);
  CHECK(strstr(vf_detector_last_error(d), "vf_detector_collect: no detection") != NULL);
  CHECK_FAILS(vf_detector_detect(d, p, mask, (vf_memory)9), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_detector_last_error(d), "vf_detector_detect: occupancy_location") != NULL);
  CHECK_OK(vf_detector_submit(d, p, mask, VF_MEMORY_HOST));
  CHECK_OK(vf_detector_collect(d));
  CHECK_FAILS(vf_detector_collect(d), VF_ERR_STATE);
  CHECK_OK(vf_detector_keypoints(d, &kp, &count));
  CHECK(count == n_first && memcmp(kp, first, (size_t)count * sizeof *kp) == 0);
  vf_pyramid_destroy(p);
  vf_image_free(&img);
  vf_detector_destroy(d);
  vf_detector_destroy(NULL);
  CHECK(vf_detector_last_error(NULL) != NULL);
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  cc.cpu_threads = 2;
  CHECK_OK(vf_context_create(&cc, &ctx));
  test_bad_configs();
  test_bad_calls();
  vf_context_destroy(ctx);
  VF_TEST_END("test_detector_args");
}

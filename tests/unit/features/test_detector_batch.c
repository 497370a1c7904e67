// SPDX-License-Identifier: BSD-3-Clause
/* vf_detector_submit_batch (a rig's early detections in one launch) gives each detector the
 * keypoints of its CPU twin: scores, arc lengths, grids (one and several levels, low cells), both
 * CUDA block layouts and several image sizes in one call, more jobs than one launch takes. Its
 * checks refuse a bad job with nothing pending. CPU backend by default; the CUDA one with --gpu
 * (skips without a device). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <viofront/viofront.h>

#include "badinput.h"
#include "features/vf_detector_batch.h"
#include "vf_test.h"

#define JOBS 20

static const int kGrids[][6] = {/* cell w, h, min, max level, border, threshold */
                                {32, 32, 0, 2, 8, 10}, {64, 48, 0, 3, 8, 10},
                                {96, 40, 0, 2, 3, 1},  {128, 32, 1, 2, 21, 20},
                                {32, 32, 0, 0, 4, 60}, {32, 8, 0, 3, 5, 2}};
static const int kSizes[][2] = {{752, 480}, {640, 480}, {753, 481}};

static void random_image(vf_image* img, int w, int h, unsigned seed) {
  CHECK_OK(vf_image_alloc(img, w, h, VF_PIXEL_U8, VF_MEMORY_HOST));
  for (int y = 0; y < h; ++y) {
    uint8_t* row = (uint8_t*)img->data + (size_t)y * img->stride_bytes;
    /* Blocks of noise: corners at their edges as well as inside. */
    for (int x = 0; x < w; ++x)
      row[x] = (uint8_t)(vf_test_rand(&seed) % 64 + 96 * ((x / 9 + y / 7) % 2));
  }
}

/* Job k's configuration: the grids in turn, every third with another score and arc length. */
static vf_detector_config job_config(int k, int w, int h) {
  vf_detector_config c = vf_detector_config_default();
  const int* g = kGrids[k % 6];
  c.width = w;
  c.height = h;
  c.cell_width = g[0];
  c.cell_height = g[1];
  c.min_level = g[2];
  c.max_level = g[3];
  c.border = g[4];
  c.threshold = g[5];
  if (k % 3 == 1) {
    c.score = (vf_fast_score)(k % 3);
    c.arc_length = 9 + k % 4;
  }
  c.host_results = 1;
  return c;
}

int main(int argc, char** argv) {
  int gpu = 0;
  vf_context* ctx = NULL;
  VF_TEST_BACKEND_CONTEXT(argc, argv, ctx, gpu);
  vf_context* cpu_ctx = NULL;
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&cc, &cpu_ctx));

  vf_image img[JOBS];
  vf_pyramid *ref_pyr[JOBS], *pyr[JOBS];
  vf_detector *ref_det[JOBS], *det[JOBS];
  const vf_pyramid* in[JOBS];
  for (int k = 0; k < JOBS; ++k) {
    const int w = kSizes[k % 3][0], h = kSizes[k % 3][1];
    random_image(&img[k], w, h, 500u + (unsigned)k);
    vf_pyramid_config pc = {w, h, 5};
    CHECK_OK(vf_pyramid_create(cpu_ctx, &pc, &ref_pyr[k]));
    CHECK_OK(vf_pyramid_create(ctx, &pc, &pyr[k]));
    CHECK_OK(vf_pyramid_build(ref_pyr[k], &img[k]));
    CHECK_OK(vf_pyramid_build(pyr[k], &img[k]));
    const vf_detector_config c = job_config(k, w, h);
    /* Both CUDA block layouts in one call (read when a detector is created). */
    CHECK(setenv("VF_DETECTOR_CELLS_PER_BLOCK", k % 2 ? "2" : "1", 1) == 0);
    CHECK_OK(vf_detector_create(cpu_ctx, &c, &ref_det[k]));
    CHECK_OK(vf_detector_create(ctx, &c, &det[k]));
    CHECK_OK(vf_detector_detect(ref_det[k], ref_pyr[k], NULL, VF_MEMORY_HOST));
    in[k] = pyr[k];
  }
  CHECK(unsetenv("VF_DETECTOR_CELLS_PER_BLOCK") == 0);
  CHECK_OK(vf_context_synchronize(ctx));

  vf_detector_batch* batch = NULL;
  CHECK_OK(vf_detector_batch_create(ctx, &batch));
  CHECK_BAD(vf_detector_batch_create(NULL, &batch), VF_ERR_INVALID_ARG, "NULL");

  /* Bad jobs: refused, nothing pending. */
  CHECK_BAD(vf_detector_submit_batch(NULL, det, in, 1), VF_ERR_INVALID_ARG, "NULL");
  CHECK_BAD(vf_detector_submit_batch(batch, det, in, -1), VF_ERR_INVALID_ARG, "detectors");
  CHECK_BAD(vf_detector_submit_batch(batch, det, in, VF_DETECTOR_BATCH_MAX + 1), VF_ERR_INVALID_ARG,
            "detectors");
  vf_detector* twice[2] = {det[0], det[0]};
  CHECK_BAD(vf_detector_submit_batch(batch, twice, in, 2), VF_ERR_INVALID_ARG, "twice");
  const vf_pyramid* wrong[2] = {in[0], in[2]}; /* job 1: a 752x480 pyramid for 640x480 */
  CHECK_BAD(vf_detector_submit_batch(batch, det, wrong, 2), VF_ERR_INVALID_ARG, "job 1");
  CHECK_BAD(vf_detector_collect(det[0]), VF_ERR_STATE, "no detection");
  if (gpu) {
    vf_detector* cpu_one[1] = {ref_det[0]};
    CHECK_BAD(vf_detector_submit_batch(batch, cpu_one, in, 1), VF_ERR_INVALID_ARG, "backend");
  }
  CHECK_OK(vf_detector_submit_batch(batch, det, in, 0));

  /* Twice, so that the second call's detections follow the first's in the same buffers. */
  for (int round = 0; round < 2; ++round) {
    CHECK_OK(vf_detector_submit_batch(batch, det, in, JOBS));
    int differ = 0, keypoints = 0;
    for (int k = JOBS - 1; k >= 0; --k) { /* collected in any order */
      CHECK_OK(vf_detector_collect(det[k]));
      const vf_keypoint *a = NULL, *b = NULL;
      int na = 0, nb = 0;
      CHECK_OK(vf_detector_keypoints(ref_det[k], &a, &na));
      CHECK_OK(vf_detector_keypoints(det[k], &b, &nb));
      const int same = na == nb && (na == 0 || memcmp(a, b, (size_t)na * sizeof *a) == 0);
      if (!same) fprintf(stderr, "round %d job %d: %d against %d keypoints\n", round, k, nb, na);
      differ += !same;
      keypoints += na;
    }
    CHECK(differ == 0);
    CHECK(keypoints > 20 * JOBS);
    printf(
        "%s round %d: %d detectors in one call, %d keypoints, each detector's equal to the "
        "CPU's\n",
        gpu ? "CUDA" : "CPU", round, JOBS, keypoints);
  }
  vf_detector_batch_destroy(batch);
  for (int k = 0; k < JOBS; ++k) {
    vf_detector_destroy(ref_det[k]);
    vf_detector_destroy(det[k]);
    vf_pyramid_destroy(ref_pyr[k]);
    vf_pyramid_destroy(pyr[k]);
    vf_image_free(&img[k]);
  }
  vf_context_destroy(ctx);
  vf_context_destroy(cpu_ctx);
  VF_TEST_END("test_detector_batch");
}

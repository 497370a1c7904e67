// SPDX-License-Identifier: BSD-3-Clause
/* Repeatability on real images: each image is shifted by known sub-pixel amounts (bilinear,
 * rounded to 8 bits) and/or has its brightness scaled; a keypoint of the original counts as
 * found again when the transformed image has one within 1.5 px of where it moved. The
 * fractions are printed per image and transform and must stay above the floors below. Runs on
 * the CPU backend (the GPU gives the same keypoints, test_detector_gpu). */
#include "test_detector_util.h"

typedef struct transform {
  double dx, dy; /* content moves by (dx, dy) */
  double gain;   /* brightness factor */
  double floor;  /* lowest acceptable fraction found again */
} transform;

/* Floors: the lowest fraction measured on birds, peru and a EuRoC frame with the default
 * configuration (levels 0..2, 32x32 cells, n 10, eps 10), lowered by about 0.1 as margin (the
 * results are deterministic; the floors guard against regressions). Chance level (a random
 * point within 1.5 px of one of ~300 keypoints in 752x480) is below 1%. Why not higher: one
 * keypoint per cell is the cell's maximum, so a small change of a rival corner's score moves
 * the cell's keypoint to another corner; a level-k keypoint sits on a 2^k lattice, so a shift
 * that is not a multiple of 2^k resamples the coarse levels and can move it by up to 2^k px;
 * bilinear interpolation blurs (half-pixel shifts most). A gain scales contrasts against the
 * fixed threshold and reorders scores. A shift by whole cells (a multiple of 4 px, so every
 * level moves by whole pixels and every cell onto its neighbour) must find nearly all again. */
static const transform transforms[] = {
    {0.0, 0.0, 0.8, 0.60},    {0.0, 0.0, 1.25, 0.55}, {0.25, 0.0, 1.0, 0.60},
    {0.5, 0.5, 1.0, 0.35},    {1.3, 0.7, 1.0, 0.35},  {-2.25, 1.5, 1.0, 0.20},
    {3.0, -2.0, 1.0, 0.30},   {0.5, 0.25, 0.9, 0.35}, {32.0, 0.0, 1.0, 0.90},
    {-64.0, 32.0, 1.0, 0.90},
};

static uint8_t sample(const vf_image* img, double x, double y, double gain) {
  if (x < 0) x = 0;
  if (y < 0) y = 0;
  if (x > img->width - 1) x = img->width - 1;
  if (y > img->height - 1) y = img->height - 1;
  int x0 = (int)x, y0 = (int)y;
  int x1 = x0 + 1 < img->width ? x0 + 1 : x0, y1 = y0 + 1 < img->height ? y0 + 1 : y0;
  double fx = x - x0, fy = y - y0;
  const uint8_t* r0 = (const uint8_t*)img->data + (size_t)y0 * img->stride_bytes;
  const uint8_t* r1 = (const uint8_t*)img->data + (size_t)y1 * img->stride_bytes;
  double v = (1 - fy) * ((1 - fx) * r0[x0] + fx * r0[x1]) + fy * ((1 - fx) * r1[x0] + fx * r1[x1]);
  v = v * gain + 0.5;
  return (uint8_t)(v > 255 ? 255 : v);
}

static double repeatability(const det_result* a, const det_result* b, const transform* t, int w,
                            int h, int margin) {
  int considered = 0, found = 0;
  for (int i = 0; i < a->count; ++i) {
    double x = a->kp[i].x + t->dx, y = a->kp[i].y + t->dy;
    if (x < margin || y < margin || x > w - 1 - margin || y > h - 1 - margin) continue;
    considered++;
    for (int j = 0; j < b->count; ++j) {
      double ex = b->kp[j].x - x, ey = b->kp[j].y - y;
      if (ex * ex + ey * ey <= 1.5 * 1.5) {
        found++;
        break;
      }
    }
  }
  return considered > 0 ? (double)found / considered : 0.0;
}

static int check_image(vf_context* ctx, const char* rel) {
  char path[1024];
  if (vf_test_data_path(rel, path, sizeof path) == NULL) {
    printf("%s absent: skipped\n", rel);
    return 0;
  }
  vf_image img, moved;
  CHECK_OK(vf_png_read_gray8(path, &img));
  CHECK_OK(vf_image_alloc(&moved, img.width, img.height, VF_PIXEL_U8, VF_MEMORY_HOST));
  vf_detector_config c = vf_detector_config_default();
  c.width = img.width;
  c.height = img.height;
  det_result ref = det_run(ctx, &img, &c, NULL);
  CHECK(ref.count > 100);
  printf("%s: %d keypoints\n", rel, ref.count);
  /* Far enough from the edge that the clamped-edge content cannot matter at any level. */
  int margin = (c.border + 4) << c.max_level;
  for (size_t i = 0; i < sizeof transforms / sizeof transforms[0]; ++i) {
    const transform* t = &transforms[i];
    for (int y = 0; y < img.height; ++y) {
      for (int x = 0; x < img.width; ++x)
        *det_pixel(&moved, x, y) = sample(&img, x - t->dx, y - t->dy, t->gain);
    }
    det_result r = det_run(ctx, &moved, &c, NULL);
    double f = repeatability(&ref, &r, t, img.width, img.height, margin);
    printf("  shift (%5.2f, %5.2f) gain %.2f: %5.1f%% found again within 1.5 px (floor %.0f%%)\n",
           t->dx, t->dy, t->gain, 100.0 * f, 100.0 * t->floor);
    CHECK(f >= t->floor);
    det_free(&r);
  }
  det_free(&ref);
  vf_image_free(&moved);
  vf_image_free(&img);
  return 1;
}

int main(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  vf_context* ctx = NULL;
  CHECK_OK(vf_context_create(&cc, &ctx));
  int ran = check_image(ctx, "images/birds_752x480.png");
  ran += check_image(ctx, "images/peru_640x480.png");
  ran += check_image(ctx, "euroc/V1_01_easy_micro/mav0/cam0/data/1403715273262142976.png");
  vf_context_destroy(ctx);
  if (ran == 0) VF_TEST_SKIP("no real images in %s", VF_DATA_DIR);
  VF_TEST_END("test_detector_repeat");
}

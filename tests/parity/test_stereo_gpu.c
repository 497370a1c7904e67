// SPDX-License-Identifier: BSD-3-Clause
/* GPU stereo equals the CPU reference bit for bit: every path count, census type and disparity
 * count, sub-pixel, left-right check, median, adaptive P2, uniqueness and min_disparity in
 * varied combinations, odd image sizes, host and device images with padded strides, and the
 * real pairs of ../shared/data. Skips without a device. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "stereo_fixtures.h"
#include "stereo_parity.h"
#include "vf_test.h"

static vf_context* cpu_ctx;
static vf_context* gpu_ctx;

static void synthetic_matrix(void) {
  static const int paths[] = {2, 4, 8};
  static const int disp[] = {64, 128, 256};
  static const float uniq[] = {0.95f, 1.0f, 0.8f};
  int i = 0;
  for (int pi = 0; pi < 3; ++pi) {
    for (int ci = 0; ci < 2; ++ci) {
      for (int di = 0; di < 3; ++di, ++i) {
        vf_stereo_config c = vf_stereo_config_default();
        c.paths = paths[pi];
        c.census = ci ? VF_CENSUS_FULL_9X7 : VF_CENSUS_CS_9X7;
        c.disparities = disp[di];
        c.subpixel = i & 1;
        c.lr_check = (i >> 1) & 1;
        c.median = (i >> 2) & 1;
        c.adaptive_p2 = i % 3 == 0;
        c.min_disparity = (i % 4) * 3;
        c.uniqueness = uniq[i % 3];
        c.lr_max_diff = i % 2;
        c.p1 = 7 + i % 5;
        c.p2 = ci ? 150 : 200;
        /* Odd sizes; widths just above the disparity range. */
        c.width = c.min_disparity + c.disparities + 37 + 2 * i;
        c.height = 23 + i;
        vf_image l, r;
        fx_random_pair(c.width, c.height, 5 + i, 100u + (unsigned)i, &l, &r);
        char what[160];
        snprintf(what, sizeof what,
                 "%dx%d paths %d %s D%d min %d sub %d lr %d med %d adapt %d uniq %.2f", c.width,
                 c.height, c.paths, ci ? "full" : "CS", c.disparities, c.min_disparity, c.subpixel,
                 c.lr_check, c.median, c.adaptive_p2, (double)c.uniqueness);
        stereo_compare(cpu_ctx, gpu_ctx, &c, &l, &r, i % 2, what);
        vf_image_free(&l);
        vf_image_free(&r);
      }
    }
  }
  /* Every flag both ways on one configuration, on the slanted plane (sub-pixel matters). */
  for (int f = 0; f < 16; ++f) {
    vf_stereo_config c = vf_stereo_config_default();
    c.width = 211;
    c.height = 45;
    c.subpixel = f & 1;
    c.lr_check = (f >> 1) & 1;
    c.median = (f >> 2) & 1;
    c.paths = f & 8 ? 8 : 4;
    vf_image l, r;
    fx_slanted_plane(c.width, c.height, &l, &r);
    char what[160];
    snprintf(what, sizeof what, "plane 211x45 paths %d sub %d lr %d med %d", c.paths, c.subpixel,
             c.lr_check, c.median);
    stereo_compare(cpu_ctx, gpu_ctx, &c, &l, &r, f & 1, what);
    vf_image_free(&l);
    vf_image_free(&r);
  }
}

/* Rows wider than the one-thread-a-pixel selections' shared memory holds (1728 pixels at 128
 * disparities, 3808 at 64 with 4 paths): the launch takes the other selection (the lane groups,
 * the scalar form), with the same output. */
static void wide_rows(void) {
  static const int widths[][2] = {{128, 1760}, {64, 3840}};
  for (int i = 0; i < 2; ++i) {
    vf_stereo_config c = vf_stereo_config_default();
    c.disparities = widths[i][0];
    c.width = widths[i][1];
    c.height = 9;
    c.paths = 4;
    c.subpixel = 1;
    vf_image l, r;
    fx_random_pair(c.width, c.height, 7 + i, 300u + (unsigned)i, &l, &r);
    char what[160];
    snprintf(what, sizeof what, "wide %dx%d D%d paths 4", c.width, c.height, c.disparities);
    stereo_compare(cpu_ctx, gpu_ctx, &c, &l, &r, i, what);
    vf_image_free(&l);
    vf_image_free(&r);
  }
}

static void real_pairs(void) {
  for (int i = 0; i < 2; ++i) {
    vf_image l, r;
    const char* name;
    if (!stereo_real_pair(i, &l, &r, &name)) continue;
    for (int k = 0; k < 4; ++k) {
      vf_stereo_config c = vf_stereo_config_default();
      c.width = l.width;
      c.height = l.height;
      c.paths = k & 1 ? 8 : 4;
      c.disparities = k & 2 ? 128 : 64;
      c.census = k == 3 ? VF_CENSUS_FULL_9X7 : VF_CENSUS_CS_9X7;
      char what[160];
      snprintf(what, sizeof what, "%s paths %d D%d", name, c.paths, c.disparities);
      stereo_compare(cpu_ctx, gpu_ctx, &c, &l, &r, k & 1, what);
    }
    vf_image_free(&l);
    vf_image_free(&r);
  }
}

int main(void) {
  VF_TEST_GPU_CONTEXTS(cpu_ctx, gpu_ctx);
  synthetic_matrix();
  wide_rows();
  real_pairs();
  vf_context_destroy(gpu_ctx);
  vf_context_destroy(cpu_ctx);
  VF_TEST_END("test_stereo_gpu");
}

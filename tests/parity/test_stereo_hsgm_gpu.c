// SPDX-License-Identifier: BSD-3-Clause
/* GPU hierarchical SGM, SGM with 16 paths and ZNCC + SGM equal the CPU reference bit for bit:
 * every level count, path count (2..16), census type (ZNCC: window and window sums) and
 * disparity count, window and margin, sub-pixel, left-right check, median, adaptive P2,
 * uniqueness and min_disparity in varied combinations, odd image sizes (the pyramid rounds down),
 * host and device images with padded strides, and the real pairs of ../shared/data. SGM with 16
 * paths runs CUDA's SGM kernels against the CPU's HSGM engine with one level. Skips without a
 * device. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "stereo_fixtures.h"
#include "stereo_parity.h"
#include "vf_test.h"

static vf_context* cpu_ctx;
static vf_context* gpu_ctx;

static void describe(const vf_stereo_config* c, char* what, size_t size) {
  const int zncc = c->method == VF_STEREO_ZNCC_SGM;
  snprintf(what, size,
           "%s %dx%d paths %d %s D%d min %d L%d win %d mar %d sub %d lr %d med %d adapt %d "
           "uniq %.2f",
           c->method == VF_STEREO_HSGM ? "HSGM"
           : zncc                      ? "ZNCC+SGM"
                                       : "SGM",
           c->width, c->height, c->paths,
           zncc ? (c->zncc.sums == VF_ZNCC_SUMS_INTEGRAL ? "SAT" : "sums")
           : c->census == VF_CENSUS_FULL_9X7 ? "full"
                                             : "CS",
           c->disparities, c->min_disparity, c->method == VF_STEREO_HSGM ? c->hsgm.levels : 1,
           zncc ? c->zncc.window : c->hsgm.window, c->hsgm.margin, c->subpixel, c->lr_check,
           c->median, c->adaptive_p2, (double)c->uniqueness);
}

static void synthetic(vf_stereo_method method, int count) {
  static const int paths[] = {2, 4, 8, 16};
  static const int disp[] = {64, 128, 256};
  static const float uniq[] = {0.95f, 1.0f, 0.8f};
  for (int i = 0; i < count; ++i) {
    vf_stereo_config c = vf_stereo_config_default_for(method);
    c.paths = method == VF_STEREO_SGM ? 16 : paths[i % 4];
    c.zncc.window = 3 + 2 * (i % 7);
    c.zncc.sums = (vf_zncc_sums)(i % 3);
    c.census = (i / 2) % 2 ? VF_CENSUS_FULL_9X7 : VF_CENSUS_CS_9X7;
    c.disparities = disp[(i / 3) % 3];
    c.hsgm.levels = 1 + i % 4;
    c.hsgm.window = 1 + 2 * (i % 8);
    c.hsgm.margin = (i * 3) % 9;
    c.subpixel = i & 1;
    c.lr_check = (i >> 1) & 1 || i % 5 == 0;
    c.median = (i >> 2) & 1;
    c.adaptive_p2 = i % 3 == 0;
    c.min_disparity = method == VF_STEREO_HSGM  ? (i % 3) * (1 << (c.hsgm.levels - 1))
                      : method == VF_STEREO_SGM ? i % 7
                                                : 0;
    c.uniqueness = uniq[i % 3];
    c.lr_max_diff = i % 2;
    c.p1 = 7 + i % 5;
    c.p2 = method == VF_STEREO_ZNCC_SGM     ? 40 + 10 * (i % 14)
           : c.census == VF_CENSUS_FULL_9X7 ? 150
                                            : 200;
    c.width = c.min_disparity + c.disparities + 37 + 2 * i;
    c.height = 23 + i;
    vf_image l, r;
    fx_random_pair(c.width, c.height, 5 + i, 700u + (unsigned)i, &l, &r);
    char what[200];
    describe(&c, what, sizeof what);
    stereo_compare(cpu_ctx, gpu_ctx, &c, &l, &r, i % 2, what);
    vf_image_free(&l);
    vf_image_free(&r);
  }
}

/* The slanted plane: sub-pixel fits over narrow ranges, every flag both ways. */
static void plane(void) {
  for (int f = 0; f < 8; ++f) {
    vf_stereo_config c = vf_stereo_config_default_for(VF_STEREO_HSGM);
    c.width = 213;
    c.height = 47;
    c.subpixel = f & 1;
    c.lr_check = (f >> 1) & 1;
    c.median = (f >> 2) & 1;
    c.paths = f & 1 ? 16 : 8;
    vf_image l, r;
    fx_slanted_plane(c.width, c.height, &l, &r);
    char what[200];
    describe(&c, what, sizeof what);
    stereo_compare(cpu_ctx, gpu_ctx, &c, &l, &r, f & 2, what);
    vf_image_free(&l);
    vf_image_free(&r);
  }
}

static void real_pairs(void) {
  for (int i = 0; i < 2; ++i) {
    vf_image l, r;
    const char* name;
    if (!stereo_real_pair(i, &l, &r, &name)) continue;
    for (int k = 0; k < 5; ++k) {
      vf_stereo_config c = vf_stereo_config_default_for(k == 3   ? VF_STEREO_SGM
                                                        : k == 4 ? VF_STEREO_ZNCC_SGM
                                                                 : VF_STEREO_HSGM);
      c.width = l.width;
      c.height = l.height;
      c.paths = k == 0 ? 8 : k == 4 ? 4 : 16;
      c.disparities = k == 2 ? 128 : 64;
      c.census = k == 2 ? VF_CENSUS_FULL_9X7 : VF_CENSUS_CS_9X7;
      char what[200];
      describe(&c, what, sizeof what);
      stereo_compare(cpu_ctx, gpu_ctx, &c, &l, &r, k & 1, what);
    }
    vf_image_free(&l);
    vf_image_free(&r);
  }
}

int main(void) {
  VF_TEST_GPU_CONTEXTS(cpu_ctx, gpu_ctx);
  synthetic(VF_STEREO_SGM, 12);
  synthetic(VF_STEREO_HSGM, 32);
  synthetic(VF_STEREO_ZNCC_SGM, 14);
  plane();
  real_pairs();
  vf_context_destroy(gpu_ctx);
  vf_context_destroy(cpu_ctx);
  VF_TEST_END("test_stereo_hsgm_gpu");
}

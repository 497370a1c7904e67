// SPDX-License-Identifier: BSD-3-Clause
/* The CPU disparity refinement (vf_cpu_disparity_refine_point,
 * src/features/cpu/vf_disparity_refine_cpu.c: the smoothing in integer vectors, whichever path
 * this build takes) against the rules' vf_disparity_refine_point, bit for bit: on a smooth
 * texture and its shifted copy with gain, bias and noise, on random bytes and on saturated
 * ones; every window radius 1..10, starts near and far from the truth, max_change 0.5..2, points
 * near every border (refused alike) and inside. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_simd16_sad.h"
#include "features/kernels/vf_disparity_rules.h"
#include "features/kernels/vf_sample_cpu.h"
#include "vf_test.h"

enum { W = 320, H = 64, POINTS = 6000 };

/* The left image and the right one: the left seen shift px farther left (kind 0), or random
 * bytes (1), or 0 and 255 only (2). */
static void fill(int kind, unsigned* seed, uint8_t* left, uint8_t* right, double shift) {
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const double u = x + shift;
      const double t = 128.0 + 60.0 * sin(0.31 * x + 0.7 * sin(0.05 * y)) + 40.0 * cos(0.17 * y);
      const double s = 128.0 + 60.0 * sin(0.31 * u + 0.7 * sin(0.05 * y)) + 40.0 * cos(0.17 * y);
      int l = (int)t, r = (int)(0.9 * s + 10.0) + (int)(vf_test_rand(seed) % 5) - 2;
      if (kind == 1) {
        l = (int)(vf_test_rand(seed) & 0xFF);
        r = (int)(vf_test_rand(seed) & 0xFF);
      } else if (kind == 2) {
        l = (vf_test_rand(seed) & 1) ? 255 : 0;
        r = (vf_test_rand(seed) & 3) ? 255 : 0;
      }
      left[y * W + x] = (uint8_t)(l < 0 ? 0 : l > 255 ? 255 : l);
      right[y * W + x] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
    }
}

static float frand(unsigned* seed, float lo, float hi) {
  return lo + (hi - lo) * (float)(vf_test_rand(seed) % 100000u) / 100000.0f;
}

int main(void) {
  uint8_t* left = malloc((size_t)W * H);
  uint8_t* right = malloc((size_t)W * H);
  if (left == NULL || right == NULL) return 1;
  unsigned seed = 9u;
  int finite = 0, bad = 0;
  double shift = 0.0;
  for (int i = 0; i < POINTS; ++i) {
    if (i % 500 == 0) {
      shift = 4.0 + (double)(i / 500) * 1.37;
      fill(i / 500 % 3 == 2 ? (i / 1500 % 2) + 1 : 0, &seed, left, right, shift);
    }
    vf_disparity_refine_config c;
    memset(&c, 0, sizeof c);
    c.radius = 1 + (int)(vf_test_rand(&seed) % VF_DISPARITY_REFINE_MAX_RADIUS);
    c.max_iterations = 1 + (int)(vf_test_rand(&seed) % 12);
    c.max_change = frand(&seed, 0.5f, VF_DISPARITY_REFINE_MAX_CHANGE);
    /* Mostly inside, some across every border. */
    const float x = frand(&seed, -2.0f, (float)W + 2.0f), y = frand(&seed, -2.0f, (float)H + 2.0f);
    const float d0 = (float)shift + frand(&seed, -2.5f, 2.5f);
    const float a = vf_cpu_disparity_refine_point(left, W, right, W, W, H, x, y, d0, &c);
    const float b = vf_disparity_refine_point(left, W, right, W, W, H, x, y, d0, &c);
    const int same = memcmp(&a, &b, sizeof a) == 0;
    if (!same)
      fprintf(stderr, "x %.3f y %.3f d0 %.3f radius %d: CPU %.9g, rules %.9g\n", x, y, d0, c.radius,
              a, b);
    bad += !same;
    finite += b == b;
    CHECK(same);
  }
  printf(
      "vf_simd16 path: %s; %d points (%d refined) equal to vf_disparity_refine_point: %d differ\n",
      VF_SIMD16_SAD_PATH, POINTS, finite, bad);
  CHECK(finite > POINTS / 10);
  free(left);
  free(right);
  VF_TEST_END("test_disparity_refine_cpu");
}

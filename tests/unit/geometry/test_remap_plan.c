// SPDX-License-Identifier: BSD-3-Clause
/* The CUDA remap's plan (src/geometry/kernels/vf_remap_plan_cuda.h) read the way the kernel reads
 * it (cuda/geometry/vf_remap.cu: taps p, p + col, p + row, p + row + col, the two rows' pairs
 * blended in 16-bit halves) gives the value of the map's own rule (taps clamped to the last
 * column and row), for every position of random sources of 1x1 to 37x23 pixels, the last
 * column and row included. A CPU test of the packing, which the GPU parity test
 * (test_remap_gpu) checks on the device. */
#include <stdint.h>
#include <stdlib.h>

#include "geometry/kernels/vf_remap_plan_cuda.h"
#include "vf_test.h"

/* The map's rule: bilinear with integer weights, taps clamped (the kernel before the plan). */
static uint32_t by_map(const uint8_t* src, int stride, int w, int h, int32_t sx, int32_t sy,
                       uint32_t fill) {
  if (sx < 0) return fill;
  const int x0 = sx >> 8, y0 = sy >> 8, x1 = x0 + 1 < w ? x0 + 1 : w - 1;
  const int y1 = y0 + 1 < h ? y0 + 1 : h - 1;
  const uint32_t fx = (uint32_t)sx & 255u, fy = (uint32_t)sy & 255u;
  const uint32_t a = src[y0 * stride + x0], b = src[y0 * stride + x1];
  const uint32_t c = src[y1 * stride + x0], d = src[y1 * stride + x1];
  const uint32_t top = a * (256u - fx) + b * fx, bot = c * (256u - fx) + d * fx;
  return (top * (256u - fy) + bot * fy + 32768u) >> 16;
}

/* The kernel's reading of a plan entry. */
static uint32_t by_plan(const uint8_t* src, int stride, int w, int h, const uint32_t e[2],
                        uint32_t fill) {
  if ((int32_t)e[1] < 0) return fill;
  const uint32_t x0 = e[0] & 0xffffu, y0 = e[0] >> 16, fx = e[1] & 0xffffu, fy = e[1] >> 16;
  const int col = w >= 2 ? 1 : 0, row = h >= 2 ? stride : 0;
  const uint8_t* p = src + y0 * (uint32_t)stride + x0;
  const uint32_t lo = (uint32_t)p[0] | (uint32_t)p[row] << 16;
  const uint32_t hi = (uint32_t)p[col] | (uint32_t)p[row + col] << 16;
  const uint32_t tb = lo * (256u - fx) + hi * fx;
  return ((tb & 0xffffu) * (256u - fy) + (tb >> 16) * fy + 32768u) >> 16;
}

static void check_size(int w, int h, unsigned seed) {
  const int stride = w + 3;
  uint8_t* src = malloc((size_t)stride * (size_t)h);
  if (src == NULL) return;
  for (int i = 0; i < stride * h; ++i) src[i] = (uint8_t)vf_test_rand(&seed);
  long bad = 0, n = 0;
  /* Every whole and some fractional positions up to the last column and row (the map keeps
   * positions within (w - 1) * 256 and (h - 1) * 256), and the fill entry. */
  for (int32_t sy = 0; sy <= (h - 1) * 256; sy += (h > 1 ? 37 : 1)) {
    for (int32_t sx = 0; sx <= (w - 1) * 256; sx += (w > 1 ? 29 : 1)) {
      const int32_t xs[2] = {sx, sx - sx % 256}, ys[2] = {sy, sy - sy % 256};
      for (int k = 0; k < 2; ++k) {
        uint32_t e[2];
        vf_remap_plan_entry(xs[k], ys[k], w, h, e);
        bad += by_plan(src, stride, w, h, e, 7u) != by_map(src, stride, w, h, xs[k], ys[k], 7u);
        ++n;
      }
    }
  }
  uint32_t e[2];
  vf_remap_plan_entry(-1, -1, w, h, e);
  bad += by_plan(src, stride, w, h, e, 7u) != 7u;
  /* The last pixel exactly. */
  vf_remap_plan_entry((w - 1) * 256, (h - 1) * 256, w, h, e);
  bad += by_plan(src, stride, w, h, e, 7u) != src[(h - 1) * stride + w - 1];
  if (bad) fprintf(stderr, "%dx%d: %ld of %ld positions differ\n", w, h, bad, n + 2);
  CHECK(bad == 0);
  free(src);
}

int main(void) {
  const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {2, 7}, {37, 23}, {16, 3}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
    check_size(sizes[i][0], sizes[i][1], 100u + (unsigned)i);
  /* The pack over a map: the same entries as one at a time. */
  const int32_t map[8] = {-1, -1, 0, 0, 512, 256, 255, 1};
  uint32_t plan[8], one[2];
  vf_remap_plan_pack(map, 4, 3, 2, plan);
  for (int i = 0; i < 4; ++i) {
    vf_remap_plan_entry(map[2 * i], map[2 * i + 1], 3, 2, one);
    CHECK(plan[2 * i] == one[0] && plan[2 * i + 1] == one[1]);
  }
  VF_TEST_END("test_remap_plan");
}

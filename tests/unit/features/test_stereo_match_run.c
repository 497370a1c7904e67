// SPDX-License-Identifier: BSD-3-Clause
/* The CPU sparse stereo matcher's vector search (vf_cpu_match_run,
 * src/features/cpu/vf_stereo_match_run_cpu.c), whichever path this build takes (SSE2, NEON or
 * plain C), against the rules' scalar vf_match_run field by field (lo, hi, d, cost, cm, cp,
 * second): on random bytes, on a smooth texture and its shifted copy with gain and bias, on few
 * grey levels (ties), on flat images (every cost 0), on saturated images (the largest terms);
 * both signs, the search windows and the depth-step cells' sizes and uneven windows, ranges cut
 * at both image borders, empty ranges, the whole range of a wide image. On the same windows the
 * vector correlation and texture tests (vf_cpu_match_zncc, vf_cpu_match_textured) against the
 * rules', bit for bit. The depth step's cells (vf_cpu_match_cells) against the rules'
 * vf_match_cells: cell radii 1..5, near both borders and inside. And vf_simd16_sad.h's
 * operations against scalar references. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_simd16_sad.h"
#include "features/kernels/vf_stereo_match_cpu.h"
#include "features/kernels/vf_stereo_match_point.h"
#include "vf_test.h"

enum { W = 1200, H = 40, SEARCHES = 4000 };

typedef enum fill_kind {
  FILL_RANDOM,
  FILL_TEXTURE,
  FILL_LEVELS,
  FILL_FLAT,
  FILL_SATURATED
} fill_kind;

/* The left image and the right one (the left seen shift px farther left, with gain and bias). */
static void fill(fill_kind kind, unsigned* seed, uint8_t* left, uint8_t* right, int shift) {
  const int levels = 2 + (int)(vf_test_rand(seed) % 3);
  const uint8_t flat = (uint8_t)vf_test_rand(seed);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const double t = 128.0 + 60.0 * sin(0.31 * x + 0.7 * sin(0.05 * y)) + 40.0 * cos(0.17 * y);
      int l, r;
      switch (kind) {
        case FILL_RANDOM:
          l = (int)(vf_test_rand(seed) & 0xFF);
          r = (int)(vf_test_rand(seed) & 0xFF);
          break;
        case FILL_TEXTURE: {
          const double u =
              128.0 + 60.0 * sin(0.31 * (x + shift) + 0.7 * sin(0.05 * y)) + 40.0 * cos(0.17 * y);
          l = (int)t;
          r = (int)(0.9 * u + 10.0) + (int)(vf_test_rand(seed) % 5) - 2;
          break;
        }
        case FILL_LEVELS:
          l = (int)(vf_test_rand(seed) % (unsigned)levels) * 60;
          r = (int)(vf_test_rand(seed) % (unsigned)levels) * 60;
          break;
        case FILL_FLAT: l = r = flat; break;
        default: /* 0 and 255 only: the largest differences of pixels and of window sums */
          l = (vf_test_rand(seed) & 1) ? 255 : 0;
          r = ((vf_test_rand(seed) & 7) == 0) ? 255 : 0;
          break;
      }
      left[y * W + x] = (uint8_t)(l < 0 ? 0 : l > 255 ? 255 : l);
      right[y * W + x] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
    }
}

/* Fields that differ, printed with the search's arguments; 1 when all equal. */
static int same_search(vf_match_search a, vf_match_search b, int xf, int y, int sign, int lo,
                       int hi, const vf_match_rect* w) {
  const int same = a.lo == b.lo && a.hi == b.hi && a.d == b.d && a.cost == b.cost && a.cm == b.cm &&
                   a.cp == b.cp && a.second == b.second;
  if (!same)
    fprintf(stderr,
            "x %d y %d sign %d range %d..%d window %d..%d x %d..%d: vector lo %d hi %d d %d cost "
            "%d cm %d cp %d second %d, rules lo %d hi %d d %d cost %d cm %d cp %d second %d\n",
            xf, y, sign, lo, hi, w->x0, w->x1, w->y0, w->y1, a.lo, a.hi, a.d, (int)a.cost,
            (int)a.cm, (int)a.cp, (int)a.second, b.lo, b.hi, b.d, (int)b.cost, (int)b.cm, (int)b.cp,
            (int)b.second);
  return same;
}

/* vf_simd16_sad.h's operations against scalar references, on random words and edge values;
 * returns the mismatches. */
static int check_primitives(unsigned* seed) {
  static const uint16_t edge[] = {0, 1, 255, 256, 510, 766, 0x7FFF, 0x8000, 0xFFFF};
  int bad = 0;
  for (int round = 0; round < 500; ++round) {
    int16_t a[8], b[8], want_subs[8], want_eq[8], got[8];
    int32_t want_dot = 0;
    for (int i = 0; i < 8; ++i) {
      const uint16_t ua = round < 9 ? edge[(round + i) % 9] : (uint16_t)vf_test_rand(seed);
      const uint16_t ub = round < 9 ? edge[(2 * round + i) % 9]
                          : (i & 1) ? ua
                                    : (uint16_t)vf_test_rand(seed);
      a[i] = (int16_t)ua;
      b[i] = (int16_t)ub;
      want_subs[i] = (int16_t)(ua > ub ? ua - ub : 0);
      want_eq[i] = (int16_t)(ua == ub ? -1 : 0);
      /* dot products of values whose sums fit 32 bits (the search's: below 2^15 times 2^10) */
      want_dot += (int32_t)(a[i] >> 4) * (int32_t)(b[i] >> 6);
    }
    const vf_i16x8 va = vf_i16x8_load(a), vb = vf_i16x8_load(b);
    vf_i16x8_store(got, vf_i16x8_subs_u(va, vb));
    bad += memcmp(got, want_subs, sizeof got) != 0;
    vf_i16x8_store(got, vf_i16x8_eq(va, vb));
    bad += memcmp(got, want_eq, sizeof got) != 0;
    int16_t sa[8], sb[8];
    for (int i = 0; i < 8; ++i) {
      sa[i] = (int16_t)(a[i] >> 4);
      sb[i] = (int16_t)(b[i] >> 6);
    }
    bad += vf_i16x8_dot(vf_i16x8_load(sa), vf_i16x8_load(sb)) != want_dot;
  }
  return bad;
}

int main(void) {
  uint8_t* left = malloc((size_t)W * H);
  uint8_t* right = malloc((size_t)W * H);
  if (left == NULL || right == NULL) return 1;
  unsigned seed = 5u;
  int searched = 0, empty = 0, cut = 0, bad = 0, bad_tests = 0, textured = 0;
  for (int s = 0; s < SEARCHES; ++s) {
    if (s % 200 == 0) fill((fill_kind)(s / 200 % 5), &seed, left, right, 3 + s / 200 % 40);
    /* Square windows of the search radii (1..7) and of the cells (1..5), and uneven ones. */
    const int r = 1 + (int)(vf_test_rand(&seed) % VF_STEREO_MATCH_MAX_RADIUS);
    vf_match_rect w = {-r, r, -r, r};
    if (s % 4 == 3) {
      w.x0 = -(int)(vf_test_rand(&seed) % 9);
      w.x1 = (int)(vf_test_rand(&seed) % 8);
      w.y0 = -(int)(vf_test_rand(&seed) % 8);
      w.y1 = (int)(vf_test_rand(&seed) % 8);
    }
    const int y = 8 + (int)(vf_test_rand(&seed) % (H - 16));
    const int sign = (vf_test_rand(&seed) & 1) ? 1 : -1;
    int xf = (int)(vf_test_rand(&seed) % W);
    if (xf + w.x0 < 0) xf = -w.x0;
    if (xf + w.x1 > W - 1) xf = W - 1 - w.x1;
    int lo, hi;
    switch (s % 5) {
      case 0: /* the whole range of a wide image, or most of it */
        lo = -(int)(vf_test_rand(&seed) % 4);
        hi = (s % 10 == 0) ? VF_STEREO_MATCH_MAX_DISPARITY - 1 + lo
                           : 32 + (int)(vf_test_rand(&seed) % 200);
        break;
      case 1: /* a prior's window */
        lo = (int)(vf_test_rand(&seed) % 60) - 4;
        hi = lo + (int)(vf_test_rand(&seed) % 7);
        break;
      case 2: /* near the left border: the range cut */
        xf = -w.x0 + (int)(vf_test_rand(&seed) % 24);
        lo = (int)(vf_test_rand(&seed) % 8) - 4;
        hi = lo + 4 + (int)(vf_test_rand(&seed) % 64);
        break;
      case 3: /* near the right border */
        xf = W - 1 - w.x1 - (int)(vf_test_rand(&seed) % 24);
        lo = (int)(vf_test_rand(&seed) % 8) - 4;
        hi = lo + 4 + (int)(vf_test_rand(&seed) % 64);
        break;
      default: /* a cell's few disparities, or none at all */
        lo = (int)(vf_test_rand(&seed) % 40) - 2;
        hi = lo + (int)(vf_test_rand(&seed) % 7) - 2;
        break;
    }
    /* The correlation with a window of the other image, the texture test of a square. */
    const int xo = -w.x0 + (int)(vf_test_rand(&seed) % (unsigned)(W - (w.x1 - w.x0)));
    const float za = vf_cpu_match_zncc(left, W, xf, right, W, xo, y, &w),
                zb = vf_match_zncc(left, W, xf, right, W, xo, y, &w);
    const int rs = (int)(vf_test_rand(&seed) % 8),
              xs = rs + (int)(vf_test_rand(&seed) % (W - 2 * rs));
    const int ys = rs + (int)(vf_test_rand(&seed) % (H - 2 * rs));
    const int same_tests =
        memcmp(&za, &zb, sizeof za) == 0 &&
        vf_cpu_match_textured(left, W, xs, ys, rs) == vf_match_textured(left, W, xs, ys, rs);
    if (!same_tests)
      fprintf(stderr, "zncc %.9g / %.9g at x %d, %d y %d, or texture at %d %d radius %d\n", za, zb,
              xf, xo, y, xs, ys, rs);
    bad_tests += !same_tests;
    textured += vf_match_textured(left, W, xs, ys, rs);
    const vf_match_search a = vf_cpu_match_run(left, W, right, W, W, xf, y, sign, lo, hi, &w);
    const vf_match_search b = vf_match_run(left, W, right, W, W, xf, y, sign, lo, hi, &w);
    ++searched;
    empty += b.lo > b.hi;
    cut += b.lo > lo || b.hi < hi;
    const int same = same_search(a, b, xf, y, sign, lo, hi, &w);
    bad += !same;
    CHECK(same);
  }
  printf(
      "vf_simd16_sad path: %s; %d searches (%d empty, %d cut at a border); differing from "
      "vf_match_run: %d\n",
      VF_SIMD16_SAD_PATH, searched, empty, cut, bad);
  CHECK(empty > 50 && cut > 500);
  /* Windows at the image's first pixel (nothing before them to read). */
  for (int r = 0; r <= VF_STEREO_MATCH_MAX_RADIUS; ++r) {
    const vf_match_rect w = {-r, r, -r, r};
    const float za = vf_cpu_match_zncc(left, W, r, right, W, r, r, &w),
                zb = vf_match_zncc(left, W, r, right, W, r, r, &w);
    bad_tests += memcmp(&za, &zb, sizeof za) != 0 ||
                 vf_cpu_match_textured(left, W, r, r, r) != vf_match_textured(left, W, r, r, r);
  }
  printf(
      "vf_cpu_match_zncc and vf_cpu_match_textured (%d of %d squares textured) differing from "
      "the rules': %d\n",
      textured, searched, bad_tests);
  CHECK(bad_tests == 0 && textured > searched / 4 && textured < searched);
  /* The depth step's nine cells: radii 1..5 (the vector costs take 1..3), points near the left
   * border (rows that would start before the image's: the rules' sums), the right one, and
   * inside; disparities whose cells' searches the image cuts. */
  int cells = 0, cells_valid = 0, bad_cells = 0;
  for (int s = 0; s < 3000; ++s) {
    if (s % 300 == 0) fill((fill_kind)(s / 300 % 5), &seed, left, right, 5 + s / 300 % 30);
    const int cr = 1 + s % 5, reach = 3 * cr + 1;
    const int y = reach + (int)(vf_test_rand(&seed) % (unsigned)(H - 2 * reach));
    int x = reach + (int)(vf_test_rand(&seed) % (unsigned)(W - 2 * reach));
    if (s % 3 == 1) x = reach + (int)(vf_test_rand(&seed) % 12);
    if (s % 3 == 2) x = W - 1 - reach - (int)(vf_test_rand(&seed) % 12);
    const int d = (int)(vf_test_rand(&seed) % 48) - 2;
    float ca[9], cb[9];
    int va[9], vb[9];
    vf_cpu_match_cells(left, W, right, W, W, x, y, d, cr, ca, va);
    vf_match_cells(left, W, right, W, W, x, y, d, cr, cb, vb, 0);
    for (int k = 0; k < 9; ++k) {
      ++cells;
      cells_valid += vb[k];
      const int same = va[k] == vb[k] && (!vb[k] || memcmp(&ca[k], &cb[k], sizeof ca[k]) == 0);
      if (!same)
        fprintf(stderr, "cell %d of (%d, %d) radius %d from %d: %d %.9g / %d %.9g\n", k, x, y, cr,
                d, va[k], ca[k], vb[k], cb[k]);
      bad_cells += !same;
    }
  }
  printf("vf_cpu_match_cells: %d cells (%d with a disparity), differing from the rules': %d\n",
         cells, cells_valid, bad_cells);
  CHECK(bad_cells == 0 && cells_valid > cells / 4 && cells_valid < cells);
  const int bad_ops = check_primitives(&seed);
  printf("vf_simd16_sad operations against scalar references: %d mismatches\n", bad_ops);
  CHECK(bad_ops == 0);
  free(left);
  free(right);
  VF_TEST_END("test_stereo_match_run");
}

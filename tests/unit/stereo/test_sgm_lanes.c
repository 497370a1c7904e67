// SPDX-License-Identifier: BSD-3-Clause
/* The CPU SGM's census and aggregation with AVX2's 32-byte vectors against 16-byte ones (every
 * CPU): the same census bytes and disparities bit for bit over path counts, census types, disparity
 * ranges, penalties (adaptive P2 included), a minimum disparity, the checks on and off, and 1 to 3
 * threads. The library's sources are compiled into the test (vf_cpu_sgm_lanes is internal). Skips
 * where the build or the CPU has no AVX2. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_cpu_avx2.h"
#include "core/vf_parallel.h"
#include "stereo/kernels/vf_sgm_cpu.h"
#include "vf_test.h"

#ifdef VF_AVX2
enum { W = 331, H = 48 }; /* not a multiple of the census chunk (64) */

/* Smoothed random bytes (the left image) and the same shifted right by a disparity that grows
 * down the rows, with noise: both sweeps see texture, slopes and occlusions. */
static void make_pair(unsigned seed, uint8_t* left, uint8_t* right) {
  static int a[W * H];
  for (int i = 0; i < W * H; ++i) a[i] = (int)(vf_test_rand(&seed) % 256);
  for (int y = 0; y < H; ++y) {
    for (int x = 0; x < W; ++x) {
      int s = 0, n = 0;
      for (int dx = -1; dx <= 1; ++dx) {
        const int xx = x + dx < 0 ? 0 : x + dx >= W ? W - 1 : x + dx;
        s += a[y * W + xx];
        ++n;
      }
      left[y * W + x] = (uint8_t)(s / n);
    }
  }
  for (int y = 0; y < H; ++y) {
    const int d = 3 + y + (y % 7 == 0 ? 40 : 0);
    for (int x = 0; x < W; ++x) {
      const int xs = x + d < W ? x + d : W - 1;
      const int noise = (int)(vf_test_rand(&seed) % 5) - 2;
      const int v = left[y * W + xs] + noise;
      right[y * W + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
  }
}

typedef struct sgm_case {
  int paths, full, disparities, min, p1, p2, adaptive, unique_q, lr, subpixel;
} sgm_case;

/* Both lane widths on one case; returns 1 when their outputs are equal. */
static int run_case(const sgm_case* c, int threads, const uint8_t* left, const uint8_t* right,
                    uint8_t* cl, uint8_t* cr, uint16_t* sum, uint16_t* out[2]) {
  vf_sgm_params p;
  memset(&p, 0, sizeof p);
  p.width = W;
  p.height = H;
  p.min_disparity = c->min;
  p.disparities = c->disparities;
  p.census_full = c->full;
  p.max_cost = c->full ? VF_CENSUS_FULL_BITS : VF_CENSUS_CS_BITS;
  p.p1 = c->p1;
  p.p2 = c->p2;
  p.adaptive_p2 = c->adaptive;
  p.paths = c->paths;
  p.uniqueness_q = c->unique_q;
  p.lr_check = c->lr;
  p.lr_max_diff = 1;
  p.subpixel = c->subpixel;
  vf_pool* pool = NULL;
  if (vf_pool_create(threads, &pool) != VF_OK) return 0;
  /* The census both ways, the same bytes; the SGMs then read the 16-lane one. */
  static uint8_t wide[W * H * VF_CPU_CENSUS_BYTES];
  const size_t census_bytes = (size_t)W * H * (size_t)(c->full ? 8 : 4);
  vf_cpu_census_lanes(left, W, W, H, c->full, cl, pool, 16);
  vf_cpu_census_lanes(left, W, W, H, c->full, wide, pool, 0);
  int equal = memcmp(cl, wide, census_bytes) == 0;
  vf_cpu_census_lanes(right, W, W, H, c->full, cr, pool, 16);
  vf_cpu_census_lanes(right, W, W, H, c->full, wide, pool, 0);
  equal &= memcmp(cr, wide, census_bytes) == 0;
  void* scratch = aligned_alloc(128, (vf_cpu_sgm_scratch_bytes(&p, threads) + 127) & ~(size_t)127);
  equal &= scratch != NULL;
  for (int k = 0; k < 2 && equal; ++k)
    vf_cpu_sgm_lanes(&p, left, W, cl, cr, sum, scratch, out[k], pool, k == 0 ? 16 : 0);
  int valid = 0;
  for (int i = 0; i < W * H && equal; ++i) {
    equal = out[0][i] == out[1][i];
    valid += out[0][i] != 0xFFFF;
  }
  if (!equal || valid == 0) {
    fprintf(stderr,
            "paths %d full %d D %d min %d P %d/%d adaptive %d q %d lr %d sub %d threads %d\n",
            c->paths, c->full, c->disparities, c->min, c->p1, c->p2, c->adaptive, c->unique_q,
            c->lr, c->subpixel, threads);
  }
  free(scratch);
  vf_pool_destroy(pool);
  return equal && valid > 0;
}
#endif

int main(void) {
#ifndef VF_AVX2
  VF_TEST_SKIP("this build has no AVX2 path (not x86-64, VF_SIMD_PORTABLE or VF_SIMD_AVX2=OFF)");
#else
  if (!vf_cpu_avx2()) VF_TEST_SKIP("this CPU has no AVX2");
  static uint8_t left[W * H], right[W * H], cl[W * H * VF_CPU_CENSUS_BYTES],
      cr[W * H * VF_CPU_CENSUS_BYTES];
  static uint16_t a[W * H], b[W * H];
  uint16_t* out[2] = {a, b};
  /* The streamed sums need 32-byte alignment. */
  uint16_t* sum = aligned_alloc(128, (size_t)W * H * 256 * sizeof *sum);
  CHECK(sum != NULL);
  if (sum == NULL) VF_TEST_END("test_sgm_lanes");
  make_pair(7u, left, right);
  const int paths[] = {2, 4, 8}, ranges[] = {64, 128, 256};
  const int pens[][3] = {{10, 120, 0}, {1, 2, 0}, {20, 190, 0}, {10, 120, 1}, {0, 0, 0}};
  int cases = 0, passed = 0;
  for (int pi = 0; pi < 3; ++pi) {
    for (int full = 0; full < 2; ++full) {
      for (int ri = 0; ri < 3; ++ri) {
        for (int e = 0; e < 5; ++e) {
          if (full && pens[e][1] > 255 - VF_CENSUS_FULL_BITS) continue; /* C + P2 <= 255 */
          const int checks = e % 2;
          const sgm_case c = {
              paths[pi],         full,       ranges[ri], e == 2 ? 5 : 0,
              pens[e][0],        pens[e][1], pens[e][2], checks ? 512 : VF_UNIQUENESS_ONE,
              !checks || e == 4, e != 4};
          for (int threads = 1; threads <= 3; ++threads) {
            passed += run_case(&c, threads, left, right, cl, cr, sum, out);
            ++cases;
          }
        }
      }
    }
  }
  printf("%d of %d configurations give the same disparities with 32 and 16 lanes\n", passed, cases);
  CHECK(cases > 0 && passed == cases);
  free(sum);
#endif
  VF_TEST_END("test_sgm_lanes");
}

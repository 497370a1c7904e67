// SPDX-License-Identifier: BSD-3-Clause
/* The one-bit arc table the CUDA detector uses equals a direct arc test for all 65,536 patterns
 * and every arc length 9..12. The direct test here rotates the pattern and asks whether its n
 * low bits are all set (a different method from the table builder's run counting). */
#include <stdint.h>

#include "features/kernels/vf_fast_cpu.h"
#include "vf_test.h"

static int has_arc(unsigned m, int n) {
  const unsigned arc = (1u << n) - 1u;
  for (int r = 0; r < 16; ++r) {
    unsigned rotated = ((m >> r) | (m << (16 - r))) & 0xffffu;
    if ((rotated & arc) == arc) return 1;
  }
  return 0;
}

int main(void) {
  static uint32_t lut[13][VF_FAST_LUT_WORDS];
  for (int n = 9; n <= 12; ++n) {
    vf_fast_lut_build(n, lut[n]);
    int wrong = 0, set = 0;
    for (unsigned m = 0; m < 65536u; ++m) {
      int bit = (int)((lut[n][m >> 5] >> (m & 31u)) & 1u);
      wrong += bit != has_arc(m, n);
      set += bit;
    }
    printf("n = %d: %d of 65536 patterns hold an arc, %d disagree\n", n, set, wrong);
    CHECK(wrong == 0);
    /* The all-ones pattern holds an arc, the empty one does not. */
    CHECK((lut[n][2047] >> 31) == 1u && (lut[n][0] & 1u) == 0u);
  }
  /* A longer arc needs more: the n + 1 table is a subset of the n table. */
  for (int n = 9; n < 12; ++n) {
    int extra = 0;
    for (int w = 0; w < VF_FAST_LUT_WORDS; ++w) extra += (lut[n + 1][w] & ~lut[n][w]) != 0;
    CHECK(extra == 0);
  }
  VF_TEST_END("test_detector_lut");
}

// SPDX-License-Identifier: BSD-3-Clause
/* The one-bit FAST arc table (Nagy et al., "Faster than FAST", IROS 2020, section III-A): one
 * bit per 16-bit pattern of brighter (or darker) circle pixels, 1 when the pattern holds an arc
 * of at least n contiguous set bits on the circle. 2^16 bits = 2048 words of 32 bits: the high
 * 11 bits of a pattern pick the word, the low 5 bits the bit. */
#include <string.h>

#include "features/kernels/vf_fast_cpu.h"

void vf_fast_lut_build(int arc_length, uint32_t lut[VF_FAST_LUT_WORDS]) {
  memset(lut, 0, VF_FAST_LUT_WORDS * sizeof lut[0]);
  for (unsigned m = 0; m < 65536u; ++m) {
    /* Walk the circle once plus n - 1 pixels so that arcs across bit 15 -> bit 0 count. */
    int run = 0, hit = 0;
    for (int i = 0; i < 16 + arc_length - 1 && !hit; ++i) {
      run = (m >> (i & 15)) & 1u ? run + 1 : 0;
      hit = run >= arc_length;
    }
    lut[m >> 5] |= (uint32_t)hit << (m & 31u);
  }
}

// SPDX-License-Identifier: BSD-3-Clause
/* The [1 2 1] / 4 binomial in x and y of raw bytes in 16-bit integers, 8 pixels at a time
 * (src/core/vf_simd16.h), for the CPU refinements' smoothed pixels (vf_affine_cpu.c's window,
 * vf_disparity_refine_cpu.c's window and strip): a + 2 b + c along each raw row, then the same
 * down the columns, times 1/16. At most 16 x 255: exact in 16 bits, and the same floats as the
 * rules' quarters and halves in float (vf_disparity_smoothed), which are exact too. */
#ifndef VF_SMOOTH_CPU_H
#define VF_SMOOTH_CPU_H

#include <stdint.h>

#include "core/vf_simd16.h"
#include "core/vf_simd4.h"

/* out[k] = q[k] + 2 q[k + 1] + q[k + 2] for k < cols, in whole vectors: reads q[0 .. c + 1] and
 * writes out[0 .. c - 1], c = cols rounded up to 8 (the lanes past cols from whatever lies
 * there). */
static inline void vf_cpu_smooth_row(const uint8_t* q, int cols, int16_t* out) {
  for (int k = 0; k < cols; k += 8) {
    const vf_i16x8 b = vf_i16x8_from_u8(q + k + 1);
    const vf_i16x8 side = vf_i16x8_add(vf_i16x8_from_u8(q + k), vf_i16x8_from_u8(q + k + 2));
    vf_i16x8_store(out + k, vf_i16x8_add(side, vf_i16x8_add(b, b)));
  }
}

/* out[k] = (top[k] + 2 mid[k] + bot[k]) / 16 for k < cols: reads the rows' first cols rounded up
 * to 8, writes out (16-byte aligned) up to cols rounded up to 4. */
static inline void vf_cpu_smooth_column(const int16_t* top, const int16_t* mid, const int16_t* bot,
                                        int cols, float* out) {
  const vf_f4 sixteenth = vf_f4_set1(0.0625f);
  for (int k = 0; k < cols; k += 8) {
    const vf_i16x8 m = vf_i16x8_load(mid + k);
    const vf_i16x8 tb = vf_i16x8_add(vf_i16x8_load(top + k), vf_i16x8_load(bot + k));
    vf_f4 lo, hi;
    vf_i16x8_to_f4(vf_i16x8_add(tb, vf_i16x8_add(m, m)), &lo, &hi);
    vf_f4_store(out + k, vf_f4_mul(lo, sixteenth));
    if (k + 4 < cols) vf_f4_store(out + k + 4, vf_f4_mul(hi, sixteenth));
  }
}

#endif

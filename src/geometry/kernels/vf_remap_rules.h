// SPDX-License-Identifier: BSD-3-Clause
/* The remap's rule that both its plans follow (the CPU's, src/geometry/cpu/vf_remap_cpu.c, and the
 * CUDA kernel's, vf_remap_plan_cuda.h): a tap on the source's last column (row) reads that pixel
 * alone, the same integers as weight 256 on it with the pixel before as the first sample, so that
 * a kernel reads both samples of every tap without a clamp. */
#ifndef VF_REMAP_RULES_H
#define VF_REMAP_RULES_H

#include "viofront/vf_rectify.h"

/* One source pixel in the map's fixed point (1/256 pixel): a tap's full weight. */
#define VF_REMAP_UNIT (1 << VF_REMAP_FRAC_BITS)

/* A tap's first sample *p (a column or a row, 0 <= *p, of a source n >= 2 pixels long) and its
 * weight *f (1/256) moved off the last pixel. */
static inline void vf_remap_last_tap(int* p, int* f, int n) {
  if (*p >= n - 1) {
    *p = n - 2;
    *f = VF_REMAP_UNIT;
  }
}

#endif

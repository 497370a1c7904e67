// SPDX-License-Identifier: BSD-3-Clause
/* The CUDA remap's plan (cuda/geometry/vf_remap.cu): the fixed-point map unpacked once, on the
 * host at create time, so that the kernel spends no shift, mask or clamp on a pixel. Per output
 * pixel two words: the source pixel x0 | y0 << 16 and the weights fx | fy << 16 (0..256), or
 * pixel (0, 0) and VF_REMAP_PLAN_FILL (top bit set) for the fill value. As in the CPU plan, on a
 * source of at least 2 pixels a side the last column (row) becomes weight 256 on the one before
 * (vf_remap_last_tap), so the kernel reads p, p + 1, p + stride and p + stride + 1 without a
 * clamp. */
#ifndef VF_REMAP_PLAN_CUDA_H
#define VF_REMAP_PLAN_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "geometry/kernels/vf_remap_rules.h"
#include "viofront/vf_rectify.h"

#define VF_REMAP_PLAN_FILL 0xffffffffu

/* One map entry (sx, sy in 1/256 pixel, sx < 0: fill) of a src_w x src_h source. */
static inline void vf_remap_plan_entry(int32_t sx, int32_t sy, int src_w, int src_h,
                                       uint32_t out[2]) {
  if (sx < 0 || sy < 0) {
    out[0] = 0u; /* pixel (0, 0): any readable one */
    out[1] = VF_REMAP_PLAN_FILL;
    return;
  }
  int x0 = sx >> VF_REMAP_FRAC_BITS, y0 = sy >> VF_REMAP_FRAC_BITS;
  int fx = sx & (VF_REMAP_UNIT - 1), fy = sy & (VF_REMAP_UNIT - 1);
  if (src_w >= 2) vf_remap_last_tap(&x0, &fx, src_w);
  if (src_h >= 2) vf_remap_last_tap(&y0, &fy, src_h);
  out[0] = (uint32_t)x0 | (uint32_t)y0 << 16;
  out[1] = (uint32_t)fx | (uint32_t)fy << 16;
}

/* `entries` map entries (pairs of int32) into as many plan entries (pairs of uint32). */
static inline void vf_remap_plan_pack(const int32_t* map, size_t entries, int src_w, int src_h,
                                      uint32_t* plan) {
  for (size_t i = 0; i < entries; ++i)
    vf_remap_plan_entry(map[2 * i], map[2 * i + 1], src_w, src_h, plan + 2 * i);
}

#endif

// SPDX-License-Identifier: BSD-3-Clause
// What the CUDA SGM and hierarchical SGM kernels share beyond the warp steps of vf_sgm_warp.cuh:
// the table that maps blocks to path directions (every path in one launch, longest walks first)
// and the last pass of a row's selection (left-right check, 16-bit and float output).
#ifndef VF_SGM_COMMON_CUH
#define VF_SGM_COMMON_CUH

#include <stdint.h>

#include "stereo/kernels/vf_sgm_rules.h"
#include "viofront/vf_stereo.h"

namespace vf_sgm {

constexpr uint32_t kNoWinner = 0xffffffffu;

// Blocks [first_block[i], first_block[i + 1]) aggregate direction path[i].
struct walk_table {
  int count;
  int path[16];
  int first_block[17];
};

// The table for p->paths directions, walks_per_block walks per block; returns the block count.
// Longest walks first: they bound the run time, so they should start first.
inline int make_walk_table(const vf_sgm_params* p, int walks_per_block, walk_table* t) {
  int blocks = 0, walks[16], steps[16], done[16] = {0};
  t->count = p->paths;
  for (int r = 0; r < p->paths; ++r) {
    int dx, dy;
    vf_sgm_direction(r, &dx, &dy);
    vf_sgm_walks(dx, dy, p->width, p->height, &walks[r], &steps[r]);
  }
  for (int n = 0; n < p->paths; ++n) {
    int r = -1;
    for (int q = 0; q < p->paths; ++q) {
      if (!done[q] && (r < 0 || steps[q] > steps[r])) r = q;
    }
    done[r] = 1;
    t->path[n] = r;
    t->first_block[n] = blocks;
    blocks += (walks[r] + walks_per_block - 1) / walks_per_block;
  }
  t->first_block[p->paths] = blocks;
  return blocks;
}

// The entry of this block.
__device__ __forceinline__ int walk_entry(const walk_table& t) {
  int i = 0;
  while (i + 1 < t.count && (int)blockIdx.x >= t.first_block[i + 1]) ++i;
  return i;
}

// The selection word of pixel x (best_left below): winner index kb (from min_disparity) with
// summed cost s1, `second` the best cost outside kb +- 1, sa and sc the costs at kb -+ 1 where
// `fit` (both inside the searched range). kNoWinner where x < min_disparity or the uniqueness
// ratio fails.
__device__ __forceinline__ uint32_t winner_word(const vf_sgm_params& p, int x, int kb, uint32_t s1,
                                                uint32_t second, bool fit, uint32_t sa,
                                                uint32_t sc) {
  const bool valid =
      x >= p.min_disparity && (unsigned long long)s1 * VF_UNIQUENESS_ONE <=
                                  (unsigned long long)second * (unsigned)p.uniqueness_q;
  uint32_t value = (uint32_t)(p.min_disparity + kb);
  if (p.subpixel) {
    const int off = fit ? vf_sgm_subpixel16((int)sa, (int)s1, (int)sc) : 0;
    value = (uint32_t)((int)value * 16 + off);
  }
  return valid ? ((uint32_t)kb << 16) | value : kNoWinner;
}

// Row y's output from best_left[x] ((winner index << 16) | value, or kNoWinner) and the right
// image's winners right[xr] (packed cost and index): the left-right check, then the 16-bit map
// and the optional float map. Every thread of the block takes part.
// index_mask, index_shift: where a right winner holds its index ((rv >> index_shift) &
// index_mask: vf_sgm_pack's byte, or the six bits under the cost of vf_sgm_select_pixel.cu's
// 16-bit words, which it keeps in the upper half of the word).
__device__ __forceinline__ void write_row(const vf_sgm_params& p, int y, const uint32_t* right,
                                          const uint32_t* best_left, uint16_t* out16,
                                          size_t out16_stride, float* outf, size_t outf_stride,
                                          uint32_t index_mask = 0xffu, int index_shift = 0) {
  const float scale = p.subpixel ? 1.0f / 16.0f : 1.0f;
  for (int x = threadIdx.x; x < p.width; x += blockDim.x) {
    const uint32_t v = best_left[x];
    uint32_t out = VF_STEREO_INVALID;
    if (v != kNoWinner) {
      const int kb = (int)(v >> 16);
      out = v & 0xffffu;
      if (p.lr_check) {
        const int xr = x - p.min_disparity - kb;
        const uint32_t rv = xr >= 0 ? right[xr] : kNoWinner;
        if (rv == kNoWinner || abs((int)((rv >> index_shift) & index_mask) - kb) > p.lr_max_diff) {
          out = VF_STEREO_INVALID;
        }
      }
    }
    out16[(size_t)y * (out16_stride / 2) + x] = (uint16_t)out;
    if (outf != NULL) {
      outf[(size_t)y * (outf_stride / 4) + x] =
          out == VF_STEREO_INVALID ? __int_as_float(0x7fc00000) : (float)out * scale;
    }
  }
}

}  // namespace vf_sgm

#endif

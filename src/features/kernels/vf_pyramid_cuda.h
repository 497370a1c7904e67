// SPDX-License-Identifier: BSD-3-Clause
/* The C ABI of the CUDA pyramid (cuda/features/vf_pyramid.cu, extern "C"). Only compiled in with
 * VF_HAVE_CUDA; returns a cudaError_t as int (0 = success) like core/vf_cuda_runtime.h. */
#ifndef VF_PYRAMID_CUDA_H
#define VF_PYRAMID_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vf_cuda_pyramid_levels {
  int levels;
  int width[8];
  int height[8];
  size_t stride[8];
  uint8_t* data[8];
  int quad; /* a thread for four words of a tile instead of one (fewer instructions) */
  /* Set by vf_cuda_pyramid_build (callers leave them): the tiles of the first fast_cols columns
   * and fast_rows rows take the quad layout's unrolled path. */
  int fast_cols, fast_rows;
} vf_cuda_pyramid_levels;

/* Builds levels 1.. from `src` (which may be level 0 itself); copies src to level 0 unless
 * src == levels->data[0]. One kernel launch. */
int vf_cuda_pyramid_build(const uint8_t* src, size_t src_stride,
                          const vf_cuda_pyramid_levels* levels, void* stream);

#ifdef __cplusplus
}
#endif
#endif

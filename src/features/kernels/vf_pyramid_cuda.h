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

/* One pyramid of a batch: vf_cuda_pyramid_build's arguments. */
typedef struct vf_cuda_pyramid_job {
  const uint8_t* src;
  size_t src_stride;
  vf_cuda_pyramid_levels levels;
} vf_cuda_pyramid_job;

/* The jobs one launch takes (the kernel's argument stays under 4 KB). */
#define VF_CUDA_PYRAMID_BATCH_MAX 8

/* vf_cuda_pyramid_build of each job, the same pixels, in as few launches as it can: one for up
 * to VF_CUDA_PYRAMID_BATCH_MAX jobs of 2 to 6 levels and one layout (`quad`), a build of its own
 * for any other; queued on `stream`. */
int vf_cuda_pyramid_build_batch(const vf_cuda_pyramid_job* jobs, int n, void* stream);

#ifdef __cplusplus
}
#endif
#endif

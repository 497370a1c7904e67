// SPDX-License-Identifier: BSD-3-Clause
/* What the pyramid's files share: the handle (src/features/vf_pyramid.c makes it,
 * src/features/vf_pyramid_batch.c builds several at once). */
#ifndef VF_PYRAMID_INTERNAL_H
#define VF_PYRAMID_INTERNAL_H

#include "core/vf_context_internal.h"
#include "viofront/vf_pyramid.h"
#ifdef VF_HAVE_CUDA
#include "features/kernels/vf_pyramid_cuda.h"
#endif

struct vf_pyramid {
  vf_error err;
  vf_context* ctx;
  vf_pyramid_config config;
  vf_image level[VF_PYRAMID_MAX_LEVELS];
  void* storage; /* one block holding every level */
  int quad;      /* CUDA: a thread for four words of a tile (vf_pyramid_quad) */
};

/* vf_pyramid_build's checks of its image (size, format); the message in p's error. */
vf_status vf_pyramid_check_build(vf_pyramid* p, const vf_image* image);

#ifdef VF_HAVE_CUDA
/* The CUDA kernel's description of p's levels. */
void vf_pyramid_cuda_levels(const vf_pyramid* p, vf_cuda_pyramid_levels* lv);
#endif

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* vf_pyramid_build_batch: the checks of every job, then the CPU's builds in turn or the CUDA
 * uploads and the batched launches (cuda/features/vf_pyramid.cu, vf_cuda_pyramid_build_batch). */
#include "features/vf_pyramid_batch.h"

#include "features/vf_pyramid_internal.h"
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#endif

static vf_status vf_pyramid_batch_check(const vf_context* ctx, vf_pyramid* const* pyramids,
                                        const vf_image* const* images, int n) {
  if (n < 0 || n > VF_PYRAMID_BATCH_MAX) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_pyramid_build_batch: %d pyramids, not 0..%d", n,
                   VF_PYRAMID_BATCH_MAX);
  }
  for (int i = 0; i < n; ++i) {
    if (pyramids[i] == NULL || images[i] == NULL) {
      return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_pyramid_build_batch: job %d has a NULL", i);
    }
    vf_pyramid* p = pyramids[i];
    if (p->ctx->backend != ctx->backend) {
      return vf_fail(NULL, VF_ERR_INVALID_ARG,
                     "vf_pyramid_build_batch: pyramid %d is of another backend than the context",
                     i);
    }
    vf_status s = vf_pyramid_check_build(p, images[i]);
    if (s != VF_OK) return vf_fail(NULL, s, "job %d: %s", i, p->err.message);
  }
  return VF_OK;
}

#ifdef VF_HAVE_CUDA
static vf_status vf_pyramid_batch_cuda(vf_context* ctx, vf_pyramid* const* pyramids,
                                       const vf_image* const* images, int n) {
  vf_cuda_pyramid_job jobs[VF_PYRAMID_BATCH_MAX];
  int rc = 0;
  for (int i = 0; i < n && rc == 0; ++i) {
    vf_cuda_pyramid_job* j = &jobs[i];
    vf_pyramid_cuda_levels(pyramids[i], &j->levels);
    const vf_image* img = images[i];
    j->src = img->data;
    j->src_stride = img->stride_bytes;
    if (img->location == VF_MEMORY_HOST) {
      rc = vf_cuda_copy_2d_async(j->levels.data[0], j->levels.stride[0], img->data,
                                 img->stride_bytes, (size_t)img->width, (size_t)img->height,
                                 ctx->stream);
      j->src = j->levels.data[0];
      j->src_stride = j->levels.stride[0];
    }
  }
  if (rc == 0 && n > 0) rc = vf_cuda_pyramid_build_batch(jobs, n, ctx->stream);
  return rc == 0 ? VF_OK : vf_cuda_fail(NULL, rc, "vf_pyramid_build_batch");
}
#endif

vf_status vf_pyramid_build_batch(vf_context* ctx, vf_pyramid* const* pyramids,
                                 const vf_image* const* images, int n) {
  if (ctx == NULL || (n > 0 && (pyramids == NULL || images == NULL))) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_pyramid_build_batch: an argument is NULL");
  }
  vf_status s = vf_pyramid_batch_check(ctx, pyramids, images, n);
  if (s != VF_OK) return s;
#ifdef VF_HAVE_CUDA
  if (ctx->backend == VF_BACKEND_CUDA) return vf_pyramid_batch_cuda(ctx, pyramids, images, n);
#endif
  for (int i = 0; i < n && s == VF_OK; ++i) {
    s = vf_pyramid_build(pyramids[i], images[i]);
    if (s != VF_OK) {
      s = vf_fail(NULL, s, "vf_pyramid_build_batch: job %d: %s", i, pyramids[i]->err.message);
    }
  }
  return s;
}

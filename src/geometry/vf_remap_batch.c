// SPDX-License-Identifier: BSD-3-Clause
/* vf_remap_apply_batch: the checks of every job, then the CPU's remaps in turn or the CUDA
 * uploads and one launch (cuda/geometry/vf_remap.cu, vf_cuda_remap_u8_batch). */
#include "geometry/vf_remap_batch.h"

#include "geometry/vf_remap_internal.h"
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#include "geometry/kernels/vf_remap_cuda.h"
#endif

static vf_status vf_remap_batch_check(const vf_context* ctx, vf_remap* const* remaps,
                                      const vf_image* const* src, vf_image* const* dst, int n) {
  if (n < 0 || n > VF_REMAP_BATCH_MAX) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_remap_apply_batch: %d remaps, not 0..%d", n,
                   VF_REMAP_BATCH_MAX);
  }
  for (int i = 0; i < n; ++i) {
    if (remaps[i] == NULL || src[i] == NULL || dst[i] == NULL) {
      return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_remap_apply_batch: job %d has a NULL", i);
    }
    vf_remap* r = remaps[i];
    /* A remap's staging image holds one host source at a time. */
    for (int k = 0; k < i; ++k) {
      if (remaps[k] == r) {
        return vf_fail(NULL, VF_ERR_INVALID_ARG,
                       "vf_remap_apply_batch: jobs %d and %d name one remap twice", k, i);
      }
    }
    if (r->ctx->backend != ctx->backend) {
      return vf_fail(NULL, VF_ERR_INVALID_ARG,
                     "vf_remap_apply_batch: remap %d is of another backend than the context", i);
    }
    vf_status s = vf_remap_check_apply(r, src[i], dst[i]);
    if (s != VF_OK) return vf_fail(NULL, s, "job %d: %s", i, r->err.message);
    if (ctx->backend == VF_BACKEND_CUDA && dst[i]->location != VF_MEMORY_DEVICE) {
      return vf_fail(NULL, VF_ERR_UNSUPPORTED,
                     "vf_remap_apply_batch: job %d: the results must be device images", i);
    }
  }
  return VF_OK;
}

#ifdef VF_HAVE_CUDA
static vf_status vf_remap_batch_cuda(vf_context* ctx, vf_remap* const* remaps,
                                     const vf_image* const* src, vf_image* const* dst, int n) {
  vf_cuda_remap_job jobs[VF_REMAP_BATCH_MAX];
  int rc = 0;
  for (int i = 0; i < n && rc == 0; ++i) {
    vf_remap* r = remaps[i];
    const vf_image* in = src[i];
    if (in->location == VF_MEMORY_HOST) {
      rc = vf_cuda_copy_2d_async(r->stage_src.data, r->stage_src.stride_bytes, in->data,
                                 in->stride_bytes, (size_t)in->width, (size_t)in->height,
                                 ctx->stream);
      in = &r->stage_src;
    }
    const vf_cuda_remap_job j = {
        in->data,   r->plan_dev,   dst[i]->data,  in->stride_bytes, dst[i]->stride_bytes, in->width,
        in->height, r->map_stride, dst[i]->width, dst[i]->height,   r->config.fill};
    jobs[i] = j;
  }
  if (rc == 0 && n > 0) rc = vf_cuda_remap_u8_batch(jobs, n, ctx->stream);
  return rc == 0 ? VF_OK : vf_cuda_fail(NULL, rc, "vf_remap_apply_batch");
}
#endif

vf_status vf_remap_apply_batch(vf_context* ctx, vf_remap* const* remaps, const vf_image* const* src,
                               vf_image* const* dst, int n) {
  if (ctx == NULL || (n > 0 && (remaps == NULL || src == NULL || dst == NULL))) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_remap_apply_batch: an argument is NULL");
  }
  vf_status s = vf_remap_batch_check(ctx, remaps, src, dst, n);
  if (s != VF_OK) return s;
#ifdef VF_HAVE_CUDA
  if (ctx->backend == VF_BACKEND_CUDA) return vf_remap_batch_cuda(ctx, remaps, src, dst, n);
#endif
  for (int i = 0; i < n && s == VF_OK; ++i) {
    s = vf_remap_apply(remaps[i], src[i], dst[i]);
    if (s != VF_OK)
      s = vf_fail(NULL, s, "vf_remap_apply_batch: job %d: %s", i, remaps[i]->err.message);
  }
  return s;
}

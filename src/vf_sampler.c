// SPDX-License-Identifier: BSD-3-Clause
/* Point reads of a 16-bit image: validation and dispatch to the CPU or CUDA backend. */
#include <stdlib.h>

#include "cpu/vf_sample_cpu.h"
#include "vf_context_internal.h"
#include "viofront/vf_sampler.h"
#ifdef VF_HAVE_CUDA
#include "vf_cuda_api.h"
#include "vf_cuda_sample.h"
#endif

#define VF_SAMPLER_MAX_POINTS (1 << 20)

struct vf_sampler {
  vf_error err;
  vf_context* ctx;
  int max_points;
  float* dev_xy;        /* CUDA: the points, uploaded per call */
  uint16_t* dev_values; /* CUDA: the values read */
};

vf_status vf_sampler_create(vf_context* ctx, int max_points, vf_sampler** out) {
  VF_CHECK_ARG_NOT_NULL(NULL, out);
  *out = NULL;
  VF_CHECK_ARG_NOT_NULL(NULL, ctx);
  if (max_points < 1 || max_points > VF_SAMPLER_MAX_POINTS) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_sampler_create: max_points %d is outside 1..%d",
                   max_points, VF_SAMPLER_MAX_POINTS);
  }
  vf_sampler* s = calloc(1, sizeof *s);
  if (s == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_sampler_create: out of memory");
  s->ctx = ctx;
  s->max_points = max_points;
  if (ctx->backend == VF_BACKEND_CUDA) {
    vf_status st = vf_device_alloc(NULL, (void**)&s->dev_xy, sizeof(float) * 2 * (size_t)max_points,
                                   "vf_sampler_create");
    if (st == VF_OK) {
      st = vf_device_alloc(NULL, (void**)&s->dev_values, sizeof(uint16_t) * (size_t)max_points,
                           "vf_sampler_create");
    }
    if (st != VF_OK) {
      vf_sampler_destroy(s);
      return st;
    }
  }
  *out = s;
  return VF_OK;
}

void vf_sampler_destroy(vf_sampler* s) {
  if (s == NULL) return;
  vf_device_free(s->dev_xy);
  vf_device_free(s->dev_values);
  free(s);
}

#ifdef VF_HAVE_CUDA
static vf_status vf_sampler_gather_cuda(vf_sampler* s, const vf_image* image, const float* xy,
                                        int count, uint16_t outside, uint16_t* values) {
  void* stream = s->ctx->stream;
  int rc = vf_cuda_copy_async(s->dev_xy, xy, sizeof(float) * 2 * (size_t)count, stream);
  if (rc == 0) {
    rc = vf_cuda_gather_u16(image->data, image->stride_bytes, image->width, image->height,
                            s->dev_xy, count, outside, s->dev_values, stream);
  }
  if (rc == 0) {
    rc = vf_cuda_copy_async(values, s->dev_values, sizeof(uint16_t) * (size_t)count, stream);
  }
  if (rc == 0) rc = vf_cuda_stream_synchronize(stream);
  return rc == 0 ? VF_OK : vf_cuda_fail(&s->err, rc, "vf_sampler_gather_u16");
}
#endif

vf_status vf_sampler_gather_u16(vf_sampler* s, const vf_image* image, const float* xy, int count,
                                uint16_t outside, uint16_t* values) {
  VF_CHECK_ARG_NOT_NULL(NULL, s);
  vf_status st = vf_image_check(image, "vf_sampler_gather_u16");
  if (st != VF_OK) return vf_fail_from_thread(&s->err, st);
  if (image->format != VF_PIXEL_U16) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "vf_sampler_gather_u16: image must be U16");
  }
  if (count < 0 || count > s->max_points) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "vf_sampler_gather_u16: count %d is outside 0..%d",
                   count, s->max_points);
  }
  if (count == 0) return VF_OK;
  VF_CHECK_ARG_NOT_NULL(&s->err, xy);
  VF_CHECK_ARG_NOT_NULL(&s->err, values);
#ifdef VF_HAVE_CUDA
  if (s->ctx->backend == VF_BACKEND_CUDA && image->location == VF_MEMORY_DEVICE) {
    return vf_sampler_gather_cuda(s, image, xy, count, outside, values);
  }
#endif
  if (image->location != VF_MEMORY_HOST) {
    return vf_fail(&s->err, VF_ERR_UNSUPPORTED,
                   "vf_sampler_gather_u16: a device image needs the CUDA backend");
  }
  vf_cpu_gather_u16(image->data, image->stride_bytes, image->width, image->height, xy, count,
                    outside, values);
  return VF_OK;
}

const char* vf_sampler_last_error(const vf_sampler* s) {
  return s != NULL ? s->err.message : "vf_sampler_last_error: sampler is NULL";
}

// SPDX-License-Identifier: BSD-3-Clause
/* Local stereo methods on the CUDA backend: the device buffers beyond the shared ones, and
 * the kernel sequence on the context's stream (one upload per host image, one download for a host
 * disparity map, nothing allocated per frame). */
#ifdef VF_HAVE_CUDA
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/vf_context_internal.h"
#include "core/vf_cuda_runtime.h"
#include "stereo/kernels/vf_local_cuda.h"
#include "stereo/kernels/vf_sgm_cuda.h"
#include "stereo/vf_stereo_local_internal.h"

vf_status vf_local_cuda_allocate(vf_stereo_local* s) {
  const vf_stereo_local_config* c = &s->config;
  s->dev_stride = ((size_t)c->width + 127) & ~(size_t)127;
  const size_t img = s->dev_stride * c->height;
  vf_status st = vf_local_buffer(s, (void**)&s->dev_left, img, "left image copy");
  if (st == VF_OK) st = vf_local_buffer(s, (void**)&s->dev_right, img, "right image copy");
  if (st == VF_OK) {
    st = vf_local_buffer(s, (void**)&s->dev_disp, (size_t)c->width * c->height * sizeof(uint16_t),
                         "disparity copy");
  }
  if (st == VF_OK) st = vf_local_buffer(s, (void**)&s->dev_weights, sizeof s->weights, "weights");
  if (st != VF_OK) return st;
  int rc = vf_cuda_copy_async(s->dev_weights, s->weights, sizeof s->weights, s->ctx->stream);
  if (rc == 0) rc = vf_cuda_stream_synchronize(s->ctx->stream);
  return rc == 0 ? VF_OK : vf_cuda_fail(NULL, rc, "vf_stereo_local_create: weight upload");
}

void vf_local_cuda_release(vf_stereo_local* s) {
  vf_device_free(s->dev_left);
  vf_device_free(s->dev_right);
  vf_device_free(s->dev_disp);
  vf_device_free(s->dev_weights);
}

/* A device view of `img`: the image itself, or its upload into `copy`. */
static int vf_device_input(vf_stereo_local* s, const vf_image* img, uint8_t* copy,
                           const uint8_t** data, size_t* stride) {
  if (img->location == VF_MEMORY_DEVICE) {
    *data = img->data;
    *stride = img->stride_bytes;
    return 0;
  }
  *data = copy;
  *stride = s->dev_stride;
  return vf_cuda_copy_2d_async(copy, s->dev_stride, img->data, img->stride_bytes,
                               (size_t)img->width, (size_t)img->height, s->ctx->stream);
}

/* The disparity map before the median. */
static int vf_disparity_kernels(vf_stereo_local* s, const vf_local_pair* p, uint16_t* disp,
                                size_t disp_stride) {
  const vf_stereo_local_config* c = &s->config;
  void* stream = s->ctx->stream;
  if (c->method == VF_STEREO_LOCAL_CYCLOPS2) {
    vf_local_cyclops params;
    vf_local_cyclops_params(c, &params);
    const int shared_row = c->cyclops.memory == VF_CYCLOPS_SHARED_ROW;
    return vf_cuda_cyclops(p, &params, shared_row, disp, disp_stride, stream);
  }
  int rc = 0;
  if (c->method == VF_STEREO_LOCAL_ZNCC) {
    rc = vf_cuda_zncc_window_sums(p, s->radius, s->integral, s->sat, s->sums, s->vars, stream);
    if (rc == 0) {
      rc = vf_cuda_zncc_costs(p, s->radius, s->sums, s->vars, s->volume, c->fastdt.pack8, stream);
    }
  } else {
    /* The SGM census kernel reads only the size and the census type. */
    vf_sgm_params sp;
    memset(&sp, 0, sizeof sp);
    sp.width = c->width;
    sp.height = c->height;
    sp.census_full = c->census_full;
    const size_t words = (size_t)c->width * c->height * (c->census_full ? 8 : 4);
    uint8_t* census_r = (uint8_t*)s->census + words;
    rc = vf_cuda_census(&sp, p->left, p->left_stride, p->right, p->right_stride, s->census,
                        census_r, stream);
    if (rc == 0) {
      rc = vf_cuda_census_costs(p, s->census, census_r, c->census_full, s->volume, c->fastdt.pack8,
                                stream);
    }
  }
  if (rc != 0) return rc;
  if (c->fastdt.enabled) {
    return vf_cuda_fastdt(p, s->dev_weights, s->volume, c->fastdt.pack8, disp, disp_stride, stream);
  }
  return vf_cuda_wta(p, s->volume, c->fastdt.pack8, disp, disp_stride, stream);
}

static int vf_run_kernels(vf_stereo_local* s, const vf_local_pair* p, uint16_t* disp,
                          size_t disp_stride) {
  const vf_stereo_local_config* c = &s->config;
  if (!c->median) return vf_disparity_kernels(s, p, disp, disp_stride);
  const size_t raw_stride = (size_t)c->width * sizeof(uint16_t);
  int rc = vf_disparity_kernels(s, p, s->raw, raw_stride);
  if (rc != 0) return rc;
  return vf_cuda_median3(s->raw, raw_stride, c->width, c->height, disp, disp_stride,
                         s->ctx->stream);
}

vf_status vf_local_cuda_compute(vf_stereo_local* s, const vf_image* left, const vf_image* right,
                                vf_image* disparity) {
  const vf_stereo_local_config* c = &s->config;
  vf_local_pair p = {NULL, 0, NULL, 0, c->width, c->height, c->disparities};
  int rc = vf_device_input(s, left, s->dev_left, &p.left, &p.left_stride);
  if (rc == 0) rc = vf_device_input(s, right, s->dev_right, &p.right, &p.right_stride);
  if (rc != 0) return vf_cuda_fail(&s->err, rc, "vf_stereo_local_compute: image upload");
  const int host_out = disparity->location == VF_MEMORY_HOST;
  uint16_t* out = host_out ? s->dev_disp : (uint16_t*)disparity->data;
  size_t out_stride = host_out ? (size_t)c->width * sizeof(uint16_t) : disparity->stride_bytes;
  rc = vf_run_kernels(s, &p, out, out_stride);
  if (rc != 0) return vf_cuda_fail(&s->err, rc, "vf_stereo_local_compute: kernels");
  if (host_out) {
    rc = vf_cuda_copy_2d_async(disparity->data, disparity->stride_bytes, out, out_stride,
                               (size_t)c->width * sizeof(uint16_t), (size_t)c->height,
                               s->ctx->stream);
    if (rc == 0) rc = vf_cuda_stream_synchronize(s->ctx->stream);
    if (rc != 0) return vf_cuda_fail(&s->err, rc, "vf_stereo_local_compute: disparity download");
  }
  return VF_OK;
}
#endif

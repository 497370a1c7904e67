// SPDX-License-Identifier: BSD-3-Clause
/* Remap stage: map building (OpenCV's initUndistortRectifyMap, in double, rounded to 1/256
 * pixel), allocation at create time, dispatch to the CPU or CUDA backend. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_context_internal.h"
#include "core/vf_fault.h"
#include "geometry/kernels/vf_remap_cpu.h"
#include "geometry/kernels/vf_remap_rules.h"
#include "geometry/vf_rectify_math.h"
#include "geometry/vf_remap_internal.h"
#include "viofront/vf_rectify.h"
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#include "geometry/kernels/vf_remap_cuda.h"
#include "geometry/kernels/vf_remap_plan_cuda.h"
#endif

vf_status vf_remap_config_rectify(const vf_camera* cam, const vf_stereo_rectification* rect,
                                  int which, vf_remap_config* out) {
  if (cam == NULL || rect == NULL || out == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_remap_config_rectify: an argument is NULL");
  }
  if (which != 0 && which != 1) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_remap_config_rectify: camera %d is not 0 or 1",
                   which);
  }
  memset(out, 0, sizeof *out);
  out->camera = *cam;
  memcpy(out->R, which == 0 ? rect->R1 : rect->R2, sizeof out->R);
  memcpy(out->P, which == 0 ? rect->P1 : rect->P2, sizeof out->P);
  out->out_width = rect->width;
  out->out_height = rect->height;
  return VF_OK;
}

vf_status vf_remap_config_undistort(const vf_camera* cam, vf_remap_config* out) {
  if (cam == NULL || out == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_remap_config_undistort: an argument is NULL");
  }
  memset(out, 0, sizeof *out);
  out->camera = *cam;
  out->R[0] = out->R[4] = out->R[8] = 1.0;
  double P[12] = {cam->fx, 0, cam->cx, 0, 0, cam->fy, cam->cy, 0, 0, 0, 1, 0};
  memcpy(out->P, P, sizeof P);
  out->out_width = cam->width;
  out->out_height = cam->height;
  return VF_OK;
}

/* Fills the map: output pixel -> ray (P[:3,:3] R)^-1 [x y 1] -> distort -> source pixel. */
static void vf_remap_build(vf_remap* r, const double iKR[9]) {
  const vf_camera* cam = &r->config.camera;
  const int32_t max_x = (cam->width - 1) * VF_REMAP_UNIT, max_y = (cam->height - 1) * VF_REMAP_UNIT;
  for (int y = 0; y < r->config.out_height; ++y) {
    int32_t* m = r->map_host + (size_t)y * r->map_stride * 2;
    for (int x = 0; x < r->map_stride; ++x) {
      m[2 * x] = m[2 * x + 1] = -1;
      if (x >= r->config.out_width) continue;
      double q[3], p[3] = {x, y, 1.0}, uv[2];
      vf_m3_mulv(iKR, p, q);
      if (!(q[2] > 0) || vf_camera_project(cam, q, uv) != VF_OK) continue;
      double sx = uv[0] * VF_REMAP_UNIT, sy = uv[1] * VF_REMAP_UNIT;
      /* Positions off the image (or absurdly far) stay -1, the fill value. */
      if (!(sx > -0.5 && sy > -0.5 && sx < max_x + 0.5 && sy < max_y + 0.5)) continue;
      m[2 * x] = (int32_t)lround(sx);
      m[2 * x + 1] = (int32_t)lround(sy);
    }
  }
}

static vf_status vf_remap_validate(const vf_remap_config* c, double iKR[9]) {
  vf_status s = vf_camera_check(&c->camera);
  if (s != VF_OK) return s;
  if (c->camera.width > 8000000 / VF_REMAP_UNIT || c->camera.height > 8000000 / VF_REMAP_UNIT) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_remap_create: camera %dx%d too large",
                   c->camera.width, c->camera.height);
  }
  if (c->out_width < 1 || c->out_height < 1 || c->out_width > 32768 || c->out_height > 32768) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_remap_create: output size %dx%d is outside 1..32768", c->out_width,
                   c->out_height);
  }
  for (int i = 0; i < 12; ++i) {
    if (!isfinite(c->P[i]) || (i < 9 && !isfinite(c->R[i]))) {
      return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_remap_create: R or P is not finite");
    }
  }
  if (!(vf_m3_orthonormality_error(c->R) < 1e-6)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_remap_create: R is not a rotation");
  }
  double K[9] = {c->P[0], c->P[1], c->P[2], c->P[4], c->P[5], c->P[6], c->P[8], c->P[9], c->P[10]};
  double KR[9];
  vf_m3_mul(K, c->R, KR);
  if (!vf_m3_inverse(KR, iKR)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_remap_create: P[:3,:3] is singular");
  }
  return VF_OK;
}

#ifdef VF_HAVE_CUDA
static vf_status vf_remap_upload(vf_remap* r, size_t map_bytes) {
  vf_status s = vf_device_alloc(NULL, (void**)&r->plan_dev, map_bytes, "vf_remap_create: map");
  if (s == VF_OK) {
    s = vf_image_alloc(&r->stage_src, r->config.camera.width, r->config.camera.height, VF_PIXEL_U8,
                       VF_MEMORY_DEVICE);
  }
  if (s == VF_OK) {
    s = vf_image_alloc(&r->stage_dst, r->config.out_width, r->config.out_height, VF_PIXEL_U8,
                       VF_MEMORY_DEVICE);
  }
  if (s != VF_OK) return s;
  uint32_t* plan = vf_aligned_alloc(64, map_bytes);
  if (plan == NULL)
    return vf_fail(NULL, VF_ERR_NOMEM, "vf_remap_create: plan of %zu bytes", map_bytes);
  /* The entries the map holds; the rounding's tail is never read. */
  const size_t entries = (size_t)r->map_stride * (size_t)r->config.out_height;
  vf_remap_plan_pack(r->map_host, entries, r->config.camera.width, r->config.camera.height, plan);
  memset(plan + 2 * entries, 0, map_bytes - entries * 2 * sizeof(uint32_t));
  int rc = vf_cuda_copy_async(r->plan_dev, plan, map_bytes, r->ctx->stream);
  if (rc == 0) rc = vf_cuda_stream_synchronize(r->ctx->stream);
  free(plan);
  return rc == 0 ? VF_OK : vf_cuda_fail(NULL, rc, "vf_remap_create: map upload");
}
#endif

vf_status vf_remap_create(vf_context* ctx, const vf_remap_config* config, vf_remap** out) {
  if (out == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_remap_create: out is NULL");
  *out = NULL;
  if (ctx == NULL || config == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_remap_create: %s is NULL",
                   ctx == NULL ? "ctx" : "config");
  }
  double iKR[9];
  vf_status s = vf_remap_validate(config, iKR);
  if (s != VF_OK) return s;
  vf_remap* r = vf_calloc(1, sizeof *r);
  if (r == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_remap_create: out of memory");
  r->ctx = ctx;
  r->config = *config;
  r->map_stride = (config->out_width + 3) & ~3;
  /* A whole number of 64-byte lines: aligned_alloc wants a multiple of the alignment. */
  size_t map_bytes =
      ((size_t)r->map_stride * config->out_height * 2 * sizeof(int32_t) + 63) & ~(size_t)63;
  r->map_host = vf_aligned_alloc(64, map_bytes);
  if (r->map_host != NULL) {
    vf_remap_build(r, iKR);
  } else {
    s = vf_fail(NULL, VF_ERR_NOMEM, "vf_remap_create: map of %zu bytes", map_bytes);
  }
#ifdef VF_HAVE_CUDA
  if (s == VF_OK && ctx->backend == VF_BACKEND_CUDA) s = vf_remap_upload(r, map_bytes);
#endif
  if (s == VF_OK && ctx->backend != VF_BACKEND_CUDA &&
      vf_cpu_remap_plan_create(r->map_host, r->map_stride, config->out_width, config->out_height,
                               config->camera.width, config->camera.height,
                               &r->cpu_plan) != VF_OK) {
    s = vf_fail(NULL, VF_ERR_NOMEM, "vf_remap_create: CPU plan of %dx%d pixels", config->out_width,
                config->out_height);
  }
  if (s != VF_OK) {
    vf_remap_destroy(r);
    return s;
  }
  *out = r;
  return VF_OK;
}

void vf_remap_destroy(vf_remap* r) {
  if (r == NULL) return;
  vf_device_free(r->plan_dev);
  vf_image_free(&r->stage_src);
  vf_image_free(&r->stage_dst);
  vf_cpu_remap_plan_destroy(r->cpu_plan);
  free(r->map_host);
  free(r);
}

#ifdef VF_HAVE_CUDA
static vf_status vf_remap_apply_cuda(vf_remap* r, const vf_image* src, vf_image* dst) {
  void* stream = r->ctx->stream;
  const vf_image* in = src;
  vf_image* target = dst->location == VF_MEMORY_DEVICE ? dst : &r->stage_dst;
  int rc = 0;
  if (src->location == VF_MEMORY_HOST) {
    rc = vf_cuda_copy_2d_async(r->stage_src.data, r->stage_src.stride_bytes, src->data,
                               src->stride_bytes, (size_t)src->width, (size_t)src->height, stream);
    in = &r->stage_src;
  }
  if (rc == 0) {
    rc = vf_cuda_remap_u8(in->data, in->stride_bytes, in->width, in->height, r->plan_dev,
                          r->map_stride, target->data, target->stride_bytes, target->width,
                          target->height, r->config.fill, stream);
  }
  if (rc == 0 && target != dst) {
    rc = vf_cuda_copy_2d_async(dst->data, dst->stride_bytes, target->data, target->stride_bytes,
                               (size_t)dst->width, (size_t)dst->height, stream);
    if (rc == 0) rc = vf_cuda_stream_synchronize(stream);
  }
  return rc == 0 ? VF_OK : vf_cuda_fail(&r->err, rc, "vf_remap_apply");
}
#endif

vf_status vf_remap_check_apply(vf_remap* r, const vf_image* src, const vf_image* dst) {
  vf_status s = vf_image_check(src, "vf_remap_apply src");
  if (s == VF_OK) s = vf_image_check(dst, "vf_remap_apply dst");
  if (s != VF_OK) return vf_fail_from_thread(&r->err, s);
  const vf_remap_config* c = &r->config;
  if (src->format != VF_PIXEL_U8 || dst->format != VF_PIXEL_U8) {
    return vf_fail(&r->err, VF_ERR_INVALID_ARG, "vf_remap_apply: images must be 8-bit grey");
  }
  if (src->width != c->camera.width || src->height != c->camera.height ||
      dst->width != c->out_width || dst->height != c->out_height) {
    return vf_fail(&r->err, VF_ERR_INVALID_ARG,
                   "vf_remap_apply: src %dx%d / dst %dx%d, the map is for %dx%d -> %dx%d",
                   src->width, src->height, dst->width, dst->height, c->camera.width,
                   c->camera.height, c->out_width, c->out_height);
  }
  if (src->data == dst->data) {
    return vf_fail(&r->err, VF_ERR_INVALID_ARG, "vf_remap_apply: src and dst are the same pixels");
  }
  return VF_OK;
}

vf_status vf_remap_apply(vf_remap* r, const vf_image* src, vf_image* dst) {
  if (r == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_remap_apply: remap is NULL");
  vf_status s = vf_remap_check_apply(r, src, dst);
  if (s != VF_OK) return s;
  const vf_remap_config* c = &r->config;
#ifdef VF_HAVE_CUDA
  if (r->ctx->backend == VF_BACKEND_CUDA) return vf_remap_apply_cuda(r, src, dst);
#endif
  if (src->location != VF_MEMORY_HOST || dst->location != VF_MEMORY_HOST) {
    return vf_fail(&r->err, VF_ERR_UNSUPPORTED,
                   "vf_remap_apply: the CPU backend takes host images only");
  }
  vf_cpu_remap_u8(r->cpu_plan, src->data, src->stride_bytes, dst->data, dst->stride_bytes, c->fill,
                  r->ctx->pool);
  return VF_OK;
}

vf_status vf_remap_lookup(const vf_remap* r, int x, int y, int32_t* sx, int32_t* sy) {
  if (r == NULL || sx == NULL || sy == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_remap_lookup: an argument is NULL");
  }
  if (x < 0 || y < 0 || x >= r->config.out_width || y >= r->config.out_height) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_remap_lookup: (%d, %d) is outside %dx%d", x, y,
                   r->config.out_width, r->config.out_height);
  }
  const int32_t* m = r->map_host + ((size_t)y * r->map_stride + (size_t)x) * 2;
  *sx = m[0];
  *sy = m[1];
  return VF_OK;
}

const char* vf_remap_last_error(const vf_remap* r) {
  return r != NULL ? r->err.message : "vf_remap_last_error: remap is NULL";
}

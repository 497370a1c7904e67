// SPDX-License-Identifier: BSD-3-Clause
/* Pyramid stage: validation, allocation at create time, dispatch to the CPU or CUDA backend. */
#include <stdlib.h>
#include <string.h>

#include "core/vf_context_internal.h"
#include "core/vf_env.h"
#include "core/vf_fault.h"
#include "features/kernels/vf_pyramid_cpu.h"
#include "features/vf_pyramid_internal.h"
#include "viofront/vf_pyramid.h"
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#include "features/kernels/vf_pyramid_cuda.h"
#endif

vf_pyramid_config vf_pyramid_config_default(void) {
  vf_pyramid_config c = {752, 480, 4};
  return c;
}

static vf_status vf_pyramid_validate(const vf_pyramid_config* c) {
  if (c->levels < 1 || c->levels > VF_PYRAMID_MAX_LEVELS) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_pyramid_create: levels %d is outside 1..%d",
                   c->levels, VF_PYRAMID_MAX_LEVELS);
  }
  if (c->width <= 0 || c->height <= 0 || c->width > 32768 || c->height > 32768) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_pyramid_create: size %dx%d is outside 1..32768",
                   c->width, c->height);
  }
  int w = c->width >> (c->levels - 1), h = c->height >> (c->levels - 1);
  if (w < 1 || h < 1) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_pyramid_create: %d levels need at least %dx%d pixels, image is %dx%d",
                   c->levels, 1 << (c->levels - 1), 1 << (c->levels - 1), c->width, c->height);
  }
  return VF_OK;
}

#ifdef VF_HAVE_CUDA
/* Whether the CUDA kernel takes a thread for four words of a tile: about half the instructions
 * (the deeper levels' idle warps gone: 0.58 -> 0.30 M at 752x480), but beside the dense frame's
 * SGM on a whole H200 the smaller blocks waited (the stage 0.014 -> 0.10 ms:
 * docs/perf/pyramid.md). So where the tiles are many rounds of the device, as on a TX2, an Orin
 * or an 8-SM partition, where the instructions decide; a word a thread where they fit a few
 * rounds. VF_PYRAMID_QUAD=0 or 1 fixes it (measurements; the GPU test takes both). */
static int vf_pyramid_quad(const vf_pyramid* p) {
  enum { kQuadTilesPerSm = 16 };
  const int fixed = vf_env_digit("VF_PYRAMID_QUAD", 0, 1);
  if (fixed >= 0) return fixed;
  vf_device_info info;
  if (vf_context_device_info(p->ctx, &info) != VF_OK || info.multiprocessors < 1) return 0;
  /* The kernel's tile side (vf_cuda_pyramid_build): 32 up to 6 levels, then 64 and 128. */
  const int tile = p->config.levels <= 6 ? 32 : p->config.levels == 7 ? 64 : 128;
  const long tiles =
      (long)((p->config.width + tile - 1) / tile) * ((p->config.height + tile - 1) / tile);
  return tiles >= (long)kQuadTilesPerSm * info.multiprocessors;
}

#endif

vf_status vf_pyramid_create(vf_context* ctx, const vf_pyramid_config* config, vf_pyramid** out) {
  if (out == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_pyramid_create: out is NULL");
  *out = NULL;
  if (ctx == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_pyramid_create: ctx is NULL");
  if (config == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_pyramid_create: config is NULL");
  vf_status s = vf_pyramid_validate(config);
  if (s != VF_OK) return s;

  vf_pyramid* p = vf_calloc(1, sizeof *p);
  if (p == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_pyramid_create: out of memory");
  p->ctx = ctx;
  p->config = *config;
  vf_memory where = ctx->backend == VF_BACKEND_CUDA ? VF_MEMORY_DEVICE : VF_MEMORY_HOST;
  size_t offset[VF_PYRAMID_MAX_LEVELS], total = 0;
  for (int k = 0; k < config->levels; ++k) {
    vf_image* l = &p->level[k];
    l->width = config->width >> k;
    l->height = config->height >> k;
    /* 128-byte rows keep every level's rows aligned for wide loads. */
    l->stride_bytes = ((size_t)l->width + 127) & ~(size_t)127;
    l->location = where;
    l->format = VF_PIXEL_U8;
    offset[k] = total;
    total += l->stride_bytes * (size_t)l->height;
  }
  /* Cleared once: the padding at the end of each row is never written, and readers that load
   * whole aligned words (the tracker) must not see uninitialised bytes. */
  if (where == VF_MEMORY_HOST) {
    p->storage = vf_aligned_alloc(128, total);
    s = p->storage != NULL ? VF_OK
                           : vf_fail(NULL, VF_ERR_NOMEM, "vf_pyramid_create: %zu bytes", total);
    if (s == VF_OK) memset(p->storage, 0, total);
  } else {
    s = vf_device_alloc(NULL, &p->storage, total, "vf_pyramid_create");
#ifdef VF_HAVE_CUDA
    int rc = s == VF_OK ? vf_cuda_memset_async(p->storage, 0, total, ctx->stream) : 0;
    if (rc != 0) {
      vf_device_free(p->storage);
      s = vf_cuda_fail(NULL, rc, "vf_pyramid_create: clearing the levels");
    }
#endif
  }
  if (s != VF_OK) {
    free(p);
    return s;
  }
  for (int k = 0; k < config->levels; ++k) p->level[k].data = (uint8_t*)p->storage + offset[k];
#ifdef VF_HAVE_CUDA
  if (where == VF_MEMORY_DEVICE) p->quad = vf_pyramid_quad(p);
#endif
  *out = p;
  return VF_OK;
}

void vf_pyramid_destroy(vf_pyramid* p) {
  if (p == NULL) return;
  if (p->level[0].location == VF_MEMORY_HOST) {
    free(p->storage);
  } else {
    vf_device_free(p->storage);
  }
  free(p);
}

static vf_status vf_pyramid_build_cpu(vf_pyramid* p, const vf_image* img) {
  if (img->location != VF_MEMORY_HOST) {
    return vf_fail(&p->err, VF_ERR_UNSUPPORTED,
                   "vf_pyramid_build: the CPU backend takes host images only");
  }
  /* A level 0 written in place (the frontend's rectified left image) needs no copy. */
  if (img->data != p->level[0].data) {
    vf_status s = vf_image_copy(img, &p->level[0]);
    if (s != VF_OK) return vf_fail_from_thread(&p->err, s);
  }
  for (int k = 1; k < p->config.levels; ++k) {
    const vf_image* a = &p->level[k - 1];
    vf_cpu_downsample2(a->data, a->stride_bytes, a->width, a->height, p->level[k].data,
                       p->level[k].stride_bytes, p->ctx->pool);
  }
  return VF_OK;
}

#ifdef VF_HAVE_CUDA
static vf_status vf_pyramid_build_cuda(vf_pyramid* p, const vf_image* img) {
  vf_cuda_pyramid_levels lv;
  vf_pyramid_cuda_levels(p, &lv);
  const uint8_t* src = img->data;
  size_t src_stride = img->stride_bytes;
  int rc = 0;
  if (img->location == VF_MEMORY_HOST) {
    rc = vf_cuda_copy_2d_async(lv.data[0], lv.stride[0], src, src_stride, (size_t)img->width,
                               (size_t)img->height, p->ctx->stream);
    src = lv.data[0];
    src_stride = lv.stride[0];
  }
  if (rc == 0) rc = vf_cuda_pyramid_build(src, src_stride, &lv, p->ctx->stream);
  if (rc != 0) return vf_cuda_fail(&p->err, rc, "vf_pyramid_build");
  return VF_OK;
}
#endif

vf_status vf_pyramid_check_build(vf_pyramid* p, const vf_image* image) {
  vf_status s = vf_image_check(image, "vf_pyramid_build");
  if (s != VF_OK) return vf_fail_from_thread(&p->err, s);
  if (image->format != VF_PIXEL_U8) {
    return vf_fail(&p->err, VF_ERR_INVALID_ARG, "vf_pyramid_build: image must be 8-bit grey");
  }
  if (image->width != p->config.width || image->height != p->config.height) {
    return vf_fail(&p->err, VF_ERR_INVALID_ARG,
                   "vf_pyramid_build: image is %dx%d, pyramid was created for %dx%d", image->width,
                   image->height, p->config.width, p->config.height);
  }
  return VF_OK;
}

#ifdef VF_HAVE_CUDA
void vf_pyramid_cuda_levels(const vf_pyramid* p, vf_cuda_pyramid_levels* lv) {
  memset(lv, 0, sizeof *lv);
  lv->levels = p->config.levels;
  lv->quad = p->quad;
  for (int k = 0; k < lv->levels; ++k) {
    lv->width[k] = p->level[k].width;
    lv->height[k] = p->level[k].height;
    lv->stride[k] = p->level[k].stride_bytes;
    lv->data[k] = p->level[k].data;
  }
}
#endif

vf_status vf_pyramid_build(vf_pyramid* p, const vf_image* image) {
  if (p == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_pyramid_build: pyramid is NULL");
  vf_status s = vf_pyramid_check_build(p, image);
  if (s != VF_OK) return s;
#ifdef VF_HAVE_CUDA
  if (p->ctx->backend == VF_BACKEND_CUDA) return vf_pyramid_build_cuda(p, image);
#endif
  return vf_pyramid_build_cpu(p, image);
}

vf_status vf_pyramid_level(const vf_pyramid* p, int level, vf_image* view) {
  if (p == NULL || view == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_pyramid_level: %s is NULL",
                   p == NULL ? "pyramid" : "view");
  }
  if (level < 0 || level >= p->config.levels) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_pyramid_level: level %d is outside 0..%d", level,
                   p->config.levels - 1);
  }
  *view = p->level[level];
  return VF_OK;
}

int vf_pyramid_levels(const vf_pyramid* p) { return p != NULL ? p->config.levels : 0; }

const char* vf_pyramid_last_error(const vf_pyramid* p) {
  return p != NULL ? p->err.message : "vf_pyramid_last_error: pyramid is NULL";
}

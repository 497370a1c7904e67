// SPDX-License-Identifier: BSD-3-Clause
/* Image views: validation, caller-owned allocation on host or device, copies. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_context_internal.h"
#include "core/vf_fault.h"
#include "core/vf_image_pinned.h"
#include "viofront/vf_image.h"
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#endif

/* Images larger than this on a side are refused: they would overflow int index arithmetic. */
#define VF_IMAGE_MAX_SIDE 32768

size_t vf_pixel_size(vf_pixel_format format) {
  switch (format) {
    case VF_PIXEL_U8: return 1;
    case VF_PIXEL_U16: return 2;
    case VF_PIXEL_F32: return 4;
    case VF_PIXEL_RGB8: return 3;
  }
  return 0;
}

vf_image vf_image_view(void* data, int width, int height, size_t stride_bytes, vf_memory location,
                       vf_pixel_format format) {
  vf_image v = {data, width, height, stride_bytes, location, format};
  return v;
}

vf_status vf_image_check(const vf_image* image, const char* what) {
  if (what == NULL) what = "image";
  if (image == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: image is NULL", what);
  size_t px = vf_pixel_size(image->format);
  if (px == 0) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: unknown pixel format %d", what,
                   (int)image->format);
  }
  if (image->location != VF_MEMORY_HOST && image->location != VF_MEMORY_DEVICE) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: unknown memory location %d", what,
                   (int)image->location);
  }
  if (image->width <= 0 || image->height <= 0 || image->width > VF_IMAGE_MAX_SIDE ||
      image->height > VF_IMAGE_MAX_SIDE) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: size %dx%d is outside 1..%d", what, image->width,
                   image->height, VF_IMAGE_MAX_SIDE);
  }
  if (image->stride_bytes < (size_t)image->width * px) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: stride %zu bytes is less than width %d x %zu",
                   what, image->stride_bytes, image->width, px);
  }
  if (image->data == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: data is NULL", what);
  return VF_OK;
}

/* The checked layout of an image to allocate, into *image with data NULL (cleared on failure):
 * rows padded to a multiple of 128 bytes. */
static vf_status vf_image_layout(vf_image* image, int width, int height, vf_pixel_format format,
                                 vf_memory location, const char* fn) {
  if (image == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: image is NULL", fn);
  memset(image, 0, sizeof *image);
  vf_image probe = {(void*)1, width, height, 0, location, format};
  probe.stride_bytes =
      ((size_t)(width > 0 ? width : 0) * vf_pixel_size(format) + 127) & ~(size_t)127;
  vf_status s = vf_image_check(&probe, fn);
  if (s != VF_OK) return s;
  probe.data = NULL;
  *image = probe;
  return VF_OK;
}

vf_status vf_image_alloc_pinned(vf_image* image, int width, int height, vf_pixel_format format) {
  const char* fn = "vf_image_alloc_pinned";
  vf_status s = vf_image_layout(image, width, height, format, VF_MEMORY_HOST, fn);
  if (s == VF_OK) s = vf_image_pinned_alloc(&image->data, image->stride_bytes * (size_t)height, fn);
  if (s != VF_OK && image != NULL) memset(image, 0, sizeof *image);
  return s;
}

vf_status vf_image_alloc(vf_image* image, int width, int height, vf_pixel_format format,
                         vf_memory location) {
  vf_status s = vf_image_layout(image, width, height, format, location, "vf_image_alloc");
  if (s != VF_OK) return s;
  const size_t bytes = image->stride_bytes * (size_t)height;
  if (location == VF_MEMORY_HOST) {
    image->data = vf_aligned_alloc(128, bytes);
    if (image->data == NULL) s = vf_fail(NULL, VF_ERR_NOMEM, "vf_image_alloc: %zu bytes", bytes);
  } else {
    s = vf_device_alloc(NULL, &image->data, bytes, "vf_image_alloc");
  }
  if (s != VF_OK) memset(image, 0, sizeof *image);
  return s;
}

void vf_image_free(vf_image* image) {
  if (image == NULL || image->data == NULL) return;
  if (image->location == VF_MEMORY_HOST) {
    if (!vf_image_pinned_release(image->data)) free(image->data);
  } else {
    vf_device_free(image->data);
  }
  memset(image, 0, sizeof *image);
}

/* The copy itself: on `stream` (NULL: the legacy default stream) after waiting for the whole
 * device when `wait_device` is set. */
static vf_status vf_image_copy_on(const vf_image* src, vf_image* dst, void* stream, int wait_device,
                                  const char* what) {
  vf_status s = vf_image_check(src, "vf_image_copy src");
  if (s == VF_OK) s = vf_image_check(dst, "vf_image_copy dst");
  if (s != VF_OK) return s;
  if (src->width != dst->width || src->height != dst->height || src->format != dst->format) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_image_copy: src %dx%d format %d differs from dst %dx%d format %d",
                   src->width, src->height, (int)src->format, dst->width, dst->height,
                   (int)dst->format);
  }
  size_t row = (size_t)src->width * vf_pixel_size(src->format);
  if (src->location == VF_MEMORY_HOST && dst->location == VF_MEMORY_HOST) {
    for (int y = 0; y < src->height; ++y) {
      memmove((uint8_t*)dst->data + (size_t)y * dst->stride_bytes,
              (const uint8_t*)src->data + (size_t)y * src->stride_bytes, row);
    }
    return VF_OK;
  }
#ifdef VF_HAVE_CUDA
  int rc = wait_device ? vf_cuda_device_synchronize() : 0;
  if (rc == 0) {
    rc = vf_cuda_copy_2d_async(dst->data, dst->stride_bytes, src->data, src->stride_bytes, row,
                               (size_t)src->height, stream);
  }
  if (rc == 0) rc = vf_cuda_stream_synchronize(stream);
  if (rc != 0) return vf_cuda_fail(NULL, rc, what);
  return VF_OK;
#else
  (void)stream;
  (void)wait_device;
  return vf_fail(NULL, VF_ERR_NO_DEVICE, "%s: device memory without a CUDA build", what);
#endif
}

/* The contexts' streams do not synchronize with the legacy default stream, so a copy that knows
 * no context waits for the device first: images a stage is still writing are complete. */
vf_status vf_image_copy(const vf_image* src, vf_image* dst) {
  return vf_image_copy_on(src, dst, NULL, 1, "vf_image_copy");
}

vf_status vf_image_copy_stream(const vf_context* ctx, const vf_image* src, vf_image* dst) {
  return vf_image_copy_on(src, dst, ctx->stream, 0, "vf_image_copy_stream");
}

// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * Image views: the caller owns the pixels, viofront only reads or writes through the view. */
#ifndef VF_IMAGE_H
#define VF_IMAGE_H

#include <stddef.h>

#include <viofront/vf_export.h>
#include <viofront/vf_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Where an image's pixels live. */
typedef enum vf_memory {
  VF_MEMORY_HOST = 0, /**< ordinary (or pinned) host memory */
  VF_MEMORY_DEVICE    /**< CUDA device memory */
} vf_memory;

/** What one pixel holds. */
typedef enum vf_pixel_format {
  VF_PIXEL_U8 = 0, /**< 8-bit grey: camera images, pyramid levels */
  VF_PIXEL_U16,    /**< 16-bit: fixed-point disparity */
  VF_PIXEL_F32,    /**< float: disparity, depth, responses */
  VF_PIXEL_RGB8    /**< 3 x 8-bit: pictures written by the examples */
} vf_pixel_format;

/** A view of pixels owned by someone else (or by vf_image_alloc()). */
typedef struct vf_image {
  void* data;             /**< the first pixel of the first row */
  int width;              /**< pixels per row */
  int height;             /**< rows */
  size_t stride_bytes;    /**< bytes from one row to the next, >= width * pixel size */
  vf_memory location;     /**< host or device memory */
  vf_pixel_format format; /**< what each pixel holds */
} vf_image;

/** Bytes of one pixel of `format` (0 for an unknown format). */
VF_API size_t vf_pixel_size(vf_pixel_format format);

/** A view of caller memory; fills every field. */
VF_API vf_image vf_image_view(void* data, int width, int height, size_t stride_bytes,
                              vf_memory location, vf_pixel_format format);

/** VF_OK when `image` is a usable view: data non-NULL, sizes positive, stride large enough,
 * known format and location; otherwise VF_ERR_INVALID_ARG with a message naming `what`. */
VF_API vf_status vf_image_check(const vf_image* image, const char* what);

/** Allocates an image owned by the caller (release with vf_image_free). Device memory is taken
 * on the current CUDA device; without CUDA that gives VF_ERR_NO_DEVICE. Rows are padded so
 * that the stride is a multiple of 128 bytes. */
VF_API vf_status vf_image_alloc(vf_image* image, int width, int height, vf_pixel_format format,
                                vf_memory location);

/** Allocates a host image in page-locked (pinned) memory, the place for camera frames given to a
 * CUDA frontend: their uploads then run asynchronously on the copy engines instead of being
 * staged through the driver (docs/perf/frontend.md measures the difference). The view is an
 * ordinary VF_MEMORY_HOST image for every other call; release it with vf_image_free. Without a
 * CUDA build or a device VF_ERR_NO_DEVICE, and VF_ERR_NOMEM when the system refuses more
 * page-locked memory or 1024 such images live: allocate with vf_image_alloc then. Rows are padded
 * as in vf_image_alloc. */
VF_API vf_status vf_image_alloc_pinned(vf_image* image, int width, int height,
                                       vf_pixel_format format);

/** Page-locks, in place, the pixels of a host image the caller allocated (a view over a camera
 * driver's ring of buffers, say), so that a CUDA frontend uploads them as it uploads
 * vf_image_alloc_pinned's: asynchronously on the copy engines instead of staged by the driver.
 * Meant for buffers that are reused frame after frame: locking costs far more than one upload.
 * The memory stays the caller's: call vf_image_unpin with the same image before freeing it.
 * Locks the rows' span (stride_bytes x (height - 1) plus the last row's pixels) for every
 * device. Errors: VF_ERR_INVALID_ARG (a bad image, device memory), VF_ERR_NO_DEVICE (a build
 * without CUDA, no device), VF_ERR_UNSUPPORTED (a device that cannot lock memory it did not
 * allocate, as some Jetsons: use vf_image_alloc_pinned), VF_ERR_STATE (locked already),
 * VF_ERR_NOMEM (the system refuses to lock more). */
VF_API vf_status vf_image_pin(const vf_image* image);

/** Undoes vf_image_pin for the same image (same data pointer). VF_ERR_STATE when that memory was
 * not locked by vf_image_pin; other errors as vf_image_pin's. */
VF_API vf_status vf_image_unpin(const vf_image* image);

/** Frees what vf_image_alloc or vf_image_alloc_pinned allocated and clears the view; safe on a
 * cleared view. */
VF_API void vf_image_free(vf_image* image);

/** Copies pixels between any two locations; sizes and formats must match. Synchronous: the
 * copy is complete when the call returns. With device memory it first waits for all work queued
 * on the device (every context's stream), so an image a stage is still writing is complete; it
 * then also waits for the other contexts of that device: keep it out of per-frame loops that
 * share a GPU. */
VF_API vf_status vf_image_copy(const vf_image* src, vf_image* dst);

#ifdef __cplusplus
}
#endif
#endif

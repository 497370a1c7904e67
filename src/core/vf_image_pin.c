// SPDX-License-Identifier: BSD-3-Clause
/* vf_image_pin / vf_image_unpin: page-locking pixels the caller allocated (a camera driver's
 * buffers, say) in place, so that the CUDA backend uploads them as it uploads
 * vf_image_alloc_pinned's, asynchronously on the copy engines. */
#include "core/vf_context_internal.h"
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#endif

/* The checked host image and the bytes its rows span (the last row's padding left out: the
 * caller's buffer need not hold it). */
static vf_status vf_image_pin_span(const vf_image* image, const char* fn, size_t* bytes) {
  vf_status s = vf_image_check(image, fn);
  if (s != VF_OK) return s;
  if (image->location != VF_MEMORY_HOST) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: the image is in device memory, not host memory",
                   fn);
  }
  *bytes = image->stride_bytes * (size_t)(image->height - 1) +
           (size_t)image->width * vf_pixel_size(image->format);
  return VF_OK;
}

#ifdef VF_HAVE_CUDA
static vf_status vf_image_pin_fail(int rc, const char* fn, const char* call) {
  switch (vf_cuda_register_error_kind(rc)) {
    case VF_CUDA_REGISTER_NOMEM:
      return vf_fail(NULL, VF_ERR_NOMEM, "%s: the system refused to page-lock more memory (%s)", fn,
                     vf_cuda_error_string(rc));
    case VF_CUDA_REGISTER_UNSUPPORTED:
      return vf_fail(NULL, VF_ERR_UNSUPPORTED,
                     "%s: this device cannot page-lock memory it did not allocate (%s); "
                     "allocate the frames with vf_image_alloc_pinned",
                     fn, vf_cuda_error_string(rc));
    case VF_CUDA_REGISTER_TWICE:
      return vf_fail(NULL, VF_ERR_STATE, "%s: the image's memory is page-locked already (%s)", fn,
                     vf_cuda_error_string(rc));
    case VF_CUDA_REGISTER_NOT_LOCKED:
      return vf_fail(NULL, VF_ERR_STATE,
                     "%s: the image's memory was not locked by vf_image_pin (%s)", fn,
                     vf_cuda_error_string(rc));
    default: return vf_cuda_fail(NULL, rc, call);
  }
}
#endif

/* vf_image_pin (lock 1) or vf_image_unpin (lock 0). */
static vf_status vf_image_lock(const vf_image* image, int lock) {
  const char* fn = lock ? "vf_image_pin" : "vf_image_unpin";
  size_t bytes = 0;
  vf_status s = vf_image_pin_span(image, fn, &bytes);
  if (s != VF_OK) return s;
#ifdef VF_HAVE_CUDA
  if (vf_cuda_device_count() == 0) return vf_fail(NULL, VF_ERR_NO_DEVICE, "%s: no CUDA device", fn);
  const int rc =
      lock ? vf_cuda_host_register(image->data, bytes) : vf_cuda_host_unregister(image->data);
  if (rc == 0) return VF_OK;
  return vf_image_pin_fail(
      rc, fn, lock ? "vf_image_pin: cudaHostRegister" : "vf_image_unpin: cudaHostUnregister");
#else
  return vf_fail(NULL, VF_ERR_NO_DEVICE, "%s: page-locking needs a CUDA build", fn);
#endif
}

vf_status vf_image_pin(const vf_image* image) { return vf_image_lock(image, 1); }

vf_status vf_image_unpin(const vf_image* image) { return vf_image_lock(image, 0); }

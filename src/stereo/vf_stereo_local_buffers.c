// SPDX-License-Identifier: BSD-3-Clause
/* The local stereo stage's buffers: host memory for the CPU backend, device memory for CUDA. Both
 * halves of the stage (vf_stereo_local.c, vf_stereo_local_cuda.c) allocate through here. */
#include <stdlib.h>

#include "core/vf_context_internal.h"
#include "core/vf_fault.h"
#include "stereo/vf_stereo_local_internal.h"

vf_status vf_local_buffer(vf_stereo_local* s, void** ptr, size_t bytes, const char* what) {
  if (s->on_device) return vf_device_alloc(NULL, ptr, bytes, what);
  *ptr = vf_malloc(bytes > 0 ? bytes : 1);
  if (*ptr == NULL) {
    return vf_fail(NULL, VF_ERR_NOMEM, "vf_stereo_local_create: %s: %zu bytes", what, bytes);
  }
  return VF_OK;
}

void vf_local_release(vf_stereo_local* s, void* ptr) {
  if (s->on_device) {
    vf_device_free(ptr);
  } else {
    free(ptr);
  }
}

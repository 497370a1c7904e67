// SPDX-License-Identifier: BSD-3-Clause
/* Page-locked pixels (vf_image_alloc_pinned), remembered in a fixed list under a lock so that
 * vf_image_free can tell them from ordinary host memory. A program holds a few, so a linear
 * search costs nothing, and the list never allocates. */
#include <pthread.h>

#include "core/vf_context_internal.h"
#include "core/vf_image_pinned.h"
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#endif

static pthread_mutex_t vf_pinned_lock = PTHREAD_MUTEX_INITIALIZER;
static void* vf_pinned_list[VF_IMAGE_PINNED_MAX];
static int vf_pinned_count;

vf_status vf_image_pinned_alloc(void** data, size_t bytes, const char* fn) {
  *data = NULL;
#ifdef VF_HAVE_CUDA
  void* p = NULL;
  int rc = vf_cuda_host_alloc(&p, bytes);
  if (rc != 0) {
    return vf_fail(NULL, vf_cuda_error_is_no_device(rc) ? VF_ERR_NO_DEVICE : VF_ERR_NOMEM,
                   "%s: %zu bytes of page-locked memory: %s", fn, bytes, vf_cuda_error_string(rc));
  }
  pthread_mutex_lock(&vf_pinned_lock);
  const int room = vf_pinned_count < VF_IMAGE_PINNED_MAX;
  if (room) vf_pinned_list[vf_pinned_count++] = p;
  pthread_mutex_unlock(&vf_pinned_lock);
  if (!room) {
    vf_cuda_host_free(p);
    return vf_fail(NULL, VF_ERR_NOMEM, "%s: %d page-locked images live already (the most)", fn,
                   VF_IMAGE_PINNED_MAX);
  }
  *data = p;
  return VF_OK;
#else
  (void)bytes;
  return vf_fail(NULL, VF_ERR_NO_DEVICE, "%s: page-locked memory needs a CUDA build", fn);
#endif
}

int vf_image_pinned_release(void* data) {
  if (data == NULL) return 0;
  pthread_mutex_lock(&vf_pinned_lock);
  int i = vf_pinned_count - 1;
  while (i >= 0 && vf_pinned_list[i] != data) --i;
  if (i >= 0) vf_pinned_list[i] = vf_pinned_list[--vf_pinned_count];
  pthread_mutex_unlock(&vf_pinned_lock);
  if (i < 0) return 0;
#ifdef VF_HAVE_CUDA
  vf_cuda_host_free(data);
#endif
  return 1;
}

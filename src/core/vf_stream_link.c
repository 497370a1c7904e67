// SPDX-License-Identifier: BSD-3-Clause
/* Stream-to-stream ordering through one reusable CUDA event (see vf_stream_link.h). */
#include "core/vf_stream_link.h"

#include <string.h>
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#endif

vf_status vf_stream_link_init(vf_stream_link* l, const vf_context* from, const vf_context* to) {
  memset(l, 0, sizeof *l);
  l->from = from;
  l->to = to;
#ifdef VF_HAVE_CUDA
  if (from->backend == VF_BACKEND_CUDA && to->backend == VF_BACKEND_CUDA) {
    int rc = vf_cuda_event_create_untimed(&l->event);
    if (rc != 0) return vf_cuda_fail(NULL, rc, "vf_stream_link_init: cudaEventCreate");
  }
#endif
  return VF_OK;
}

void vf_stream_link_release(vf_stream_link* l) {
#ifdef VF_HAVE_CUDA
  if (l->event != NULL) vf_cuda_event_destroy(l->event);
#endif
  l->event = NULL;
}

vf_status vf_stream_link_record(vf_stream_link* l) {
#ifdef VF_HAVE_CUDA
  if (l->event != NULL) {
    int rc = vf_cuda_event_record(l->event, l->from->stream);
    if (rc != 0) return vf_cuda_fail(NULL, rc, "vf_stream_link_record");
  }
#endif
  return VF_OK;
}

vf_status vf_stream_link_wait(vf_stream_link* l) {
#ifdef VF_HAVE_CUDA
  if (l->event != NULL) {
    int rc = vf_cuda_stream_wait_event(l->to->stream, l->event);
    if (rc != 0) return vf_cuda_fail(NULL, rc, "vf_stream_link_wait");
  }
#endif
  return VF_OK;
}

vf_status vf_stream_link_signal(vf_stream_link* l) {
  vf_status s = vf_stream_link_record(l);
  return s == VF_OK ? vf_stream_link_wait(l) : s;
}

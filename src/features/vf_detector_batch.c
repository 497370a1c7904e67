// SPDX-License-Identifier: BSD-3-Clause
/* vf_detector_submit_batch: the checks of every job, then the CPU's detections in turn or one
 * CUDA call for all (cuda/features/vf_fast.cu, vf_cuda_fast_detect_batch) and the event that the
 * detectors' collects wait for. */
#include "features/vf_detector_batch.h"

#include <stdlib.h>

#include "core/vf_fault.h"
#include "features/vf_detector_internal.h"
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#include "features/kernels/vf_fast_cuda.h"
#endif

struct vf_detector_batch {
  vf_context* ctx;
  void* done; /* CUDA: recorded after the batch's launches */
};

vf_status vf_detector_batch_create(vf_context* ctx, vf_detector_batch** out) {
  if (out == NULL || ctx == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_detector_batch_create: an argument is NULL");
  }
  *out = NULL;
  vf_detector_batch* b = vf_calloc(1, sizeof *b);
  if (b == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_detector_batch_create: out of memory");
  b->ctx = ctx;
#ifdef VF_HAVE_CUDA
  if (ctx->backend == VF_BACKEND_CUDA) {
    const int rc = vf_cuda_event_create_untimed(&b->done);
    if (rc != 0) {
      free(b);
      return vf_cuda_fail(NULL, rc, "vf_detector_batch_create: event");
    }
  }
#endif
  *out = b;
  return VF_OK;
}

void vf_detector_batch_destroy(vf_detector_batch* b) {
  if (b == NULL) return;
#ifdef VF_HAVE_CUDA
  if (b->done != NULL) vf_cuda_event_destroy(b->done);
#endif
  free(b);
}

/* What can be refused before any detector changes: counts, NULLs, repeats, backends. */
static vf_status vf_detector_batch_check(const vf_detector_batch* b, vf_detector* const* d,
                                         const vf_pyramid* const* p, int n) {
  if (n < 0 || n > VF_DETECTOR_BATCH_MAX) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_detector_submit_batch: %d detectors, not 0..%d", n,
                   VF_DETECTOR_BATCH_MAX);
  }
  for (int i = 0; i < n; ++i) {
    if (d[i] == NULL || p[i] == NULL) {
      return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_detector_submit_batch: job %d has a NULL", i);
    }
    for (int k = 0; k < i; ++k) {
      if (d[k] == d[i]) {
        return vf_fail(NULL, VF_ERR_INVALID_ARG,
                       "vf_detector_submit_batch: jobs %d and %d name one detector twice", k, i);
      }
    }
    if (d[i]->ctx->backend != b->ctx->backend) {
      return vf_fail(NULL, VF_ERR_INVALID_ARG,
                     "vf_detector_submit_batch: detector %d is of another backend than the batch",
                     i);
    }
  }
  return VF_OK;
}

#ifdef VF_HAVE_CUDA
static vf_status vf_detector_batch_cuda(vf_detector_batch* b, vf_detector* const* d, int n) {
  vf_fast_job jobs[VF_DETECTOR_BATCH_MAX];
  for (int i = 0; i < n; ++i) {
    d[i]->job.occupancy = NULL;
    d[i]->job.cells = d[i]->config.host_results ? d[i]->mapped_cells : d[i]->cells;
    jobs[i] = d[i]->job;
  }
  int rc = vf_cuda_fast_detect_batch(jobs, n, b->ctx->stream);
  if (rc == 0) rc = vf_cuda_event_record(b->done, b->ctx->stream);
  if (rc != 0) return vf_cuda_fail(NULL, rc, "vf_detector_submit_batch");
  for (int i = 0; i < n; ++i) {
    d[i]->pending = 1;
    d[i]->done_event = b->done;
  }
  return VF_OK;
}
#endif

vf_status vf_detector_submit_batch(vf_detector_batch* b, vf_detector* const* d,
                                   const vf_pyramid* const* p, int n) {
  if (b == NULL || (n > 0 && (d == NULL || p == NULL))) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_detector_submit_batch: an argument is NULL");
  }
  vf_status s = vf_detector_batch_check(b, d, p, n);
  if (s != VF_OK) return s;
  for (int i = 0; i < n; ++i) {
    d[i]->pending = 0;
    d[i]->done_event = NULL;
  }
  for (int i = 0; i < n; ++i) {
    s = vf_detector_use_pyramid(d[i], "vf_detector_submit_batch", p[i]);
    if (s != VF_OK) return vf_fail(NULL, s, "job %d: %s", i, d[i]->err.message);
    d[i]->listed = 0;
    d[i]->detected = 0;
  }
#ifdef VF_HAVE_CUDA
  if (b->ctx->backend == VF_BACKEND_CUDA) return vf_detector_batch_cuda(b, d, n);
#endif
  for (int i = 0; i < n; ++i) {
    s = vf_detector_submit(d[i], p[i], NULL, VF_MEMORY_HOST);
    if (s != VF_OK) {
      for (int k = 0; k < i; ++k) (void)vf_detector_collect(d[k]);
      return vf_fail(NULL, s, "vf_detector_submit_batch: job %d: %s", i, d[i]->err.message);
    }
  }
  return VF_OK;
}

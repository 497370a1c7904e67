// SPDX-License-Identifier: BSD-3-Clause
/* Timers: CUDA events on the context's stream, or CLOCK_MONOTONIC on the CPU backend. */
#include <stdlib.h>
#include <time.h>

#include "core/vf_context_internal.h"
#include "core/vf_fault.h"
#include "viofront/vf_timer.h"
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#endif

struct vf_timer {
  vf_context* ctx;
  void* start_event;
  void* stop_event;
  struct timespec start_time;
  int started;
};

vf_status vf_timer_create(vf_context* ctx, vf_timer** out) {
  if (ctx == NULL || out == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_timer_create: %s is NULL",
                   ctx == NULL ? "ctx" : "out");
  }
  *out = NULL;
  vf_timer* t = vf_calloc(1, sizeof *t);
  if (t == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_timer_create: out of memory");
  t->ctx = ctx;
#ifdef VF_HAVE_CUDA
  if (ctx->backend == VF_BACKEND_CUDA) {
    int rc = vf_cuda_event_create(&t->start_event);
    if (rc == 0) rc = vf_cuda_event_create(&t->stop_event);
    if (rc != 0) {
      vf_timer_destroy(t);
      return vf_cuda_fail(&ctx->err, rc, "vf_timer_create: cudaEventCreate");
    }
  }
#endif
  *out = t;
  return VF_OK;
}

void vf_timer_destroy(vf_timer* timer) {
  if (timer == NULL) return;
#ifdef VF_HAVE_CUDA
  if (timer->start_event != NULL) vf_cuda_event_destroy(timer->start_event);
  if (timer->stop_event != NULL) vf_cuda_event_destroy(timer->stop_event);
#endif
  free(timer);
}

vf_status vf_timer_start(vf_timer* timer) {
  if (timer == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_timer_start: timer is NULL");
  /* Started only once the start is taken: a stop after a failed start is a state error, not a
   * read of an event that was never recorded. */
  timer->started = 0;
#ifdef VF_HAVE_CUDA
  if (timer->start_event != NULL) {
    int rc = vf_cuda_event_record(timer->start_event, timer->ctx->stream);
    if (rc != 0) return vf_cuda_fail(&timer->ctx->err, rc, "vf_timer_start");
    timer->started = 1;
    return VF_OK;
  }
#endif
  clock_gettime(CLOCK_MONOTONIC, &timer->start_time);
  timer->started = 1;
  return VF_OK;
}

vf_status vf_timer_stop(vf_timer* timer, double* elapsed_ms) {
  if (timer == NULL || elapsed_ms == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_timer_stop: %s is NULL",
                   timer == NULL ? "timer" : "elapsed_ms");
  }
  if (!timer->started) {
    return vf_fail(NULL, VF_ERR_STATE, "vf_timer_stop: vf_timer_start was not called");
  }
  timer->started = 0;
#ifdef VF_HAVE_CUDA
  if (timer->stop_event != NULL) {
    float ms = 0.0f;
    int rc = vf_cuda_event_record(timer->stop_event, timer->ctx->stream);
    if (rc == 0) rc = vf_cuda_event_synchronize(timer->stop_event);
    if (rc == 0) rc = vf_cuda_event_elapsed_ms(timer->start_event, timer->stop_event, &ms);
    if (rc != 0) return vf_cuda_fail(&timer->ctx->err, rc, "vf_timer_stop");
    vf_context_note_drained(timer->ctx); /* the stop event followed all the stream's work */
    *elapsed_ms = ms;
    return VF_OK;
  }
#endif
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  *elapsed_ms = (double)(now.tv_sec - timer->start_time.tv_sec) * 1e3 +
                (double)(now.tv_nsec - timer->start_time.tv_nsec) * 1e-6;
  return VF_OK;
}

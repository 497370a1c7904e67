// SPDX-License-Identifier: BSD-3-Clause
/* Stage marks of a frame: CUDA events or the monotonic clock (see vf_stage_clock.h). */
#include "core/vf_stage_clock.h"

#include <string.h>
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#endif

vf_status vf_stage_clock_init(vf_stage_clock* c, const vf_context* ctx, int marks) {
  memset(c, 0, sizeof *c);
  c->ctx = ctx;
  if (marks < 2 || marks > VF_STAGE_CLOCK_MAX_MARKS) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stage_clock_init: %d marks", marks);
  }
  c->marks = marks;
#ifdef VF_HAVE_CUDA
  for (int i = 0; ctx->backend == VF_BACKEND_CUDA && i < marks; ++i) {
    int rc = vf_cuda_event_create(&c->event[i]);
    if (rc != 0) {
      vf_stage_clock_release(c);
      return vf_cuda_fail(NULL, rc, "vf_stage_clock_init: cudaEventCreate");
    }
  }
#endif
  return VF_OK;
}

void vf_stage_clock_release(vf_stage_clock* c) {
#ifdef VF_HAVE_CUDA
  for (int i = 0; i < c->marks; ++i) {
    if (c->event[i] != NULL) vf_cuda_event_destroy(c->event[i]);
    c->event[i] = NULL;
  }
#endif
  c->marks = 0;
}

void vf_stage_clock_reset(vf_stage_clock* c) {
  c->recorded = 0;
  c->host = 0;
  c->err.status = VF_OK;
}

/* A mark that failed this frame is the frame's error (after the wait). */
static vf_status vf_stage_clock_result(const vf_stage_clock* c, vf_status s) {
  if (s == VF_OK && c->err.status != VF_OK)
    return vf_fail(NULL, c->err.status, "%s", c->err.message);
  return s;
}

vf_status vf_stage_clock_mark(vf_stage_clock* c, int mark) {
  if (mark < 0 || mark >= c->marks) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stage_clock_mark: mark %d", mark);
  }
  c->recorded |= 1u << mark;
  /* The host's time too, for a host mark after this one. */
  clock_gettime(CLOCK_MONOTONIC, &c->time[mark]);
#ifdef VF_HAVE_CUDA
  if (c->event[mark] != NULL) {
    int rc = vf_cuda_event_record(c->event[mark], c->ctx->stream);
    if (rc == 0) return VF_OK;
    /* An event that was not recorded has no time; the frame must not pass without a word. */
    c->recorded &= ~(1u << mark);
    return vf_cuda_fail(c->err.status == VF_OK ? &c->err : NULL, rc, "vf_stage_clock_mark");
  }
#endif
  return VF_OK;
}

vf_status vf_stage_clock_mark_host(vf_stage_clock* c, int mark) {
  if (mark < 0 || mark >= c->marks) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stage_clock_mark_host: mark %d", mark);
  }
  c->recorded |= 1u << mark;
  c->host |= 1u << mark;
  clock_gettime(CLOCK_MONOTONIC, &c->time[mark]);
  return VF_OK;
}

static double vf_stage_clock_host_ms(const vf_stage_clock* c, int i, int j) {
  return (double)(c->time[j].tv_sec - c->time[i].tv_sec) * 1e3 +
         (double)(c->time[j].tv_nsec - c->time[i].tv_nsec) * 1e-6;
}

static int vf_next_mark(const vf_stage_clock* c, int i) {
  for (int j = i + 1; j < c->marks; ++j)
    if (c->recorded & (1u << j)) return j;
  return -1;
}

vf_status vf_stage_clock_read(vf_stage_clock* c, double* ms) {
  for (int i = 0; i < c->marks; ++i) ms[i] = 0.0;
#ifdef VF_HAVE_CUDA
  /* The last event: host marks have none. */
  int last = -1;
  for (int i = 0; i < c->marks; ++i)
    if ((c->recorded & ~c->host) & (1u << i)) last = i;
  if (last >= 0 && c->event[last] != NULL) {
    int rc = vf_cuda_event_synchronize(c->event[last]);
    for (int i = 0; rc == 0 && i < c->marks; ++i) {
      int j = (c->recorded & (1u << i)) ? vf_next_mark(c, i) : -1;
      float f = 0.0f;
      if (j >= 0 && (c->host & (1u << j))) {
        ms[i] = vf_stage_clock_host_ms(c, i, j);
        continue;
      }
      if (c->host & (1u << i)) continue; /* the clocks do not compare: no time */
      if (j >= 0) rc = vf_cuda_event_elapsed_ms(c->event[i], c->event[j], &f);
      ms[i] = f;
    }
    return vf_stage_clock_result(c,
                                 rc == 0 ? VF_OK : vf_cuda_fail(NULL, rc, "vf_stage_clock_read"));
  }
#endif
  for (int i = 0; i < c->marks; ++i) {
    int j = (c->recorded & (1u << i)) ? vf_next_mark(c, i) : -1;
    if (j >= 0) ms[i] = vf_stage_clock_host_ms(c, i, j);
  }
  return vf_stage_clock_result(c, VF_OK);
}

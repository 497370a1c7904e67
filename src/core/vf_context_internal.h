// SPDX-License-Identifier: BSD-3-Clause
/* What stages see of a context. */
#ifndef VF_CONTEXT_INTERNAL_H
#define VF_CONTEXT_INTERNAL_H

#include <stddef.h>

#include "core/vf_error.h"
#include "core/vf_parallel.h"
#include "viofront/vf_context.h"
#include "viofront/vf_image.h"

struct vf_context {
  vf_error err;
  vf_backend backend; /* resolved: CPU or CUDA */
  int cuda_device;
  void* stream;
  int owns_stream;
  int cpu_threads;
  vf_pool* pool; /* the CPU stages' worker threads: cpu_threads participants */
  vf_log_fn log_fn;
  void* log_user;
  vf_log_level log_level;
  /* Host waits that found all the work queued on `stream` before them complete (CUDA): a stage
   * that noted the count when it queued work knows that work finished once the count moved,
   * without asking the driver (vf_context_note_drained). */
  unsigned long drains;
  int is_view;       /* vf_context_create_view: the pool is the parent's (and the stream, unless
                      * owns_stream: vf_context_create_stream_view) */
  int calm_siblings; /* vf_context_create_sibling gives a normal-priority stream (a rig's units) */
  int urgent;        /* its own stream was created at the greatest priority */
};

/* Call after a wait on an event recorded on ctx->stream, or on the stream itself, succeeded. */
static inline void vf_context_note_drained(vf_context* ctx) { ctx->drains++; }

void vf_log(const vf_context* ctx, vf_log_level level, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A context on the same device with a stream of its own (CUDA; the greatest priority, or normal
 * where ctx->calm_siblings) and the same logging, for work that overlaps the parent's stream and
 * bounds the frame (the frontend's stereo). CPU backend: VF_ERR_UNSUPPORTED. */
vf_status vf_context_create_sibling(const vf_context* ctx, vf_context** out);

/* A view of ctx for work that runs beside other work on the pool's threads (the rig frontend's
 * units): the same backend, device, stream, worker pool and log threshold, but an error slot and
 * a log callback of its own, so that messages from two threads at once never meet in the user's
 * callback. Destroying it frees the view only; ctx must outlive it. */
vf_status vf_context_create_view(const vf_context* ctx, vf_log_fn log_fn, void* log_user,
                                 vf_context** out);

/* The same with a CUDA stream of its own (normal priority), which the view owns: work queued on
 * it overlaps the parent's and other such views' on the GPU, ordered against them only through
 * vf_stream_link. CPU backend: the same as vf_context_create_view. */
vf_status vf_context_create_stream_view(const vf_context* ctx, vf_log_fn log_fn, void* log_user,
                                        vf_context** out);

/* Sends the calling thread's CUDA calls to ctx's device: a pool worker's CUDA runtime starts on
 * device 0, whatever the context was opened on. Does nothing on the CPU backend. */
vf_status vf_context_bind_thread(const vf_context* ctx);

/* Turns a CUDA error code into a failure on `err` naming what was being done. */
vf_status vf_cuda_fail(vf_error* err, int code, const char* what);

/* Device allocation with error reporting (CUDA backend only). */
vf_status vf_device_alloc(vf_error* err, void** ptr, size_t bytes, const char* what);
void vf_device_free(void* ptr);

/* vf_image_copy ordered on the context's stream only: other contexts' work is not waited for. */
vf_status vf_image_copy_stream(const vf_context* ctx, const vf_image* src, vf_image* dst);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* Context: backend resolution (AUTO -> CUDA when a device is present), stream, logging. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/vf_context_internal.h"
#include "core/vf_fault.h"
#include "viofront/vf_version.h"
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#endif

vf_context_config vf_context_config_default(void) {
  vf_context_config c;
  memset(&c, 0, sizeof c);
  c.backend = VF_BACKEND_AUTO;
  c.log_level = VF_LOG_WARN;
  return c;
}

int vf_cuda_device_count(void) {
#ifdef VF_HAVE_CUDA
  int n = 0;
  if (vf_cuda_get_device_count(&n) != 0) return 0;
  return n;
#else
  return 0;
#endif
}

const char* vf_backend_name(vf_backend backend) {
  switch (backend) {
    case VF_BACKEND_AUTO: return "auto";
    case VF_BACKEND_CPU: return "cpu";
    case VF_BACKEND_CUDA: return "cuda";
  }
  return "unknown";
}

void vf_log(const vf_context* ctx, vf_log_level level, const char* fmt, ...) {
  if (ctx == NULL || ctx->log_fn == NULL || level == VF_LOG_SILENT || level > ctx->log_level) {
    return;
  }
  char message[1024];
  va_list args;
  va_start(args, fmt);
  vsnprintf(message, sizeof message, fmt, args);
  va_end(args);
  ctx->log_fn(level, message, ctx->log_user);
}

vf_status vf_cuda_fail(vf_error* err, int code, const char* what) {
#ifdef VF_HAVE_CUDA
  /* A machine without a GPU is the documented VF_ERR_NO_DEVICE, not a CUDA failure. */
  vf_status status = vf_cuda_error_is_no_device(code) ? VF_ERR_NO_DEVICE : VF_ERR_CUDA;
  return vf_fail(err, status, "%s: %s (CUDA error %d)", what, vf_cuda_error_string(code), code);
#else
  return vf_fail(err, VF_ERR_NO_DEVICE, "%s: built without CUDA (code %d)", what, code);
#endif
}

vf_status vf_device_alloc(vf_error* err, void** ptr, size_t bytes, const char* what) {
  *ptr = NULL;
#ifdef VF_HAVE_CUDA
  int rc = vf_cuda_malloc(ptr, bytes);
  if (rc != 0) {
    *ptr = NULL;
    return vf_cuda_fail(err, rc, what);
  }
  return VF_OK;
#else
  (void)bytes;
  return vf_fail(err, VF_ERR_NO_DEVICE, "%s: built without CUDA", what);
#endif
}

void vf_device_free(void* ptr) {
#ifdef VF_HAVE_CUDA
  if (ptr != NULL) vf_cuda_free(ptr);
#else
  (void)ptr;
#endif
}

static vf_status vf_context_validate(const vf_context_config* c) {
  if (c->backend < VF_BACKEND_AUTO || c->backend > VF_BACKEND_CUDA) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_context_create: backend %d is not AUTO, CPU or CUDA", (int)c->backend);
  }
  if (c->cuda_device < 0) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_context_create: cuda_device %d is negative",
                   c->cuda_device);
  }
  if (c->cpu_threads < 0 || c->cpu_threads > 1024) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_context_create: cpu_threads %d is outside 0..1024",
                   c->cpu_threads);
  }
  if (c->log_level < VF_LOG_SILENT || c->log_level > VF_LOG_DEBUG) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_context_create: log_level %d is out of range",
                   (int)c->log_level);
  }
  return VF_OK;
}

static vf_status vf_context_open_cuda(vf_context* ctx, const vf_context_config* c, int urgent) {
#ifdef VF_HAVE_CUDA
  int count = vf_cuda_device_count();
  if (c->cuda_device >= count) {
    return vf_fail(NULL, VF_ERR_NO_DEVICE,
                   "vf_context_create: CUDA backend asked for device %d but %d device(s) found",
                   c->cuda_device, count);
  }
  int rc = vf_cuda_set_device(c->cuda_device);
  if (rc != 0) return vf_cuda_fail(NULL, rc, "vf_context_create: cudaSetDevice");
  ctx->cuda_device = c->cuda_device;
  if (c->cuda_stream != NULL) {
    ctx->stream = c->cuda_stream;
    return VF_OK;
  }
  rc = vf_cuda_stream_create(&ctx->stream, urgent);
  if (rc != 0) return vf_cuda_fail(NULL, rc, "vf_context_create: cudaStreamCreate");
  ctx->owns_stream = 1;
  ctx->urgent = urgent;
  return VF_OK;
#else
  (void)ctx;
  (void)c;
  (void)urgent;
  return vf_fail(NULL, VF_ERR_NO_DEVICE,
                 "vf_context_create: CUDA backend asked for, but viofront was built without CUDA");
#endif
}

/* vf_context_create; `urgent`: its own CUDA stream at the greatest priority. */
static vf_status vf_context_make(const vf_context_config* config, int urgent, vf_context** out) {
  if (out == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_context_create: out is NULL");
  *out = NULL;
  vf_context_config c = config != NULL ? *config : vf_context_config_default();
  vf_status s = vf_context_validate(&c);
  if (s != VF_OK) return s;

  vf_context* ctx = vf_calloc(1, sizeof *ctx);
  if (ctx == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_context_create: out of memory");
  ctx->log_fn = c.log_fn;
  ctx->log_user = c.log_user;
  ctx->log_level = c.log_level;
  ctx->cpu_threads = c.cpu_threads > 0 ? c.cpu_threads : vf_cpu_cores();
  s = vf_pool_create(ctx->cpu_threads, &ctx->pool);
  if (s != VF_OK) {
    free(ctx);
    return s;
  }

  vf_backend want = c.backend;
  if (want == VF_BACKEND_AUTO) want = vf_cuda_device_count() > 0 ? VF_BACKEND_CUDA : VF_BACKEND_CPU;
  ctx->backend = want;
  if (want == VF_BACKEND_CUDA) {
    s = vf_context_open_cuda(ctx, &c, urgent);
    if (s != VF_OK) {
      vf_pool_destroy(ctx->pool);
      free(ctx);
      return s;
    }
  }
  vf_log(ctx, VF_LOG_INFO, "viofront %s: %s backend, %d CPU threads", VF_VERSION_STRING,
         vf_backend_name(ctx->backend), ctx->cpu_threads);
  *out = ctx;
  return VF_OK;
}

vf_status vf_context_create(const vf_context_config* config, vf_context** out) {
  return vf_context_make(config, 0, out);
}

vf_status vf_context_create_sibling(const vf_context* ctx, vf_context** out) {
  *out = NULL;
  if (ctx->backend != VF_BACKEND_CUDA) {
    return vf_fail(NULL, VF_ERR_UNSUPPORTED, "vf_context_create_sibling: CUDA backend only");
  }
  vf_context_config c = vf_context_config_default();
  c.backend = VF_BACKEND_CUDA;
  c.cuda_device = ctx->cuda_device;
  c.cpu_threads = ctx->cpu_threads;
  c.log_fn = ctx->log_fn;
  c.log_user = ctx->log_user;
  /* The parent already said which backend runs; the sibling stays quiet about it. */
  c.log_level = ctx->log_level < VF_LOG_WARN ? ctx->log_level : VF_LOG_WARN;
  /* The sibling carries the frame's critical path (the stereo): its stream has the greatest
   * priority, so that its blocks go first when the parent's kernels queue beside them. Not in a
   * rig of several pairs, where every unit's stereo would go before every unit's tracking. */
  return vf_context_make(&c, !ctx->calm_siblings, out);
}

vf_status vf_context_create_view(const vf_context* ctx, vf_log_fn log_fn, void* log_user,
                                 vf_context** out) {
  *out = NULL;
  vf_context* view = vf_calloc(1, sizeof *view);
  if (view == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_context_create_view: out of memory");
  *view = *ctx;
  memset(&view->err, 0, sizeof view->err);
  view->owns_stream = 0;
  view->log_fn = log_fn;
  view->log_user = log_user;
  view->is_view = 1;
  *out = view;
  return VF_OK;
}

vf_status vf_context_create_stream_view(const vf_context* ctx, vf_log_fn log_fn, void* log_user,
                                        vf_context** out) {
  vf_status s = vf_context_create_view(ctx, log_fn, log_user, out);
#ifdef VF_HAVE_CUDA
  if (s == VF_OK && ctx->backend == VF_BACKEND_CUDA) {
    vf_context* view = *out;
    int rc = vf_cuda_stream_create(&view->stream, 0);
    if (rc != 0) {
      free(view);
      *out = NULL;
      return vf_cuda_fail(NULL, rc, "vf_context_create_stream_view: cudaStreamCreate");
    }
    view->owns_stream = 1;
    view->urgent = 0;
  }
#endif
  return s;
}

vf_status vf_context_bind_thread(const vf_context* ctx) {
#ifdef VF_HAVE_CUDA
  if (ctx->backend == VF_BACKEND_CUDA) {
    int rc = vf_cuda_set_device(ctx->cuda_device);
    if (rc != 0) return vf_cuda_fail(NULL, rc, "vf_context_bind_thread: cudaSetDevice");
  }
#else
  (void)ctx;
#endif
  return VF_OK;
}

void vf_context_destroy(vf_context* ctx) {
  if (ctx == NULL) return;
#ifdef VF_HAVE_CUDA
  if (ctx->owns_stream && ctx->stream != NULL) {
    vf_cuda_stream_drain(ctx->stream);
    vf_cuda_stream_destroy(ctx->stream);
  }
#endif
  if (!ctx->is_view) vf_pool_destroy(ctx->pool);
  free(ctx);
}

vf_backend vf_context_backend(const vf_context* ctx) {
  return ctx != NULL ? ctx->backend : VF_BACKEND_CPU;
}

void* vf_context_cuda_stream(const vf_context* ctx) { return ctx != NULL ? ctx->stream : NULL; }

const char* vf_context_last_error(const vf_context* ctx) {
  return ctx != NULL ? ctx->err.message : "vf_context_last_error: ctx is NULL";
}

vf_status vf_context_synchronize(vf_context* ctx) {
  if (ctx == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_context_synchronize: ctx is NULL");
#ifdef VF_HAVE_CUDA
  if (ctx->backend == VF_BACKEND_CUDA) {
    int rc = vf_cuda_stream_synchronize(ctx->stream);
    if (rc != 0) return vf_cuda_fail(&ctx->err, rc, "vf_context_synchronize");
    vf_context_note_drained(ctx);
  }
#endif
  return VF_OK;
}

vf_status vf_context_device_info(const vf_context* ctx, vf_device_info* out) {
  if (ctx == NULL || out == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_context_device_info: %s is NULL",
                   ctx == NULL ? "ctx" : "out");
  }
  memset(out, 0, sizeof *out);
  if (ctx->backend == VF_BACKEND_CPU) {
    snprintf(out->name, sizeof out->name, "CPU");
    out->multiprocessors = ctx->cpu_threads;
    return VF_OK;
  }
#ifdef VF_HAVE_CUDA
  int rc =
      vf_cuda_device_properties(ctx->cuda_device, out->name, sizeof out->name, &out->compute_major,
                                &out->compute_minor, &out->multiprocessors);
  if (rc == 0) rc = vf_cuda_versions(&out->cuda_runtime_version, &out->cuda_driver_version);
  if (rc != 0) return vf_cuda_fail(NULL, rc, "vf_context_device_info");
#endif
  return VF_OK;
}

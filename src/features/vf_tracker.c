// SPDX-License-Identifier: BSD-3-Clause
/* Tracker stage: configuration, allocation at create time, checks of every call, dispatch to
 * the CPU (src/features/cpu/vf_lk_cpu.c) or CUDA (cuda/features/vf_lk.cu) backend. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_context_internal.h"
#include "core/vf_fault.h"
#include "features/kernels/vf_affine_cpu.h"
#include "features/kernels/vf_lk_cpu.h"
#include "features/kernels/vf_lk_rules.h"
#include "features/vf_tracker_internal.h"
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#include "features/kernels/vf_affine_cuda.h"
#include "features/kernels/vf_lk_cuda.h"
#endif

struct vf_tracker {
  vf_error err;
  vf_context* ctx;
  vf_tracker_config config;
  vf_lk_params params;     /* templates and slot_levels in the backend's memory */
  vf_affine_params refine; /* reference slots and samples in the backend's memory */
  /* CUDA: requests and results in pinned host memory mapped into the device, which the kernel
   * reads and writes directly (the parameters travel as kernel arguments), so a call is one
   * launch and no copy. */
  vf_track_request* h_requests;    /* pinned and mapped on CUDA, plain on the CPU backend; the
                                      array of vf_tracker_request_buffer */
  vf_track_request* m_requests;    /* h_requests' device address */
  vf_track_result* h_results;      /* pinned and mapped on CUDA, plain on the CPU backend */
  vf_track_result* m_results;      /* h_results' device address */
  vf_track_request* back_requests; /* CPU: vf_tracker_track_checked's backward requests */
  vf_track_result* h_back; /* its backward results: pinned and mapped on CUDA, plain on the CPU */
  vf_track_result* m_back; /* h_back's device address */
  void* staging_free;      /* CUDA event: h_requests may be rewritten */
  int uploads;             /* submissions that recorded staging_free */
  int staging_checked;     /* the upload after which staging_free was last waited for */
  unsigned long drains_at_upload; /* ctx->drains when the latest submission was queued */
  int fused_limit; /* CUDA with refinement: calls of up to this many features take the one-launch
                      kernel (vf_cuda_track_refine), larger ones the two kernels */
  int submitted;   /* features of the latest submission, -1 = none */
  int work_behind; /* CUDA: work is queued behind the latest submission (its collect waits for
                      the submission's event, not the stream) */
  const uint8_t* next_levels; /* the next submission's start levels (vf_tracker_set_start_levels) */
  uint8_t* h_levels;          /* CUDA: their staging, pinned and mapped beside h_requests */
  uint8_t* m_levels;          /* h_levels' device address */
};

vf_tracker_config vf_tracker_config_default(void) {
  vf_tracker_config c;
  memset(&c, 0, sizeof c);
  c.levels = 4;
  for (int k = 0; k < VF_PYRAMID_MAX_LEVELS; ++k) c.patch_size[k] = k < 2 ? 16 : 8;
  c.max_features = 1024;
  c.max_iterations = 16;
  c.coarse_iterations = 3;
  c.min_update = 0.01f;
  c.max_residual = 30.0f;
  c.min_gain = 0.3f;
  c.max_gain = 3.0f;
  c.estimate_gain = 1;
  c.estimate_bias = 1;
  c.template_mode = VF_TEMPLATE_PREVIOUS_FRAME;
  c.refine = 0;
  c.refine_patch = 21;
  c.refine_iterations = 3;
  c.refine_min_ncc = 0.9f;
  c.refine_max_scale = 1.25f;
  c.refine_max_shift = 0.4f;
  c.refine_shape_prior = 0.0f;
  c.refine_one_launch = 1;
  return c;
}

static vf_status vf_tracker_validate(const vf_tracker_config* c) {
  const char* fn = "vf_tracker_create";
  if (c->levels < 1 || c->levels > VF_PYRAMID_MAX_LEVELS) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: levels %d is outside 1..%d", fn, c->levels,
                   VF_PYRAMID_MAX_LEVELS);
  }
  for (int k = 0; k < c->levels; ++k) {
    if (c->patch_size[k] < VF_TRACKER_MIN_PATCH || c->patch_size[k] > VF_TRACKER_MAX_PATCH) {
      return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: patch_size[%d] = %d is outside %d..%d", fn, k,
                     c->patch_size[k], VF_TRACKER_MIN_PATCH, VF_TRACKER_MAX_PATCH);
    }
  }
  if (c->max_features < 1 || c->max_features > (1 << 20)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: max_features %d is outside 1..%d", fn,
                   c->max_features, 1 << 20);
  }
  if (c->max_iterations < 1 || c->max_iterations > 100) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: max_iterations %d is outside 1..100", fn,
                   c->max_iterations);
  }
  if (c->coarse_iterations < 1 || c->coarse_iterations > 100) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: coarse_iterations %d is outside 1..100", fn,
                   c->coarse_iterations);
  }
  if (!(c->min_update > 0.0f && c->min_update < 1.0f)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: min_update %g must be in (0, 1) px", fn,
                   (double)c->min_update);
  }
  if (!(c->max_residual >= 0.0f && isfinite(c->max_residual))) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: max_residual %g must be finite and >= 0", fn,
                   (double)c->max_residual);
  }
  if (!(c->min_gain > 0.0f && c->min_gain < 1.0f && c->max_gain > 1.0f && isfinite(c->max_gain))) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: min_gain %g and max_gain %g must satisfy 0 < min_gain < 1 < max_gain", fn,
                   (double)c->min_gain, (double)c->max_gain);
  }
  if (c->template_mode != VF_TEMPLATE_PREVIOUS_FRAME &&
      c->template_mode != VF_TEMPLATE_FIRST_OBSERVATION) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: template_mode %d is unknown", fn,
                   (int)c->template_mode);
  }
  if (!c->refine) return VF_OK;
  if (c->refine_patch < VF_TRACKER_MIN_REF_PATCH || c->refine_patch > VF_TRACKER_MAX_REF_PATCH ||
      c->refine_patch % 2 == 0) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: refine_patch %d must be odd, %d..%d", fn,
                   c->refine_patch, VF_TRACKER_MIN_REF_PATCH, VF_TRACKER_MAX_REF_PATCH);
  }
  if (c->refine_iterations < 1 || c->refine_iterations > 100) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: refine_iterations %d is outside 1..100", fn,
                   c->refine_iterations);
  }
  if (!(c->refine_min_ncc >= 0.0f && c->refine_min_ncc < 1.0f)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: refine_min_ncc %g must be in [0, 1)", fn,
                   (double)c->refine_min_ncc);
  }
  if (!(c->refine_max_scale > 1.0f && isfinite(c->refine_max_scale))) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: refine_max_scale %g must be finite and > 1", fn,
                   (double)c->refine_max_scale);
  }
  if (!(c->refine_shape_prior >= 0.0f && c->refine_shape_prior <= 1000.0f)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: refine_shape_prior %g is outside 0..1000", fn,
                   (double)c->refine_shape_prior);
  }
  if (!(c->refine_max_shift > 0.0f && isfinite(c->refine_max_shift))) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: refine_max_shift %g must be finite and > 0", fn,
                   (double)c->refine_max_shift);
  }
  return VF_OK;
}

static void vf_tracker_set_params(vf_tracker* t) {
  const vf_tracker_config* c = &t->config;
  vf_lk_params* p = &t->params;
  p->levels = c->levels;
  p->max_iterations = c->max_iterations;
  p->coarse_iterations = c->coarse_iterations;
  p->min_update = c->min_update;
  p->min_update_sq = c->min_update * c->min_update;
  p->max_residual = c->max_residual;
  p->min_gain = c->min_gain;
  p->max_gain = c->max_gain;
  p->param_mask = 3 | (c->estimate_gain ? 4 : 0) | (c->estimate_bias ? 8 : 0);
  p->first_observation = c->template_mode == VF_TEMPLATE_FIRST_OBSERVATION;
  p->slot_floats = 0;
  for (int k = 0; k < c->levels; ++k) {
    p->patch[k] = c->patch_size[k];
    vf_lk_set_runs(p, k, c->patch_size[k]);
    p->level_offset[k] = p->slot_floats;
    p->slot_floats += vf_lk_level_floats(c->patch_size[k]);
  }
  p->slots = p->first_observation ? c->max_features : 0;
  p->slot_limit = p->first_observation || c->refine ? c->max_features : 0;
  vf_affine_params* a = &t->refine;
  a->enabled = c->refine != 0;
  a->patch = c->refine_patch;
  a->max_iterations = c->refine_iterations;
  a->min_update = c->min_update;
  a->min_ncc = c->refine_min_ncc;
  a->max_scale = c->refine_max_scale;
  a->max_shift = c->refine_max_shift;
  a->shape_prior = c->refine_shape_prior;
  a->min_gain = c->min_gain;
  a->max_gain = c->max_gain;
  a->slots = a->enabled ? c->max_features : 0;
}

static size_t vf_tracker_ref_floats(const vf_affine_params* a) {
  return (size_t)a->slots * 3 * (size_t)a->patch * (size_t)a->patch;
}

/* Template slots (first-observation mode) and, on CUDA, the request/result buffers. */
static vf_status vf_tracker_alloc(vf_tracker* t) {
  vf_lk_params* p = &t->params;
  const size_t tpl_bytes = (size_t)p->slots * p->slot_floats * sizeof(float);
  const size_t lvl_bytes = (size_t)p->slots * sizeof(uint32_t);
  if (t->ctx->backend == VF_BACKEND_CPU) {
    t->h_requests = vf_calloc((size_t)t->config.max_features, sizeof *t->h_requests);
    t->h_results = vf_calloc((size_t)t->config.max_features, sizeof *t->h_results);
    t->back_requests = vf_calloc((size_t)t->config.max_features, sizeof *t->back_requests);
    t->h_back = vf_calloc((size_t)t->config.max_features, sizeof *t->h_back);
    if (t->h_requests == NULL || t->h_results == NULL || t->back_requests == NULL ||
        t->h_back == NULL) {
      return vf_fail(NULL, VF_ERR_NOMEM, "vf_tracker_create: %d results", t->config.max_features);
    }
    if (t->refine.slots > 0) {
      t->refine.slot = vf_calloc((size_t)t->refine.slots, sizeof *t->refine.slot);
      t->refine.samples = vf_malloc(vf_tracker_ref_floats(&t->refine) * sizeof(float));
      if (t->refine.slot == NULL || t->refine.samples == NULL) {
        return vf_fail(NULL, VF_ERR_NOMEM, "vf_tracker_create: %d reference slots",
                       t->refine.slots);
      }
    }
    if (p->slots == 0) return VF_OK;
    p->templates = vf_malloc(tpl_bytes);
    p->slot_levels = vf_calloc((size_t)p->slots, sizeof(uint32_t));
    if (p->templates == NULL || p->slot_levels == NULL) {
      return vf_fail(NULL, VF_ERR_NOMEM, "vf_tracker_create: %zu bytes of templates", tpl_bytes);
    }
    return VF_OK;
  }
#ifdef VF_HAVE_CUDA
  const size_t n = (size_t)t->config.max_features;
  const size_t req_bytes = n * sizeof(vf_track_request);
  const size_t res_bytes = n * sizeof(vf_track_result);
  const char* what = "vf_tracker_create";
  /* Requests and results live in mapped pinned memory that the kernel reads and writes: one
   * launch per call and no copies (copies each way measured slower, docs/perf/tracker.md). */
  vf_status s = VF_OK;
  int rc = vf_cuda_host_alloc_mapped((void**)&t->h_requests, (void**)&t->m_requests, req_bytes);
  if (s == VF_OK && rc == 0) {
    rc = vf_cuda_host_alloc_mapped((void**)&t->h_results, (void**)&t->m_results, res_bytes);
  }
  if (s == VF_OK && rc == 0) {
    rc = vf_cuda_host_alloc_mapped((void**)&t->h_back, (void**)&t->m_back, res_bytes);
  }
  if (s == VF_OK && rc == 0)
    rc = vf_cuda_host_alloc_mapped((void**)&t->h_levels, (void**)&t->m_levels, n);
  if (s == VF_OK && rc == 0) rc = vf_cuda_event_create_untimed(&t->staging_free);
  if (rc != 0) s = vf_cuda_fail(NULL, rc, "vf_tracker_create: pinned staging and event");
  if (s == VF_OK && p->slots > 0) {
    s = vf_device_alloc(NULL, (void**)&p->templates, tpl_bytes, what);
    if (s == VF_OK) s = vf_device_alloc(NULL, (void**)&p->slot_levels, lvl_bytes, what);
    if (s == VF_OK) rc = vf_cuda_memset_async(p->slot_levels, 0, lvl_bytes, t->ctx->stream);
    if (s == VF_OK && rc == 0) rc = vf_cuda_stream_synchronize(t->ctx->stream);
    if (rc != 0) s = vf_cuda_fail(NULL, rc, "vf_tracker_create: clearing template slots");
  }
  if (s == VF_OK && t->refine.slots > 0) {
    const size_t slot_bytes = (size_t)t->refine.slots * sizeof *t->refine.slot;
    s = vf_device_alloc(NULL, (void**)&t->refine.slot, slot_bytes, what);
    if (s == VF_OK) {
      s = vf_device_alloc(NULL, (void**)&t->refine.samples,
                          vf_tracker_ref_floats(&t->refine) * sizeof(float), what);
    }
    if (s == VF_OK) {
      s = vf_device_alloc(NULL, (void**)&t->params.result_copy, res_bytes, what);
      t->refine.lk_results = t->params.result_copy;
    }
    if (s == VF_OK) rc = vf_cuda_memset_async(t->refine.slot, 0, slot_bytes, t->ctx->stream);
    if (s == VF_OK && rc == 0) rc = vf_cuda_stream_synchronize(t->ctx->stream);
    if (rc != 0) s = vf_cuda_fail(NULL, rc, "vf_tracker_create: clearing reference slots");
    /* 0 when the runtime cannot say: then the two kernels, which give the same results. */
    if (s == VF_OK) t->fused_limit = vf_cuda_track_refine_capacity(&t->refine);
  }
  return s;
#else
  (void)lvl_bytes;
  return vf_fail(NULL, VF_ERR_NO_DEVICE, "vf_tracker_create: built without CUDA");
#endif
}

void vf_tracker_destroy(vf_tracker* t) {
  if (t == NULL) return;
  if (t->ctx->backend == VF_BACKEND_CPU) {
    free(t->params.templates);
    free(t->params.slot_levels);
    free(t->refine.slot);
    free(t->refine.samples);
    free(t->h_requests);
    free(t->h_results);
    free(t->back_requests);
    free(t->h_back);
  } else {
#ifdef VF_HAVE_CUDA
    vf_device_free(t->params.templates);
    vf_device_free(t->params.slot_levels);
    vf_device_free(t->refine.slot);
    vf_device_free(t->refine.samples);
    vf_device_free(t->params.result_copy);
    if (t->h_requests != NULL) vf_cuda_host_free(t->h_requests);
    if (t->h_results != NULL) vf_cuda_host_free(t->h_results);
    if (t->h_back != NULL) vf_cuda_host_free(t->h_back);
    if (t->h_levels != NULL) vf_cuda_host_free(t->h_levels);
    if (t->staging_free != NULL) vf_cuda_event_destroy(t->staging_free);
#endif
  }
  free(t);
}

vf_status vf_tracker_create(vf_context* ctx, const vf_tracker_config* config, vf_tracker** out) {
  if (out == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_tracker_create: out is NULL");
  *out = NULL;
  if (ctx == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_tracker_create: ctx is NULL");
  if (config == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_tracker_create: config is NULL");
  vf_status s = vf_tracker_validate(config);
  if (s != VF_OK) return s;
  vf_tracker* t = vf_calloc(1, sizeof *t);
  if (t == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_tracker_create: out of memory");
  t->ctx = ctx;
  t->config = *config;
  t->submitted = -1;
  vf_tracker_set_params(t);
  s = vf_tracker_alloc(t);
  if (s != VF_OK) {
    vf_tracker_destroy(t);
    return s;
  }
  *out = t;
  return VF_OK;
}

vf_status vf_tracker_get_config(const vf_tracker* t, vf_tracker_config* out) {
  if (t == NULL || out == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_tracker_get_config: %s is NULL",
                   t == NULL ? "tracker" : "out");
  }
  *out = t->config;
  return VF_OK;
}

/* Level pointers of both pyramids, after checking they fit this tracker. */
static vf_status vf_tracker_bind(vf_tracker* t, const vf_pyramid* prev, const vf_pyramid* cur,
                                 const char* fn) {
  const int levels = t->config.levels;
  if (vf_pyramid_levels(prev) < levels || vf_pyramid_levels(cur) < levels) {
    return vf_fail(&t->err, VF_ERR_INVALID_ARG,
                   "%s: pyramids have %d (prev) and %d (cur) levels, the tracker uses %d", fn,
                   vf_pyramid_levels(prev), vf_pyramid_levels(cur), levels);
  }
  const vf_memory want = t->ctx->backend == VF_BACKEND_CUDA ? VF_MEMORY_DEVICE : VF_MEMORY_HOST;
  for (int k = 0; k < levels; ++k) {
    vf_image a, b;
    vf_pyramid_level(prev, k, &a);
    vf_pyramid_level(cur, k, &b);
    if (a.width != b.width || a.height != b.height) {
      return vf_fail(&t->err, VF_ERR_INVALID_ARG,
                     "%s: prev level %d is %dx%d but cur level %d is %dx%d", fn, k, a.width,
                     a.height, k, b.width, b.height);
    }
    if (a.location != want || b.location != want) {
      return vf_fail(&t->err, VF_ERR_INVALID_ARG,
                     "%s: pyramids must be in %s memory like the tracker's %s backend", fn,
                     want == VF_MEMORY_DEVICE ? "device" : "host",
                     vf_backend_name(t->ctx->backend));
    }
    /* The CUDA kernel reads rows as aligned 32-bit words (vf_pyramid rows are 128-byte aligned). */
    if (want == VF_MEMORY_DEVICE &&
        (((uintptr_t)a.data | (uintptr_t)b.data | a.stride_bytes | b.stride_bytes) & 3u) != 0) {
      return vf_fail(&t->err, VF_ERR_INVALID_ARG, "%s: level %d rows are not 4-byte aligned", fn,
                     k);
    }
    t->params.width[k] = a.width;
    t->params.height[k] = a.height;
    t->params.prev[k] = a.data;
    t->params.cur[k] = b.data;
    t->params.prev_stride[k] = a.stride_bytes;
    t->params.cur_stride[k] = b.stride_bytes;
  }
  t->refine.width = t->params.width[0];
  t->refine.height = t->params.height[0];
  t->refine.prev = t->params.prev[0];
  t->refine.cur = t->params.cur[0];
  t->refine.prev_stride = t->params.prev_stride[0];
  t->refine.cur_stride = t->params.cur_stride[0];
  return VF_OK;
}

/* The backward pass's parameters: this call's, the pyramids swapped, nothing written twice. */
static vf_lk_params vf_tracker_back_params(const vf_tracker* t) {
  vf_lk_params b = t->params;
  for (int k = 0; k < b.levels; ++k) {
    b.prev[k] = t->params.cur[k];
    b.cur[k] = t->params.prev[k];
    b.prev_stride[k] = t->params.cur_stride[k];
    b.cur_stride[k] = t->params.prev_stride[k];
  }
  b.result_copy = NULL;
  b.start_levels = NULL; /* back from the forward result: the whole motion, all levels */
  return b;
}

#ifdef VF_HAVE_CUDA
/* Whether the latest submission may still read h_requests: no host wait on the stream since it
 * was queued (vf_tracker_collect, vf_context_synchronize) and none on its event. */
static int vf_tracker_staging_busy(const vf_tracker* t) {
  return t->uploads > 0 && t->ctx->drains == t->drains_at_upload &&
         t->staging_checked != t->uploads;
}

/* A submission's outcome. When a step failed after a kernel was queued, the stream is drained
 * first: that kernel may still read the staged requests, which the next call rewrites once the
 * last recorded staging_free has passed. */
static vf_status vf_tracker_cuda_done(vf_tracker* t, int rc, int launched, const char* fn) {
  if (rc == 0) return VF_OK;
  if (launched) vf_cuda_stream_drain(t->ctx->stream);
  return vf_cuda_fail(&t->err, rc, fn);
}

/* One launch: the kernel reads the requests from, and writes the results to, mapped pinned
 * memory. back >= 0: with the backward pass in the same launch (vf_cuda_lk_track_checked,
 * from_guess = back) into h_back, the refinement in a kernel of its own behind it. */
static vf_status vf_tracker_submit_cuda(vf_tracker* t, const vf_track_request* requests, int count,
                                        const uint8_t* levels, int back, const char* fn) {
  void* stream = t->ctx->stream;
  /* The previous submission must have read its requests before they are rewritten. A host wait
   * since it was queued says so already; only without one is the event asked, a driver call of
   * 1.5 us. Requests already in the staging (vf_tracker_request_buffer) are neither copied nor
   * waited for: that call waited before they were written. */
  const int in_place = requests == t->h_requests;
  int rc = !in_place && vf_tracker_staging_busy(t) ? vf_cuda_event_synchronize(t->staging_free) : 0;
  const size_t req_bytes = (size_t)count * sizeof *requests;
  /* memmove: a caller may pass a later part of the staging itself. */
  if (rc == 0 && !in_place) memmove(t->h_requests, requests, req_bytes);
  if (rc == 0 && levels != NULL) memcpy(t->h_levels, levels, (size_t)count);
  t->params.start_levels = levels != NULL ? t->m_levels : NULL;
  int launched = 0;
  if (rc == 0 && back >= 0) {
    const vf_lk_params bp = vf_tracker_back_params(t);
    rc = vf_cuda_lk_track_checked(&t->params, &bp, t->m_requests, t->m_results, t->m_back, back,
                                  count, stream);
    launched = rc == 0;
    if (rc == 0 && t->refine.enabled) {
      rc = vf_cuda_affine_refine(&t->refine, t->m_requests, t->m_results, count, stream);
    }
  } else if (rc == 0 && t->refine.enabled && t->config.refine_one_launch &&
             count <= t->fused_limit) {
    rc = vf_cuda_track_refine(&t->params, &t->refine, t->m_requests, t->m_results, count, stream);
    launched = rc == 0;
  } else if (rc == 0) {
    rc = vf_cuda_lk_track(&t->params, t->m_requests, t->m_results, count, stream);
    launched = rc == 0;
    if (rc == 0 && t->refine.enabled) {
      rc = vf_cuda_affine_refine(&t->refine, t->m_requests, t->m_results, count, stream);
    }
  }
  if (rc == 0) rc = vf_cuda_event_record(t->staging_free, stream);
  t->work_behind = 0;
  if (rc == 0) {
    t->uploads++;
    t->drains_at_upload = t->ctx->drains;
  }
  return vf_tracker_cuda_done(t, rc, launched, fn);
}
#endif

/* The checks every call makes before it binds the pyramids (t not NULL). */
static vf_status vf_tracker_check_call(vf_tracker* t, const vf_pyramid* prev, const vf_pyramid* cur,
                                       const vf_track_request* requests, int count,
                                       const char* fn) {
  t->submitted = -1;
  if (prev == NULL || cur == NULL) {
    return vf_fail(&t->err, VF_ERR_INVALID_ARG, "%s: %s pyramid is NULL", fn,
                   prev == NULL ? "prev" : "cur");
  }
  if (count < 0 || count > t->config.max_features) {
    return vf_fail(&t->err, VF_ERR_INVALID_ARG, "%s: count %d is outside 0..%d", fn, count,
                   t->config.max_features);
  }
  if (count > 0 && requests == NULL) {
    return vf_fail(&t->err, VF_ERR_INVALID_ARG, "%s: requests is NULL", fn);
  }
  return vf_tracker_bind(t, prev, cur, fn);
}

/* The CPU backend's backward pass over the forward results in h_results: the converged ones'
 * requests compacted, tracked into h_back, then spread to their places (the others are filled in
 * by vf_tracker_track_checked). */
static void vf_tracker_back_cpu(vf_tracker* t, const vf_track_request* requests, int count,
                                int from_guess) {
  const vf_track_result* fw = t->h_results;
  int m = 0;
  for (int i = 0; i < count; ++i) {
    if (fw[i].status == VF_TRACK_CONVERGED)
      t->back_requests[m++] = vf_lk_back_request(&requests[i], &fw[i], from_guess);
  }
  const vf_lk_params bp = vf_tracker_back_params(t);
  vf_lk_cpu_track(&bp, t->back_requests, t->h_back, m, t->ctx->pool);
  /* From the end: the j-th converged result belongs at or after j. */
  for (int i = count - 1; i >= 0 && m > 0; --i) {
    if (fw[i].status == VF_TRACK_CONVERGED) t->h_back[i] = t->h_back[--m];
  }
}

/* vf_tracker_submit, and with back >= 0 the backward pass too (from_guess = back) into h_back,
 * where each result that converged gets its backward result. */
static vf_status vf_tracker_submit_any(vf_tracker* t, const vf_pyramid* prev, const vf_pyramid* cur,
                                       const vf_track_request* requests, int count, int back,
                                       const char* fn) {
  const uint8_t* levels = t->next_levels; /* this submission's alone */
  t->next_levels = NULL;
  vf_status s = vf_tracker_check_call(t, prev, cur, requests, count, fn);
  if (s != VF_OK) return s;
  if (count > 0) {
#ifdef VF_HAVE_CUDA
    if (t->ctx->backend == VF_BACKEND_CUDA)
      s = vf_tracker_submit_cuda(t, requests, count, levels, back, fn);
#endif
    if (t->ctx->backend == VF_BACKEND_CPU) {
      t->params.start_levels = levels;
      if (t->refine.enabled) {
        vf_affine_cpu_track(&t->params, &t->refine, requests, t->h_results, count, t->ctx->pool);
      } else {
        vf_lk_cpu_track(&t->params, requests, t->h_results, count, t->ctx->pool);
      }
      if (back >= 0) vf_tracker_back_cpu(t, requests, count, back);
    }
  }
  t->params.start_levels = NULL;
  if (s == VF_OK) t->submitted = count;
  return s;
}

void vf_tracker_set_start_levels(vf_tracker* t, const uint8_t* levels) {
  if (t != NULL) t->next_levels = levels;
}

vf_status vf_tracker_submit(vf_tracker* t, const vf_pyramid* prev, const vf_pyramid* cur,
                            const vf_track_request* requests, int count) {
  const char* fn = "vf_tracker_submit";
  if (t == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: tracker is NULL", fn);
  return vf_tracker_submit_any(t, prev, cur, requests, count, -1, fn);
}

vf_status vf_tracker_request_buffer(vf_tracker* t, vf_track_request** out) {
  const char* fn = "vf_tracker_request_buffer";
  if (t == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: tracker is NULL", fn);
  if (out == NULL) return vf_fail(&t->err, VF_ERR_INVALID_ARG, "%s: out is NULL", fn);
  *out = NULL;
#ifdef VF_HAVE_CUDA
  if (t->ctx->backend == VF_BACKEND_CUDA && vf_tracker_staging_busy(t)) {
    int rc = vf_cuda_event_synchronize(t->staging_free);
    if (rc != 0) return vf_cuda_fail(&t->err, rc, fn);
    t->staging_checked = t->uploads;
  }
#endif
  *out = t->h_requests;
  return VF_OK;
}

/* The wait of both collects: the latest submission finished (its results in h_results). With
 * work queued behind the tracking (vf_tracker_note_work_behind) the wait is for the submission's
 * own event, so that the work goes on meanwhile; else for the stream (in the dense frame the
 * event's wait measured slower: docs/perf/sparse_stereo.md). */
static vf_status vf_tracker_wait(vf_tracker* t, const char* fn) {
  if (t->submitted < 0) {
    return vf_fail(&t->err, VF_ERR_STATE, "%s: nothing submitted (or the submission failed)", fn);
  }
#ifdef VF_HAVE_CUDA
  if (t->ctx->backend == VF_BACKEND_CUDA && t->submitted > 0) {
    const int behind = t->work_behind;
    int rc = behind ? vf_cuda_event_synchronize(t->staging_free)
                    : vf_cuda_stream_synchronize(t->ctx->stream);
    if (rc != 0) return vf_cuda_fail(&t->err, rc, fn);
    t->work_behind = 0;
    if (behind) {
      t->staging_checked = t->uploads;
    } else {
      vf_context_note_drained(t->ctx);
    }
  }
#endif
  return VF_OK;
}

void vf_tracker_note_work_behind(vf_tracker* t) { t->work_behind = 1; }

vf_status vf_tracker_collect(vf_tracker* t, vf_track_result* results) {
  const char* fn = "vf_tracker_collect";
  if (t == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: tracker is NULL", fn);
  if (t->submitted > 0 && results == NULL) {
    return vf_fail(&t->err, VF_ERR_INVALID_ARG, "%s: results is NULL", fn);
  }
  vf_status s = vf_tracker_wait(t, fn);
  if (s == VF_OK && t->submitted > 0)
    memcpy(results, t->h_results, (size_t)t->submitted * sizeof *results);
  return s;
}

vf_status vf_tracker_collect_in_place(vf_tracker* t, const vf_track_result** results, int* count) {
  const char* fn = "vf_tracker_collect_in_place";
  if (t == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: tracker is NULL", fn);
  if (results == NULL || count == NULL) {
    return vf_fail(&t->err, VF_ERR_INVALID_ARG, "%s: %s is NULL", fn,
                   results == NULL ? "results" : "count");
  }
  *results = NULL;
  *count = 0;
  vf_status s = vf_tracker_wait(t, fn);
  if (s != VF_OK) return s;
  *results = t->h_results;
  *count = t->submitted;
  return VF_OK;
}

vf_status vf_tracker_track(vf_tracker* t, const vf_pyramid* prev, const vf_pyramid* cur,
                           const vf_track_request* requests, int count, vf_track_result* results) {
  if (t == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_tracker_track: tracker is NULL");
  if (count > 0 && results == NULL) {
    return vf_fail(&t->err, VF_ERR_INVALID_ARG, "vf_tracker_track: results is NULL");
  }
  vf_status s = vf_tracker_submit(t, prev, cur, requests, count);
  if (s == VF_OK) s = vf_tracker_collect(t, results);
  return s;
}

/* The checked tracking's output arrays (t not NULL). */
static vf_status vf_tracker_check_outputs(vf_tracker* t, int count, const vf_track_result* results,
                                          const vf_track_result* back, const char* fn) {
  if (count > 0 && (results == NULL || back == NULL)) {
    return vf_fail(&t->err, VF_ERR_INVALID_ARG, "%s: %s is NULL", fn,
                   results == NULL ? "results" : "back");
  }
  return VF_OK;
}

vf_status vf_tracker_submit_checked(vf_tracker* t, const vf_pyramid* prev, const vf_pyramid* cur,
                                    const vf_track_request* requests, int count, int from_guess) {
  const char* fn = "vf_tracker_track_checked";
  if (t == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: tracker is NULL", fn);
  return vf_tracker_submit_any(t, prev, cur, requests, count, from_guess != 0, fn);
}

const vf_track_result* vf_tracker_kernel_results(const vf_tracker* t) {
#ifdef VF_HAVE_CUDA
  if (t->ctx->backend == VF_BACKEND_CUDA) return t->m_results;
#endif
  return t->h_results;
}

vf_status vf_tracker_collect_checked(vf_tracker* t, const vf_track_request* requests, int count,
                                     int from_guess, vf_track_result* results,
                                     vf_track_result* back) {
  const char* fn = "vf_tracker_track_checked";
  if (t == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: tracker is NULL", fn);
  vf_status s = vf_tracker_check_outputs(t, count, results, back, fn);
  if (s != VF_OK) return s;
  if (t->submitted >= 0 && count != t->submitted) {
    return vf_fail(&t->err, VF_ERR_INVALID_ARG, "%s: count %d, but %d were submitted", fn, count,
                   t->submitted);
  }
  s = vf_tracker_collect(t, results);
  if (s != VF_OK || count <= 0) return s;
  memcpy(back, t->h_back, (size_t)count * sizeof *back);
  /* Only converged results have a backward check: on CUDA the kernel checks every
   * frame-to-frame step, before the refinement's verdict; the others echo their request. */
  for (int i = 0; i < count; ++i) {
    if (results[i].status == VF_TRACK_CONVERGED) continue;
    const vf_track_request e = vf_lk_back_request(&requests[i], &results[i], from_guess);
    back[i] = vf_lk_result_init(&e);
  }
  return VF_OK;
}

vf_status vf_tracker_track_checked(vf_tracker* t, const vf_pyramid* prev, const vf_pyramid* cur,
                                   const vf_track_request* requests, int count, int from_guess,
                                   vf_track_result* results, vf_track_result* back) {
  const char* fn = "vf_tracker_track_checked";
  if (t == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: tracker is NULL", fn);
  /* Refused before anything is queued. */
  vf_status s = vf_tracker_check_outputs(t, count, results, back, fn);
  if (s != VF_OK) {
    t->submitted = -1;
    return s;
  }
  s = vf_tracker_submit_checked(t, prev, cur, requests, count, from_guess);
  return s == VF_OK ? vf_tracker_collect_checked(t, requests, count, from_guess, results, back) : s;
}

vf_track_request vf_track_request_make(float x, float y, int slot) {
  vf_track_request r = {x, y, x, y, 1.0f, 0.0f, slot, 1};
  return r;
}

vf_status vf_tracker_set_rotation(vf_tracker* t, const double K[4], const double R[9]) {
  const char* fn = "vf_tracker_set_rotation";
  if (t == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: tracker is NULL", fn);
  if (R == NULL) {
    t->refine.has_rotation = 0;
    return VF_OK;
  }
  if (K == NULL) return vf_fail(&t->err, VF_ERR_INVALID_ARG, "%s: K is NULL", fn);
  int finite =
      K[0] > 0 && K[1] > 0 && isfinite(K[0]) && isfinite(K[1]) && isfinite(K[2]) && isfinite(K[3]);
  for (int i = 0; i < 9; ++i) finite &= isfinite(R[i]) != 0;
  if (!finite) {
    return vf_fail(&t->err, VF_ERR_INVALID_ARG,
                   "%s: K must hold finite fx > 0, fy > 0, cx, cy and R finite values", fn);
  }
  /* H = K R^T K^-1: a previous-image pixel to the current image under a pure rotation. */
  const double Ki[9] = {1 / K[0], 0, -K[2] / K[0], 0, 1 / K[1], -K[3] / K[1], 0, 0, 1};
  const double Km[9] = {K[0], 0, K[2], 0, K[1], K[3], 0, 0, 1};
  double rt_ki[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      rt_ki[3 * i + j] = R[i] * Ki[j] + R[3 + i] * Ki[3 + j] + R[6 + i] * Ki[6 + j];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      t->refine.rotation[3 * i + j] = (float)(Km[3 * i] * rt_ki[j] + Km[3 * i + 1] * rt_ki[3 + j] +
                                              Km[3 * i + 2] * rt_ki[6 + j]);
  t->refine.has_rotation = 1;
  return VF_OK;
}

const char* vf_track_status_str(vf_track_status status) {
  switch (status) {
    case VF_TRACK_CONVERGED: return "converged";
    case VF_TRACK_OUT_OF_IMAGE: return "out of image";
    case VF_TRACK_DIVERGED: return "diverged";
    case VF_TRACK_RESIDUAL_TOO_LARGE: return "residual too large";
    case VF_TRACK_INVALID: return "invalid input";
    case VF_TRACK_INCONSISTENT: return "unlike its reference";
  }
  return "unknown";
}

const char* vf_tracker_last_error(const vf_tracker* t) {
  return t != NULL ? t->err.message : "vf_tracker_last_error: tracker is NULL";
}

// SPDX-License-Identifier: BSD-3-Clause
/* Point reads of a 16-bit image: validation and dispatch to the CPU or CUDA backend. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_context_internal.h"
#include "core/vf_fault.h"
#include "features/kernels/vf_disparity_rules.h"
#include "features/kernels/vf_sample_cpu.h"
#include "features/kernels/vf_stereo_match_cpu.h"
#include "features/kernels/vf_stereo_match_rules.h"
#include "features/vf_sampler_internal.h"
#include "viofront/vf_sampler.h"
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#include "features/kernels/vf_sample_cuda.h"
#include "features/kernels/vf_stereo_match_cuda.h"
#endif

#define VF_SAMPLER_MAX_POINTS (1 << 20)

struct vf_sampler {
  vf_error err;
  vf_context* ctx;
  int max_points;
  /* CUDA: the points and the probes in pinned host memory mapped into the device: a call copies
   * the points in and the probes out with memcpy, and no copy is queued on the stream (pageable
   * copies each cost a round trip that the frame's records wait for). */
  float* h_xy;
  float* m_xy; /* h_xy's device address */
  vf_disparity_probe* h_probes;
  vf_disparity_probe* m_probes; /* h_probes' device address */
  float* h_matched;             /* the matched disparities of a probe-and-match call, mapped */
  float* m_matched;             /* h_matched's device address */
  vf_stereo_match* h_match;     /* the sparse stereo matches, mapped */
  vf_stereo_match* m_match;     /* h_match's device address */
  int match_pending;            /* a sparse match is submitted, not yet collected */
  vf_stereo_match* match_out;   /* its destination */
  int match_count;              /* and its points (0: nothing left to copy) */
  uint16_t* dev_values;         /* CUDA: the values read */
  float* dev_disparities;       /* CUDA: the refinement's starts, then its results */
};

vf_status vf_sampler_create(vf_context* ctx, int max_points, vf_sampler** out) {
  VF_CHECK_ARG_NOT_NULL(NULL, out);
  *out = NULL;
  VF_CHECK_ARG_NOT_NULL(NULL, ctx);
  if (max_points < 1 || max_points > VF_SAMPLER_MAX_POINTS) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_sampler_create: max_points %d is outside 1..%d",
                   max_points, VF_SAMPLER_MAX_POINTS);
  }
  vf_sampler* s = vf_calloc(1, sizeof *s);
  if (s == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_sampler_create: out of memory");
  s->ctx = ctx;
  s->max_points = max_points;
  if (ctx->backend == VF_BACKEND_CUDA) {
    vf_status st = vf_device_alloc(NULL, (void**)&s->dev_values,
                                   sizeof(uint16_t) * (size_t)max_points, "vf_sampler_create");
#ifdef VF_HAVE_CUDA
    if (st == VF_OK) {
      int rc = vf_cuda_host_alloc_mapped((void**)&s->h_xy, (void**)&s->m_xy,
                                         sizeof(float) * 2 * (size_t)max_points);
      if (rc == 0) {
        rc = vf_cuda_host_alloc_mapped((void**)&s->h_probes, (void**)&s->m_probes,
                                       sizeof(vf_disparity_probe) * (size_t)max_points);
      }
      if (rc == 0) {
        rc = vf_cuda_host_alloc_mapped((void**)&s->h_matched, (void**)&s->m_matched,
                                       sizeof(float) * (size_t)max_points);
      }
      if (rc == 0) {
        rc = vf_cuda_host_alloc_mapped((void**)&s->h_match, (void**)&s->m_match,
                                       sizeof(vf_stereo_match) * (size_t)max_points);
      }
      if (rc != 0) st = vf_cuda_fail(NULL, rc, "vf_sampler_create: pinned points and probes");
    }
#endif
    if (st == VF_OK) {
      st = vf_device_alloc(NULL, (void**)&s->dev_disparities,
                           sizeof(float) * 2 * (size_t)max_points, "vf_sampler_create");
    }
    if (st != VF_OK) {
      vf_sampler_destroy(s);
      return st;
    }
  }
  *out = s;
  return VF_OK;
}

void vf_sampler_destroy(vf_sampler* s) {
  if (s == NULL) return;
#ifdef VF_HAVE_CUDA
  if (s->h_xy != NULL) vf_cuda_host_free(s->h_xy);
  if (s->h_probes != NULL) vf_cuda_host_free(s->h_probes);
  if (s->h_matched != NULL) vf_cuda_host_free(s->h_matched);
  if (s->h_match != NULL) vf_cuda_host_free(s->h_match);
#endif
  vf_device_free(s->dev_values);
  vf_device_free(s->dev_disparities);
  free(s);
}

#ifdef VF_HAVE_CUDA
static vf_status vf_sampler_gather_cuda(vf_sampler* s, const vf_image* image, const float* xy,
                                        int count, uint16_t outside, uint16_t* values) {
  void* stream = s->ctx->stream;
  memcpy(s->h_xy, xy, sizeof(float) * 2 * (size_t)count);
  int rc = vf_cuda_gather_u16(image->data, image->stride_bytes, image->width, image->height,
                              s->m_xy, count, outside, s->dev_values, stream);
  if (rc == 0) {
    rc = vf_cuda_copy_async(values, s->dev_values, sizeof(uint16_t) * (size_t)count, stream);
  }
  if (rc == 0) rc = vf_cuda_stream_synchronize(stream);
  return rc == 0 ? VF_OK : vf_cuda_fail(&s->err, rc, "vf_sampler_gather_u16");
}
#endif

/* The checks both calls share; VF_OK also for count 0 (then there is nothing to do). */
static vf_status vf_sampler_check(vf_sampler* s, const vf_image* image, const float* xy, int count,
                                  const void* out, const char* out_name, const char* fn) {
  vf_status st = vf_image_check(image, fn);
  if (st != VF_OK) return vf_fail_from_thread(&s->err, st);
  if (image->format != VF_PIXEL_U16)
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "%s: image must be U16", fn);
  if (count < 0 || count > s->max_points) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "%s: count %d is outside 0..%d", fn, count,
                   s->max_points);
  }
  if (count > 0 && (xy == NULL || out == NULL)) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "%s: %s is NULL", fn, xy == NULL ? "xy" : out_name);
  }
  if (image->location != VF_MEMORY_HOST && s->ctx->backend != VF_BACKEND_CUDA)
    return vf_fail(&s->err, VF_ERR_UNSUPPORTED, "%s: a device image needs the CUDA backend", fn);
  return VF_OK;
}

vf_status vf_sampler_gather_u16(vf_sampler* s, const vf_image* image, const float* xy, int count,
                                uint16_t outside, uint16_t* values) {
  VF_CHECK_ARG_NOT_NULL(NULL, s);
  vf_status st = vf_sampler_check(s, image, xy, count, values, "values", "vf_sampler_gather_u16");
  if (st != VF_OK || count == 0) return st;
#ifdef VF_HAVE_CUDA
  if (image->location == VF_MEMORY_DEVICE)
    return vf_sampler_gather_cuda(s, image, xy, count, outside, values);
#endif
  vf_cpu_gather_u16(image->data, image->stride_bytes, image->width, image->height, xy, count,
                    outside, values);
  return VF_OK;
}

static vf_status vf_sampler_probe_config_check(vf_sampler* s, const vf_disparity_probe_config* c,
                                               const char* fn) {
  if (c->radius < 0 || c->radius > 15 || c->reach < 0 || c->reach > 4096 ||
      c->fractional_bits < 0 || c->fractional_bits > 8) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG,
                   "%s: radius %d (0..15), reach %d (0..4096) or fractional_bits %d (0..8) is out "
                   "of range",
                   fn, c->radius, c->reach, c->fractional_bits);
  }
  return VF_OK;
}

#ifdef VF_HAVE_CUDA
static vf_status vf_sampler_probe_cuda(vf_sampler* s, const vf_image* image, const float* xy,
                                       int count, const vf_disparity_probe_config* c,
                                       vf_disparity_probe* out) {
  void* stream = s->ctx->stream;
  memcpy(s->h_xy, xy, sizeof(float) * 2 * (size_t)count);
  int rc = vf_cuda_probe_disparity(image->data, image->stride_bytes, image->width, image->height,
                                   s->m_xy, count, c, s->m_probes, stream);
  if (rc == 0) rc = vf_cuda_stream_synchronize(stream);
  if (rc == 0) memcpy(out, s->h_probes, sizeof *out * (size_t)count);
  return rc == 0 ? VF_OK : vf_cuda_fail(&s->err, rc, "vf_sampler_probe_disparity");
}
#endif

vf_status vf_sampler_probe_disparity(vf_sampler* s, const vf_image* image, const float* xy,
                                     int count, const vf_disparity_probe_config* config,
                                     vf_disparity_probe* out) {
  VF_CHECK_ARG_NOT_NULL(NULL, s);
  VF_CHECK_ARG_NOT_NULL(&s->err, config);
  const char* fn = "vf_sampler_probe_disparity";
  vf_status st = vf_sampler_check(s, image, xy, count, out, "out", fn);
  if (st != VF_OK) return st;
  const vf_disparity_probe_config* c = config;
  st = vf_sampler_probe_config_check(s, c, fn);
  if (st != VF_OK || count == 0) return st;
#ifdef VF_HAVE_CUDA
  if (image->location == VF_MEMORY_DEVICE)
    return vf_sampler_probe_cuda(s, image, xy, count, c, out);
#endif
  vf_cpu_probe_disparity(image->data, image->stride_bytes, image->width, image->height, xy, count,
                         c, out);
  return VF_OK;
}

#ifdef VF_HAVE_CUDA
static vf_status vf_sampler_refine_cuda(vf_sampler* s, const vf_image* left, const vf_image* right,
                                        const float* xy, const float* start, int count,
                                        const vf_disparity_refine_config* c, float* out) {
  void* stream = s->ctx->stream;
  float* dev_start = s->dev_disparities;
  float* dev_out = s->dev_disparities + count;
  memcpy(s->h_xy, xy, sizeof(float) * 2 * (size_t)count);
  int rc = vf_cuda_copy_async(dev_start, start, sizeof(float) * (size_t)count, stream);
  if (rc == 0) {
    rc = vf_cuda_refine_disparity(left->data, left->stride_bytes, right->data, right->stride_bytes,
                                  left->width, left->height, s->m_xy, dev_start, count, c, dev_out,
                                  stream);
  }
  if (rc == 0) rc = vf_cuda_copy_async(out, dev_out, sizeof(float) * (size_t)count, stream);
  if (rc == 0) rc = vf_cuda_stream_synchronize(stream);
  return rc == 0 ? VF_OK : vf_cuda_fail(&s->err, rc, "vf_sampler_refine_disparity");
}
#endif

/* A refinement's settings; `prefix` names them in the message ("" or "refine."). */
static vf_status vf_sampler_refine_config_check(vf_error* err, const vf_disparity_refine_config* c,
                                                const char* prefix, const char* fn) {
  if (c->radius < 1 || c->radius > VF_DISPARITY_REFINE_MAX_RADIUS || c->max_iterations < 1 ||
      c->max_iterations > 50 ||
      !(c->max_change > 0.0f && c->max_change <= VF_DISPARITY_REFINE_MAX_CHANGE)) {
    return vf_fail(err, VF_ERR_INVALID_ARG,
                   "%s: %sradius %d (1..%d), %smax_iterations %d (1..50) or %smax_change %g (0..%g "
                   "px) is out of range",
                   fn, prefix, c->radius, VF_DISPARITY_REFINE_MAX_RADIUS, prefix, c->max_iterations,
                   prefix, (double)c->max_change, (double)VF_DISPARITY_REFINE_MAX_CHANGE);
  }
  return VF_OK;
}

/* The images, count, points, output and configuration of a refinement (start is checked by the
 * caller that takes it). */
static vf_status vf_sampler_refine_check(vf_sampler* s, const vf_image* left, const vf_image* right,
                                         const float* xy, int count, const float* out,
                                         const vf_disparity_refine_config* c, const char* fn) {
  vf_status st = vf_image_check(left, fn);
  if (st == VF_OK) st = vf_image_check(right, fn);
  if (st != VF_OK) return vf_fail_from_thread(&s->err, st);
  if (left->format != VF_PIXEL_U8 || right->format != VF_PIXEL_U8 || left->width != right->width ||
      left->height != right->height) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "%s: left and right must be U8 of one size", fn);
  }
  const vf_memory want = s->ctx->backend == VF_BACKEND_CUDA ? VF_MEMORY_DEVICE : VF_MEMORY_HOST;
  if (left->location != want || right->location != want) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "%s: the images must be in %s memory", fn,
                   want == VF_MEMORY_DEVICE ? "device" : "host");
  }
  if (count < 0 || count > s->max_points) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "%s: count %d is outside 0..%d", fn, count,
                   s->max_points);
  }
  if (count > 0 && (xy == NULL || out == NULL)) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "%s: %s is NULL", fn, xy == NULL ? "xy" : "out");
  }
  return vf_sampler_refine_config_check(&s->err, c, "", fn);
}

vf_status vf_sampler_refine_disparity(vf_sampler* s, const vf_image* left, const vf_image* right,
                                      const float* xy, const float* start, int count,
                                      const vf_disparity_refine_config* config, float* out) {
  VF_CHECK_ARG_NOT_NULL(NULL, s);
  VF_CHECK_ARG_NOT_NULL(&s->err, config);
  const char* fn = "vf_sampler_refine_disparity";
  const vf_disparity_refine_config* c = config;
  vf_status st = vf_sampler_refine_check(s, left, right, xy, count, out, c, fn);
  if (st != VF_OK) return st;
  if (count > 0 && start == NULL)
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "%s: start is NULL", fn);
  if (count == 0) return VF_OK;
#ifdef VF_HAVE_CUDA
  if (left->location == VF_MEMORY_DEVICE)
    return vf_sampler_refine_cuda(s, left, right, xy, start, count, c, out);
#endif
  vf_cpu_refine_disparity(left->data, left->stride_bytes, right->data, right->stride_bytes,
                          left->width, left->height, xy, start, count, c, out, s->ctx->pool);
  return VF_OK;
}

#ifdef VF_HAVE_CUDA
/* The probes and the matching in one launch on the device (a warp a point probes, then matches
 * from the probe's value), its results in mapped memory: one wait, no copy. */
static vf_status vf_sampler_probe_refine_cuda(vf_sampler* s, const vf_image* map,
                                              const vf_image* left, const vf_image* right,
                                              const float* xy, int count,
                                              const vf_disparity_probe_config* pc,
                                              const vf_disparity_refine_config* c,
                                              vf_disparity_probe* probes, float* out) {
  void* stream = s->ctx->stream;
  memcpy(s->h_xy, xy, sizeof(float) * 2 * (size_t)count);
  int rc =
      vf_cuda_probe_refine_disparity(map->data, map->stride_bytes, left->data, left->stride_bytes,
                                     right->data, right->stride_bytes, left->width, left->height,
                                     s->m_xy, count, pc, c, s->m_probes, s->m_matched, stream);
  if (rc == 0) rc = vf_cuda_stream_synchronize(stream);
  if (rc == 0) {
    memcpy(probes, s->h_probes, sizeof *probes * (size_t)count);
    memcpy(out, s->h_matched, sizeof *out * (size_t)count);
  }
  return rc == 0 ? VF_OK : vf_cuda_fail(&s->err, rc, "vf_sampler_probe_and_refine_disparity");
}
#endif

vf_status vf_sampler_probe_and_refine_disparity(vf_sampler* s, const vf_image* map,
                                                const vf_image* left, const vf_image* right,
                                                const float* xy, int count,
                                                const vf_disparity_probe_config* probe_config,
                                                const vf_disparity_refine_config* refine_config,
                                                vf_disparity_probe* probes, float* out) {
  VF_CHECK_ARG_NOT_NULL(NULL, s);
  VF_CHECK_ARG_NOT_NULL(&s->err, probe_config);
  VF_CHECK_ARG_NOT_NULL(&s->err, refine_config);
  const char* fn = "vf_sampler_probe_and_refine_disparity";
  vf_status st = vf_sampler_check(s, map, xy, count, probes, "probes", fn);
  if (st == VF_OK) st = vf_sampler_probe_config_check(s, probe_config, fn);
  if (st == VF_OK) st = vf_sampler_refine_check(s, left, right, xy, count, out, refine_config, fn);
  if (st != VF_OK) return st;
  if (map->width != left->width || map->height != left->height) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "%s: the map is %dx%d, the images %dx%d", fn,
                   map->width, map->height, left->width, left->height);
  }
  if (count == 0) return VF_OK;
#ifdef VF_HAVE_CUDA
  if (map->location == VF_MEMORY_DEVICE && left->location == VF_MEMORY_DEVICE) {
    return vf_sampler_probe_refine_cuda(s, map, left, right, xy, count, probe_config, refine_config,
                                        probes, out);
  }
#endif
  st = vf_sampler_probe_disparity(s, map, xy, count, probe_config, probes);
  if (st != VF_OK) return st;
  /* The starts go to out, which the matching then overwrites point by point. */
  const float units = (float)(1 << probe_config->fractional_bits);
  for (int i = 0; i < count; ++i)
    out[i] = vf_disparity_from_map(probes[i].value, probe_config->invalid, units);
  return vf_sampler_refine_disparity(s, left, right, xy, out, count, refine_config, out);
}

vf_stereo_match_config vf_stereo_match_config_default(void) {
  vf_stereo_match_config c;
  memset(&c, 0, sizeof c);
  c.min_disparity = 0;
  c.max_disparity = 63;
  /* A track's disparity changes by a fraction of a pixel a frame at 20 Hz except close up;
   * farther moves fall back to the whole range (a minimum at the window's end). */
  c.prior_range = 3;
  c.search_radius = 7;
  c.uniqueness = 10;
  c.max_lr_diff = 1;
  c.min_zncc = 0.7f;
  c.step_radius = 4;
  c.refine.radius = 7;
  c.refine.max_iterations = 6;
  c.refine.max_change = 1.0f;
  return c;
}

static vf_status vf_sampler_match_config_check(vf_error* err, const vf_stereo_match_config* c,
                                               const char* fn) {
  if (c->min_disparity < 0 || c->max_disparity <= c->min_disparity ||
      c->max_disparity > VF_STEREO_MATCH_MAX_DISPARITY) {
    return vf_fail(err, VF_ERR_INVALID_ARG,
                   "%s: disparities %d..%d are outside 0 <= min < max <= %d", fn, c->min_disparity,
                   c->max_disparity, VF_STEREO_MATCH_MAX_DISPARITY);
  }
  if (c->prior_range < 1 || c->prior_range > VF_STEREO_MATCH_MAX_PRIOR || c->search_radius < 1 ||
      c->search_radius > VF_STEREO_MATCH_MAX_RADIUS || c->uniqueness < 0 || c->uniqueness > 99 ||
      c->max_lr_diff < -1 || c->max_lr_diff > 8 || c->step_radius < 0 ||
      (c->step_radius > 0 && c->step_radius < 3) || c->step_radius > VF_STEREO_MATCH_MAX_STEP ||
      !(c->min_zncc >= -1.0f) || !(c->min_zncc <= 1.0f)) {
    return vf_fail(
        err, VF_ERR_INVALID_ARG,
        "%s: prior_range %d (1..%d), search_radius %d (1..%d), uniqueness %d (0..99), "
        "max_lr_diff %d (-1..8), step_radius %d (0 or 3..%d) or min_zncc %g (-1..1) is out "
        "of range",
        fn, c->prior_range, VF_STEREO_MATCH_MAX_PRIOR, c->search_radius, VF_STEREO_MATCH_MAX_RADIUS,
        c->uniqueness, c->max_lr_diff, c->step_radius, VF_STEREO_MATCH_MAX_STEP,
        (double)c->min_zncc);
  }
  return VF_OK;
}

vf_status vf_stereo_match_config_check(const vf_stereo_match_config* config) {
  VF_CHECK_ARG_NOT_NULL(NULL, config);
  const char* fn = "vf_stereo_match_config_check";
  vf_status s = vf_sampler_match_config_check(NULL, config, fn);
  if (s != VF_OK) return s;
  return vf_sampler_refine_config_check(NULL, &config->refine, "refine.", fn);
}

#ifdef VF_HAVE_CUDA
/* Points, priors and matches in mapped memory: one launch, one wait, no copy. */
static vf_status vf_sampler_match_cuda(vf_sampler* s, const vf_image* left, const vf_image* right,
                                       const float* xy, const float* prior, int count,
                                       const vf_stereo_match_config* c) {
  memcpy(s->h_xy, xy, sizeof(float) * 2 * (size_t)count);
  if (prior != NULL) memcpy(s->h_matched, prior, sizeof(float) * (size_t)count);
  int rc = vf_cuda_match_stereo(
      left->data, left->stride_bytes, right->data, right->stride_bytes, left->width, left->height,
      s->m_xy, prior != NULL ? s->m_matched : NULL, count, c, s->m_match, s->ctx->stream);
  return rc == 0 ? VF_OK : vf_cuda_fail(&s->err, rc, "vf_sampler_match_stereo");
}
#endif

/* A match's checks, then it is pending with its destination (points: the caller's, for the
 * NULL check). */
static vf_status vf_sampler_match_begin(vf_sampler* s, const vf_image* left, const vf_image* right,
                                        const void* points, int count,
                                        const vf_stereo_match_config* config, vf_stereo_match* out,
                                        const char* fn) {
  if (s == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: s is NULL", fn);
  s->match_pending = 0;
  if (config == NULL) return vf_fail(&s->err, VF_ERR_INVALID_ARG, "%s: config is NULL", fn);
  vf_status st = vf_sampler_match_config_check(&s->err, config, fn);
  if (st == VF_OK)
    st = vf_sampler_refine_check(s, left, right, (const float*)points, count, (const float*)out,
                                 &config->refine, fn);
  if (st != VF_OK) return st;
  s->match_out = out;
  s->match_count = 0;
  s->match_pending = 1;
  return VF_OK;
}

vf_status vf_sampler_match_stereo_submit(vf_sampler* s, const vf_image* left, const vf_image* right,
                                         const float* xy, const float* prior, int count,
                                         const vf_stereo_match_config* config,
                                         vf_stereo_match* out) {
  vf_status st =
      vf_sampler_match_begin(s, left, right, xy, count, config, out, "vf_sampler_match_stereo");
  if (st != VF_OK || count == 0) return st;
#ifdef VF_HAVE_CUDA
  if (left->location == VF_MEMORY_DEVICE) {
    st = vf_sampler_match_cuda(s, left, right, xy, prior, count, config);
    s->match_count = count;
    s->match_pending = st == VF_OK;
    return st;
  }
#endif
  vf_cpu_match_stereo(left->data, left->stride_bytes, right->data, right->stride_bytes, left->width,
                      left->height, xy, prior, count, config, out, s->ctx->pool);
  return VF_OK; /* written: nothing left for the collect */
}

vf_status vf_sampler_match_tracked_submit(vf_sampler* s, const vf_image* left,
                                          const vf_image* right, const vf_track_result* tracked,
                                          const float* prior, int count,
                                          const vf_stereo_match_config* config,
                                          vf_stereo_match* out) {
  const char* fn = "vf_sampler_match_tracked";
  vf_status st = vf_sampler_match_begin(s, left, right, tracked, count, config, out, fn);
  if (st != VF_OK) return st;
  /* Only the CUDA frame queues the match behind its tracking; the CPU frame matches the tracked
   * positions once it has them (vf_sampler_match_stereo_submit). */
  if (left->location != VF_MEMORY_DEVICE) {
    s->match_pending = 0;
    return vf_fail(&s->err, VF_ERR_UNSUPPORTED, "%s: needs device images (CUDA backend)", fn);
  }
  if (count == 0) return VF_OK;
#ifdef VF_HAVE_CUDA
  if (prior != NULL) memcpy(s->h_matched, prior, sizeof(float) * (size_t)count);
  int rc = vf_cuda_match_stereo_tracked(
      left->data, left->stride_bytes, right->data, right->stride_bytes, left->width, left->height,
      tracked, prior != NULL ? s->m_matched : NULL, count, config, s->m_match, s->ctx->stream);
  if (rc != 0) {
    s->match_pending = 0;
    return vf_cuda_fail(&s->err, rc, fn);
  }
  s->match_count = count;
  return VF_OK;
#else
  (void)prior;
  s->match_pending = 0;
  return vf_fail(&s->err, VF_ERR_UNSUPPORTED, "%s: built without CUDA", fn);
#endif
}

vf_status vf_sampler_match_stereo_collect(vf_sampler* s) {
  VF_CHECK_ARG_NOT_NULL(NULL, s);
  if (!s->match_pending)
    return vf_fail(&s->err, VF_ERR_STATE, "vf_sampler_match_stereo_collect: nothing submitted");
  const int count = s->match_count;
  vf_stereo_match* out = s->match_out;
  s->match_pending = 0;
  if (count == 0) return VF_OK; /* nothing, or the CPU's match written at the submit */
#ifdef VF_HAVE_CUDA
  int rc = vf_cuda_stream_synchronize(s->ctx->stream);
  if (rc != 0) return vf_cuda_fail(&s->err, rc, "vf_sampler_match_stereo");
  memcpy(out, s->h_match, sizeof *out * (size_t)count);
#else
  (void)out;
#endif
  return VF_OK;
}

vf_status vf_sampler_match_stereo(vf_sampler* s, const vf_image* left, const vf_image* right,
                                  const float* xy, const float* prior, int count,
                                  const vf_stereo_match_config* config, vf_stereo_match* out) {
  vf_status st = vf_sampler_match_stereo_submit(s, left, right, xy, prior, count, config, out);
  return st == VF_OK ? vf_sampler_match_stereo_collect(s) : st;
}

const char* vf_sampler_last_error(const vf_sampler* s) {
  return s != NULL ? s->err.message : "vf_sampler_last_error: sampler is NULL";
}

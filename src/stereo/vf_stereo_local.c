// SPDX-License-Identifier: BSD-3-Clause
/* Local stereo methods: buffers allocated once at create time and the CPU path; the
 * configuration is checked in vf_stereo_local_config.c, the memory comes from
 * vf_stereo_local_buffers.c, the CUDA path is in vf_stereo_local_cuda.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_context_internal.h"
#include "core/vf_fault.h"
#include "stereo/kernels/vf_local_cpu.h"
#include "stereo/kernels/vf_sgm_cpu.h"
#include "stereo/vf_stereo_local.h"
#include "stereo/vf_stereo_local_internal.h"

#define VF_LOCAL_FAIL(...) vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stereo_local_create: " __VA_ARGS__)

/* Q15 weights W = K exp(-t / sigma_r), K = exp(-1 / sigma_s), for every step t = |dI|: one table,
 * made once on the host, used as-is by both backends so that they agree bit for bit. */
static void vf_fastdt_weights(const vf_fastdt_config* f, uint16_t table[256]) {
  for (int t = 0; t < 256; ++t) {
    double w = exp(-1.0 / f->sigma_s - t / (double)f->sigma_r);
    table[t] = (uint16_t)floor(w * (1 << VF_DT_WEIGHT_LOG2) + 0.5);
  }
}

static vf_status vf_local_allocate(vf_stereo_local* s) {
  const vf_stereo_local_config* c = &s->config;
  const size_t px = (size_t)c->width * c->height;
  const size_t sat = (size_t)(c->width + 1) * (c->height + 1);
  vf_status st = VF_OK;
  if (c->method != VF_STEREO_LOCAL_CYCLOPS2) {
    s->cost_bytes = c->fastdt.pack8 ? 1 : 2;
    st = vf_local_buffer(s, &s->volume, px * c->disparities * s->cost_bytes, "cost volume");
  }
  if (st == VF_OK && c->method == VF_STEREO_LOCAL_ZNCC) {
    st = vf_local_buffer(s, (void**)&s->sums, 2 * px * sizeof(uint16_t), "sums");
    if (st == VF_OK) st = vf_local_buffer(s, (void**)&s->vars, 2 * px * sizeof(uint32_t), "sums");
    /* The CPU builds one image's tables at a time, CUDA both at once. */
    size_t tables = s->on_device ? 4 : 2;
    if (st == VF_OK && s->integral) {
      st = vf_local_buffer(s, (void**)&s->sat, tables * sat * sizeof(uint32_t), "integral images");
    }
  }
  if (st == VF_OK && c->method == VF_STEREO_LOCAL_CENSUS) {
    st = vf_local_buffer(s, &s->census, 2 * px * sizeof(uint64_t), "census words");
  }
  if (st == VF_OK && !s->on_device && c->method != VF_STEREO_LOCAL_CYCLOPS2) {
    size_t zncc_words = (size_t)s->ctx->cpu_threads * c->disparities * c->width;
    size_t dt_words = (size_t)c->disparities * c->width;
    size_t words =
        c->method == VF_STEREO_LOCAL_ZNCC && zncc_words > dt_words ? zncc_words : dt_words;
    st = vf_local_buffer(s, (void**)&s->scratch, words * sizeof(uint32_t), "scratch");
  }
  if (st == VF_OK && c->median) {
    st = vf_local_buffer(s, (void**)&s->raw, px * sizeof(uint16_t), "disparity before the median");
  }
#ifdef VF_HAVE_CUDA
  if (st == VF_OK && s->on_device) st = vf_local_cuda_allocate(s);
#endif
  return st;
}

vf_status vf_stereo_local_create(vf_context* ctx, const vf_stereo_local_config* config,
                                 vf_stereo_local** out) {
  if (out == NULL) return VF_LOCAL_FAIL("out is NULL");
  *out = NULL;
  if (ctx == NULL) return VF_LOCAL_FAIL("ctx is NULL");
  if (config == NULL) return VF_LOCAL_FAIL("config is NULL");
  vf_status st = vf_stereo_local_validate(config, "vf_stereo_local_create");
  if (st != VF_OK) return st;
  vf_stereo_local* s = vf_calloc(1, sizeof *s);
  if (s == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_stereo_local_create: out of memory");
  s->ctx = ctx;
  s->config = *config;
  s->on_device = ctx->backend == VF_BACKEND_CUDA;
  s->radius = config->zncc.window / 2;
  /* Up to 7x7 the 49 additions per pixel beat four table reads plus building the tables. */
  s->integral = config->zncc.sums == VF_ZNCC_SUMS_INTEGRAL ||
                (config->zncc.sums == VF_ZNCC_SUMS_AUTO && config->zncc.window > 7);
  vf_fastdt_weights(&config->fastdt, s->weights);
  st = vf_local_allocate(s);
  if (st != VF_OK) {
    vf_stereo_local_destroy(s);
    return st;
  }
  *out = s;
  return VF_OK;
}

void vf_stereo_local_destroy(vf_stereo_local* s) {
  if (s == NULL) return;
#ifdef VF_HAVE_CUDA
  if (s->on_device) vf_local_cuda_release(s);
#endif
  vf_local_release(s, s->volume);
  vf_local_release(s, s->sums);
  vf_local_release(s, s->vars);
  vf_local_release(s, s->sat);
  vf_local_release(s, s->census);
  vf_local_release(s, s->scratch);
  vf_local_release(s, s->raw);
  free(s);
}

static vf_status vf_check_view(vf_stereo_local* s, const vf_image* img, vf_pixel_format format,
                               const char* what) {
  vf_status st = vf_image_check(img, what);
  if (st != VF_OK) return vf_fail_from_thread(&s->err, st);
  if (img->format != format) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "vf_stereo_local_compute: %s must be %s", what,
                   format == VF_PIXEL_U8 ? "8-bit grey" : "VF_PIXEL_U16");
  }
  if (img->width != s->config.width || img->height != s->config.height) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG,
                   "vf_stereo_local_compute: %s is %dx%d, the stereo was created for %dx%d", what,
                   img->width, img->height, s->config.width, s->config.height);
  }
  if (!s->on_device && img->location != VF_MEMORY_HOST) {
    return vf_fail(&s->err, VF_ERR_UNSUPPORTED,
                   "vf_stereo_local_compute: the CPU backend takes host images only (%s)", what);
  }
  return VF_OK;
}

/* The disparity map before the median: the matching cost, then FastDT or winner-takes-all. */
static void vf_disparity_cpu(vf_stereo_local* s, const vf_local_pair* p, uint16_t* disp,
                             size_t disp_stride) {
  const vf_stereo_local_config* c = &s->config;
  vf_pool* pool = s->ctx->pool;
  const int w = c->width, h = c->height;
  const size_t px = (size_t)w * h;
  if (c->method == VF_STEREO_LOCAL_CYCLOPS2) {
    vf_local_cyclops params;
    vf_local_cyclops_params(c, &params);
    vf_cpu_cyclops(p, &params, disp, disp_stride, pool);
    return;
  }
  if (c->method == VF_STEREO_LOCAL_ZNCC) {
    vf_cpu_zncc_window_sums(p->left, p->left_stride, w, h, s->radius, s->integral, s->sat, s->sums,
                            s->vars, pool);
    vf_cpu_zncc_window_sums(p->right, p->right_stride, w, h, s->radius, s->integral, s->sat,
                            s->sums + px, s->vars + px, pool);
    vf_cpu_zncc_costs(p, s->radius, s->sums, s->vars, s->sums + px, s->vars + px, s->volume,
                      c->fastdt.pack8, s->scratch, pool);
  } else {
    uint8_t* census = (uint8_t*)s->census;
    vf_cpu_census(p->left, p->left_stride, w, h, c->census_full, census, pool);
    vf_cpu_census(p->right, p->right_stride, w, h, c->census_full,
                  census + px * VF_CPU_CENSUS_BYTES, pool);
    vf_cpu_census_costs(p, census, census + px * VF_CPU_CENSUS_BYTES,
                        c->census_full ? VF_CENSUS_FULL_BITS : VF_CENSUS_CS_BITS, s->volume,
                        c->fastdt.pack8, pool);
  }
  if (c->fastdt.enabled) {
    vf_cpu_fastdt(p, s->weights, s->volume, c->fastdt.pack8, s->scratch, disp, disp_stride, pool);
  } else {
    vf_cpu_wta(p, s->volume, c->fastdt.pack8, disp, disp_stride, pool);
  }
}

static void vf_compute_cpu(vf_stereo_local* s, const vf_local_pair* p, uint16_t* disp,
                           size_t disp_stride) {
  if (!s->config.median) {
    vf_disparity_cpu(s, p, disp, disp_stride);
    return;
  }
  const int w = s->config.width;
  vf_disparity_cpu(s, p, s->raw, (size_t)w * sizeof(uint16_t));
  vf_cpu_median3(s->raw, w, s->config.height, disp, disp_stride, s->ctx->pool);
}

vf_status vf_stereo_local_compute(vf_stereo_local* s, const vf_image* left, const vf_image* right,
                                  vf_image* disparity) {
  if (s == NULL)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stereo_local_compute: stereo is NULL");
  vf_status st = vf_check_view(s, left, VF_PIXEL_U8, "left");
  if (st == VF_OK) st = vf_check_view(s, right, VF_PIXEL_U8, "right");
  if (st == VF_OK) st = vf_check_view(s, disparity, VF_PIXEL_U16, "disparity");
  if (st != VF_OK) return st;
#ifdef VF_HAVE_CUDA
  if (s->on_device) return vf_local_cuda_compute(s, left, right, disparity);
#endif
  vf_local_pair p = {left->data,      left->stride_bytes, right->data,          right->stride_bytes,
                     s->config.width, s->config.height,   s->config.disparities};
  vf_compute_cpu(s, &p, disparity->data, disparity->stride_bytes);
  return VF_OK;
}

vf_status vf_stereo_local_cost_volume(const vf_stereo_local* s, const void** data,
                                      size_t* bytes_per_cost) {
  if (s == NULL || data == NULL || bytes_per_cost == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stereo_local_cost_volume: an argument is NULL");
  }
  if (s->volume == NULL) {
    return vf_fail(NULL, VF_ERR_UNSUPPORTED,
                   "vf_stereo_local_cost_volume: Cyclops2 keeps no cost volume");
  }
  *data = s->volume;
  *bytes_per_cost = s->cost_bytes;
  return VF_OK;
}

const char* vf_stereo_local_last_error(const vf_stereo_local* s) {
  return s != NULL ? s->err.message : "vf_stereo_local_last_error: stereo is NULL";
}

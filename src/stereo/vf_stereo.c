// SPDX-License-Identifier: BSD-3-Clause
/* vf_stereo: argument checks, buffers allocated at create time, dispatch to the CPU reference
 * (src/stereo/cpu/vf_*_cpu.c) or the CUDA pipeline (cuda/stereo/vf_sgm_*.cu); hierarchical SGM,
 * ZNCC + SGM and SGM with 16 paths on the CPU run through the vf_hsgm stage (src/stereo/vf_hsgm.h),
 * the other methods through the vf_stereo_local stage (src/stereo/vf_stereo_local.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_context_internal.h"
#include "core/vf_fault.h"
#include "stereo/kernels/vf_sgm_cpu.h"
#include "stereo/vf_hsgm.h"
#include "stereo/vf_stereo_internal.h"
#include "stereo/vf_stereo_local.h"
#ifdef VF_HAVE_CUDA
#include "core/vf_cuda_runtime.h"
#include "stereo/kernels/vf_local_cuda.h"
#include "stereo/kernels/vf_sgm_cuda.h"
#endif

struct vf_stereo {
  vf_error err;
  vf_context* ctx;
  vf_sgm_params p;        /* methods other than SGM: only the size is set */
  vf_stereo_local* local; /* ZNCC_FASTDT, CENSUS_FASTDT, CYCLOPS2 */
  vf_hsgm* hsgm;          /* HSGM, ZNCC_SGM; SGM with 16 paths on the CPU backend */
  void* block;            /* every buffer, one allocation (device memory on CUDA) */
  /* CPU backend */
  uint8_t* census_l;
  uint8_t* census_r;
  uint16_t* sum;
  void* scratch;
  uint16_t* pre_median;
#ifdef VF_HAVE_CUDA
  /* CUDA backend: pipeline buffers, then staging for host images (w-byte rows) */
  vf_cuda_sgm_buffers bufs;
  uint8_t* stage_left;
  uint8_t* stage_right;
  uint16_t* stage_out;
  float* stage_outf;
#endif
};

static size_t vf_round128(size_t v) { return (v + 127) & ~(size_t)127; }

static vf_status vf_stereo_alloc_cpu(vf_stereo* s) {
  size_t px = (size_t)s->p.width * s->p.height;
  size_t census = vf_round128(px * VF_CPU_CENSUS_BYTES);
  size_t sum = vf_round128(px * (size_t)s->p.disparities * sizeof(uint16_t));
  size_t scratch = vf_round128(vf_cpu_sgm_scratch_bytes(&s->p, s->ctx->cpu_threads));
  size_t total = 2 * census + sum + scratch + vf_round128(px * sizeof(uint16_t));
  s->block = vf_aligned_alloc(128, total);
  if (s->block == NULL) {
    return vf_fail(NULL, VF_ERR_NOMEM, "vf_stereo_create: %zu bytes of host memory", total);
  }
  uint8_t* b = s->block;
  s->census_l = b;
  s->census_r = b + census;
  s->sum = (uint16_t*)(b + 2 * census);
  s->scratch = b + 2 * census + sum;
  s->pre_median = (uint16_t*)(b + 2 * census + sum + scratch);
  return VF_OK;
}

#ifdef VF_HAVE_CUDA
static vf_status vf_stereo_alloc_cuda(vf_stereo* s) {
  size_t px = (size_t)s->p.width * s->p.height;
  /* HSGM keeps its buffers in its stage: only the staging of host images here. */
  size_t pipeline = s->hsgm != NULL ? 0 : vf_round128(vf_cuda_sgm_buffer_bytes(&s->p));
  size_t bytes8 = vf_round128(px);
  size_t total = pipeline + 2 * bytes8 + vf_round128(px * 2) + vf_round128(px * 4);
  vf_status st = vf_device_alloc(NULL, &s->block, total, "vf_stereo_create");
  if (st != VF_OK) return st;
  uint8_t* b = s->block;
  if (s->hsgm == NULL) vf_cuda_sgm_buffers_carve(&s->p, b, &s->bufs);
  s->stage_left = b + pipeline;
  s->stage_right = b + pipeline + bytes8;
  s->stage_out = (uint16_t*)(b + pipeline + 2 * bytes8);
  s->stage_outf = (float*)(b + pipeline + 2 * bytes8 + vf_round128(px * 2));
  return VF_OK;
}
#endif

void vf_stereo_expect_concurrent(vf_stereo* s, int concurrent) {
#ifdef VF_HAVE_CUDA
  /* The shifted census copies the runs layout reads exist wherever it is possible. */
  if (s != NULL && s->ctx->backend == VF_BACKEND_CUDA && s->hsgm == NULL && s->local == NULL &&
      s->block != NULL)
    s->bufs.runs = vf_cuda_sgm_runs_at(&s->p, concurrent);
#else
  (void)s;
  (void)concurrent;
#endif
}

/* The SGM pipeline's buffers, or for the HSGM stage the staging of host images on CUDA. */
static vf_status vf_stereo_alloc(vf_stereo* s) {
#ifdef VF_HAVE_CUDA
  if (s->ctx->backend == VF_BACKEND_CUDA) return vf_stereo_alloc_cuda(s);
#endif
  return s->hsgm != NULL ? VF_OK : vf_stereo_alloc_cpu(s);
}

static int vf_stereo_is_alt(vf_stereo_method m) {
  return m == VF_STEREO_ZNCC_FASTDT || m == VF_STEREO_CENSUS_FASTDT || m == VF_STEREO_CYCLOPS2;
}

/* The other methods: their stage, and on CUDA the device staging of host outputs. */
static vf_status vf_stereo_create_alt(vf_stereo* s, const vf_stereo_config* config) {
  vf_stereo_local_config ac;
  vf_status st = vf_stereo_local_config_from_stereo(config, &ac, "vf_stereo_create");
  if (st == VF_OK) st = vf_stereo_local_create(s->ctx, &ac, &s->local);
  if (st != VF_OK) return st;
  s->p.width = config->width;
  s->p.height = config->height;
#ifdef VF_HAVE_CUDA
  if (s->ctx->backend == VF_BACKEND_CUDA) {
    size_t px = (size_t)config->width * config->height;
    st = vf_device_alloc(NULL, &s->block, vf_round128(px * 2) + px * 4, "vf_stereo_create");
    if (st != VF_OK) return st;
    s->stage_out = s->block;
    s->stage_outf = (float*)((uint8_t*)s->block + vf_round128(px * 2));
  }
#endif
  return VF_OK;
}

vf_status vf_stereo_create(vf_context* ctx, const vf_stereo_config* config, vf_stereo** out) {
  if (out == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stereo_create: out is NULL");
  *out = NULL;
  if (ctx == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stereo_create: ctx is NULL");
  if (config == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stereo_create: config is NULL");
  vf_hsgm_params hp;
  memset(&hp, 0, sizeof hp);
  vf_status st = VF_OK;
  if (config->method == VF_STEREO_HSGM || config->method == VF_STEREO_ZNCC_SGM) {
    st = vf_hsgm_params_from_config(config, &hp, "vf_stereo_create");
  } else if (!vf_stereo_is_alt(config->method)) {
    st = vf_stereo_params_from_config(config, &hp.sgm, "vf_stereo_create");
    hp.levels = 1; /* SGM with 16 paths on the CPU: HSGM's full-range level */
  }
  if (st != VF_OK) return st;
  vf_stereo* s = vf_calloc(1, sizeof *s);
  if (s == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_stereo_create: out of memory");
  s->ctx = ctx;
  s->p = hp.sgm;
  if (vf_stereo_is_alt(config->method)) {
    st = vf_stereo_create_alt(s, config);
  } else {
    if (config->method == VF_STEREO_HSGM || config->method == VF_STEREO_ZNCC_SGM ||
        (hp.sgm.paths == 16 && ctx->backend == VF_BACKEND_CPU)) {
      st = vf_hsgm_create(ctx, &hp, &s->hsgm);
    }
    if (st == VF_OK) st = vf_stereo_alloc(s);
  }
  if (st != VF_OK) {
    vf_stereo_destroy(s);
    return st;
  }
  *out = s;
  return VF_OK;
}

void vf_stereo_destroy(vf_stereo* s) {
  if (s == NULL) return;
  vf_stereo_local_destroy(s->local);
  vf_hsgm_destroy(s->hsgm);
  if (s->ctx->backend == VF_BACKEND_CUDA) {
    vf_device_free(s->block);
  } else {
    free(s->block);
  }
  free(s);
}

static vf_status vf_check_view(vf_stereo* s, const vf_image* img, vf_pixel_format format,
                               const char* name) {
  char what[64];
  snprintf(what, sizeof what, "vf_stereo_compute: %s", name);
  vf_status st = vf_image_check(img, what);
  if (st != VF_OK) return vf_fail_from_thread(&s->err, st);
  if (img->format != format) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "%s: format %d, expected %s", what,
                   (int)img->format,
                   format == VF_PIXEL_U8    ? "8-bit grey (VF_PIXEL_U8)"
                   : format == VF_PIXEL_U16 ? "VF_PIXEL_U16"
                                            : "VF_PIXEL_F32");
  }
  if (img->width != s->p.width || img->height != s->p.height) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "%s: size %dx%d, stereo was created for %dx%d",
                   what, img->width, img->height, s->p.width, s->p.height);
  }
  size_t px = vf_pixel_size(format);
  if ((uintptr_t)img->data % px != 0 || img->stride_bytes % px != 0) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG,
                   "%s: data and stride must be aligned to %zu bytes (data %p, stride %zu)", what,
                   px, img->data, img->stride_bytes);
  }
  if (s->ctx->backend == VF_BACKEND_CPU && img->location != VF_MEMORY_HOST) {
    return vf_fail(&s->err, VF_ERR_UNSUPPORTED, "%s: the CPU backend takes host memory only", what);
  }
  return VF_OK;
}

static void vf_write_float(const vf_sgm_params* p, const vf_image* out16, vf_image* outf) {
  float scale = p->subpixel ? 1.0f / 16.0f : 1.0f;
  for (int y = 0; y < p->height; ++y) {
    const uint16_t* a = (const uint16_t*)((const uint8_t*)out16->data + y * out16->stride_bytes);
    float* b = (float*)((uint8_t*)outf->data + y * outf->stride_bytes);
    for (int x = 0; x < p->width; ++x) b[x] = a[x] == VF_STEREO_INVALID ? NAN : a[x] * scale;
  }
}

static vf_status vf_stereo_compute_cpu(vf_stereo* s, const vf_image* l, const vf_image* r,
                                       vf_image* out, vf_image* outf) {
  const vf_sgm_params* p = &s->p;
  vf_pool* pool = s->ctx->pool;
  if (s->hsgm != NULL) {
    vf_hsgm_compute(s->hsgm, l->data, l->stride_bytes, r->data, r->stride_bytes, out->data,
                    out->stride_bytes, NULL, 0, &s->err);
    if (outf != NULL) vf_write_float(p, out, outf);
    return VF_OK;
  }
  vf_cpu_census(l->data, l->stride_bytes, p->width, p->height, p->census_full, s->census_l, pool);
  vf_cpu_census(r->data, r->stride_bytes, p->width, p->height, p->census_full, s->census_r, pool);
  vf_cpu_sgm(p, l->data, l->stride_bytes, s->census_l, s->census_r, s->sum, s->scratch,
             s->pre_median, pool);
  if (p->median) {
    vf_cpu_median3(s->pre_median, p->width, p->height, out->data, out->stride_bytes, pool);
  } else {
    for (int y = 0; y < p->height; ++y) {
      memcpy((uint8_t*)out->data + y * out->stride_bytes, s->pre_median + (size_t)y * p->width,
             (size_t)p->width * sizeof(uint16_t));
    }
  }
  if (outf != NULL) vf_write_float(p, out, outf);
  return VF_OK;
}

#ifdef VF_HAVE_CUDA
/* Copies the outputs staged in device memory (o16, of) to host outputs, then settles the host
 * memory given in or out before the call returns. */
static int vf_stereo_deliver_cuda(vf_stereo* s, const vf_image* l, const vf_image* r, vf_image* out,
                                  const uint16_t* o16, size_t o16s, vf_image* outf, const float* of,
                                  size_t ofs) {
  void* stream = s->ctx->stream;
  const size_t w = (size_t)s->p.width, h = (size_t)s->p.height;
  const int host16 = out->location == VF_MEMORY_HOST;
  const int hostf = outf != NULL && outf->location == VF_MEMORY_HOST;
  int rc = 0;
  if (host16) rc = vf_cuda_copy_2d_async(out->data, out->stride_bytes, o16, o16s, w * 2, h, stream);
  if (rc == 0 && hostf)
    rc = vf_cuda_copy_2d_async(outf->data, outf->stride_bytes, of, ofs, w * 4, h, stream);
  if (rc == 0 &&
      (host16 || hostf || l->location == VF_MEMORY_HOST || r->location == VF_MEMORY_HOST)) {
    rc = vf_cuda_stream_synchronize(stream);
  }
  return rc;
}

static vf_status vf_stereo_compute_cuda(vf_stereo* s, const vf_image* l, const vf_image* r,
                                        vf_image* out, vf_image* outf) {
  const vf_sgm_params* p = &s->p;
  void* stream = s->ctx->stream;
  size_t w = (size_t)p->width, h = (size_t)p->height;
  const uint8_t* dl = l->data;
  const uint8_t* dr = r->data;
  size_t ls = l->stride_bytes, rs = r->stride_bytes;
  int rc = 0;
  if (l->location == VF_MEMORY_HOST) {
    rc = vf_cuda_copy_2d_async(s->stage_left, w, dl, ls, w, h, stream);
    dl = s->stage_left;
    ls = w;
  }
  if (rc == 0 && r->location == VF_MEMORY_HOST) {
    rc = vf_cuda_copy_2d_async(s->stage_right, w, dr, rs, w, h, stream);
    dr = s->stage_right;
    rs = w;
  }
  int host16 = out->location == VF_MEMORY_HOST;
  int hostf = outf != NULL && outf->location == VF_MEMORY_HOST;
  uint16_t* o16 = host16 ? s->stage_out : out->data;
  size_t o16s = host16 ? w * 2 : out->stride_bytes;
  float* of = outf == NULL ? NULL : hostf ? s->stage_outf : outf->data;
  size_t ofs = outf == NULL ? 0 : hostf ? w * 4 : outf->stride_bytes;
  if (rc != 0) return vf_cuda_fail(&s->err, rc, "vf_stereo_compute");
  if (s->hsgm != NULL) {
    vf_status st = vf_hsgm_compute(s->hsgm, dl, ls, dr, rs, o16, o16s, of, ofs, &s->err);
    if (st != VF_OK) return st;
  } else {
    rc = vf_cuda_sgm_compute(p, &s->bufs, dl, ls, dr, rs, o16, o16s, of, ofs, stream);
  }
  if (rc == 0) rc = vf_stereo_deliver_cuda(s, l, r, out, o16, o16s, outf, of, ofs);
  return rc == 0 ? VF_OK : vf_cuda_fail(&s->err, rc, "vf_stereo_compute");
}
#endif

static vf_status vf_stereo_compute_local(vf_stereo* s, const vf_image* l, const vf_image* r,
                                         vf_image* out, vf_image* outf) {
  vf_status st;
#ifdef VF_HAVE_CUDA
  if (s->ctx->backend == VF_BACKEND_CUDA) {
    const size_t w = (size_t)s->p.width, h = (size_t)s->p.height;
    const int host16 = out->location == VF_MEMORY_HOST;
    const int hostf = outf != NULL && outf->location == VF_MEMORY_HOST;
    vf_image o16 =
        host16 ? vf_image_view(s->stage_out, (int)w, (int)h, w * 2, VF_MEMORY_DEVICE, VF_PIXEL_U16)
               : *out;
    st = vf_stereo_local_compute(s->local, l, r, &o16);
    if (st != VF_OK) return vf_fail(&s->err, st, "%s", vf_stereo_local_last_error(s->local));
    float* of = outf == NULL ? NULL : hostf ? s->stage_outf : outf->data;
    size_t ofs = outf == NULL ? 0 : hostf ? w * 4 : outf->stride_bytes;
    int rc = 0;
    if (outf != NULL) {
      rc = vf_cuda_disparity_float(o16.data, o16.stride_bytes, (int)w, (int)h, of, ofs,
                                   s->ctx->stream);
    }
    if (rc == 0)
      rc = vf_stereo_deliver_cuda(s, l, r, out, o16.data, o16.stride_bytes, outf, of, ofs);
    return rc == 0 ? VF_OK : vf_cuda_fail(&s->err, rc, "vf_stereo_compute");
  }
#endif
  st = vf_stereo_local_compute(s->local, l, r, out);
  if (st != VF_OK) return vf_fail(&s->err, st, "%s", vf_stereo_local_last_error(s->local));
  if (outf != NULL) vf_write_float(&s->p, out, outf);
  return VF_OK;
}

vf_status vf_stereo_compute(vf_stereo* s, const vf_image* left, const vf_image* right,
                            vf_image* disparity, vf_image* disparity_f32) {
  if (s == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_stereo_compute: stereo is NULL");
  vf_status st = vf_check_view(s, left, VF_PIXEL_U8, "left");
  if (st == VF_OK) st = vf_check_view(s, right, VF_PIXEL_U8, "right");
  if (st == VF_OK) st = vf_check_view(s, disparity, VF_PIXEL_U16, "disparity");
  if (st == VF_OK && disparity_f32 != NULL) {
    st = vf_check_view(s, disparity_f32, VF_PIXEL_F32, "disparity_f32");
  }
  if (st != VF_OK) return st;
  if (s->local != NULL) return vf_stereo_compute_local(s, left, right, disparity, disparity_f32);
#ifdef VF_HAVE_CUDA
  if (s->ctx->backend == VF_BACKEND_CUDA) {
    return vf_stereo_compute_cuda(s, left, right, disparity, disparity_f32);
  }
#endif
  return vf_stereo_compute_cpu(s, left, right, disparity, disparity_f32);
}

const char* vf_stereo_last_error(const vf_stereo* s) {
  return s != NULL ? s->err.message : "vf_stereo_last_error: stereo is NULL";
}

// SPDX-License-Identifier: BSD-3-Clause
/* Hierarchical SGM stage: buffers allocated at create time (host or device memory by the
 * backend) and the CPU run over the levels; the CUDA run is cuda/stereo/vf_hsgm.cu. */
#include "stereo/vf_hsgm.h"
#include "core/vf_fault.h"

#include <stdlib.h>
#include <string.h>

#include "core/vf_context_internal.h"
#include "features/kernels/vf_pyramid_cpu.h"
#include "stereo/kernels/vf_hsgm_cpu.h"
#include "stereo/kernels/vf_local_cpu.h"
#include "stereo/kernels/vf_sgm_cpu.h"
#ifdef VF_HAVE_CUDA
#include "stereo/kernels/vf_hsgm_cuda.h"
#endif

struct vf_hsgm {
  vf_context* ctx;
  vf_hsgm_params hp;
  void* block; /* every buffer, one allocation */
  /* CPU backend */
  uint8_t* left[VF_HSGM_MAX_LEVELS]; /* levels 1.., (w >> l) wide */
  uint8_t* right[VF_HSGM_MAX_LEVELS];
  uint64_t* census_l;
  uint64_t* census_r;
  uint8_t* census_planes; /* the SGM census's byte planes, packed into the words above */
  vf_hsgm_ranges ranges;
  uint16_t* sum;
  uint32_t* right_best;
  uint16_t* map[2];
  uint16_t* pre_median;
  /* ZNCC + SGM: window terms of both images, summed-area tables, scratch and the cost volume */
  uint16_t* zncc_sums;
  uint32_t* zncc_vars;
  uint32_t* zncc_sat;
  uint32_t* zncc_scratch;
  uint16_t* zncc_volume;
#ifdef VF_HAVE_CUDA
  vf_cuda_hsgm_buffers bufs;
#endif
};

static size_t vf_round64(size_t v) { return (v + 63) & ~(size_t)63; }

/* Carves the CPU buffers from `base`, or with base NULL only counts their bytes. */
static size_t vf_hsgm_carve_cpu(vf_hsgm* h, uint8_t* base) {
  const vf_sgm_params* p = &h->hp.sgm;
  const size_t px = (size_t)p->width * p->height;
  size_t at = 0;
#define VF_TAKE(ptr, bytes)                       \
  do {                                            \
    if (base != NULL) (ptr) = (void*)(base + at); \
    at += vf_round64(bytes);                      \
  } while (0)
  for (int l = 1; l < h->hp.levels; ++l) {
    const size_t lpx = (size_t)(p->width >> l) * (size_t)(p->height >> l);
    VF_TAKE(h->left[l], lpx);
    VF_TAKE(h->right[l], lpx);
  }
  VF_TAKE(h->census_l, px * sizeof(uint64_t));
  VF_TAKE(h->census_r, px * sizeof(uint64_t));
  VF_TAKE(h->census_planes, px * VF_CPU_CENSUS_BYTES);
  VF_TAKE(h->ranges.range, px * sizeof(uint32_t));
  VF_TAKE(h->ranges.offset, px * sizeof(uint32_t));
  VF_TAKE(h->sum, px * (size_t)p->disparities * sizeof(uint16_t));
  VF_TAKE(h->right_best, px * sizeof(uint32_t));
  const size_t coarse = (size_t)(p->width >> 1) * (size_t)(p->height >> 1) * sizeof(uint16_t);
  VF_TAKE(h->map[0], coarse);
  VF_TAKE(h->map[1], coarse);
  VF_TAKE(h->pre_median, px * sizeof(uint16_t));
  if (h->hp.zncc) {
    const size_t sat = (size_t)(p->width + 1) * (size_t)(p->height + 1);
    VF_TAKE(h->zncc_sums, 2 * px * sizeof(uint16_t));
    VF_TAKE(h->zncc_vars, 2 * px * sizeof(uint32_t));
    VF_TAKE(h->zncc_sat, h->hp.zncc_integral ? 2 * sat * sizeof(uint32_t) : 0);
    VF_TAKE(h->zncc_scratch, (size_t)h->ctx->cpu_threads * p->disparities * p->width * 4);
    VF_TAKE(h->zncc_volume, px * (size_t)p->disparities * sizeof(uint16_t));
  }
#undef VF_TAKE
  return at;
}

vf_status vf_hsgm_create(vf_context* ctx, const vf_hsgm_params* hp, vf_hsgm** out) {
  *out = NULL;
  vf_hsgm* h = vf_calloc(1, sizeof *h);
  if (h == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_stereo_create: out of memory");
  h->ctx = ctx;
  h->hp = *hp;
  vf_status st = VF_OK;
#ifdef VF_HAVE_CUDA
  if (ctx->backend == VF_BACKEND_CUDA) {
    st = vf_device_alloc(NULL, &h->block, vf_cuda_hsgm_buffer_bytes(hp), "vf_stereo_create");
    if (st == VF_OK) vf_cuda_hsgm_buffers_carve(hp, h->block, &h->bufs);
  } else
#endif
  {
    const size_t total = vf_hsgm_carve_cpu(h, NULL);
    h->block = vf_aligned_alloc(64, total);
    if (h->block == NULL) {
      st = vf_fail(NULL, VF_ERR_NOMEM, "vf_stereo_create: %zu bytes of host memory", total);
    } else {
      vf_hsgm_carve_cpu(h, h->block);
    }
  }
  if (st != VF_OK) {
    vf_hsgm_destroy(h);
    return st;
  }
  *out = h;
  return VF_OK;
}

void vf_hsgm_destroy(vf_hsgm* h) {
  if (h == NULL) return;
  if (h->ctx->backend == VF_BACKEND_CUDA) {
    vf_device_free(h->block);
  } else {
    free(h->block);
  }
  free(h);
}

/* ZNCC + SGM: the ZNCC cost volume of the full-resolution pair (16-bit codes). */
static void vf_hsgm_zncc_cpu(vf_hsgm* h, const uint8_t* left, size_t left_stride,
                             const uint8_t* right, size_t right_stride) {
  const vf_hsgm_params* hp = &h->hp;
  vf_pool* pool = h->ctx->pool;
  const int w = hp->sgm.width, ht = hp->sgm.height;
  const size_t px = (size_t)w * ht;
  const vf_local_pair pair = {left, left_stride, right, right_stride, w, ht, hp->sgm.disparities};
  vf_cpu_zncc_window_sums(left, left_stride, w, ht, hp->zncc_radius, hp->zncc_integral, h->zncc_sat,
                          h->zncc_sums, h->zncc_vars, pool);
  vf_cpu_zncc_window_sums(right, right_stride, w, ht, hp->zncc_radius, hp->zncc_integral,
                          h->zncc_sat, h->zncc_sums + px, h->zncc_vars + px, pool);
  vf_cpu_zncc_costs(&pair, hp->zncc_radius, h->zncc_sums, h->zncc_vars, h->zncc_sums + px,
                    h->zncc_vars + px, h->zncc_volume, 0, h->zncc_scratch, pool);
}

static void vf_hsgm_run_cpu(vf_hsgm* h, const uint8_t* left, size_t left_stride,
                            const uint8_t* right, size_t right_stride, uint16_t* out16,
                            size_t out16_stride) {
  const vf_hsgm_params* hp = &h->hp;
  vf_pool* pool = h->ctx->pool;
  const int w = hp->sgm.width;
  const uint8_t* il[VF_HSGM_MAX_LEVELS] = {left};
  const uint8_t* ir[VF_HSGM_MAX_LEVELS] = {right};
  size_t stride[VF_HSGM_MAX_LEVELS] = {left_stride};
  size_t rstride[VF_HSGM_MAX_LEVELS] = {right_stride};
  for (int l = 1; l < hp->levels; ++l) {
    stride[l] = rstride[l] = (size_t)(w >> l);
    vf_cpu_downsample2(il[l - 1], stride[l - 1], w >> (l - 1), hp->sgm.height >> (l - 1),
                       h->left[l], stride[l], pool);
    vf_cpu_downsample2(ir[l - 1], rstride[l - 1], w >> (l - 1), hp->sgm.height >> (l - 1),
                       h->right[l], rstride[l], pool);
    il[l] = h->left[l];
    ir[l] = h->right[l];
  }
  const uint16_t* coarse = NULL;
  int cw = 0, ch = 0;
  for (int l = hp->levels - 1; l >= 0; --l) {
    const vf_sgm_params p = vf_hsgm_level(hp, l);
    uint16_t* map = l > 0 ? h->map[l & 1] : h->pre_median;
    if (hp->zncc) {
      vf_hsgm_zncc_cpu(h, left, left_stride, right, right_stride);
    } else {
      vf_cpu_census(il[l], stride[l], p.width, p.height, p.census_full, h->census_planes, pool);
      vf_cpu_census_pack64(h->census_planes, p.width, p.height, p.census_full, h->census_l);
      vf_cpu_census(ir[l], rstride[l], p.width, p.height, p.census_full, h->census_planes, pool);
      vf_cpu_census_pack64(h->census_planes, p.width, p.height, p.census_full, h->census_r);
    }
    vf_cpu_hsgm_ranges(&p, coarse, cw, ch, hp->radius, hp->margin, &h->ranges, pool);
    vf_cpu_hsgm_aggregate(&p, il[l], stride[l], h->census_l, h->census_r, h->zncc_volume,
                          &h->ranges, h->sum, pool);
    vf_cpu_hsgm_select(&p, &h->ranges, h->sum, h->right_best, map, pool);
    coarse = map;
    cw = p.width;
    ch = p.height;
  }
  const int hgt = hp->sgm.height;
  if (hp->sgm.median) {
    vf_cpu_median3(h->pre_median, w, hgt, out16, out16_stride, pool);
  } else {
    for (int y = 0; y < hgt; ++y) {
      memcpy((uint8_t*)out16 + y * out16_stride, h->pre_median + (size_t)y * w,
             (size_t)w * sizeof(uint16_t));
    }
  }
}

vf_status vf_hsgm_compute(vf_hsgm* h, const uint8_t* left, size_t left_stride, const uint8_t* right,
                          size_t right_stride, uint16_t* out16, size_t out16_stride, float* outf,
                          size_t outf_stride, vf_error* err) {
#ifdef VF_HAVE_CUDA
  if (h->ctx->backend == VF_BACKEND_CUDA) {
    int rc = vf_cuda_hsgm_compute(&h->hp, &h->bufs, left, left_stride, right, right_stride, out16,
                                  out16_stride, outf, outf_stride, h->ctx->stream);
    return rc == 0 ? VF_OK : vf_cuda_fail(err, rc, "vf_stereo_compute");
  }
#else
  (void)err;
#endif
  (void)outf;
  (void)outf_stride;
  vf_hsgm_run_cpu(h, left, left_stride, right, right_stride, out16, out16_stride);
  return VF_OK;
}

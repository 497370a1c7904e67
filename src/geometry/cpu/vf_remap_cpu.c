// SPDX-License-Identifier: BSD-3-Clause
/* CPU remap: per output pixel, bilinear interpolation of the source at a 1/256-pixel position
 * with integer weights, (top (256 - fy) + bottom fy + 2^15) >> 16 (round half up): the same
 * integer arithmetic as the CUDA kernel, so both agree bit for bit. The map is unpacked once
 * into a plan (offsets, weights, fill mask) so that eight pixels go through the SIMD blend of
 * vf_simd_bilinear.h at a time with no clamps or branches. Rows split across threads. */
#include "geometry/kernels/vf_remap_cpu.h"

#include <stdint.h>
#include <stdlib.h>

#include "core/vf_fault.h"
#include "core/vf_parallel.h"
#include "core/vf_simd_bilinear.h"
#include "viofront/vf_rectify.h"

#define VF_REMAP_UNIT (1 << VF_REMAP_FRAC_BITS)

struct vf_remap_cpu_plan {
  const int32_t* map;
  int map_stride;
  int out_w, out_h, src_w, src_h;
  int stride;        /* plan entries per row: out_w rounded up to 8 */
  size_t src_stride; /* the source stride the offsets hold for; 0 = not computed yet */
  int32_t* offset;   /* top-left source byte; 0 where filled */
  uint16_t* wx;      /* weight of the right column, 0..256 */
  uint16_t* wy;      /* weight of the lower row, 0..256 */
  uint8_t* fill;     /* 0xFF where the output is the fill value */
  int direct;        /* 1: a source under 2x2 or beyond int32 offsets, read the map per pixel */
};

typedef struct vf_remap_job {
  const vf_remap_cpu_plan* plan;
  const uint8_t* src;
  size_t src_stride;
  uint8_t* dst;
  size_t dst_stride;
  uint8_t fill;
} vf_remap_job;

/* The blend of samples a b (top row) and c d (bottom row) with weights fx, fy (0..256). */
static inline uint8_t vf_remap_mix(int32_t a, int32_t b, int32_t c, int32_t d, int32_t fx,
                                   int32_t fy) {
  /* a (256 - f) + b f as 256 a + (b - a) f: the same integers, one product fewer. */
  const int32_t top = 256 * a + (b - a) * fx;
  const int32_t bot = 256 * c + (d - c) * fx;
  return (uint8_t)((256 * top + (bot - top) * fy + 32768) >> 16);
}

/* The blend of one pixel whose top-left source byte is p (p[1], p[s], p[s + 1] readable). */
static inline uint8_t vf_remap_blend(const uint8_t* p, size_t s, int32_t fx, int32_t fy) {
  return vf_remap_mix(p[0], p[1], p[s], p[s + 1], fx, fy);
}

/* The map read per pixel: sources narrower or lower than 2 pixels, where the last column or
 * row has no left or upper neighbour to move the weight to. */
static void vf_remap_rows_direct(int begin, int end, void* arg) {
  const vf_remap_job* j = arg;
  const vf_remap_cpu_plan* p = j->plan;
  for (int y = begin; y < end; ++y) {
    const int32_t* m = p->map + (size_t)y * p->map_stride * 2;
    uint8_t* out = j->dst + (size_t)y * j->dst_stride;
    for (int x = 0; x < p->out_w; ++x) {
      int32_t sx = m[2 * x], sy = m[2 * x + 1];
      if (sx < 0 || sy < 0) {
        out[x] = j->fill;
        continue;
      }
      const int x0 = sx >> VF_REMAP_FRAC_BITS, y0 = sy >> VF_REMAP_FRAC_BITS;
      const int32_t fx = sx & (VF_REMAP_UNIT - 1), fy = sy & (VF_REMAP_UNIT - 1);
      const uint8_t* r0 = j->src + (size_t)y0 * j->src_stride + (size_t)x0;
      const int dx = x0 < p->src_w - 1;
      const uint8_t* r1 = y0 < p->src_h - 1 ? r0 + j->src_stride : r0;
      out[x] = vf_remap_mix(r0[0], r0[dx], r1[0], r1[dx], fx, fy);
    }
  }
}

static void vf_remap_rows_planned(int begin, int end, void* arg) {
  const vf_remap_job* j = arg;
  const vf_remap_cpu_plan* p = j->plan;
  const uint8_t* below = j->src + j->src_stride;
  const vf_u8x16 fill = vf_u8x16_set1(j->fill);
  for (int y = begin; y < end; ++y) {
    const size_t row = (size_t)y * p->stride;
    const int32_t* off = p->offset + row;
    const uint16_t* wx = p->wx + row;
    const uint16_t* wy = p->wy + row;
    const uint8_t* mask = p->fill + row;
    uint8_t* out = j->dst + (size_t)y * j->dst_stride;
    int x = 0;
    for (; x + 8 <= p->out_w; x += 8) {
      const vf_u8x16 v = vf_u8x16_bilinear8(vf_u8x16_gather_pairs(j->src, off + x),
                                            vf_u8x16_gather_pairs(below, off + x),
                                            vf_i16x8_load(wx + x), vf_i16x8_load(wy + x));
      vf_u8x16_store_lo8(out + x, vf_u8x16_select(vf_u8x16_load_lo8(mask + x), fill, v));
    }
    for (; x < p->out_w; ++x) {
      out[x] = mask[x] ? j->fill : vf_remap_blend(j->src + off[x], j->src_stride, wx[x], wy[x]);
    }
  }
}

/* Offsets, weights and fill mask from the map, for source rows src_stride bytes apart. */
static void vf_remap_plan_fill(vf_remap_cpu_plan* p, size_t src_stride) {
  for (int y = 0; y < p->out_h; ++y) {
    const int32_t* m = p->map + (size_t)y * p->map_stride * 2;
    const size_t row = (size_t)y * p->stride;
    for (int x = 0; x < p->stride; ++x) {
      int32_t sx = x < p->out_w ? m[2 * x] : -1, sy = x < p->out_w ? m[2 * x + 1] : -1;
      int x0 = sx >> VF_REMAP_FRAC_BITS, y0 = sy >> VF_REMAP_FRAC_BITS;
      int32_t fx = sx & (VF_REMAP_UNIT - 1), fy = sy & (VF_REMAP_UNIT - 1);
      const int inside = sx >= 0 && sy >= 0 && x0 < p->src_w && y0 < p->src_h;
      /* On the last column (row) the kernel reads that pixel alone: the same as weight 256 on
       * it with its left (upper) neighbour as the first sample. */
      if (x0 == p->src_w - 1) x0 = p->src_w - 2, fx = VF_REMAP_UNIT;
      if (y0 == p->src_h - 1) y0 = p->src_h - 2, fy = VF_REMAP_UNIT;
      p->offset[row + x] = inside ? (int32_t)((size_t)y0 * src_stride + (size_t)x0) : 0;
      p->wx[row + x] = (uint16_t)(inside ? fx : 0);
      p->wy[row + x] = (uint16_t)(inside ? fy : 0);
      p->fill[row + x] = inside ? 0 : 0xFF;
    }
  }
  p->src_stride = src_stride;
}

vf_status vf_cpu_remap_plan_create(const int32_t* map, int map_stride, int out_w, int out_h,
                                   int src_w, int src_h, vf_remap_cpu_plan** out) {
  *out = NULL;
  vf_remap_cpu_plan* p = vf_calloc(1, sizeof *p);
  if (p == NULL) return VF_ERR_NOMEM;
  p->map = map;
  p->map_stride = map_stride;
  p->out_w = out_w, p->out_h = out_h, p->src_w = src_w, p->src_h = src_h;
  p->stride = (out_w + 7) & ~7;
  p->direct = src_w < 2 || src_h < 2;
  if (!p->direct) {
    const size_t n = (size_t)p->stride * (size_t)out_h;
    p->offset = vf_malloc(n * sizeof *p->offset);
    p->wx = vf_malloc(n * sizeof *p->wx);
    p->wy = vf_malloc(n * sizeof *p->wy);
    p->fill = vf_malloc(n);
    if (p->offset == NULL || p->wx == NULL || p->wy == NULL || p->fill == NULL) {
      vf_cpu_remap_plan_destroy(p);
      return VF_ERR_NOMEM;
    }
  }
  *out = p;
  return VF_OK;
}

void vf_cpu_remap_plan_destroy(vf_remap_cpu_plan* p) {
  if (p == NULL) return;
  free(p->offset);
  free(p->wx);
  free(p->wy);
  free(p->fill);
  free(p);
}

void vf_cpu_remap_u8(vf_remap_cpu_plan* plan, const uint8_t* src, size_t src_stride, uint8_t* dst,
                     size_t dst_stride, uint8_t fill, vf_pool* pool) {
  /* int32 offsets: the bottom-right byte of the source must be within reach. */
  const int direct =
      plan->direct || (size_t)(plan->src_h - 1) * src_stride + (size_t)plan->src_w > INT32_MAX;
  if (!direct && plan->src_stride != src_stride) vf_remap_plan_fill(plan, src_stride);
  int threads = vf_pool_threads(pool);
  vf_remap_job job = {plan, src, src_stride, dst, dst_stride, fill};
  /* As for the pyramid: a thread only pays for itself beyond about 64K pixels. */
  int useful = (int)((long long)plan->out_w * plan->out_h / 65536);
  vf_parallel_for(pool, plan->out_h, useful < threads ? useful : threads,
                  direct ? vf_remap_rows_direct : vf_remap_rows_planned, &job);
}

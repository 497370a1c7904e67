// SPDX-License-Identifier: BSD-3-Clause
/* CPU remap: per output pixel, bilinear interpolation of the source at a 1/256-pixel position
 * with integer weights, (top (256 - fy) + bottom fy + 2^15) >> 16 (round half up): the same
 * integer arithmetic as the CUDA kernel, so both agree bit for bit. Rows split across threads. */
#include "geometry/kernels/vf_remap_cpu.h"
#include "core/vf_parallel.h"

typedef struct vf_remap_job {
  const uint8_t* src;
  size_t src_stride;
  int src_w, src_h;
  const int32_t* map;
  int map_stride;
  uint8_t* dst;
  size_t dst_stride;
  int dst_w;
  uint8_t fill;
} vf_remap_job;

static void vf_remap_rows(int begin, int end, void* arg) {
  const vf_remap_job* j = arg;
  for (int y = begin; y < end; ++y) {
    const int32_t* m = j->map + (size_t)y * j->map_stride * 2;
    uint8_t* out = j->dst + (size_t)y * j->dst_stride;
    for (int x = 0; x < j->dst_w; ++x) {
      int32_t sx = m[2 * x], sy = m[2 * x + 1];
      if (sx < 0) {
        out[x] = j->fill;
        continue;
      }
      int x0 = sx >> 8, y0 = sy >> 8;
      uint32_t fx = (uint32_t)sx & 255u, fy = (uint32_t)sy & 255u;
      /* At the last column or row the weight of the next one is 0: clamp the read only. */
      int x1 = x0 + (x0 < j->src_w - 1), y1 = y0 + (y0 < j->src_h - 1);
      const uint8_t* r0 = j->src + (size_t)y0 * j->src_stride;
      const uint8_t* r1 = j->src + (size_t)y1 * j->src_stride;
      uint32_t top = r0[x0] * (256u - fx) + r0[x1] * fx;
      uint32_t bot = r1[x0] * (256u - fx) + r1[x1] * fx;
      out[x] = (uint8_t)((top * (256u - fy) + bot * fy + 32768u) >> 16);
    }
  }
}

void vf_cpu_remap_u8(const uint8_t* src, size_t src_stride, int src_w, int src_h,
                     const int32_t* map, int map_stride, uint8_t* dst, size_t dst_stride, int dst_w,
                     int dst_h, uint8_t fill, vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  vf_remap_job job = {src, src_stride, src_w, src_h, map, map_stride, dst, dst_stride, dst_w, fill};
  /* As for the pyramid: a thread only pays for itself beyond about 64K pixels. */
  int useful = (int)((long long)dst_w * dst_h / 65536);
  vf_parallel_for(pool, dst_h, useful < threads ? useful : threads, vf_remap_rows, &job);
}

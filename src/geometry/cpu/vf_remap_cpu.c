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
      const int x0 = sx >> 8, y0 = sy >> 8;
      const int32_t fx = sx & 255, fy = sy & 255;
      /* At the last column or row the weight of the next one is 0: clamp the read only. */
      const uint8_t* r0 = j->src + (size_t)y0 * j->src_stride + (size_t)x0;
      const size_t dx = x0 < j->src_w - 1, dy = y0 < j->src_h - 1 ? j->src_stride : 0;
      /* a (256 - f) + b f as 256 a + (b - a) f: the same integers, one product fewer. */
      const int32_t top = 256 * r0[0] + (r0[dx] - r0[0]) * fx;
      const int32_t bot = 256 * r0[dy] + (r0[dy + dx] - r0[dy]) * fx;
      out[x] = (uint8_t)((256 * top + (bot - top) * fy + 32768) >> 16);
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

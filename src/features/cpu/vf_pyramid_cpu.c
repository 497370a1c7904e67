// SPDX-License-Identifier: BSD-3-Clause
/* CPU pyramid level: 2x2 box filter, round half up, rows split across threads; sixteen outputs
 * a step in 16-bit lanes (vf_simd16.h: SSE2, NEON or plain C, the same integers). */
#include "features/kernels/vf_pyramid_cpu.h"
#include "core/vf_parallel.h"
#include "core/vf_simd16.h"

typedef struct vf_downsample_job {
  const uint8_t* src;
  size_t src_stride;
  uint8_t* dst;
  size_t dst_stride;
  int dst_w;
} vf_downsample_job;

static void vf_downsample_rows(int begin, int end, void* arg) {
  const vf_downsample_job* j = arg;
  for (int y = begin; y < end; ++y) {
    const uint8_t* r0 = j->src + (size_t)(2 * y) * j->src_stride;
    const uint8_t* r1 = r0 + j->src_stride;
    uint8_t* out = j->dst + (size_t)y * j->dst_stride;
    int x = 0;
    /* A lane holds a column pair of a row: its low byte plus its high byte is the pair's sum. */
    const vf_i16x8 low = vf_i16x8_set1(0x00ff), two = vf_i16x8_set1(2);
    for (; x + 16 <= j->dst_w; x += 16) {
      vf_i16x8 half[2];
      for (int h = 0; h < 2; ++h) {
        const vf_i16x8 a = vf_i16x8_load_pairs(r0 + 2 * x + 16 * h);
        const vf_i16x8 b = vf_i16x8_load_pairs(r1 + 2 * x + 16 * h);
        const vf_i16x8 sum = vf_i16x8_add(vf_i16x8_add(vf_i16x8_and(a, low), vf_i16x8_shr(a, 8)),
                                          vf_i16x8_add(vf_i16x8_and(b, low), vf_i16x8_shr(b, 8)));
        half[h] = vf_i16x8_shr(vf_i16x8_add(sum, two), 2);
      }
      vf_u8x16_store(out + x, vf_u8x16_narrow(half[0], half[1]));
    }
    for (; x < j->dst_w; ++x) {
      unsigned sum = (unsigned)r0[2 * x] + r0[2 * x + 1] + r1[2 * x] + r1[2 * x + 1];
      out[x] = (uint8_t)((sum + 2u) >> 2);
    }
  }
}

void vf_cpu_downsample2(const uint8_t* src, size_t src_stride, int src_w, int src_h, uint8_t* dst,
                        size_t dst_stride, vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  vf_downsample_job job = {src, src_stride, dst, dst_stride, src_w / 2};
  int rows = src_h / 2;
  /* Starting a thread costs about as much as filtering 64K pixels: give each at least that. */
  int useful = rows * job.dst_w / 65536;
  vf_parallel_for(pool, rows, useful < threads ? useful : threads, vf_downsample_rows, &job);
}

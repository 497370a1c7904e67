// SPDX-License-Identifier: BSD-3-Clause
/* CPU pyramid level: 2x2 box filter, round half up, rows split across threads. */
#include "features/kernels/vf_pyramid_cpu.h"
#include "core/vf_parallel.h"

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
    for (int x = 0; x < j->dst_w; ++x) {
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

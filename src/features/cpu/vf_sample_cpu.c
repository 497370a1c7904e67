// SPDX-License-Identifier: BSD-3-Clause
/* Nearest-pixel reads of a 16-bit image at points and the disparity probe (the reference of
 * cuda/features/vf_sample.cu). */
#include "features/kernels/vf_sample_cpu.h"

#include "core/vf_parallel.h"
#include "features/kernels/vf_disparity_rules.h"

void vf_cpu_gather_u16(const uint16_t* image, size_t stride_bytes, int width, int height,
                       const float* xy, int count, uint16_t outside, uint16_t* values) {
  for (int i = 0; i < count; ++i) {
    int x = vf_sample_index(xy[2 * i], width), y = vf_sample_index(xy[2 * i + 1], height);
    values[i] = (x < 0 || y < 0)
                    ? outside
                    : *(const uint16_t*)((const uint8_t*)image + (size_t)y * stride_bytes +
                                         (size_t)x * sizeof(uint16_t));
  }
}

void vf_cpu_probe_disparity(const uint16_t* image, size_t stride_bytes, int width, int height,
                            const float* xy, int count, const vf_disparity_probe_config* config,
                            vf_disparity_probe* out) {
  for (int i = 0; i < count; ++i)
    out[i] = vf_probe_point(image, stride_bytes, width, height, xy[2 * i], xy[2 * i + 1], config);
}

typedef struct vf_refine_job {
  const uint8_t *left, *right;
  size_t left_stride, right_stride;
  int width, height;
  const float *xy, *start;
  const vf_disparity_refine_config* c;
  float* out;
} vf_refine_job;

static void vf_refine_range(int begin, int end, void* arg) {
  const vf_refine_job* j = arg;
  for (int i = begin; i < end; ++i) {
    j->out[i] =
        vf_cpu_disparity_refine_point(j->left, j->left_stride, j->right, j->right_stride, j->width,
                                      j->height, j->xy[2 * i], j->xy[2 * i + 1], j->start[i], j->c);
  }
}

void vf_cpu_refine_disparity(const uint8_t* left, size_t left_stride, const uint8_t* right,
                             size_t right_stride, int width, int height, const float* xy,
                             const float* start, int count, const vf_disparity_refine_config* c,
                             float* out, vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  vf_refine_job job = {left, right, left_stride, right_stride, width, height, xy, start, c, out};
  /* A point costs about 20 us: 16 points a thread at least. */
  const int useful = count / 16;
  vf_parallel_for(pool, count, useful < threads ? useful : threads, vf_refine_range, &job);
}

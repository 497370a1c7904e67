// SPDX-License-Identifier: BSD-3-Clause
/* Nearest-pixel reads of a 16-bit image at points and the disparity probe (the reference of
 * cuda/features/vf_sample.cu). */
#include "features/kernels/vf_sample_cpu.h"

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

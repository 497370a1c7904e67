// SPDX-License-Identifier: BSD-3-Clause
/* CPU twin of cuda/vf_sample.cu: nearest-pixel reads of a 16-bit image at points. */
#ifndef VF_SAMPLE_CPU_H
#define VF_SAMPLE_CPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define VF_HOST_DEVICE __host__ __device__
#else
#define VF_HOST_DEVICE
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The pixel index a coordinate reads, or -1 when it falls outside 0..size-1 or is not finite.
 * Shared by both backends so that they round identically. */
VF_HOST_DEVICE static inline int vf_sample_index(float v, int size) {
  if (!(v > -0.5f && v < (float)size - 0.5f)) return -1;
  return (int)(v + 0.5f);
}

void vf_cpu_gather_u16(const uint16_t* image, size_t stride_bytes, int width, int height,
                       const float* xy, int count, uint16_t outside, uint16_t* values);

#ifdef __cplusplus
}
#endif
#endif

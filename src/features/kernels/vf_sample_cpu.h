// SPDX-License-Identifier: BSD-3-Clause
/* CPU twin of cuda/features/vf_sample.cu: nearest-pixel reads of a 16-bit image at points, and the
 * disparity probe (depth edges and occlusion around a point). */
#ifndef VF_SAMPLE_CPU_H
#define VF_SAMPLE_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/vf_parallel.h"
#include "viofront/vf_sampler.h"

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

VF_HOST_DEVICE static inline uint16_t vf_probe_at(const uint16_t* image, size_t stride_bytes, int x,
                                                  int y) {
  return *(const uint16_t*)((const uint8_t*)image + (size_t)y * stride_bytes + (size_t)x * 2);
}

/* The probe of one point (vf_sampler_probe_disparity); integer arithmetic only, shared by both
 * backends so that they agree bit for bit. */
VF_HOST_DEVICE static inline vf_disparity_probe vf_probe_point(const uint16_t* image,
                                                               size_t stride_bytes, int width,
                                                               int height, float px, float py,
                                                               const vf_disparity_probe_config* c) {
  vf_disparity_probe p = {c->invalid, 0, 0, 0};
  const int x = vf_sample_index(px, width), y = vf_sample_index(py, height), r = c->radius;
  if (x < 0 || y < 0) {
    p.holes = (uint16_t)((2 * r + 1) * (2 * r + 1));
    return p;
  }
  p.value = vf_probe_at(image, stride_bytes, x, y);
  /* Steps between consecutive valid pixels along the window's rows and columns: holes (an
   * occlusion band, which the stereo check leaves invalid) do not hide the step across them. */
  int holes = 0, jump = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (int a = -r; a <= r; ++a) {
      int last = -1;
      for (int b = -r; b <= r; ++b) {
        const int xx = pass == 0 ? x + b : x + a, yy = pass == 0 ? y + a : y + b;
        const int inside = xx >= 0 && yy >= 0 && xx < width && yy < height;
        const int v = inside ? vf_probe_at(image, stride_bytes, xx, yy) : c->invalid;
        if (v == c->invalid) {
          holes += pass == 0;
          continue;
        }
        const int d = last < 0 ? 0 : v > last ? v - last : last - v;
        if (d > jump) jump = d;
        last = v;
      }
    }
  }
  p.holes = (uint16_t)holes;
  p.jump = (uint16_t)jump;
  if (p.value == c->invalid) return p;
  /* Pixel x + k matches x + k - v / 2^bits in the other image: at or left of this point's match
   * (within half a pixel) means it hides the match there when its disparity v is larger. */
  const int one = 1 << c->fractional_bits, half = one >> 1, d0 = p.value;
  int occluder = 0;
  for (int k = 1; k <= c->reach && x + k < width; ++k) {
    const int v = vf_probe_at(image, stride_bytes, x + k, y);
    if (v != c->invalid && k * one + d0 <= v + half && v > occluder) occluder = v;
  }
  p.occluder = (uint16_t)occluder;
  return p;
}

/* vf_disparity_refine_point (src/features/kernels/vf_disparity_rules.h), the same bits, its
 * smoothing in integer vectors. */
float vf_cpu_disparity_refine_point(const uint8_t* left, size_t left_stride, const uint8_t* right,
                                    size_t right_stride, int width, int height, float x, float y,
                                    float d0, const vf_disparity_refine_config* c);

/* out[i] = vf_disparity_refine_point (src/features/kernels/vf_disparity_rules.h) of point i,
 * points split over the pool's threads; start may be out (each point reads its start first). */
void vf_cpu_refine_disparity(const uint8_t* left, size_t left_stride, const uint8_t* right,
                             size_t right_stride, int width, int height, const float* xy,
                             const float* start, int count, const vf_disparity_refine_config* c,
                             float* out, vf_pool* pool);

void vf_cpu_probe_disparity(const uint16_t* image, size_t stride_bytes, int width, int height,
                            const float* xy, int count, const vf_disparity_probe_config* config,
                            vf_disparity_probe* out);

#ifdef __cplusplus
}
#endif
#endif

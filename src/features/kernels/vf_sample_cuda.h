// SPDX-License-Identifier: BSD-3-Clause
/* C ABI of cuda/features/vf_sample.cu (compiled in with VF_HAVE_CUDA). Returns a cudaError_t as
 * int. */
#ifndef VF_SAMPLE_CUDA_H
#define VF_SAMPLE_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "viofront/vf_sampler.h"

#ifdef __cplusplus
extern "C" {
#endif

/* values[i] = image at the nearest pixel of xy[i] or `outside`; image and values in device
 * memory, xy in device or mapped pinned memory. */
int vf_cuda_gather_u16(const uint16_t* image, size_t stride_bytes, int width, int height,
                       const float* xy, int count, uint16_t outside, uint16_t* values,
                       void* stream);
/* out[i] = vf_probe_point of xy[i] (src/features/kernels/vf_sample_cpu.h), one warp per point;
 * image in device memory, xy and out in device or mapped pinned memory, config a host struct
 * passed by value to the kernel. */
int vf_cuda_probe_disparity(const uint16_t* image, size_t stride_bytes, int width, int height,
                            const float* xy, int count, const vf_disparity_probe_config* config,
                            vf_disparity_probe* out, void* stream);

/* out[i] = the disparity vf_disparity_refine_point (src/features/kernels/vf_disparity_rules.h)
 * finds at xy[i] from start[i], one warp per point (cuda/features/vf_disparity_refine.cu: its
 * sums in another order, so within a small tolerance of the CPU's). Images, start and out in
 * device memory, xy in device or mapped pinned memory, config by value. */
int vf_cuda_refine_disparity(const uint8_t* left, size_t left_stride, const uint8_t* right,
                             size_t right_stride, int width, int height, const float* xy,
                             const float* start, int count,
                             const vf_disparity_refine_config* config, float* out, void* stream);

/* Both of the above in one launch, each point on one warp: probes[i] = vf_probe_point of xy[i] in
 * the map (of the images' size), then out[i] = the match from the probe's value (NAN where it is
 * probe->invalid). xy, probes and out in device or mapped pinned memory. */
int vf_cuda_probe_refine_disparity(const uint16_t* map, size_t map_stride, const uint8_t* left,
                                   size_t left_stride, const uint8_t* right, size_t right_stride,
                                   int width, int height, const float* xy, int count,
                                   const vf_disparity_probe_config* probe,
                                   const vf_disparity_refine_config* config,
                                   vf_disparity_probe* probes, float* out, void* stream);

#ifdef __cplusplus
}
#endif
#endif

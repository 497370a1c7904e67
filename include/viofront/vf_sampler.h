// SPDX-License-Identifier: BSD-3-Clause
/* Reads the values of a 16-bit image (a disparity map) at a list of points, on the image's
 * backend: the frontend uses it to attach disparities to features without copying the whole
 * map to the host. Nearest pixel: (x, y) reads pixel (floor(x + 0.5), floor(y + 0.5)); points
 * outside the image or not finite read `outside`. */
#ifndef VF_SAMPLER_H
#define VF_SAMPLER_H

#include <stdint.h>

#include <viofront/vf_context.h>
#include <viofront/vf_image.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vf_sampler vf_sampler;

/* max_points: the most points one call reads, 1..1048576; device buffers for them are
 * allocated here (CUDA backend), so sampling allocates nothing. */
VF_API vf_status vf_sampler_create(vf_context* ctx, int max_points, vf_sampler** out);
VF_API void vf_sampler_destroy(vf_sampler* sampler);

/* values[i] = image(round(xy[2i]), round(xy[2i+1])) or `outside`. image: U16, host memory on
 * the CPU backend, host or device memory on CUDA. xy and values are host arrays; synchronous. */
VF_API vf_status vf_sampler_gather_u16(vf_sampler* sampler, const vf_image* image, const float* xy,
                                       int count, uint16_t outside, uint16_t* values);

VF_API const char* vf_sampler_last_error(const vf_sampler* sampler);

#ifdef __cplusplus
}
#endif
#endif

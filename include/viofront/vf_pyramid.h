// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * Image pyramid: level 0 is a copy of the input, each further level halves width and height
 * (rounded down) with a 2x2 box filter that rounds half up: (a + b + c + d + 2) >> 2, so the
 * CPU and CUDA backends agree bit for bit. All levels live in the context's memory (device
 * memory on CUDA), allocated once at create time. */
#ifndef VF_PYRAMID_H
#define VF_PYRAMID_H

#include <viofront/vf_context.h>
#include <viofront/vf_image.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The most levels a pyramid can have. */
#define VF_PYRAMID_MAX_LEVELS 8

/** Pyramid size and depth (vf_pyramid_config_default()). */
typedef struct vf_pyramid_config {
  int width;  /**< level-0 size, > 0 */
  int height; /**< level-0 height, > 0 */
  int levels; /**< 1..VF_PYRAMID_MAX_LEVELS; the smallest level must be at least 1x1 */
} vf_pyramid_config;

/** An image pyramid (opaque), its levels in the context's memory. */
typedef struct vf_pyramid vf_pyramid;

/** 752x480 (EuRoC), 4 levels. */
VF_API vf_pyramid_config vf_pyramid_config_default(void);
/** Validates the configuration and allocates every level. */
VF_API vf_status vf_pyramid_create(vf_context* ctx, const vf_pyramid_config* config,
                                   vf_pyramid** out);
/** Frees everything; safe on NULL. */
VF_API void vf_pyramid_destroy(vf_pyramid* pyramid);

/** Builds all levels from an 8-bit image of the configured size, on host or device. On CUDA
 * the work is queued on the context's stream (one upload for host input, one kernel). */
VF_API vf_status vf_pyramid_build(vf_pyramid* pyramid, const vf_image* image);

/** A view of level `level` (in the context's memory: device memory on CUDA). */
VF_API vf_status vf_pyramid_level(const vf_pyramid* pyramid, int level, vf_image* view);
/** Number of levels (0 for NULL). */
VF_API int vf_pyramid_levels(const vf_pyramid* pyramid);
/** The message of this pyramid's last failure; "" when none. */
VF_API const char* vf_pyramid_last_error(const vf_pyramid* pyramid);

#ifdef __cplusplus
}
#endif
#endif

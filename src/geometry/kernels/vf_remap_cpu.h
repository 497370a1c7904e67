// SPDX-License-Identifier: BSD-3-Clause
/* CPU remap: bilinear interpolation through a fixed-point map (see vf_rectify.h). */
#ifndef VF_REMAP_CPU_H
#define VF_REMAP_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/vf_parallel.h"

/* map: per output pixel (sx, sy) in 1/256 pixel, -1 = outside; map_stride entries per row.
 * The integer formula is shared with cuda/geometry/vf_remap.cu so that both agree bit for bit. */
void vf_cpu_remap_u8(const uint8_t* src, size_t src_stride, int src_w, int src_h,
                     const int32_t* map, int map_stride, uint8_t* dst, size_t dst_stride, int dst_w,
                     int dst_h, uint8_t fill, vf_pool* pool);

#endif

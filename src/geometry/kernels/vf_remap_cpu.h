// SPDX-License-Identifier: BSD-3-Clause
/* CPU remap: bilinear interpolation through a fixed-point map (see vf_rectify.h). */
#ifndef VF_REMAP_CPU_H
#define VF_REMAP_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/vf_parallel.h"
#include "viofront/vf_status.h"

/* The map unpacked for the CPU kernel, once per remap: per output pixel the source's top-left
 * byte offset, the weights of the right column and the lower row (0..256; the last column and
 * row become weight 256 on their left or upper neighbour, so no read needs a clamp), and a fill
 * mask. Offsets hold for one source stride and are recomputed when another arrives. */
typedef struct vf_remap_cpu_plan vf_remap_cpu_plan;

/* map: per output pixel (sx, sy) in 1/256 pixel, -1 = outside; map_stride entries per row.
 * The map must outlive the plan. VF_ERR_NOMEM when an allocation fails. */
vf_status vf_cpu_remap_plan_create(const int32_t* map, int map_stride, int out_w, int out_h,
                                   int src_w, int src_h, vf_remap_cpu_plan** out);
void vf_cpu_remap_plan_destroy(vf_remap_cpu_plan* plan);

/* src is src_w x src_h and dst out_w x out_h of the plan. The integer formula is shared with
 * cuda/geometry/vf_remap.cu so that both agree bit for bit. */
void vf_cpu_remap_u8(vf_remap_cpu_plan* plan, const uint8_t* src, size_t src_stride, uint8_t* dst,
                     size_t dst_stride, uint8_t fill, vf_pool* pool);

#endif

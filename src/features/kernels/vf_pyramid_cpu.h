// SPDX-License-Identifier: BSD-3-Clause
/* The CPU backend's stage functions (the reference implementations). */
#ifndef VF_PYRAMID_CPU_H
#define VF_PYRAMID_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/vf_parallel.h"

/* One 2x2 round-half-up box downsampling: dst is floor(w/2) x floor(h/2). */
void vf_cpu_downsample2(const uint8_t* src, size_t src_stride, int src_w, int src_h, uint8_t* dst,
                        size_t dst_stride, vf_pool* pool);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* What the remap's files share: the handle (src/geometry/vf_remap.c makes it,
 * src/geometry/vf_remap_batch.c queues several at once). */
#ifndef VF_REMAP_INTERNAL_H
#define VF_REMAP_INTERNAL_H

#include "core/vf_context_internal.h"
#include "geometry/kernels/vf_remap_cpu.h"
#include "viofront/vf_rectify.h"

struct vf_remap {
  vf_error err;
  vf_context* ctx;
  vf_remap_config config;
  int map_stride;     /* entries per map row: out_width rounded up to 4 (16-byte GPU loads) */
  int32_t* map_host;  /* (sx, sy) per entry; kept on CUDA too, for vf_remap_lookup */
  uint32_t* plan_dev; /* CUDA: the map's plan (vf_remap_plan_pack), the same size as the map */
  vf_remap_cpu_plan* cpu_plan; /* CPU backend: the map unpacked for the CPU kernel */
  vf_image stage_src; /* CUDA: device copies of host input and output, made at create time */
  vf_image stage_dst;
};

/* vf_remap_apply's checks of its images (sizes, format, aliasing); the message in r's error. */
vf_status vf_remap_check_apply(vf_remap* r, const vf_image* src, const vf_image* dst);

#endif

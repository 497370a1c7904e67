// SPDX-License-Identifier: BSD-3-Clause
/* The C ABI of the CUDA remap (cuda/geometry/vf_remap.cu, extern "C"); only compiled in with
 * VF_HAVE_CUDA. Returns a cudaError_t as int (0 = success). */
#ifndef VF_REMAP_CUDA_H
#define VF_REMAP_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The result of vf_cpu_remap_u8 (src/geometry/kernels/vf_remap_cpu.h) from the map's plan
 * (vf_remap_plan_pack, src/geometry/kernels/vf_remap_plan_cuda.h, for this src_w x src_h), all
 * pointers in device memory; plan_stride (entries a row) must be a multiple of 4 and the plan
 * 16-byte aligned. One launch queued on `stream`. */
int vf_cuda_remap_u8(const uint8_t* src, size_t src_stride, int src_w, int src_h,
                     const uint32_t* plan, int plan_stride, uint8_t* dst, size_t dst_stride,
                     int dst_w, int dst_h, uint8_t fill, void* stream);

#ifdef __cplusplus
}
#endif
#endif

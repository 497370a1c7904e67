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

/* One remap of a batch: vf_cuda_remap_u8's arguments. */
typedef struct vf_cuda_remap_job {
  const uint8_t* src;
  const uint32_t* plan;
  uint8_t* dst;
  size_t src_stride, dst_stride;
  int src_w, src_h, plan_stride, dst_w, dst_h;
  uint8_t fill;
} vf_cuda_remap_job;

/* The jobs one launch takes (the kernel's argument stays well under 4 KB). */
#define VF_CUDA_REMAP_BATCH_MAX 32

/* vf_cuda_remap_u8 of each job, the same pixels, in as few launches as it can (one for up to
 * VF_CUDA_REMAP_BATCH_MAX jobs; a job with a source under 2x2 or beyond 31-bit offsets in a launch
 * of its own), queued on `stream`. */
int vf_cuda_remap_u8_batch(const vf_cuda_remap_job* jobs, int n, void* stream);

#ifdef __cplusplus
}
#endif
#endif

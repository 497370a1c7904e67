// SPDX-License-Identifier: BSD-3-Clause
/* The C ABI of the CUDA local stereo methods (cuda/stereo/vf_zncc.cu, vf_fastdt.cu,
 * vf_cyclops.cu). Only compiled in with VF_HAVE_CUDA. Every pointer is device memory; work is
 * queued on `stream`; functions return a cudaError_t as int (0 = success). */
#ifndef VF_LOCAL_CUDA_H
#define VF_LOCAL_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "stereo/kernels/vf_local_rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ZNCC window terms of both images (as vf_cpu_zncc_window_sums). sums/vars: two w*h arrays each,
 * left then right. integral: via summed-area tables in `sat` (4 * (w+1) * (h+1) words). */
int vf_cuda_zncc_window_sums(const vf_local_pair* p, int radius, int integral, uint32_t* sat,
                             uint16_t* sums, uint32_t* vars, void* stream);

/* Z2-ZNCC costs into the volume (8-bit codes when pack8, else 16-bit), disparity fastest. */
int vf_cuda_zncc_costs(const vf_local_pair* p, int radius, const uint16_t* sums,
                       const uint32_t* vars, void* volume, int pack8, void* stream);

/* Census cost codes from the census words of cuda/stereo/vf_census.cu (w*h each: 32-bit words for
 * the centre-symmetric census, full = 0; 64-bit for the full one, full = 1). */
int vf_cuda_census_costs(const vf_local_pair* p, const void* census_l, const void* census_r,
                         int full, void* volume, int pack8, void* stream);

/* FastDT's four passes, the last fused with winner-takes-all; weights: 256 Q15 words. */
int vf_cuda_fastdt(const vf_local_pair* p, const uint16_t* weights, void* volume, int pack8,
                   uint16_t* disparity, size_t disparity_stride, void* stream);

/* Winner-takes-all on the volume alone. */
int vf_cuda_wta(const vf_local_pair* p, const void* volume, int pack8, uint16_t* disparity,
                size_t disparity_stride, void* stream);

/* Cyclops2 search: shared_row != 0 for the shared-memory one-row kernel (the rows must fit
 * VF_LOCAL_SHARED_ROW_BYTES), else the global-memory kernel. */
int vf_cuda_cyclops(const vf_local_pair* p, const vf_local_cyclops* c, int shared_row,
                    uint16_t* disparity, size_t disparity_stride, void* stream);

/* 3x3 median, borders replicated. */
int vf_cuda_median3(const uint16_t* src, size_t src_stride, int w, int h, uint16_t* dst,
                    size_t dst_stride, void* stream);

/* Whole-pixel 16-bit disparities as float pixels, NaN where invalid (vf_stereo's float output). */
int vf_cuda_disparity_float(const uint16_t* in, size_t in_stride, int w, int h, float* out,
                            size_t out_stride, void* stream);

#ifdef __cplusplus
}
#endif
#endif

// SPDX-License-Identifier: BSD-3-Clause
/* The C ABI of the CUDA FAST detector (cuda/features/vf_fast.cu, extern "C"). Only compiled in with
 * VF_HAVE_CUDA. Functions return a cudaError_t as int (0 = success). */
#ifndef VF_FAST_CUDA_H
#define VF_FAST_CUDA_H

#include <stddef.h>

#include "features/kernels/vf_fast_cpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Responses, non-maxima suppression and the best keypoint per cell over every searched level
 * into job->cells: one launch, no response maps in global memory (cuda/features/vf_fast.cu). */
int vf_cuda_fast_detect(const vf_fast_job* job, void* stream);

/* The jobs one launch takes (the kernel's argument stays under 4 KB), and the most one call
 * takes. */
#define VF_CUDA_FAST_BATCH_MAX 8
#define VF_CUDA_FAST_BATCH_GROUPS 64

/* vf_cuda_fast_detect of each job, the same cells, in as few launches as it can: one for up to
 * VF_CUDA_FAST_BATCH_MAX jobs of one score, cells a block and level split; at most
 * VF_CUDA_FAST_BATCH_GROUPS jobs; queued on `stream`. */
int vf_cuda_fast_detect_batch(const vf_fast_job* jobs, int n, void* stream);

#ifdef __cplusplus
}
#endif
#endif

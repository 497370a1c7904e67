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

#ifdef __cplusplus
}
#endif
#endif

// SPDX-License-Identifier: BSD-3-Clause
/* The C ABI of the CUDA reference refinement (cuda/features/vf_affine.cu). Only compiled in with
 * VF_HAVE_CUDA; returns a cudaError_t as int (0 = success) like src/core/vf_cuda_runtime.h. */
#ifndef VF_AFFINE_CUDA_H
#define VF_AFFINE_CUDA_H

#include "features/kernels/vf_affine_rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Refines, in one launch on `stream`, the `count` frame-to-frame results in `results` (written
 * there by vf_cuda_lk_track earlier on the same stream) against the references of the requests'
 * slots. Requests and results are device addresses (mapped pinned memory), and so are the
 * images, slots and samples `params` names; `params` itself is host memory (kernel
 * parameters). */
int vf_cuda_affine_refine(const vf_affine_params* params, const vf_track_request* requests,
                          vf_track_result* results, int count, void* stream);

#ifdef __cplusplus
}
#endif
#endif

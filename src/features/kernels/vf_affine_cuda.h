// SPDX-License-Identifier: BSD-3-Clause
/* The C ABI of the CUDA reference refinement (cuda/features/vf_affine.cu). Only compiled in with
 * VF_HAVE_CUDA; returns a cudaError_t as int (0 = success) like src/core/vf_cuda_runtime.h. */
#ifndef VF_AFFINE_CUDA_H
#define VF_AFFINE_CUDA_H

#include "features/kernels/vf_affine_rules.h"
#include "features/kernels/vf_lk_rules.h"

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

/* vf_cuda_lk_track and vf_cuda_affine_refine in one launch, one block a feature: its first warp
 * tracks the feature frame to frame (results[i] as vf_cuda_lk_track writes it, the same bits),
 * then the block refines it. Each feature goes on to its refinement as soon as its own tracking
 * ends, instead of every feature waiting for the slowest one's; but a launch of more blocks than
 * the GPU holds at once (vf_cuda_track_refine_capacity) leaves three of a block's four warps idle
 * through that many more tracker rounds, so larger launches take the two kernels. */
int vf_cuda_track_refine(const vf_lk_params* lk, const vf_affine_params* params,
                         const vf_track_request* requests, vf_track_result* results, int count,
                         void* stream);

/* Features vf_cuda_track_refine runs at once on the current device (its blocks a multiprocessor
 * times the multiprocessors) for params' patch; 0 when the runtime cannot say. */
int vf_cuda_track_refine_capacity(const vf_affine_params* params);

#ifdef __cplusplus
}
#endif
#endif

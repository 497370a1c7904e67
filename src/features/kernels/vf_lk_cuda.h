// SPDX-License-Identifier: BSD-3-Clause
/* The C ABI of the CUDA tracker (cuda/features/vf_lk.cu). Only compiled in with VF_HAVE_CUDA;
 * returns a cudaError_t as int (0 = success) like src/core/vf_cuda_runtime.h. */
#ifndef VF_LK_CUDA_H
#define VF_LK_CUDA_H

#include "features/kernels/vf_lk_rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tracks `count` features in one launch on `stream`. `params` is host memory (it travels as the
 * kernel's parameters); the requests and results are device addresses (device memory or mapped
 * pinned host memory), and so are the images and templates the parameters name. */
int vf_cuda_lk_track(const vf_lk_params* params, const vf_track_request* requests,
                     vf_track_result* results, int count, void* stream);

/* The same with each forward result's backward check in the same warp (vf_lk_back_request;
 * `back_params` is `params` with the pyramids swapped): back_results[i] is its result, or
 * vf_lk_result_init's where the forward step did not converge. On sm_90 a kernel launched behind
 * this one may start once every forward result is written. */
int vf_cuda_lk_track_checked(const vf_lk_params* params, const vf_lk_params* back_params,
                             const vf_track_request* requests, vf_track_result* results,
                             vf_track_result* back_results, int from_guess, int count,
                             void* stream);

#ifdef __cplusplus
}
#endif
#endif

/* The C ABI of the CUDA tracker (cuda/vf_lk.cu). Only compiled in with VF_HAVE_CUDA; returns a
 * cudaError_t as int (0 = success) like src/vf_cuda_api.h. */
#ifndef VF_CUDA_LK_H
#define VF_CUDA_LK_H

#include "vf_tracker_lk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tracks `count` features in one launch on `stream`. Everything is in device memory: the
 * parameter block itself, the requests and results, the images and templates it names. */
int vf_cuda_lk_track(const vf_lk_params* params, const vf_track_request* requests,
                     vf_track_result* results, int count, void* stream);

/* Pinned host memory for the request/result staging buffers. */
int vf_cuda_lk_host_alloc(void** ptr, size_t bytes);
int vf_cuda_lk_host_free(void* ptr);

#ifdef __cplusplus
}
#endif
#endif

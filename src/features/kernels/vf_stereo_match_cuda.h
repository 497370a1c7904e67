// SPDX-License-Identifier: BSD-3-Clause
/* C ABI of cuda/features/vf_stereo_match.cu (compiled in with VF_HAVE_CUDA). Returns a
 * cudaError_t as int. */
#ifndef VF_STEREO_MATCH_CUDA_H
#define VF_STEREO_MATCH_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "viofront/vf_sampler.h"
#include "viofront/vf_tracker.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = the match of point xy[i] from prior[i] (src/features/kernels/vf_stereo_match_rules.h;
 * prior may be NULL: none). Images in device memory; xy, prior and out in device or mapped pinned
 * memory; config by value. The whole-pixel fields (result, zncc, spread) equal the CPU's bit for
 * bit; the disparity agrees within the refinement's tolerance. */
int vf_cuda_match_stereo(const uint8_t* left, size_t left_stride, const uint8_t* right,
                         size_t right_stride, int width, int height, const float* xy,
                         const float* prior, int count, const vf_stereo_match_config* config,
                         vf_stereo_match* out, void* stream);
/* The same at the tracked positions (x, y) of the tracker's results (device or mapped memory,
 * written by work queued before on the stream); a result that did not converge gets
 * VF_STEREO_MATCH_NONE. */
int vf_cuda_match_stereo_tracked(const uint8_t* left, size_t left_stride, const uint8_t* right,
                                 size_t right_stride, int width, int height,
                                 const vf_track_result* tracked, const float* prior, int count,
                                 const vf_stereo_match_config* config, vf_stereo_match* out,
                                 void* stream);

#ifdef __cplusplus
}
#endif
#endif

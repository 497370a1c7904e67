// SPDX-License-Identifier: BSD-3-Clause
/* The sampler's sparse stereo match in two halves (the library's own use: the frontend queues
 * the match and works on the host while the GPU matches). */
#ifndef VF_SAMPLER_INTERNAL_H
#define VF_SAMPLER_INTERNAL_H

#include "viofront/vf_sampler.h"
#include "viofront/vf_tracker.h"

/* vf_sampler_match_stereo's checks and its work queued (CUDA: the launch; CPU: the whole match,
 * into out); out must stay untouched until the collect, and the sampler unused. */
vf_status vf_sampler_match_stereo_submit(vf_sampler* s, const vf_image* left, const vf_image* right,
                                         const float* xy, const float* prior, int count,
                                         const vf_stereo_match_config* config,
                                         vf_stereo_match* out);
/* The same at the tracked positions of a tracking's results as vf_tracker_kernel_results gives
 * them (CUDA: the device address; the tracking queued on this sampler's stream before): a
 * result that did not converge gets no match (VF_STEREO_MATCH_NONE). The GPU matches before
 * the host has the tracking's results. Device images only (VF_ERR_UNSUPPORTED otherwise): the
 * CPU frame matches the tracked positions with vf_sampler_match_stereo_submit. */
vf_status vf_sampler_match_tracked_submit(vf_sampler* s, const vf_image* left,
                                          const vf_image* right, const vf_track_result* tracked,
                                          const float* prior, int count,
                                          const vf_stereo_match_config* config,
                                          vf_stereo_match* out);
/* Waits for the submitted match (CUDA) and writes its results; VF_ERR_STATE without a submit. */
vf_status vf_sampler_match_stereo_collect(vf_sampler* s);

#endif

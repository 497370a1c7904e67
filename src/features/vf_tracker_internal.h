// SPDX-License-Identifier: BSD-3-Clause
/* vf_tracker_track_checked in two halves, and where the backend's kernels read the latest
 * results (the library's own use: the frontend queues the sparse stereo matches of the tracked
 * points behind the tracking, before the host has its results). */
#ifndef VF_TRACKER_INTERNAL_H
#define VF_TRACKER_INTERNAL_H

#include "viofront/vf_tracker.h"

/* vf_tracker_track_checked's checks and work queued (the CPU backend tracks at once). */
vf_status vf_tracker_submit_checked(vf_tracker* t, const vf_pyramid* prev, const vf_pyramid* cur,
                                    const vf_track_request* requests, int count, int from_guess);
/* Its wait and results: the same requests, count and from_guess as the submit. */
vf_status vf_tracker_collect_checked(vf_tracker* t, const vf_track_request* requests, int count,
                                     int from_guess, vf_track_result* results,
                                     vf_track_result* back);
/* The latest submission's forward results as the backend's kernels address them (CUDA: the
 * device address of the mapped results, valid for work queued on the tracker's stream after
 * the submit; CPU: host memory, written by the submit). Not for the host on CUDA. */
const vf_track_result* vf_tracker_kernel_results(const vf_tracker* t);
/* CUDA: work was queued on the tracker's stream behind the latest submission; its collect then
 * waits for the submission alone, not for that work. */
void vf_tracker_note_work_behind(vf_tracker* t);
/* The pyramid levels each request of the next submission starts from (vf_lk_params.start_levels:
 * count bytes, 0 = all; a request that does not converge so is tracked again with all), read by
 * that submission; NULL or no call: all levels. The backward pass of a checked call, from the
 * forward result, always uses all. Exported (VF_API) for its test. */
VF_API void vf_tracker_set_start_levels(vf_tracker* t, const uint8_t* levels);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* Several detectors' detections queued at once (a rig's cameras in a frame, issue 37): on CUDA
 * one launch for all of them instead of one a camera. */
#ifndef VF_DETECTOR_BATCH_H
#define VF_DETECTOR_BATCH_H

#include "core/vf_context_internal.h"
#include "viofront/vf_detector.h"

/* The most detectors one submit takes. */
#define VF_DETECTOR_BATCH_MAX 64

/* A context's stream where batched detections are queued, and (CUDA) the event after them that
 * their detectors' collects wait for. */
typedef struct vf_detector_batch vf_detector_batch;

/* Exported (VF_API) for the GPU parity tests, like the submit below. */
VF_API vf_status vf_detector_batch_create(vf_context* ctx, vf_detector_batch** out);
VF_API void vf_detector_batch_destroy(vf_detector_batch* batch);

/* Each detectors[i] detects in pyramids[i] (every cell, no occupancy mask), as vf_detector_submit
 * would, for i < n: on CUDA queued on the batch context's stream in as few launches as it can (one
 * for up to 8 detectors of one score, cells a block and level split), the caller ordering that
 * stream after whatever wrote the pyramids; on the CPU each in turn. Each detector is then
 * collected as after its own submit (vf_detector_collect waits for the batch's launches, not the
 * detector's stream). A detector at most once a call; every job is checked before anything is
 * queued, and on an error (message in the thread's last error) none is pending. */
VF_API vf_status vf_detector_submit_batch(vf_detector_batch* batch, vf_detector* const* detectors,
                                          const vf_pyramid* const* pyramids, int n);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* Where the frame's rectified left image lives (its pyramid's level 0), and the frame's first
 * steps handed to a rig, which batches them over its cameras (issue 37): the two rectifications
 * and the pyramid, the same calls as the frame's own (vf_frontend_frame.c), so the same pixels. */
#include "core/vf_stage_clock.h"
#include "frontend/vf_frontend_internal.h"

void vf_frontend_bind_left(vf_frontend* fe) {
  /* Cannot fail: the pyramid exists and has a level 0. */
  (void)vf_pyramid_level(fe->pyramid[fe->cur], 0, &fe->rectified[0]);
}

void vf_frontend_prepare_jobs_of(vf_frontend* fe, const vf_image* left, const vf_image* right,
                                 vf_frontend_prepare_jobs* jobs) {
  vf_frontend_bind_left(fe);
  jobs->remap[0] = fe->remap[0];
  jobs->src[0] = left;
  jobs->dst[0] = &fe->rectified[0];
  jobs->remap[1] = fe->remap[1];
  jobs->src[1] = right;
  jobs->dst[1] = &fe->rectified[1];
  /* [cur] is the frame's (it becomes the previous one when the frame is done). */
  jobs->pyramid = fe->pyramid[fe->cur];
  jobs->pyramid_src = &fe->rectified[0];
}

vf_detector* vf_frontend_early_job(vf_frontend* fe, const vf_pyramid** pyramid) {
  *pyramid = fe->pyramid[fe->cur];
  if (fe->early_detector == NULL || !vf_feature_set_detection_due(fe->set, fe->sequence))
    return NULL;
  return fe->early_detector;
}

void vf_frontend_set_prepared(vf_frontend* fe, int prepared) { fe->prepared = prepared; }

int vf_frontend_track_ahead(vf_frontend* fe, int64_t t_ns) {
  if (!(fe->prepared & VF_FRONTEND_PREPARED_INPUTS)) return 0;
  /* The frame's clock starts here: its rectify and pyramid stages ran on the rig's stream. */
  vf_stage_clock_reset(&fe->clock);
  if (fe->side != NULL && vf_stream_link_signal(&fe->left_ready) != VF_OK) return 0;
  fe->prepared |= VF_FRONTEND_PREPARED_LEFT_LINKED;
  vf_stage_clock_mark(&fe->clock, VF_STAGE_TRACK);
  /* A failure leaves nothing queued (the frame tries again and fails with its message). */
  if (vf_frontend_track_submit(fe, t_ns) != VF_OK) return 0;
  fe->prepared |= VF_FRONTEND_PREPARED_TRACK;
  return 1;
}

int vf_frontend_prepare_pays(const vf_frontend* fe, const vf_image* left, const vf_image* right) {
  /* Without a side stream (sparse stereo, stereo off) the CUDA frame queues its right image after
   * the tracking (vf_frontend_right_late): a host image's upload, queued with every camera's before
   * any unit tracks, delayed them all (a sparse rig of 2 pairs with host input: 306-344 against
   * 255-275 us, docs/perf/rig.md). Device images have no upload to wait for. */
  const int host = left->location == VF_MEMORY_HOST || right->location == VF_MEMORY_HOST;
  return !(host && fe->side == NULL);
}

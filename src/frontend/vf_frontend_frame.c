// SPDX-License-Identifier: BSD-3-Clause
/* One frame of the frontend: rectify, pyramid, track (forward and backward), replenish, stereo,
 * feature records. On CUDA the right image's rectification and the stereo stage run on a second
 * stream (fe->side, the greatest priority; normal in a rig of several pairs), the right image
 * queued before the left one and SGM right after the left image is rectified, so that SGM overlaps
 * the pyramid, the tracking and the detection with their host round trips; the records wait for the
 * disparity map on the GPU. Sparse stereo on CUDA: the right image is rectified on a second stream
 * (fe->match_ctx) beside the tracking, the tracked tracks' matches are queued behind the tracking
 * on the main stream before the host waits for it, and the births' matches (known after the
 * detection) run on the second stream beside them; the host waits for both once, before the
 * records. Everything else is queued in order on the main stream, and the host waits only where it
 * needs results (tracking, detection, the feature records). */
#include <string.h>

#include "core/vf_stage_clock.h"
#include "features/vf_sampler_internal.h"
#include "frontend/vf_frontend_internal.h"

/* The stereo side of a frame on its own stream, in two parts: the right image first, queued
 * before the left one so that with page-locked input its upload is not behind the left's on the
 * copy engine (the stereo, not the tracking, bounds the frame), then (after the left one) the
 * disparity map. The main stream waits for it before the records. */
static vf_status vf_frontend_queue_right(vf_frontend* fe, const vf_image* right, int prepared) {
  vf_stage_clock* clk = &fe->side_clock;
  vf_stage_clock_reset(clk);
  vf_stage_clock_mark(clk, VF_SIDE_RECTIFY);
  if (prepared) return VF_OK;
  vf_status s = vf_remap_apply(fe->remap[1], right, &fe->rectified[1]);
  return s == VF_OK ? VF_OK : vf_fail(&fe->err, s, "rectification: %s", vf_last_error_message());
}

static vf_status vf_frontend_queue_stereo(vf_frontend* fe, int left_linked) {
  vf_stage_clock* clk = &fe->side_clock;
  vf_status s = left_linked ? VF_OK : vf_stream_link_signal(&fe->left_ready);
  if (s == VF_OK) s = vf_stage_clock_mark(clk, VF_SIDE_STEREO);
  if (s != VF_OK) return vf_fail(&fe->err, s, "stereo: %s", vf_last_error_message());
  s = vf_stereo_compute(fe->stereo, &fe->rectified[0], &fe->rectified[1], &fe->disparity, NULL);
  if (s != VF_OK) return vf_fail(&fe->err, s, "stereo: %s", vf_stereo_last_error(fe->stereo));
  vf_stage_clock_mark(clk, VF_SIDE_COUNT);
  s = vf_stream_link_record(&fe->stereo_done);
  return s == VF_OK ? VF_OK : vf_fail(&fe->err, s, "stereo: %s", vf_last_error_message());
}

/* On CUDA without a side stream (sparse stereo, or stereo off) the right image's rectification
 * is queued after the tracking, whose launch it would otherwise delay: nothing reads it before
 * the matching (sparse: on fe->match_ctx's stream, beside the tracking; stereo off: behind it,
 * its GPU time then in the track stage). The CPU keeps the order (the same work either way). */
static int vf_frontend_right_late(const vf_frontend* fe) {
  return fe->side == NULL && fe->ctx->backend == VF_BACKEND_CUDA && !fe->right_absent;
}

static vf_status vf_frontend_rectify_right(vf_frontend* fe, const vf_image* right) {
  vf_status s = vf_remap_apply(fe->remap[1], right, &fe->rectified[1]);
  /* Sparse stereo on CUDA rectifies on the matches' stream (beside the tracking): the main
   * stream's later work (the tracked tracks' matches, a dense map) waits for it there. */
  if (s == VF_OK && fe->match_ctx != NULL) s = vf_stream_link_signal(&fe->right_ready);
  return s == VF_OK ? VF_OK : vf_fail(&fe->err, s, "rectification: %s", vf_last_error_message());
}

/* The steps on the main stream, each marked on the stage clock. */
static vf_status vf_frontend_queue_main(vf_frontend* fe, int64_t t_ns, const vf_image* left,
                                        const vf_image* right, int* lost, int* added) {
  vf_stage_clock* clk = &fe->clock;
  /* A rig queued both rectifications and the pyramid already (vf_frontend_set_prepared), and
   * maybe the tracking too (vf_frontend_track_ahead: the clock's marks start at the tracking). */
  const int early_batched = (fe->prepared & VF_FRONTEND_PREPARED_EARLY) != 0;
  const int prepared = (fe->prepared & VF_FRONTEND_PREPARED_INPUTS) != 0;
  const int tracked_ahead = (fe->prepared & VF_FRONTEND_PREPARED_TRACK) != 0;
  const int left_linked = (fe->prepared & VF_FRONTEND_PREPARED_LEFT_LINKED) != 0;
  fe->prepared = 0;
  if (!tracked_ahead) vf_stage_clock_mark(clk, VF_STAGE_RECTIFY);
  if (!prepared) vf_frontend_bind_left(fe);
  vf_status s = VF_OK;
  if (fe->side != NULL) {
    s = vf_frontend_queue_right(fe, right, prepared);
    if (s != VF_OK) return s;
  }
  if (!prepared) s = vf_remap_apply(fe->remap[0], left, &fe->rectified[0]);
  if (s != VF_OK) return vf_fail(&fe->err, s, "rectification: %s", vf_last_error_message());
  const int right_late = !prepared && vf_frontend_right_late(fe);
  if (!prepared && fe->side == NULL && !fe->right_absent && !right_late) {
    s = vf_frontend_rectify_right(fe, right);
    if (s != VF_OK) return s;
  }
  /* A tracking queued ahead is finished even when a step before it fails (below). */
  if (fe->side != NULL) {
    s = vf_frontend_queue_stereo(fe, left_linked);
    if (s != VF_OK && !tracked_ahead) return s;
  }
  if (!tracked_ahead) vf_stage_clock_mark(clk, VF_STAGE_PYRAMID);
  if (!prepared) s = vf_pyramid_build(fe->pyramid[fe->cur], &fe->rectified[0]);
  if (s != VF_OK && !prepared) return vf_fail(&fe->err, s, "pyramid: %s", vf_last_error_message());
  if (s == VF_OK) s = vf_frontend_detect_early(fe, early_batched);
  if (s != VF_OK && !tracked_ahead) return s;
  if (tracked_ahead) {
    /* Queued before this call: the tracks changed with it. */
    fe->frame_committed = fe->frame_committed || fe->tracking;
  } else {
    vf_stage_clock_mark(clk, VF_STAGE_TRACK);
    s = vf_frontend_track_submit(fe, t_ns);
  }
  if (s == VF_OK && right_late) s = vf_frontend_rectify_right(fe, right);
  /* Sparse stereo on CUDA: the tracked tracks' matches right behind the tracking, so that the
   * GPU matches while the host takes the tracking's results and detects (their GPU time then
   * counts in the track stage). A tracking queued is finished even when this failed, so that
   * the set matches the frame. */
  if (s == VF_OK) s = vf_frontend_queue_tracked_matches(fe);
  const vf_status tracked = vf_frontend_track_finish(fe, lost);
  if (s == VF_OK) s = tracked;
  vf_stage_clock_mark(clk, VF_STAGE_DETECT);
  int assessed = 0;
  if (s == VF_OK) s = vf_frontend_replenish(fe, added, &assessed);
  /* Sparse stereo: the live tracks' matches queued (the stereo stage's GPU time), and the
   * rigid-motion check's arithmetic on the host meanwhile, unless it ran beside the detection.
   * With a side stream (dense) this stage is only the main stream's wait for the map; the
   * stereo stage's own time comes from the side clock. */
  vf_stage_clock_mark(clk, VF_STAGE_STEREO);
  if (s == VF_OK) s = vf_frontend_queue_matches(fe);
  if (s == VF_OK && !assessed) vf_frontend_rigid_assess(fe);
  /* The tracks the rigid-motion check ends; their cells are refilled at the next detection. New
   * tracks have no sum (no previous disparity), so the check's result is the same whether they
   * were added before it ran or not. */
  int slid = 0;
  if (s == VF_OK) s = vf_frontend_rigid_apply(fe, &slid);
  *lost += slid;
  /* The birth check may still remove tracks after stereo: then the left records wait for it. */
  const int births_checked = vf_frontend_checks_births(&fe->cfg);
  if (s == VF_OK && !births_checked) vf_frontend_build_left_records(fe, t_ns);
  if (s == VF_OK && fe->side != NULL) {
    s = vf_stream_link_wait(&fe->stereo_done);
    if (s != VF_OK) s = vf_fail(&fe->err, s, "stereo: %s", vf_last_error_message());
  } else if (s == VF_OK && vf_frontend_map_frame(fe)) {
    s = vf_stereo_compute(fe->stereo, &fe->rectified[0], &fe->rectified[1], &fe->disparity, NULL);
    if (s != VF_OK) s = vf_fail(&fe->err, s, "stereo: %s", vf_stereo_last_error(fe->stereo));
  }
  vf_stage_clock_mark(clk, VF_STAGE_FEATURES);
  int dropped = 0, late = 0;
  if (s == VF_OK) s = vf_frontend_settle_births(fe, &dropped, &late);
  *added += late - dropped;
  if (s == VF_OK && births_checked) vf_frontend_build_left_records(fe, t_ns);
  if (s == VF_OK) s = vf_frontend_build_records(fe, t_ns);
  /* The records are the host's work: the frame ends on the host's clock, so that reading the
   * clock does not wait for an event recorded just now (a round trip of about 5 us on the
   * H200, docs/perf/sparse_stereo.md). */
  vf_stage_clock_mark_host(clk, VF_STAGE_COUNT);
  return s;
}

vf_status vf_frontend_run_frame(vf_frontend* fe, int64_t t_ns, const vf_image* left,
                                const vf_image* right, vf_stage_times* times) {
  if (!(fe->prepared & VF_FRONTEND_PREPARED_TRACK)) vf_stage_clock_reset(&fe->clock);
  int lost = 0, added = 0;
  vf_status s = vf_frontend_queue_main(fe, t_ns, left, right, &lost, &added);
  double ms[VF_STAGE_CLOCK_MAX_MARKS], side_ms[VF_STAGE_CLOCK_MAX_MARKS];
  if (s == VF_OK) s = vf_stage_clock_read(&fe->clock, ms);
  if (s == VF_OK && fe->side != NULL) s = vf_stage_clock_read(&fe->side_clock, side_ms);
  if (s != VF_OK) {
    /* The side streams may still read this frame's images and pyramid: the next frame must not
     * write them first. A failure of these waits adds nothing to the frame's error. */
    if (fe->side != NULL) vf_context_synchronize(fe->side);
    if (fe->early_ctx != NULL) vf_context_synchronize(fe->early_ctx);
    if (fe->match_ctx != NULL) vf_context_synchronize(fe->match_ctx);
    fe->early_pending = 0;
    vf_frontend_drop_matches(fe);
    return s;
  }
  memset(times, 0, sizeof *times);
  times->rectify_ms = ms[VF_STAGE_RECTIFY];
  times->pyramid_ms = ms[VF_STAGE_PYRAMID];
  times->track_ms = ms[VF_STAGE_TRACK];
  times->detect_ms = ms[VF_STAGE_DETECT];
  times->stereo_ms = ms[VF_STAGE_STEREO];
  times->features_ms = ms[VF_STAGE_FEATURES];
  if (fe->side != NULL) {
    /* GPU time of each stage, wherever it ran: the stages overlap, so they add up to more than
     * the frame. */
    times->rectify_ms += side_ms[VF_SIDE_RECTIFY];
    times->stereo_ms = side_ms[VF_SIDE_STEREO];
  }
  fe->frame_lost = lost;
  fe->frame_added = added;
  return VF_OK;
}

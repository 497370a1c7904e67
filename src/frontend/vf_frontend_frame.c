// SPDX-License-Identifier: BSD-3-Clause
/* One frame of the frontend: rectify, pyramid, track (forward and backward), replenish, stereo,
 * feature records. The order keeps the GPU busy with one stream: everything is queued in
 * sequence and the host waits only where it needs results (tracking, detection, the feature
 * records). */
#include <string.h>

#include "core/vf_stage_clock.h"
#include "frontend/vf_frontend_internal.h"

vf_status vf_frontend_run_frame(vf_frontend* fe, int64_t t_ns, const vf_image* left,
                                const vf_image* right, vf_stage_times* times) {
  vf_stage_clock* clk = &fe->clock;
  vf_stage_clock_reset(clk);
  vf_stage_clock_mark(clk, VF_STAGE_RECTIFY);
  vf_status s = vf_remap_apply(fe->remap[0], left, &fe->rectified[0]);
  if (s == VF_OK) s = vf_remap_apply(fe->remap[1], right, &fe->rectified[1]);
  if (s != VF_OK) return vf_fail(&fe->err, s, "rectification: %s", vf_last_error_message());
  vf_stage_clock_mark(clk, VF_STAGE_PYRAMID);
  s = vf_pyramid_build(fe->pyramid[fe->cur], &fe->rectified[0]);
  if (s != VF_OK) return vf_fail(&fe->err, s, "pyramid: %s", vf_last_error_message());

  int lost = 0, added = 0;
  vf_stage_clock_mark(clk, VF_STAGE_TRACK);
  s = vf_frontend_track_all(fe, t_ns, &lost);
  vf_stage_clock_mark(clk, VF_STAGE_DETECT);
  if (s == VF_OK) s = vf_frontend_replenish(fe, &added);
  vf_stage_clock_mark(clk, VF_STAGE_STEREO);
  if (s == VF_OK && fe->cfg.stereo_enabled) {
    s = vf_stereo_compute(fe->stereo, &fe->rectified[0], &fe->rectified[1], &fe->disparity, NULL);
    if (s != VF_OK) s = vf_fail(&fe->err, s, "stereo: %s", vf_stereo_last_error(fe->stereo));
  }
  vf_stage_clock_mark(clk, VF_STAGE_FEATURES);
  int dropped = 0;
  if (s == VF_OK) s = vf_frontend_drop_edge_births(fe, &dropped);
  added -= dropped;
  if (s == VF_OK) s = vf_frontend_build_records(fe, t_ns);
  vf_stage_clock_mark(clk, VF_STAGE_COUNT);
  double ms[VF_STAGE_CLOCK_MAX_MARKS];
  if (s == VF_OK) s = vf_stage_clock_read(clk, ms);
  if (s != VF_OK) return s;
  memset(times, 0, sizeof *times);
  times->rectify_ms = ms[VF_STAGE_RECTIFY];
  times->pyramid_ms = ms[VF_STAGE_PYRAMID];
  times->track_ms = ms[VF_STAGE_TRACK];
  times->detect_ms = ms[VF_STAGE_DETECT];
  times->stereo_ms = ms[VF_STAGE_STEREO];
  times->features_ms = ms[VF_STAGE_FEATURES];
  fe->frame_lost = lost;
  fe->frame_added = added;
  return VF_OK;
}

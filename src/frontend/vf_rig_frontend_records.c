// SPDX-License-Identifier: BSD-3-Clause
/* What a rig frontend's unit keeps of its frame for the calling thread: the feature frame with
 * its records relabelled for the rig (rig camera indices, rig-wide track ids), the disparity
 * frame, and the log messages. Units may run at once on the pool's threads, so nothing here
 * reaches the user: vf_rig_frontend_process hands it on afterwards, in unit order. */
#include <stdio.h>
#include <string.h>

#include "frontend/vf_rig_frontend_internal.h"

void vf_rig_unit_on_features(const vf_feature_frame* frame, void* user) {
  vf_rig_slot* u = user;
  const uint64_t unit_bits = (uint64_t)u->index << VF_RIG_FRONTEND_ID_SHIFT;
  /* The records array holds 2 x max_features, which bounds what a unit's frame holds. */
  memcpy(u->records, frame->features, sizeof *u->records * (size_t)frame->count);
  for (int i = 0; i < frame->count; ++i) {
    vf_feature* r = &u->records[i];
    r->camera = r->camera == 0 ? u->info.camera : u->info.right_camera;
    r->id |= unit_bits;
  }
  u->frame = *frame;
  u->frame.features = u->records;
  if (u->info.pair < 0) {
    /* A mono unit's right camera is the stand-in of vf_rig_frontend.c: no geometry to report. */
    u->frame.baseline_m = 0.0;
    memcpy(u->frame.R2, u->frame.R1, sizeof u->frame.R2);
  }
  u->has_frame = 1;
}

/* The map and the image stay in the unit's buffers until its next frame, so the frame (which
 * points at them) can be handed on after vf_frontend_process returned. */
void vf_rig_unit_on_disparity(const vf_disparity_frame* frame, void* user) {
  vf_rig_slot* u = user;
  u->disparity = *frame;
  u->has_disparity = 1;
}

void vf_rig_unit_on_log(vf_log_level level, const char* message, void* user) {
  vf_rig_unit_log* log = &((vf_rig_slot*)user)->log;
  if (log->count == VF_RIG_UNIT_LOG_MAX) {
    log->dropped++;
    return;
  }
  log->level[log->count] = level;
  snprintf(log->text[log->count], sizeof log->text[0], "%s", message);
  log->count++;
}

// SPDX-License-Identifier: BSD-3-Clause
/* What the rig frontend's files share: the handle and its units. Each unit is a vf_frontend of
 * its own on a view of the rig's context (the same worker pool; on CUDA a stream of its own; a
 * log of its own), so that units can run at once on the pool's threads, and on CUDA overlap on
 * the GPU: their records and log messages are kept per unit and handed on, in unit order, on the
 * calling thread. */
#ifndef VF_RIG_FRONTEND_INTERNAL_H
#define VF_RIG_FRONTEND_INTERNAL_H

#include "core/vf_context_internal.h"
#include "core/vf_stream_link.h"
#include "viofront/vf_rig_frontend.h"

/* Log messages a unit keeps from one frame; more are counted, not kept. */
#define VF_RIG_UNIT_LOG_MAX 4
#define VF_RIG_UNIT_LOG_CHARS 256

typedef struct vf_rig_unit_log {
  int count, dropped;
  vf_log_level level[VF_RIG_UNIT_LOG_MAX];
  char text[VF_RIG_UNIT_LOG_MAX][VF_RIG_UNIT_LOG_CHARS];
} vf_rig_unit_log;

typedef struct vf_rig_slot {
  vf_rig_unit info;
  int index;
  vf_context* view; /* the rig's context with this unit's log (and CUDA stream) */
  vf_frontend* fe;
  /* The rig's stream before the unit's frame (device images the user queued there), and the
   * unit's stream before the rig's later work (its device results): CUDA events. */
  vf_stream_link fork, join;
  vf_rig_unit_log log;
  /* this frame's results, copied out of the unit's callbacks */
  vf_feature* records; /* 2 x features.max_features */
  vf_feature_frame frame;
  vf_disparity_frame disparity;
  int has_frame, has_disparity;
  vf_status status; /* of this frame's vf_frontend_process */
} vf_rig_slot;

struct vf_rig_frontend {
  vf_error err;
  vf_context* ctx;
  vf_rig rig;
  vf_rig_frontend_callbacks cb;
  int unit_count;
  vf_rig_slot units[VF_RIG_MAX_CAMERAS];
  int64_t imu_lead_ns; /* the largest unit's IMU time offset, 0 when none is positive */
  int64_t last_t_ns;
  int have_previous;
  int in_callback;
  int batch;                       /* CUDA: the units' first steps batched on the rig's stream */
  int track_ahead;                 /* with batch: the units' trackings queued by the rig */
  int ahead_units;                 /* this frame's units whose tracking the rig queued */
  struct vf_detector_batch* early; /* with batch: the units' early detections */
};

/* The running units' (run[0 .. count - 1]) rectifications and pyramids of this frame queued on
 * the rig's stream, batched (src/frontend/vf_rig_frontend_batch.c), before the units' streams are
 * forked from it, for the units where that pays (vf_frontend_prepare_pays); each of those units'
 * frames then skips them. Nothing is prepared on an error. */
vf_status vf_rig_prepare_units(vf_rig_frontend* fe, const vf_image* const* images, const int* run,
                               int count);

/* Then, after the fork, the early detections (every cell, beside the tracking) of the units
 * prepared so, in one submit on the rig's stream (src/frontend/vf_rig_frontend_batch.c). */
vf_status vf_rig_prepare_early(vf_rig_frontend* fe, const int* run, int count);

/* "unit 1 (pair 0: cam2, cam3)" or "unit 2 (camera 4: cam4)", for messages. */
void vf_rig_unit_name(const vf_rig_frontend* fe, int unit, char* out, size_t size);

/* The callbacks every unit's frontend is made with (src/frontend/vf_rig_frontend_records.c):
 * they copy the frame into the unit, with rig camera indices and rig-wide ids. */
void vf_rig_unit_on_features(const vf_feature_frame* frame, void* user);
void vf_rig_unit_on_disparity(const vf_disparity_frame* frame, void* user);
/* The log callback of a unit's context view: the message is kept for the calling thread. */
void vf_rig_unit_on_log(vf_log_level level, const char* message, void* user);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* A CUDA rig's first steps batched over its cameras (issue 37, item 3): every running unit's two
 * rectifications in one launch and its pyramid in another, on the rig's stream, instead of three
 * launches a unit on the units' own streams; after the fork, beside the units' tracking, their
 * early detections (every cell) in one more. The units' streams are forked from the rig's after it
 * (vf_rig_frontend_process.c), so each unit's frame reads them as if it had queued them. The same
 * calls' pixels: the records are those of lone frontends. A unit for which it does not pay
 * (vf_frontend_prepare_pays) queues its own. */
#include <stdio.h>

#include "features/vf_detector_batch.h"
#include "features/vf_pyramid_batch.h"
#include "frontend/vf_frontend_internal.h"
#include "frontend/vf_rig_frontend_internal.h"
#include "geometry/vf_remap_batch.h"

vf_status vf_rig_prepare_units(vf_rig_frontend* fe, const vf_image* const* images, const int* run,
                               int count) {
  vf_remap* remaps[2 * VF_RIG_MAX_CAMERAS];
  const vf_image* src[2 * VF_RIG_MAX_CAMERAS];
  vf_image* dst[2 * VF_RIG_MAX_CAMERAS];
  vf_pyramid* pyramids[VF_RIG_MAX_CAMERAS];
  const vf_image* rectified[VF_RIG_MAX_CAMERAS];
  int batched[VF_RIG_MAX_CAMERAS], n = 0;
  for (int i = 0; i < count; ++i) {
    vf_rig_slot* u = &fe->units[run[i]];
    const vf_image* left = images[u->info.camera];
    /* A mono unit's stand-in right image is its left one (vf_rig_run_unit). */
    const vf_image* right = u->info.pair >= 0 ? images[u->info.right_camera] : left;
    if (!vf_frontend_prepare_pays(u->fe, left, right)) continue;
    vf_frontend_prepare_jobs jobs;
    vf_frontend_prepare_jobs_of(u->fe, left, right, &jobs);
    for (int k = 0; k < 2; ++k) {
      remaps[2 * n + k] = jobs.remap[k];
      src[2 * n + k] = jobs.src[k];
      dst[2 * n + k] = jobs.dst[k];
    }
    pyramids[n] = jobs.pyramid;
    rectified[n] = jobs.pyramid_src;
    batched[n++] = run[i];
  }
  vf_status s = vf_remap_apply_batch(fe->ctx, remaps, src, dst, 2 * n);
  if (s == VF_OK) s = vf_pyramid_build_batch(fe->ctx, pyramids, rectified, n);
  if (s != VF_OK) {
    char m[VF_ERROR_MESSAGE_MAX];
    snprintf(m, sizeof m, "%s", vf_last_error_message());
    return vf_fail(&fe->err, s, "vf_rig_frontend_process: the cameras' rectification: %s", m);
  }
  for (int i = 0; i < n; ++i) {
    vf_frontend_set_prepared(fe->units[batched[i]].fe, VF_FRONTEND_PREPARED_INPUTS);
  }
  return VF_OK;
}

vf_status vf_rig_prepare_early(vf_rig_frontend* fe, const int* run, int count) {
  vf_detector* detectors[VF_RIG_MAX_CAMERAS];
  const vf_pyramid* pyramids[VF_RIG_MAX_CAMERAS];
  int batched[VF_RIG_MAX_CAMERAS], n = 0;
  for (int i = 0; i < count; ++i) {
    vf_frontend* u = fe->units[run[i]].fe;
    /* Only where the pyramid was built on the rig's stream, before this detection. */
    if (!(u->prepared & VF_FRONTEND_PREPARED_INPUTS)) continue;
    detectors[n] = vf_frontend_early_job(u, &pyramids[n]);
    if (detectors[n] != NULL) batched[n++] = run[i];
  }
  if (n == 0) return VF_OK;
  vf_status s = vf_detector_submit_batch(fe->early, detectors, pyramids, n);
  if (s != VF_OK) {
    char m[VF_ERROR_MESSAGE_MAX];
    snprintf(m, sizeof m, "%s", vf_last_error_message());
    return vf_fail(&fe->err, s, "vf_rig_frontend_process: the cameras' early detection: %s", m);
  }
  for (int i = 0; i < n; ++i) {
    vf_frontend* u = fe->units[batched[i]].fe;
    vf_frontend_set_prepared(u, u->prepared | VF_FRONTEND_PREPARED_EARLY);
  }
  return VF_OK;
}

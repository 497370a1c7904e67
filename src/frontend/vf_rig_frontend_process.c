// SPDX-License-Identifier: BSD-3-Clause
/* vf_rig_frontend_process: every check before any unit runs (so that a refused image set
 * changes nothing), the units (at once on the pool's threads where that pays), then on the
 * calling thread, in unit order, their log messages and callbacks. */
#include <stdio.h>
#include <string.h>

#include "core/vf_parallel.h"
#include "frontend/vf_frontend_internal.h"
#include "frontend/vf_rig_frontend_internal.h"

static vf_status vf_rig_check_image(vf_rig_frontend* fe, int c, const vf_image* img) {
  const vf_camera* cam = &fe->rig.cameras[c];
  const char* name = fe->rig.names[c];
  if (vf_image_check(img, "vf_rig_frontend_process") != VF_OK) {
    char m[VF_ERROR_MESSAGE_MAX];
    strncpy(m, vf_last_error_message(), sizeof m - 1);
    m[sizeof m - 1] = '\0';
    return vf_fail(&fe->err, VF_ERR_INVALID_ARG, "camera %d (%s): %s", c, name, m);
  }
  if (img->format != VF_PIXEL_U8 || img->width != cam->width || img->height != cam->height) {
    return vf_fail(&fe->err, VF_ERR_INVALID_ARG,
                   "vf_rig_frontend_process: camera %d (%s): the image must be 8-bit %dx%d, got "
                   "%dx%d",
                   c, name, cam->width, cam->height, img->width, img->height);
  }
  if (img->location == VF_MEMORY_DEVICE && fe->ctx->backend != VF_BACKEND_CUDA) {
    return vf_fail(&fe->err, VF_ERR_UNSUPPORTED,
                   "vf_rig_frontend_process: camera %d (%s): device images need the CUDA backend",
                   c, name);
  }
  return VF_OK;
}

/* The checks of the whole set, then which units run: those with all their cameras' images
 * (`run`, `count`); the others are warned about. */
static vf_status vf_rig_plan_frame(vf_rig_frontend* fe, int64_t t_ns, const vf_image* const* images,
                                   int* run, int* count) {
  if (fe->have_previous && t_ns <= fe->last_t_ns) {
    return vf_fail(&fe->err, VF_ERR_TIMESTAMP,
                   "vf_rig_frontend_process: frame time %lld ns does not follow %lld ns",
                   (long long)t_ns, (long long)fe->last_t_ns);
  }
  for (int c = 0; c < fe->rig.camera_count; ++c) {
    vf_status s = images[c] != NULL ? vf_rig_check_image(fe, c, images[c]) : VF_OK;
    if (s != VF_OK) return s;
  }
  *count = 0;
  for (int k = 0; k < fe->unit_count; ++k) {
    const vf_rig_unit* u = &fe->units[k].info;
    const int missing = images[u->camera] == NULL                                 ? u->camera
                        : u->right_camera >= 0 && images[u->right_camera] == NULL ? u->right_camera
                                                                                  : -1;
    if (missing < 0) {
      run[(*count)++] = k;
      continue;
    }
    char name[96];
    vf_rig_unit_name(fe, k, name, sizeof name);
    vf_log(fe->ctx, VF_LOG_WARN,
           "frame %lld ns: camera %d (%s) has no image: %s skipped, its tracks go on at its "
           "next frame",
           (long long)t_ns, missing, fe->rig.names[missing], name);
  }
  if (*count == 0) {
    return vf_fail(&fe->err, VF_ERR_INVALID_ARG,
                   "vf_rig_frontend_process: no unit has its images (every camera or pair has "
                   "one missing)");
  }
  return VF_OK;
}

typedef struct vf_rig_frame_job {
  vf_rig_frontend* fe;
  int64_t t_ns;
  const vf_image* const* images;
  const int* run;
} vf_rig_frame_job;

static void vf_rig_run_unit(int i, void* arg) {
  const vf_rig_frame_job* job = arg;
  vf_rig_slot* u = &job->fe->units[job->run[i]];
  const vf_image* left = job->images[u->info.camera];
  /* A mono unit has stereo off: its right image is only rectified, and the left one serves. */
  const vf_image* right = u->info.pair >= 0 ? job->images[u->info.right_camera] : left;
  u->status = vf_context_bind_thread(u->view);
  if (u->status == VF_OK) u->status = vf_frontend_process(u->fe, job->t_ns, left, right);
}

/* Whether the units run at once: on the CPU, one unit a thread beats one unit after another
 * with its stages split over the threads (each split waits for its slowest chunk); on CUDA each
 * unit's thread queues on the unit's own stream and waits for it alone, so that one unit's
 * kernels fill the GPU beside another's, and one unit's waits hide behind another's work. The
 * records are the same either way: a stage's split does not depend on who runs its chunks
 * (docs/ARCHITECTURE.md, Threads), and a unit's stream orders its own work. */
static int vf_rig_runs_at_once(const vf_rig_frontend* fe, int count) {
  return count > 1 && vf_pool_threads(fe->ctx->pool) > 1;
}

/* Every running unit's stream after the rig's (fork), or the rig's after theirs (join). */
static vf_status vf_rig_link_units(vf_rig_frontend* fe, const int* run, int count, int fork) {
  for (int i = 0; i < count; ++i) {
    vf_rig_slot* u = &fe->units[run[i]];
    vf_status s = vf_stream_link_signal(fork ? &u->fork : &u->join);
    if (s != VF_OK) {
      char m[VF_ERROR_MESSAGE_MAX];
      snprintf(m, sizeof m, "%s", vf_last_error_message());
      return vf_fail(&fe->err, s, "vf_rig_frontend_process: %s", m);
    }
  }
  return VF_OK;
}

/* Whether a running unit computes a dense map (its SGM on a stream of its own). */
static int vf_rig_any_dense(const vf_rig_frontend* fe, const int* run, int count) {
  for (int i = 0; i < count; ++i)
    if (fe->units[run[i]].fe->side != NULL) return 1;
  return 0;
}

/* A unit's messages and results to the user, on this thread. */
static void vf_rig_hand_on(vf_rig_frontend* fe, vf_rig_slot* u) {
  char name[96];
  vf_rig_unit_name(fe, u->index, name, sizeof name);
  for (int m = 0; m < u->log.count; ++m)
    vf_log(fe->ctx, u->log.level[m], "%s: %s", name, u->log.text[m]);
  if (u->log.dropped > 0) {
    vf_log(fe->ctx, VF_LOG_WARN, "%s: %d more messages this frame", name, u->log.dropped);
  }
  if (u->status != VF_OK) return;
  if (u->has_frame && fe->cb.on_features != NULL)
    fe->cb.on_features(u->index, &u->frame, fe->cb.user);
  if (u->has_disparity && fe->cb.on_disparity != NULL) {
    fe->cb.on_disparity(u->info.pair, &u->disparity, fe->cb.user);
  }
}

vf_status vf_rig_frontend_process(vf_rig_frontend* fe, int64_t t_ns,
                                  const vf_image* const* images) {
  VF_CHECK_ARG_NOT_NULL(NULL, fe);
  if (fe->in_callback) {
    return vf_fail(&fe->err, VF_ERR_STATE,
                   "vf_rig_frontend_process: called from inside a rig frontend callback");
  }
  VF_CHECK_ARG_NOT_NULL(&fe->err, images);
  int run[VF_RIG_MAX_CAMERAS], count = 0;
  vf_status s = vf_rig_plan_frame(fe, t_ns, images, run, &count);
  if (s != VF_OK) return s;
  for (int i = 0; i < count; ++i) {
    vf_rig_slot* u = &fe->units[run[i]];
    memset(&u->log, 0, sizeof u->log);
    u->has_frame = u->has_disparity = 0;
    u->status = VF_OK;
    vf_frontend_set_prepared(u->fe, 0);
  }
  if (fe->batch) {
    s = vf_rig_prepare_units(fe, images, run, count);
    if (s != VF_OK) return s;
  }
  s = vf_rig_link_units(fe, run, count, 1);
  if (s != VF_OK) return s;
  /* After the fork: the detections run beside the units' tracking, not before it. */
  if (fe->batch) {
    s = vf_rig_prepare_early(fe, run, count);
    if (s != VF_OK) return s;
  }
  /* Then, with several units and no SGM among them, their trackings from this thread before
   * the units' threads start, so that every unit's tracking is on the GPU before the first
   * thread's host work begins (a 2-pair sparse frame 3-4% shorter on an H100). Not beside dense
   * units: their SGMs, queued behind the trackings, found the multiprocessors partly held and
   * took 29% longer (a 2-pair frame 27% longer on an H100; docs/perf/rig.md). */
  fe->ahead_units = 0;
  if (fe->track_ahead && count > 1 && !vf_rig_any_dense(fe, run, count)) {
    for (int i = 0; i < count; ++i)
      fe->ahead_units += vf_frontend_track_ahead(fe->units[run[i]].fe, t_ns);
  }
  vf_rig_frame_job job = {fe, t_ns, images, run};
  if (vf_rig_runs_at_once(fe, count)) {
    /* One chunk a unit: the pool wakes only the workers the units need. */
    const int pool = vf_pool_threads(fe->ctx->pool);
    vf_parallel_items(fe->ctx->pool, count, count < pool ? count : pool, 1, vf_rig_run_unit, &job);
  } else {
    for (int i = 0; i < count; ++i) vf_rig_run_unit(i, &job);
  }
  /* Every unit that ran is past t_ns now (or skipped it unchanged): the rig is too. */
  fe->have_previous = 1;
  fe->last_t_ns = t_ns;
  s = vf_rig_link_units(fe, run, count, 0);
  if (s != VF_OK) return s;
  fe->in_callback = 1;
  for (int i = 0; i < count; ++i) vf_rig_hand_on(fe, &fe->units[run[i]]);
  fe->in_callback = 0;
  for (int i = 0; i < count; ++i) {
    const vf_rig_slot* u = &fe->units[run[i]];
    if (u->status == VF_OK) continue;
    char name[96];
    vf_rig_unit_name(fe, u->index, name, sizeof name);
    return vf_fail(&fe->err, u->status, "vf_rig_frontend_process: %s: %s", name,
                   vf_frontend_last_error(u->fe));
  }
  return VF_OK;
}

// SPDX-License-Identifier: BSD-3-Clause
/* vf_frontend_process: argument and timestamp checks, the frame (vf_frontend_frame.c), the
 * callbacks; and the queries of the last frame. */
#include <string.h>
#include <time.h>

#include "frontend/vf_frontend_internal.h"

static vf_status vf_frontend_check_image(vf_frontend* fe, const vf_image* img, const char* side) {
  if (img == NULL) {
    return vf_fail(&fe->err, VF_ERR_INVALID_ARG,
                   "vf_frontend_process: the %s image is missing (NULL)", side);
  }
  vf_status s = vf_image_check(img, "vf_frontend_process");
  if (s != VF_OK) return vf_fail_from_thread(&fe->err, s);
  const vf_camera* cam = &fe->cfg.cam0;
  if (img->format != VF_PIXEL_U8 || img->width != cam->width || img->height != cam->height) {
    return vf_fail(&fe->err, VF_ERR_INVALID_ARG,
                   "vf_frontend_process: the %s image must be 8-bit %dx%d, got %dx%d", side,
                   cam->width, cam->height, img->width, img->height);
  }
  if (img->location == VF_MEMORY_DEVICE && fe->ctx->backend != VF_BACKEND_CUDA) {
    return vf_fail(&fe->err, VF_ERR_UNSUPPORTED,
                   "vf_frontend_process: device images need the CUDA backend");
  }
  return VF_OK;
}

static double vf_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The disparity frame: the map and the rectified left image, copied to the host if asked. */
static vf_status vf_frontend_disparity_frame(vf_frontend* fe, int64_t t_ns,
                                             vf_disparity_frame* df) {
  memset(df, 0, sizeof *df);
  df->t_ns = t_ns;
  df->sequence = fe->sequence;
  df->disparity = fe->disparity;
  df->rectified_left = fe->rectified[0];
  if (fe->disparity_host.data != NULL) {
    vf_status s = vf_image_copy_stream(fe->ctx, &fe->disparity, &fe->disparity_host);
    if (s == VF_OK) s = vf_image_copy_stream(fe->ctx, &fe->rectified[0], &fe->rectified_host);
    if (s != VF_OK) return vf_fail_from_thread(&fe->err, s);
    df->disparity = fe->disparity_host;
    df->rectified_left = fe->rectified_host;
  }
  df->fractional_bits = fe->cfg.stereo.subpixel ? VF_STEREO_SUBPIXEL_BITS : 0;
  df->min_disparity = fe->cfg.stereo.min_disparity;
  df->max_disparity = fe->cfg.stereo.min_disparity + fe->cfg.stereo.disparities - 1;
  df->f = fe->rect.f;
  df->cx = fe->rect.cx;
  df->cy = fe->rect.cy;
  df->baseline_m = fe->rect.baseline_m;
  return VF_OK;
}

static void vf_frontend_feature_frame(const vf_frontend* fe, int64_t t_ns,
                                      const vf_stage_times* times, vf_feature_frame* ff) {
  memset(ff, 0, sizeof *ff);
  ff->t_ns = t_ns;
  ff->sequence = fe->sequence;
  ff->count = fe->record_count;
  ff->features = fe->records;
  ff->tracked = vf_feature_set_count(fe->set) - fe->frame_added;
  ff->detected = fe->frame_added;
  ff->lost = fe->frame_lost;
  memcpy(ff->right_missing, fe->right_missing, sizeof ff->right_missing);
  ff->f = fe->rect.f;
  ff->cx = fe->rect.cx;
  ff->cy = fe->rect.cy;
  ff->baseline_m = fe->rect.baseline_m;
  memcpy(ff->R1, fe->rect.R1, sizeof ff->R1);
  memcpy(ff->R2, fe->rect.R2, sizeof ff->R2);
  ff->times = *times;
}

vf_status vf_frontend_process(vf_frontend* fe, int64_t t_ns, const vf_image* left,
                              const vf_image* right) {
  VF_CHECK_ARG_NOT_NULL(NULL, fe);
  if (fe->in_callback) {
    return vf_fail(&fe->err, VF_ERR_STATE,
                   "vf_frontend_process: called from inside a frontend callback");
  }
  if (fe->have_previous && t_ns <= fe->last_t_ns) {
    return vf_fail(&fe->err, VF_ERR_TIMESTAMP,
                   "vf_frontend_process: frame time %lld ns does not follow %lld ns",
                   (long long)t_ns, (long long)fe->last_t_ns);
  }
  vf_status s = vf_frontend_check_image(fe, left, "left");
  if (s != VF_OK) return s;
  fe->right_absent = 0;
  const int sparse = vf_frontend_sparse(&fe->cfg);
  /* A tolerated check must not leave its message as the last error of a call that succeeds. */
  const vf_error kept = fe->err;
  vf_saved_message thread_message;
  vf_thread_message_save(&thread_message);
  s = vf_frontend_check_image(fe, right, "right");
  if (s != VF_OK) {
    if (!sparse) return s;
    /* Sparse stereo needs the right image for the records only: the left tracks go on. */
    vf_log(fe->ctx, VF_LOG_WARN, "%s: frame %lld ns goes on without camera-1 records",
           fe->err.message, (long long)t_ns);
    fe->right_absent = 1;
    fe->err = kept;
    vf_thread_message_restore(&thread_message);
  }

  double t0 = vf_now_ms();
  vf_stage_times times;
  fe->frame_committed = 0;
  s = vf_frontend_run_frame(fe, t_ns, left, right, &times);
  if (s != VF_OK && !fe->frame_committed) return s; /* nothing changed: the frame is skipped */
  vf_disparity_frame df;
  const int map = vf_frontend_map_frame(fe);
  if (s == VF_OK && map && fe->cb.on_disparity != NULL)
    s = vf_frontend_disparity_frame(fe, t_ns, &df);
  /* From here on the frame counts: its tracks live in the current pyramid. */
  fe->cur = !fe->cur;
  fe->have_previous = 1;
  fe->last_t_ns = t_ns;
  vf_imu_buffer_drop_before(fe->imu, vf_frontend_imu_time(fe, t_ns));
  if (s != VF_OK) {
    fe->sequence++;
    return s;
  }
  times.total_ms = vf_now_ms() - t0;
  vf_feature_frame ff;
  vf_frontend_feature_frame(fe, t_ns, &times, &ff);
  fe->in_callback = 1;
  if (fe->cb.on_features != NULL) fe->cb.on_features(&ff, fe->cb.user);
  if (map && fe->cb.on_disparity != NULL) fe->cb.on_disparity(&df, fe->cb.user);
  fe->in_callback = 0;
  fe->sequence++;
  return VF_OK;
}

vf_status vf_frontend_rectification(const vf_frontend* fe, vf_stereo_rectification* out) {
  VF_CHECK_ARG_NOT_NULL(NULL, fe);
  VF_CHECK_ARG_NOT_NULL(NULL, out);
  *out = fe->rect;
  return VF_OK;
}

int64_t vf_frontend_imu_lead_ns(const vf_frontend* fe) {
  return fe != NULL && fe->imu_offset_ns > 0 ? fe->imu_offset_ns : 0;
}

const char* vf_frontend_last_error(const vf_frontend* fe) {
  return fe != NULL ? fe->err.message : "vf_frontend_last_error: frontend is NULL";
}

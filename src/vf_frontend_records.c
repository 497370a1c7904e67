/* The feature records of a frame: per live track the rectified, raw and normalized positions,
 * the normalized velocity, the disparity read from this frame's map and the depth; a camera-1
 * record for each track with a disparity when asked for. */
#include <math.h>
#include <string.h>

#include "vf_frontend_internal.h"

/* Disparities of the live tracks in fe->disp_values (VF_STEREO_INVALID where unknown). */
static vf_status vf_frontend_read_disparities(vf_frontend* fe) {
  for (int i = 0; i < fe->live; ++i) {
    fe->xy[2 * i] = fe->tracks[i].x;
    fe->xy[2 * i + 1] = fe->tracks[i].y;
  }
  if (!fe->cfg.stereo_enabled) {
    for (int i = 0; i < fe->live; ++i) fe->disp_values[i] = VF_STEREO_INVALID;
    return VF_OK;
  }
  vf_status s = vf_sampler_gather_u16(fe->sampler, &fe->disparity, fe->xy, fe->live,
                                      VF_STEREO_INVALID, fe->disp_values);
  return s == VF_OK ? VF_OK
                    : vf_fail(&fe->err, s, "disparity at features: %s",
                              vf_sampler_last_error(fe->sampler));
}

/* Velocity in normalized coordinates per second from the previous observation. */
static void vf_velocity(float* prev_x, float* prev_y, double dt, vf_feature* r) {
  int known = !isnan(*prev_x) && !isnan(r->x) && dt > 0;
  r->vx = known ? (float)((r->x - *prev_x) / dt) : 0.0f;
  r->vy = known ? (float)((r->y - *prev_y) / dt) : 0.0f;
  *prev_x = r->x;
  *prev_y = r->y;
}

vf_status vf_frontend_build_records(vf_frontend* fe, int64_t t_ns) {
  vf_status s = vf_frontend_read_disparities(fe);
  if (s != VF_OK) return s;
  const vf_stereo_rectification* rc = &fe->rect;
  const double scale = fe->cfg.stereo.subpixel ? 1.0 / (1 << VF_STEREO_SUBPIXEL_BITS) : 1.0;
  /* t_ns > last_t_ns; unsigned, the difference cannot overflow even across all of int64. */
  const double dt =
      fe->have_previous ? (double)((uint64_t)t_ns - (uint64_t)fe->last_t_ns) * 1e-9 : 0.0;
  int n = fe->live, right = 0;
  for (int i = 0; i < n; ++i) {
    vf_frontend_track* t = &fe->tracks[i];
    vf_feature* r = &fe->records[i];
    r->id = t->id;
    r->camera = 0;
    r->age = t->age;
    r->level = t->level;
    r->score = t->score;
    r->gain = t->gain;
    r->bias = t->bias;
    vf_frontend_unrectify(&fe->cfg.cam0, rc->R1, rc->f, rc->cx, rc->cy, t->x, t->y, r);
    vf_velocity(&t->nx, &t->ny, dt, r);
    uint16_t d = fe->disp_values[i];
    r->disparity = d == VF_STEREO_INVALID ? NAN : (float)(d * scale);
    r->depth_m = vf_frontend_depth(rc->f, rc->baseline_m, r->disparity);
    if (!fe->cfg.right_features || isnan(r->disparity)) {
      t->rnx = t->rny = NAN;
      continue;
    }
    /* The stereo match lies on the same rectified row, disparity pixels to the left. */
    vf_feature* q = &fe->records[n + right++];
    *q = *r;
    q->camera = 1;
    vf_frontend_unrectify(&fe->cfg.cam1, rc->R2, rc->f, rc->cx, rc->cy, t->x - r->disparity, t->y,
                          q);
    vf_velocity(&t->rnx, &t->rny, dt, q);
  }
  fe->record_count = n + right;
  return VF_OK;
}

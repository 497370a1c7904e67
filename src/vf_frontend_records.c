// SPDX-License-Identifier: BSD-3-Clause
/* The feature records of a frame: per live track the rectified, raw and normalized positions,
 * the normalized velocity, the disparity read from this frame's map and the depth; a camera-1
 * record for each track with a disparity when asked for. */
#include <math.h>
#include <string.h>

#include "vf_frontend_internal.h"

/* Disparities of the live tracks in fe->disp_values (VF_STEREO_INVALID where unknown). */
static vf_status vf_frontend_read_disparities(vf_frontend* fe, const vf_track* tr, int n) {
  for (int i = 0; i < n; ++i) {
    fe->xy[2 * i] = tr[i].x;
    fe->xy[2 * i + 1] = tr[i].y;
  }
  if (!fe->cfg.stereo_enabled) {
    for (int i = 0; i < n; ++i) fe->disp_values[i] = VF_STEREO_INVALID;
    return VF_OK;
  }
  vf_status s = vf_sampler_gather_u16(fe->sampler, &fe->disparity, fe->xy, n, VF_STEREO_INVALID,
                                      fe->disp_values);
  return s == VF_OK ? VF_OK
                    : vf_fail(&fe->err, s, "disparity at features: %s",
                              vf_sampler_last_error(fe->sampler));
}

/* Velocity in normalized coordinates per second from the previous observation (NaN = none). */
static void vf_velocity(float prev_x, float prev_y, double dt, vf_feature* r) {
  int known = !isnan(prev_x) && !isnan(r->x) && dt > 0;
  r->vx = known ? (float)((r->x - prev_x) / dt) : 0.0f;
  r->vy = known ? (float)((r->y - prev_y) / dt) : 0.0f;
}

/* The previous frame's motion entry of a track: the set keeps its order and appends new
 * tracks, so one forward walk over both lists finds them. */
static const vf_frontend_motion* vf_previous(const vf_frontend* fe, int* j, uint64_t id) {
  while (*j < fe->motion_count && fe->motion[*j].id != id) ++*j;
  return *j < fe->motion_count ? &fe->motion[*j] : NULL;
}

vf_status vf_frontend_build_records(vf_frontend* fe, int64_t t_ns) {
  const int n = vf_feature_set_count(fe->set);
  const vf_track* tr = vf_feature_set_features(fe->set);
  vf_status s = vf_frontend_read_disparities(fe, tr, n);
  if (s != VF_OK) return s;
  const vf_stereo_rectification* rc = &fe->rect;
  const double scale = fe->cfg.stereo.subpixel ? 1.0 / (1 << VF_STEREO_SUBPIXEL_BITS) : 1.0;
  /* t_ns > last_t_ns; unsigned, the difference cannot overflow even across all of int64. */
  const double dt =
      fe->have_previous ? (double)((uint64_t)t_ns - (uint64_t)fe->last_t_ns) * 1e-9 : 0.0;
  int right = 0, j = 0;
  for (int i = 0; i < n; ++i) {
    const vf_track* t = &tr[i];
    vf_feature* r = &fe->records[i];
    r->id = t->id;
    r->camera = 0;
    r->age = t->age + 1; /* frames observed, this one included */
    r->level = t->level;
    r->score = t->score;
    r->gain = t->gain;
    r->bias = t->bias;
    vf_frontend_unrectify(&fe->cfg.cam0, rc->R1, rc->f, rc->cx, rc->cy, t->x, t->y, r);
    const vf_frontend_motion* m = vf_previous(fe, &j, t->id);
    vf_velocity(m != NULL ? m->nx : NAN, m != NULL ? m->ny : NAN, dt, r);
    vf_frontend_motion* next = &fe->motion_next[i];
    next->id = t->id;
    next->nx = r->x;
    next->ny = r->y;
    next->rnx = next->rny = NAN;
    uint16_t d = fe->disp_values[i];
    r->disparity = d == VF_STEREO_INVALID ? NAN : (float)(d * scale);
    r->depth_m = vf_frontend_depth(rc->f, rc->baseline_m, r->disparity);
    if (!fe->cfg.right_features || isnan(r->disparity)) continue;
    /* The stereo match lies on the same rectified row, disparity pixels to the left. */
    vf_feature* q = &fe->records[n + right++];
    *q = *r;
    q->camera = 1;
    vf_frontend_unrectify(&fe->cfg.cam1, rc->R2, rc->f, rc->cx, rc->cy, t->x - r->disparity, t->y,
                          q);
    vf_velocity(m != NULL ? m->rnx : NAN, m != NULL ? m->rny : NAN, dt, q);
    next->rnx = q->x;
    next->rny = q->y;
  }
  /* This frame's positions become the previous ones. */
  vf_frontend_motion* swap = fe->motion;
  fe->motion = fe->motion_next;
  fe->motion_next = swap;
  fe->motion_count = n;
  fe->record_count = n + right;
  return VF_OK;
}

// SPDX-License-Identifier: BSD-3-Clause
/* The feature records of a frame: per live track the rectified, raw and normalized positions,
 * the normalized velocity, the disparity read from this frame's map, the depth and the depth
 * flags; a camera-1 record for each track with a disparity when asked for, unless the map's
 * left-right check at the feature fails (a nearer surface hides the match) or the match falls
 * outside the right image: then it is withheld and counted by reason, never emitted wrong. */
#include <math.h>
#include <string.h>

#include "frontend/vf_frontend_internal.h"

/* What the disparity map shows at and around the live tracks, in fe->probes (value
 * VF_STEREO_INVALID where unknown), and their matched disparities in fe->disparities (NaN where
 * not matched). */
static vf_status vf_frontend_probe_disparities(vf_frontend* fe, const vf_track* tr, int n) {
  if (vf_frontend_sparse(&fe->cfg)) return vf_frontend_match_tracks(fe, tr, n);
  for (int i = 0; i < n; ++i) {
    fe->xy[2 * i] = tr[i].x;
    fe->xy[2 * i + 1] = tr[i].y;
  }
  if (!fe->cfg.stereo_enabled) {
    const vf_disparity_probe none = {VF_STEREO_INVALID, 0, 0, 0};
    for (int i = 0; i < n; ++i) {
      fe->probes[i] = none;
      fe->disparities[i] = NAN;
    }
    return VF_OK;
  }
  const vf_stereo_config* sc = &fe->cfg.stereo;
  /* A hiding surface lies at most the searched range of disparities to the right. */
  const int reach = sc->disparities + 1;
  vf_disparity_probe_config pc = {fe->cfg.edge_radius, reach > 4096 ? 4096 : reach,
                                  sc->subpixel ? VF_STEREO_SUBPIXEL_BITS : 0, VF_STEREO_INVALID};
  float* matched = fe->disparities;
  vf_status s;
  if (fe->cfg.disparity_refine_radius > 0) {
    /* From the map's value, at most a pixel away: farther is another match, not a refinement.
     * Six steps: the matched disparities on vf_synth are those of 20 (mean |error| 0.065 px on
     * both seeds; four: 0.068-0.070), and the GPU's call waits for its slowest feature. */
    const vf_disparity_refine_config rc = {fe->cfg.disparity_refine_radius, 6, 1.0f};
    s = vf_sampler_probe_and_refine_disparity(fe->sampler, &fe->disparity, &fe->rectified[0],
                                              &fe->rectified[1], fe->xy, n, &pc, &rc, fe->probes,
                                              matched);
  } else {
    s = vf_sampler_probe_disparity(fe->sampler, &fe->disparity, fe->xy, n, &pc, fe->probes);
    for (int i = 0; i < n; ++i) matched[i] = NAN;
  }
  return s == VF_OK ? VF_OK
                    : vf_fail(&fe->err, s, "disparity at features: %s",
                              vf_sampler_last_error(fe->sampler));
}

/* The depth flags of a feature from its probe (scale: map units per pixel). */
static uint32_t vf_depth_flags(const vf_frontend_config* c, const vf_disparity_probe* p,
                               float scale) {
  uint32_t f = 0;
  if ((float)p->jump > c->edge_max_jump * scale) f |= VF_FEATURE_DEPTH_EDGE;
  if (p->holes > 0) f |= VF_FEATURE_DEPTH_HOLES;
  return f;
}

/* Why the camera-1 record of a feature with probe p is missing, or -1 when it can be emitted. */
static int vf_right_missing_reason(const vf_frontend_config* c, const vf_disparity_probe* p,
                                   float scale) {
  if (p->value == VF_STEREO_INVALID) return VF_RIGHT_NO_DISPARITY;
  if (c->right_max_lr_diff > 0.0f && p->occluder != 0 &&
      (float)(p->occluder - p->value) > c->right_max_lr_diff * scale)
    return VF_RIGHT_OCCLUDED;
  return -1;
}

/* Sparse stereo: why the camera-1 record is missing (-1: it can be emitted), and the flags. */
static int vf_sparse_missing_reason(const vf_frontend* fe, const vf_stereo_match* m) {
  if (fe->right_absent) return VF_RIGHT_NO_IMAGE;
  switch (m->result) {
    case VF_STEREO_MATCH_OK: return -1;
    case VF_STEREO_MATCH_LEFT_RIGHT: return VF_RIGHT_OCCLUDED;
    case VF_STEREO_MATCH_AMBIGUOUS: return VF_RIGHT_AMBIGUOUS;
    case VF_STEREO_MATCH_CORRELATION: return VF_RIGHT_LOW_CORRELATION;
    default: return VF_RIGHT_NO_DISPARITY;
  }
}

static uint32_t vf_sparse_flags(const vf_frontend_config* c, const vf_stereo_match* m) {
  return m->spread > c->sparse_edge_max_step ? VF_FEATURE_DEPTH_EDGE : 0u; /* NAN: no step */
}

/* Velocity in normalized coordinates per second from the previous observation (NaN = none). */
static void vf_velocity(float prev_x, float prev_y, double dt, vf_feature* r) {
  int known = !isnan(prev_x) && !isnan(r->x) && dt > 0;
  r->vx = known ? (float)((r->x - prev_x) / dt) : 0.0f;
  r->vy = known ? (float)((r->y - prev_y) / dt) : 0.0f;
}

/* The frame time since the previous frame's, 0 for the first. */
static double vf_frame_dt(const vf_frontend* fe, int64_t t_ns) {
  /* t_ns > last_t_ns; unsigned, the difference cannot overflow even across all of int64. */
  return fe->have_previous ? (double)((uint64_t)t_ns - (uint64_t)fe->last_t_ns) * 1e-9 : 0.0;
}

void vf_frontend_build_left_records(vf_frontend* fe, int64_t t_ns) {
  const int n = vf_feature_set_count(fe->set);
  const vf_track* tr = vf_feature_set_features(fe->set);
  const vf_stereo_rectification* rc = &fe->rect;
  const double dt = vf_frame_dt(fe, t_ns);
  int j = 0;
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
    const vf_frontend_motion* m = vf_frontend_previous_motion(fe, &j, t->id);
    vf_velocity(m != NULL ? m->nx : NAN, m != NULL ? m->ny : NAN, dt, r);
    vf_frontend_motion* next = &fe->motion_next[i];
    next->id = t->id;
    next->nx = r->x;
    next->ny = r->y;
    next->rnx = next->rny = NAN;
    next->u = t->x;
    next->v = t->y;
    next->disparity = NAN;
    /* Tracks after the check's (new this frame) start from nothing. */
    const int checked = i < fe->slide_count && t->age > 0;
    next->slide_u = checked ? fe->slide[2 * i] : 0.0f;
    next->slide_v = checked ? fe->slide[2 * i + 1] : 0.0f;
  }
}

vf_status vf_frontend_build_records(vf_frontend* fe, int64_t t_ns) {
  const int n = vf_feature_set_count(fe->set);
  const vf_track* tr = vf_feature_set_features(fe->set);
  vf_status s = vf_frontend_probe_disparities(fe, tr, n);
  if (s != VF_OK) return s;
  const vf_stereo_rectification* rc = &fe->rect;
  const vf_camera* cam1 = &fe->cfg.cam1;
  const float units = fe->cfg.stereo.subpixel ? (float)(1 << VF_STEREO_SUBPIXEL_BITS) : 1.0f;
  const int sparse = vf_frontend_sparse(&fe->cfg);
  memset(fe->right_missing, 0, sizeof fe->right_missing);
  const double dt = vf_frame_dt(fe, t_ns);
  int right = 0, j = 0;
  for (int i = 0; i < n; ++i) {
    const vf_track* t = &tr[i];
    vf_feature* r = &fe->records[i];
    vf_frontend_motion* next = &fe->motion_next[i];
    const vf_disparity_probe* pr = &fe->probes[i];
    /* The matched disparity where the match succeeded, else the map's. */
    const float matched = fe->disparities[i];
    r->disparity = !isnan(matched) || sparse        ? matched
                   : pr->value == VF_STEREO_INVALID ? NAN
                                                    : (float)pr->value / units;
    r->depth_m = vf_frontend_depth(rc->f, rc->baseline_m, r->disparity);
    next->disparity = r->disparity;
    r->flags =
        sparse ? vf_sparse_flags(&fe->cfg, &fe->matches[i]) : vf_depth_flags(&fe->cfg, pr, units);
    if (!fe->cfg.right_features) continue;
    int why = sparse ? vf_sparse_missing_reason(fe, &fe->matches[i])
                     : vf_right_missing_reason(&fe->cfg, pr, units);
    vf_feature* q = &fe->records[n + right];
    if (why < 0) {
      /* The stereo match lies on the same rectified row, disparity pixels to the left. */
      *q = *r;
      q->camera = 1;
      vf_frontend_unrectify(cam1, rc->R2, rc->f, rc->cx, rc->cy, t->x - r->disparity, t->y, q);
      /* A raw pixel off the right image would be a point the camera did not see. */
      if (!(q->u >= 0.0f && q->v >= 0.0f && q->u <= (float)(cam1->width - 1) &&
            q->v <= (float)(cam1->height - 1)))
        why = VF_RIGHT_OUTSIDE;
    }
    if (why >= 0) {
      fe->right_missing[why]++;
      if (why == VF_RIGHT_OCCLUDED) r->flags |= VF_FEATURE_RIGHT_OCCLUDED;
      continue;
    }
    ++right;
    const vf_frontend_motion* m = vf_frontend_previous_motion(fe, &j, t->id);
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

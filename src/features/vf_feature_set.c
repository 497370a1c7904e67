// SPDX-License-Identifier: BSD-3-Clause
/* Feature set: ids, ages, template slots, tracking with forward-backward and border checks,
 * and grid-based replenishment (one feature per empty cell, min distance to live tracks through
 * per-cell buckets). Everything is allocated at create time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_error.h"
#include "core/vf_fault.h"
#include "features/kernels/vf_lk_rules.h"
#include "features/vf_feature_set_internal.h"
#include "features/vf_tracker_internal.h"

typedef struct vf_candidate {
  float score;
  int index;
} vf_candidate;

struct vf_feature_set {
  vf_error err;
  vf_feature_set_config config;
  int cells;
  uint64_t next_id;
  int count;
  vf_track* features;    /* live, in order */
  uint8_t* new_template; /* per feature: its slot's template is still to be taken */
  float* miss;           /* per feature: px between its last tracking's guess and result, NAN new */
  uint8_t* start_levels; /* per request: the levels its tracking starts from (0 = all) */
  float level_radius;    /* this tracking's vf_lk_levels_for radius; 0: all levels */
  int guessed;           /* the previous tracking's guesses were the kind vf_feature_set_plan_levels
                            was told of */
  int* free_slots;       /* stack of unused template slots */
  int free_count;
  uint64_t* lost; /* ids dropped by the last track/remove */
  int lost_count;
  vf_track_request* requests; /* tracking scratch, max_features each */
  vf_track_result* results;
  vf_track_result* back_results;
  uint8_t* drop;            /* per feature: 0 keep, else a loss reason */
  int* cell_head;           /* per cell: first feature in the bucket, -1 = none */
  int* next_in_cell;        /* per feature (live, then added) */
  float* bucket_xy;         /* positions of the bucketed features */
  int* best;                /* per cell: best keypoint index, -1 = none */
  vf_candidate* candidates; /* per cell with a keypoint, sorted by score */
  uint64_t add_calls;       /* vf_feature_set_add calls so far */
  uint64_t* cell_added;     /* per cell: the add call that last put a feature there, + 1 */
  uint64_t* cell_resume;    /* per cell: the first add call that may refill it again */
  int track_pending;        /* a tracking is submitted, its finish not yet called */
};

/* With periodic detection (detect_every > 0), a cell whose new feature is gone by the next
 * detection has corners that do not track: it is not refilled for this many detections, so
 * that detecting every frame does not start a one-frame track there every frame. */
#define VF_REFILL_BACKOFF 8

enum { VF_KEEP = 0, VF_LOST_STATUS, VF_LOST_BACKWARD, VF_LOST_BORDER, VF_LOST_REMOVED };

vf_feature_set_config vf_feature_set_config_default(void) {
  vf_feature_set_config c;
  memset(&c, 0, sizeof c);
  c.width = 752;
  c.height = 480;
  c.grid.cell_width = c.grid.cell_height = 32;
  c.grid.cols = (752 + 31) / 32;
  c.grid.rows = (480 + 31) / 32;
  c.max_features = 400;
  c.min_features = 150;
  c.detect_every = 4; /* steady enough, and long tracks: docs/perf/refinement.md */
  c.min_distance = 15.0f;
  c.border = 8.0f;
  c.fb_threshold = 0.5f;
  c.start_radius = 1.0f; /* docs/perf/tracker.md: fewer levels, the same drift */
  return c;
}

static vf_status vf_feature_set_validate(const vf_feature_set_config* c) {
  const char* fn = "vf_feature_set_create";
  if (c->width <= 0 || c->height <= 0 || c->width > 32768 || c->height > 32768) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: width x height %dx%d is outside 1..32768", fn,
                   c->width, c->height);
  }
  const vf_grid* g = &c->grid;
  if (g->cell_width <= 0 || g->cell_height <= 0) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: grid cell size %dx%d must be positive", fn,
                   g->cell_width, g->cell_height);
  }
  const int cols = (c->width + g->cell_width - 1) / g->cell_width;
  const int rows = (c->height + g->cell_height - 1) / g->cell_height;
  if (g->cols != cols || g->rows != rows) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "%s: grid is %dx%d cells, %dx%d cells of %dx%d cover %dx%d", fn, g->cols,
                   g->rows, cols, rows, g->cell_width, g->cell_height, c->width, c->height);
  }
  if (c->max_features < 1 || c->max_features > (1 << 20)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: max_features %d is outside 1..%d", fn,
                   c->max_features, 1 << 20);
  }
  if (c->min_features < 0 || c->min_features > c->max_features) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: min_features %d is outside 0..max_features", fn,
                   c->min_features);
  }
  if (c->detect_every < 0 || c->detect_every > 1000000) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: detect_every %d is outside 0..1000000", fn,
                   c->detect_every);
  }
  if (!(c->min_distance >= 0.0f && isfinite(c->min_distance))) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: min_distance must be finite and >= 0", fn);
  }
  if (!(c->border >= 0.0f &&
        2.0f * c->border < (float)(c->width < c->height ? c->width : c->height))) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: border %g must be >= 0 and below half the image",
                   fn, (double)c->border);
  }
  if (!(c->fb_threshold >= 0.0f && isfinite(c->fb_threshold))) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: fb_threshold must be finite and >= 0", fn);
  }
  if (!(c->start_radius >= 0.0f && c->start_radius <= 1000.0f)) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: start_radius %g must be in 0..1000 px", fn,
                   (double)c->start_radius);
  }
  return VF_OK;
}

void vf_feature_set_destroy(vf_feature_set* s) {
  if (s == NULL) return;
  free(s->features);
  free(s->new_template);
  free(s->miss);
  free(s->start_levels);
  free(s->free_slots);
  free(s->lost);
  free(s->requests);
  free(s->results);
  free(s->back_results);
  free(s->drop);
  free(s->cell_head);
  free(s->next_in_cell);
  free(s->bucket_xy);
  free(s->best);
  free(s->candidates);
  free(s->cell_added);
  free(s->cell_resume);
  free(s);
}

vf_status vf_feature_set_create(const vf_feature_set_config* config, vf_feature_set** out) {
  if (out == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_feature_set_create: out is NULL");
  *out = NULL;
  if (config == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_feature_set_create: config is NULL");
  }
  vf_status st = vf_feature_set_validate(config);
  if (st != VF_OK) return st;
  vf_feature_set* s = vf_calloc(1, sizeof *s);
  if (s == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "vf_feature_set_create: out of memory");
  s->config = *config;
  s->cells = config->grid.cols * config->grid.rows;
  s->next_id = 1;
  const size_t n = (size_t)config->max_features, cells = (size_t)s->cells;
  s->features = vf_calloc(n, sizeof *s->features);
  s->new_template = vf_calloc(n, 1);
  s->miss = vf_calloc(n, sizeof *s->miss);
  s->start_levels = vf_calloc(n, 1);
  s->free_slots = vf_calloc(n, sizeof *s->free_slots);
  s->lost = vf_calloc(n, sizeof *s->lost);
  s->requests = vf_calloc(n, sizeof *s->requests);
  s->results = vf_calloc(n, sizeof *s->results);
  s->back_results = vf_calloc(n, sizeof *s->back_results);
  s->drop = vf_calloc(n, 1);
  s->cell_head = vf_calloc(cells, sizeof *s->cell_head);
  s->next_in_cell = vf_calloc(n, sizeof *s->next_in_cell);
  s->bucket_xy = vf_calloc(2 * n, sizeof *s->bucket_xy);
  s->best = vf_calloc(cells, sizeof *s->best);
  s->candidates = vf_calloc(cells, sizeof *s->candidates);
  s->cell_added = vf_calloc(cells, sizeof *s->cell_added);
  s->cell_resume = vf_calloc(cells, sizeof *s->cell_resume);
  if (!s->features || !s->new_template || !s->miss || !s->start_levels || !s->free_slots ||
      !s->lost || !s->requests || !s->results || !s->back_results || !s->drop || !s->cell_head ||
      !s->next_in_cell || !s->bucket_xy || !s->best || !s->candidates || !s->cell_added ||
      !s->cell_resume) {
    vf_feature_set_destroy(s);
    return vf_fail(NULL, VF_ERR_NOMEM, "vf_feature_set_create: %d features", config->max_features);
  }
  /* Slot 0 on top of the stack. */
  for (int i = 0; i < config->max_features; ++i) s->free_slots[i] = config->max_features - 1 - i;
  s->free_count = config->max_features;
  *out = s;
  return VF_OK;
}

static int vf_feature_set_cell(const vf_feature_set* s, float x, float y) {
  const vf_grid* g = &s->config.grid;
  int cx = (int)floorf(x / (float)g->cell_width), cy = (int)floorf(y / (float)g->cell_height);
  cx = cx < 0 ? 0 : cx >= g->cols ? g->cols - 1 : cx;
  cy = cy < 0 ? 0 : cy >= g->rows ? g->rows - 1 : cy;
  return cy * g->cols + cx;
}

static int vf_feature_set_inside(const vf_feature_set* s, float x, float y) {
  const float b = s->config.border;
  return x >= b && y >= b && x <= (float)(s->config.width - 1) - b &&
         y <= (float)(s->config.height - 1) - b;
}

/* Keeps the features not marked in drop[], in order; their ids go to lost[], slots are freed. */
static void vf_feature_set_compact(vf_feature_set* s) {
  int kept = 0;
  s->lost_count = 0;
  for (int i = 0; i < s->count; ++i) {
    if (s->drop[i] != VF_KEEP) {
      s->lost[s->lost_count++] = s->features[i].id;
      s->free_slots[s->free_count++] = s->features[i].slot;
      continue;
    }
    s->features[kept] = s->features[i];
    s->new_template[kept] = s->new_template[i];
    s->miss[kept] = s->miss[i];
    ++kept;
  }
  s->count = kept;
}

static void vf_feature_set_requests(vf_feature_set* s, int first_obs, const float* pred) {
  for (int i = 0; i < s->count; ++i) {
    const vf_track* f = &s->features[i];
    vf_track_request* r = &s->requests[i];
    *r = vf_track_request_make(f->x, f->y, f->slot);
    r->new_template = s->new_template[i];
    if (pred != NULL && isfinite(pred[2 * i]) && isfinite(pred[2 * i + 1])) {
      r->guess_x = pred[2 * i];
      r->guess_y = pred[2 * i + 1];
    }
    /* Kept templates: gain and bias relative to the first image change slowly. */
    if (first_obs && !s->new_template[i]) {
      r->gain = f->gain;
      r->bias = f->bias;
    }
  }
}

/* Marks the forward-converged features whose backward result (back[i], from
 * vf_tracker_track_checked) does not come back within fb_threshold of where they started. */
static void vf_feature_set_check_backward(vf_feature_set* s) {
  const float thr = s->config.fb_threshold;
  for (int i = 0; i < s->count; ++i) {
    if (s->drop[i] != VF_KEEP) continue;
    const vf_track_result* b = &s->back_results[i];
    const float dx = b->x - s->requests[i].x, dy = b->y - s->requests[i].y;
    if (b->status != VF_TRACK_CONVERGED || !(dx * dx + dy * dy <= thr * thr)) {
      s->drop[i] = VF_LOST_BACKWARD;
    }
  }
}

vf_status vf_feature_set_track_submit(vf_feature_set* s, vf_tracker* t, const vf_pyramid* prev,
                                      const vf_pyramid* cur, const float* predicted_xy) {
  if (s == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_feature_set_track: set is NULL");
  s->track_pending = 0;
  if (t == NULL || prev == NULL || cur == NULL) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "vf_feature_set_track: %s is NULL",
                   t == NULL      ? "tracker"
                   : prev == NULL ? "prev"
                                  : "cur");
  }
  vf_tracker_config tc;
  vf_tracker_get_config(t, &tc);
  if (tc.max_features < s->config.max_features) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG,
                   "vf_feature_set_track: the tracker holds %d features, the set up to %d",
                   tc.max_features, s->config.max_features);
  }
  const int first_obs = tc.template_mode == VF_TEMPLATE_FIRST_OBSERVATION;
  vf_feature_set_requests(s, first_obs, predicted_xy);
  if (s->level_radius > 0.0f) {
    for (int i = 0; i < s->count; ++i)
      s->start_levels[i] = (uint8_t)vf_lk_levels_for(s->miss[i], s->level_radius, tc.levels);
    vf_tracker_set_start_levels(t, s->start_levels);
  }
  s->level_radius = 0.0f; /* one tracking's */
  /* With the forward-backward check both directions go in one call (one launch on CUDA). */
  const int checked = s->config.fb_threshold > 0.0f;
  vf_status st = checked ? vf_tracker_submit_checked(t, prev, cur, s->requests, s->count,
                                                     s->config.fb_from_prediction)
                         : vf_tracker_submit(t, prev, cur, s->requests, s->count);
  if (st != VF_OK) return vf_fail_from_thread(&s->err, st);
  s->track_pending = 1;
  return VF_OK;
}

void vf_feature_set_plan_levels(vf_feature_set* s, int guessed) {
  if (s == NULL) return;
  s->level_radius = guessed && s->guessed ? s->config.start_radius : 0.0f;
  s->guessed = guessed;
}

vf_status vf_feature_set_track_finish(vf_feature_set* s, vf_tracker* t, vf_track_stats* stats) {
  if (s == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_feature_set_track: set is NULL");
  if (t == NULL)
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "vf_feature_set_track: tracker is NULL");
  if (!s->track_pending) {
    return vf_fail(&s->err, VF_ERR_STATE, "vf_feature_set_track: nothing submitted");
  }
  s->track_pending = 0;
  vf_track_stats local;
  vf_track_stats* out = stats != NULL ? stats : &local;
  memset(out, 0, sizeof *out);
  const int checked = s->config.fb_threshold > 0.0f;
  vf_status st =
      checked ? vf_tracker_collect_checked(t, s->requests, s->count, s->config.fb_from_prediction,
                                           s->results, s->back_results)
              : vf_tracker_collect(t, s->results);
  if (st != VF_OK) return vf_fail_from_thread(&s->err, st);
  for (int i = 0; i < s->count; ++i) {
    const vf_track_result* r = &s->results[i];
    s->drop[i] = r->status == VF_TRACK_CONVERGED ? VF_KEEP : VF_LOST_STATUS;
    out->out_of_image += r->status == VF_TRACK_OUT_OF_IMAGE;
    out->diverged += r->status == VF_TRACK_DIVERGED;
    out->residual += r->status == VF_TRACK_RESIDUAL_TOO_LARGE;
    out->invalid += r->status == VF_TRACK_INVALID;
    out->inconsistent += r->status == VF_TRACK_INCONSISTENT;
  }
  if (checked) vf_feature_set_check_backward(s);
  for (int i = 0; i < s->count; ++i) {
    const vf_track_result* r = &s->results[i];
    out->backward += s->drop[i] == VF_LOST_BACKWARD;
    if (s->drop[i] != VF_KEEP) continue;
    if (!vf_feature_set_inside(s, r->x, r->y)) {
      s->drop[i] = VF_LOST_BORDER;
      out->border++;
      continue;
    }
    vf_track* f = &s->features[i];
    /* The frame-to-frame step's miss of its guess (before any refinement). */
    float fx, fy;
    vf_lk_frame_position(r, &fx, &fy);
    const float mx = fx - s->requests[i].guess_x, my = fy - s->requests[i].guess_y;
    s->miss[i] = sqrtf(mx * mx + my * my);
    f->x = r->x;
    f->y = r->y;
    f->gain = r->gain;
    f->bias = r->bias;
    f->residual = r->residual;
    f->age++;
    /* The patch has deformed too far from its reference: a new one, here, on the next call. */
    s->new_template[i] = (r->flags & VF_TRACK_REANCHOR) != 0;
    out->tracked++;
  }
  vf_feature_set_compact(s);
  return VF_OK;
}

vf_status vf_feature_set_track(vf_feature_set* s, vf_tracker* t, const vf_pyramid* prev,
                               const vf_pyramid* cur, const float* predicted_xy,
                               vf_track_stats* stats) {
  if (stats != NULL) memset(stats, 0, sizeof *stats);
  vf_status st = vf_feature_set_track_submit(s, t, prev, cur, predicted_xy);
  return st == VF_OK ? vf_feature_set_track_finish(s, t, stats) : st;
}

/* Rebuilds the per-cell buckets from the live features. */
static void vf_feature_set_bucket(vf_feature_set* s) {
  for (int c = 0; c < s->cells; ++c) s->cell_head[c] = -1;
  for (int i = 0; i < s->count; ++i) {
    const int c = vf_feature_set_cell(s, s->features[i].x, s->features[i].y);
    s->bucket_xy[2 * i] = s->features[i].x;
    s->bucket_xy[2 * i + 1] = s->features[i].y;
    s->next_in_cell[i] = s->cell_head[c];
    s->cell_head[c] = i;
  }
}

/* Nonzero when a bucketed feature lies closer than min_distance to (x, y). */
static int vf_feature_set_crowded(const vf_feature_set* s, float x, float y) {
  const float d = s->config.min_distance;
  if (d <= 0.0f) return 0;
  const vf_grid* g = &s->config.grid;
  const int cx = vf_feature_set_cell(s, x, y) % g->cols,
            cy = vf_feature_set_cell(s, x, y) / g->cols;
  const int rx = (int)ceilf(d / (float)g->cell_width), ry = (int)ceilf(d / (float)g->cell_height);
  for (int yy = cy - ry; yy <= cy + ry; ++yy) {
    for (int xx = cx - rx; xx <= cx + rx; ++xx) {
      if (xx < 0 || yy < 0 || xx >= g->cols || yy >= g->rows) continue;
      for (int i = s->cell_head[yy * g->cols + xx]; i >= 0; i = s->next_in_cell[i]) {
        const float dx = s->bucket_xy[2 * i] - x, dy = s->bucket_xy[2 * i + 1] - y;
        if (dx * dx + dy * dy < d * d) return 1;
      }
    }
  }
  return 0;
}

/* Best score first; ties in keypoint order, so the result does not depend on qsort. */
static int vf_cmp_candidates(const void* a, const void* b) {
  const vf_candidate *x = a, *y = b;
  if (x->score != y->score) return x->score < y->score ? 1 : -1;
  return (x->index > y->index) - (x->index < y->index);
}

/* Up to this many free places the candidates are picked one at a time, not sorted. */
#define VF_PICK_MAX 32

/* Moves the first of c[0..n-1] in vf_cmp_candidates' order to c[0]. */
static void vf_candidates_pick_next(vf_candidate* c, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (vf_cmp_candidates(&c[i], &c[best]) < 0) best = i;
  const vf_candidate t = c[0];
  c[0] = c[best];
  c[best] = t;
}

vf_status vf_feature_set_add(vf_feature_set* s, const vf_keypoint* kp, int count, int* added) {
  if (added != NULL) *added = 0;
  if (s == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_feature_set_add: set is NULL");
  if (count < 0 || (count > 0 && kp == NULL)) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "vf_feature_set_add: %s",
                   count < 0 ? "count is negative" : "keypoints is NULL");
  }
  vf_feature_set_bucket(s);
  const uint64_t call = s->add_calls++;
  for (int c = 0; c < s->cells; ++c) {
    /* Filled by the previous call and empty again: back off. */
    if (s->config.detect_every > 0 && s->cell_head[c] < 0 && call > 0 && s->cell_added[c] == call)
      s->cell_resume[c] = call + VF_REFILL_BACKOFF;
  }
  /* The best usable keypoint of every cell without a live track. */
  for (int c = 0; c < s->cells; ++c) s->best[c] = s->cell_resume[c] > call ? -2 : -1;
  for (int k = 0; k < count; ++k) {
    if (!isfinite(kp[k].x) || !isfinite(kp[k].y) || !isfinite(kp[k].score) ||
        !vf_feature_set_inside(s, kp[k].x, kp[k].y)) {
      continue;
    }
    const int c = vf_feature_set_cell(s, kp[k].x, kp[k].y);
    if (s->cell_head[c] >= 0 || s->best[c] == -2) continue;
    if (s->best[c] < 0 || kp[k].score > kp[s->best[c]].score) s->best[c] = k;
  }
  int nc = 0;
  for (int c = 0; c < s->cells; ++c) {
    if (s->best[c] < 0) continue;
    s->candidates[nc].score = kp[s->best[c]].score;
    s->candidates[nc++].index = s->best[c];
  }
  /* Candidates in vf_cmp_candidates' order. A frame usually has a few free places for many empty
   * cells: then the next best is picked from the rest each time (a sort of every candidate took
   * about 20 us a frame on the H200's host, most of the detection step), else all are sorted. */
  const int sorted = s->config.max_features - s->count > VF_PICK_MAX;
  if (sorted) qsort(s->candidates, (size_t)nc, sizeof *s->candidates, vf_cmp_candidates);
  int n = 0;
  for (int j = 0; j < nc && s->count < s->config.max_features; ++j) {
    if (!sorted) vf_candidates_pick_next(s->candidates + j, nc - j);
    const vf_keypoint* k = &kp[s->candidates[j].index];
    if (vf_feature_set_crowded(s, k->x, k->y)) continue;
    const int i = s->count++;
    vf_track* f = &s->features[i];
    memset(f, 0, sizeof *f);
    f->id = s->next_id++;
    f->x = k->x;
    f->y = k->y;
    f->gain = 1.0f;
    f->score = k->score;
    f->level = k->level;
    f->slot = s->free_slots[--s->free_count];
    s->new_template[i] = 1;
    s->miss[i] = NAN;
    /* Into the buckets, so later keypoints keep their distance from it. */
    const int c = vf_feature_set_cell(s, f->x, f->y);
    s->bucket_xy[2 * i] = f->x;
    s->bucket_xy[2 * i + 1] = f->y;
    s->next_in_cell[i] = s->cell_head[c];
    s->cell_head[c] = i;
    s->cell_added[c] = call + 1;
    ++n;
  }
  if (added != NULL) *added = n;
  return VF_OK;
}

vf_status vf_feature_set_occupancy(const vf_feature_set* s, uint8_t* mask, int cells) {
  if (s == NULL || mask == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_feature_set_occupancy: %s is NULL",
                   s == NULL ? "set" : "mask");
  }
  if (cells != s->cells) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_feature_set_occupancy: cells %d, the grid has %d (%dx%d)", cells, s->cells,
                   s->config.grid.cols, s->config.grid.rows);
  }
  memset(mask, 0, (size_t)cells);
  for (int i = 0; i < s->count; ++i)
    mask[vf_feature_set_cell(s, s->features[i].x, s->features[i].y)] = 1;
  return VF_OK;
}

/* Drops the features with these ids; with `refused`, a new feature's cell is not backed off. */
static vf_status vf_feature_set_drop_ids(vf_feature_set* s, const char* fn, const uint64_t* ids,
                                         int count, int refused, int* removed) {
  if (removed != NULL) *removed = 0;
  if (s == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "%s: set is NULL", fn);
  if (count < 0 || (count > 0 && ids == NULL)) {
    return vf_fail(&s->err, VF_ERR_INVALID_ARG, "%s: %s", fn,
                   count < 0 ? "count is negative" : "ids is NULL");
  }
  int n = 0;
  for (int i = 0; i < s->count; ++i) {
    s->drop[i] = VF_KEEP;
    for (int k = 0; k < count; ++k) {
      if (s->features[i].id == ids[k]) {
        s->drop[i] = VF_LOST_REMOVED;
        /* The caller judged this corner, not whether the cell's corners track: the cell may be
         * refilled at the next detection (its next best corner, as the view moves). */
        if (refused && s->features[i].age == 0)
          s->cell_added[vf_feature_set_cell(s, s->features[i].x, s->features[i].y)] = 0;
        ++n;
        break;
      }
    }
  }
  vf_feature_set_compact(s);
  if (removed != NULL) *removed = n;
  return VF_OK;
}

vf_status vf_feature_set_remove(vf_feature_set* s, const uint64_t* ids, int count, int* removed) {
  return vf_feature_set_drop_ids(s, "vf_feature_set_remove", ids, count, 0, removed);
}

vf_status vf_feature_set_refuse(vf_feature_set* s, const uint64_t* ids, int count, int* removed) {
  return vf_feature_set_drop_ids(s, "vf_feature_set_refuse", ids, count, 1, removed);
}

int vf_feature_set_needs_detection(const vf_feature_set* s) {
  return s != NULL && s->count < s->config.min_features;
}

int vf_feature_set_detection_due(const vf_feature_set* s, uint64_t frame) {
  if (s == NULL) return 0;
  const int every = s->config.detect_every;
  return vf_feature_set_needs_detection(s) || (every > 0 && frame % (uint64_t)every == 0);
}

int vf_feature_set_count(const vf_feature_set* s) { return s != NULL ? s->count : 0; }

const vf_track* vf_feature_set_features(const vf_feature_set* s) {
  return s != NULL ? s->features : NULL;
}

const uint64_t* vf_feature_set_lost(const vf_feature_set* s, int* count) {
  if (count != NULL) *count = s != NULL ? s->lost_count : 0;
  return s != NULL ? s->lost : NULL;
}

const char* vf_feature_set_last_error(const vf_feature_set* s) {
  return s != NULL ? s->err.message : "vf_feature_set_last_error: set is NULL";
}

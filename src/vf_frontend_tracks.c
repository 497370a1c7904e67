/* The frontend's live tracks: ids (never reused), positions in the rectified left image, age,
 * photometric state and template slots; forward-backward and border checks; the occupancy of
 * the detector's grid; replenishment with a minimum distance to live tracks and a cap. */
#include <math.h>
#include <string.h>

#include "vf_frontend_internal.h"

int vf_frontend_tracks_live(const vf_frontend* fe) { return fe->live; }

int vf_frontend_tracks_requests(vf_frontend* fe, vf_track_request* rq) {
  for (int i = 0; i < fe->live; ++i) {
    const vf_frontend_track* t = &fe->tracks[i];
    rq[i] = vf_track_request_make(t->x, t->y, t->slot);
    rq[i].gain = t->gain;
    rq[i].bias = t->bias;
    rq[i].new_template = t->age == 1; /* first-observation mode: the slot takes its template */
  }
  return fe->live;
}

static int vf_inside(const vf_frontend* fe, float x, float y) {
  const float b = (float)fe->cfg.features.border_px;
  return x >= b && y >= b && x <= (float)fe->rectified[0].width - 1 - b &&
         y <= (float)fe->rectified[0].height - 1 - b;
}

static void vf_release_slot(vf_frontend* fe, int slot) {
  if (slot >= 0) fe->free_slots[fe->free_slot_count++] = slot;
}

int vf_frontend_tracks_update(vf_frontend* fe, const vf_track_request* rq,
                              const vf_track_result* fwd, const vf_track_result* back, int n) {
  const float fb2 = fe->cfg.features.fb_threshold_px * fe->cfg.features.fb_threshold_px;
  int kept = 0;
  for (int i = 0; i < n; ++i) {
    vf_frontend_track t = fe->tracks[i];
    int ok = fwd[i].status == VF_TRACK_CONVERGED && vf_inside(fe, fwd[i].x, fwd[i].y);
    if (ok && back != NULL) {
      float dx = back[i].x - rq[i].x, dy = back[i].y - rq[i].y;
      ok = back[i].status == VF_TRACK_CONVERGED && dx * dx + dy * dy <= fb2;
    }
    if (!ok) {
      vf_release_slot(fe, t.slot);
      continue;
    }
    t.x = fwd[i].x;
    t.y = fwd[i].y;
    t.gain = fwd[i].gain;
    t.bias = fwd[i].bias;
    t.age++;
    fe->tracks[kept++] = t;
  }
  int lost = fe->live - kept;
  fe->live = kept;
  return lost;
}

static int vf_cell_of(const vf_grid* g, float x, float y) {
  int cx = (int)floorf((x + 0.5f) / (float)g->cell_width);
  int cy = (int)floorf((y + 0.5f) / (float)g->cell_height);
  if (cx < 0 || cy < 0 || cx >= g->cols || cy >= g->rows) return -1;
  return cy * g->cols + cx;
}

void vf_frontend_tracks_occupancy(vf_frontend* fe, uint8_t* mask) {
  const vf_grid* g = &fe->grid;
  memset(mask, 0, (size_t)g->cols * (size_t)g->rows);
  for (int i = 0; i < fe->live; ++i) {
    int c = vf_cell_of(g, fe->tracks[i].x, fe->tracks[i].y);
    if (c >= 0) mask[c] = 1;
  }
}

static int vf_far_from_tracks(const vf_frontend* fe, float x, float y) {
  const float d = fe->cfg.features.min_distance_px, d2 = d * d;
  for (int i = 0; d > 0 && i < fe->live; ++i) {
    float dx = fe->tracks[i].x - x, dy = fe->tracks[i].y - y;
    if (dx * dx + dy * dy < d2) return 0;
  }
  return 1;
}

int vf_frontend_tracks_add(vf_frontend* fe, const vf_keypoint* kp, int count) {
  int added = 0;
  for (int i = 0; i < count && fe->live < fe->cfg.features.max_features; ++i) {
    if (!vf_inside(fe, kp[i].x, kp[i].y) || !vf_far_from_tracks(fe, kp[i].x, kp[i].y)) continue;
    vf_frontend_track* t = &fe->tracks[fe->live++];
    memset(t, 0, sizeof *t);
    t->id = fe->next_id++;
    t->x = kp[i].x;
    t->y = kp[i].y;
    t->level = kp[i].level;
    t->score = kp[i].score;
    t->gain = 1.0f;
    t->age = 1;
    t->nx = t->ny = NAN;
    t->slot = fe->free_slot_count > 0 ? fe->free_slots[--fe->free_slot_count] : -1;
    ++added;
  }
  return added;
}

void vf_frontend_tracks_remove(vf_frontend* fe, const uint64_t* ids, int count) {
  int kept = 0;
  for (int i = 0; i < fe->live; ++i) {
    int drop = 0;
    for (int j = 0; j < count && !drop; ++j) drop = fe->tracks[i].id == ids[j];
    if (drop) {
      vf_release_slot(fe, fe->tracks[i].slot);
    } else {
      fe->tracks[kept++] = fe->tracks[i];
    }
  }
  fe->live = kept;
}

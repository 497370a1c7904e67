// SPDX-License-Identifier: BSD-3-Clause
/* The evaluation's figures (replay_eval.h) from the errors replay_eval.c collected: medians,
 * means and shares of the unsigned errors, means of the signed ones, the disparity maps' bad-pixel
 * rates; and the drift of several evaluators pooled (a rig's cameras). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay_eval_internal.h"

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static void eval_stats(eval_errors* e, replay_eval_errors* out) {
  memset(out, 0, sizeof *out);
  out->observations = e->count;
  if (e->count == 0) return;
  qsort(e->v, (size_t)e->count, sizeof *e->v, cmp_double);
  double sum = 0;
  long within = 0;
  for (long i = 0; i < e->count; ++i) {
    sum += e->v[i];
    within += e->v[i] <= 1.0;
  }
  out->median_px = e->v[e->count / 2];
  out->mean_px = sum / e->count;
  out->within_1px = (double)within / e->count;
}

static void eval_right_stats(eval_errors* v, long left, long records, replay_eval_right* out) {
  memset(out, 0, sizeof *out);
  out->left = left;
  out->records = records;
  out->with_record = left > 0 ? (double)records / left : 0.0;
  out->observations = v->count;
  if (v->count == 0) return;
  qsort(v->v, (size_t)v->count, sizeof *v->v, cmp_double);
  long half = 0, one = 0;
  for (long i = 0; i < v->count; ++i) {
    half += v->v[i] > 0.5;
    one += v->v[i] > 1.0;
  }
  out->median_px = v->v[v->count / 2];
  out->over_half_px = (double)half / v->count;
  out->over_1px = (double)one / v->count;
}

static void eval_signed_stats(const eval_signed_sums* b, replay_eval_signed* out) {
  memset(out, 0, sizeof *out);
  out->observations = b->n;
  out->moved = b->moved;
  if (b->n > 0) {
    out->mean_du_px = b->du / b->n;
    out->mean_dv_px = b->dv / b->n;
  }
  if (b->moved > 0) out->mean_along_px = b->along / b->moved;
}

static void eval_disparity_stats(eval_errors* v, replay_eval_disparity_bias* out) {
  memset(out, 0, sizeof *out);
  out->observations = v->count;
  if (v->count == 0) return;
  qsort(v->v, (size_t)v->count, sizeof *v->v, cmp_double);
  double sum = 0.0, abs_sum = 0.0, body = 0.0;
  long within = 0;
  for (long i = 0; i < v->count; ++i) {
    sum += v->v[i];
    abs_sum += fabs(v->v[i]);
    if (fabs(v->v[i]) <= 1.0) {
      body += v->v[i];
      ++within;
    }
  }
  out->mean_within_1px_px = within > 0 ? body / within : 0.0;
  out->mean_px = sum / v->count;
  out->mean_abs_px = abs_sum / v->count;
  out->median_px = v->v[v->count / 2];
}

void replay_eval_get(replay_eval* e, replay_eval_summary* s) {
  memset(s, 0, sizeof *s);
  for (int k = 0; k <= REPLAY_EVAL_AGE_BINS; ++k)
    eval_signed_stats(&e->drift_signed[k], &s->drift_signed[k]);
  eval_disparity_stats(&e->disparity, &s->disparity_bias);
  eval_stats(&e->step, &s->step);
  eval_stats(&e->drift, &s->drift);
  eval_stats(&e->drift_off_edges, &s->drift_off_edges);
  for (int k = 0; k < REPLAY_EVAL_AGE_BINS; ++k)
    eval_stats(&e->drift_by_age[k], &s->drift_by_age[k]);
  for (int k = 0; k < 2; ++k) {
    eval_stats(&e->drift_step[k], &s->drift_step[k]);
    eval_signed_stats(&e->drift_step_signed[k], &s->drift_step_signed[k]);
  }
  eval_right_stats(&e->right[0], e->left[0], e->records[0], &s->right);
  eval_right_stats(&e->right[1], e->left[1], e->records[1], &s->right_edge);
  s->disparity_frames = e->disparity_frames;
  if (e->gt_pixels > 0) {
    s->bad1 = (double)e->bad[0] / e->gt_pixels;
    s->bad2 = (double)e->bad[1] / e->gt_pixels;
    s->bad3 = (double)e->bad[2] / e->gt_pixels;
    s->density = (double)e->valid / e->gt_pixels;
  }
}

void replay_eval_pool_drift(replay_eval* const* e, int n, replay_eval_errors* out) {
  long total = 0;
  for (int i = 0; i < n; ++i) total += e[i] != NULL ? e[i]->drift.count : 0;
  eval_errors all = {malloc(sizeof *all.v * (size_t)(total > 0 ? total : 1)), 0, total};
  for (int i = 0; i < n && all.v != NULL; ++i) {
    if (e[i] == NULL || e[i]->drift.count == 0) continue;
    memcpy(all.v + all.count, e[i]->drift.v, sizeof *all.v * (size_t)e[i]->drift.count);
    all.count += e[i]->drift.count;
  }
  eval_stats(&all, out);
  free(all.v);
}

// SPDX-License-Identifier: BSD-3-Clause
/* The evaluator's state (replay_eval.h), shared by the code that collects the errors
 * (replay_eval.c) and the code that sums them up (replay_eval_stats.c). */
#ifndef REPLAY_EVAL_INTERNAL_H
#define REPLAY_EVAL_INTERNAL_H

#include "replay_ahead.h"
#include "replay_eval.h"

typedef struct eval_point {
  double first[3], last[3]; /* world points of the first and the previous observation */
  int first_valid, last_valid;
  int born_on_edge;       /* the first observation carried VF_FEATURE_DEPTH_EDGE */
  int patch_on_step;      /* the window around the first observation spans a depth step */
  float first_u, first_v; /* our first observation's raw pixel */
} eval_point;

typedef struct eval_errors {
  double* v;
  long count, cap;
} eval_errors;

typedef struct eval_signed_sums {
  double du, dv, along;
  long n, moved;
} eval_signed_sums;

struct replay_eval {
  char root[2048];
  const vf_euroc* reader;
  replay_eval_camera which; /* the cameras and their ground-truth folders */
  vf_camera cam0, cam1;     /* the tracked camera and its pair's right one */
  eval_point* points;       /* by track id */
  size_t point_cap;
  eval_errors step, drift, drift_off_edges;
  eval_signed_sums drift_signed[REPLAY_EVAL_AGE_BINS + 1]; /* by age bin, then all */
  eval_errors drift_by_age[REPLAY_EVAL_AGE_BINS];
  eval_errors drift_step[2]; /* drift of tracks off / on a depth step (patch_on_step) */
  eval_signed_sums drift_step_signed[2];
  eval_errors disparity;     /* signed disparity errors */
  eval_errors right[2];      /* camera-1 errors: all, of depth-edge features */
  long left[2], records[2];  /* left features and camera-1 records: all, depth-edge ones */
  double gt_f, gt_cx, gt_cy; /* rectification of the disparity ground truth */
  long disparity_frames, gt_pixels, valid, bad[3];
  replay_ahead* files; /* depth (0) and disparity (1) PNGs decoded ahead */
};

#endif

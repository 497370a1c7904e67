// SPDX-License-Identifier: BSD-3-Clause
/* Drift of the tracker on a constructed homography sequence (drift_sequence.h), through the
 * public API as a frontend uses it: pyramids, FAST in the empty grid cells every frame, the
 * feature set with its forward-backward and border checks, and the tracker. A track first
 * seen at p_j in frame j truly is at H_k H_j^-1 p_j in frame k; its drift there is the
 * distance of the tracked position from that, and its step error the distance from
 * H_k H_{k-1}^-1 of its frame k-1 position. Drift is binned by the true change since the first
 * observation (the scale and in-plane rotation of the local affine of H_k H_j^-1 at p_j) and by
 * the track's age. */
#ifndef DRIFT_MEASURE_H
#define DRIFT_MEASURE_H

#include <stdio.h>
#include <viofront/viofront.h>

#include "drift_sequence.h"

#define DRIFT_SCALE_BINS 5    /* |scale - 1| <2%, 2-5%, 5-10%, 10-20%, >20% */
#define DRIFT_ROTATION_BINS 5 /* |rotation| <1, 1-2, 2-5, 5-10, >10 degrees */
#define DRIFT_AGE_BINS                                                              \
  6                    /* frames since the first observation 1-2, 3-5, 6-10, 11-20, \
                          21-40, >40 */
#define DRIFT_WITHIN 3 /* shares within 0.1, 0.5, 1 px */

typedef struct drift_options {
  drift_sequence_config sequence;
  vf_backend backend;
  int cpu_threads;                /* 0 = all cores */
  int pyramid_levels;             /* >= the tracker's and the detector's levels */
  vf_detector_config detector;    /* width and height are the sequence's */
  vf_tracker_config tracker;      /* max_features is raised to the feature set's cap */
  vf_feature_set_config features; /* width, height and grid follow the sequence and detector */
  const char* frames_dir;         /* NULL, or a folder to write each rendered frame to as PNG */
} drift_options;

/* Errors of the observations in one bin, px. */
typedef struct drift_bin {
  long count;
  double median, mean, p90;
} drift_bin;

typedef struct drift_stats {
  int frames;
  long tracks;       /* tracks started */
  long observations; /* tracked observations (every frame after a track's first) */
  drift_bin drift;   /* all observations */
  double within[DRIFT_WITHIN];
  drift_bin step; /* frame-to-frame error */
  drift_bin by_scale[DRIFT_SCALE_BINS];
  drift_bin by_rotation[DRIFT_ROTATION_BINS];
  drift_bin by_age[DRIFT_AGE_BINS];
  drift_bin last_frame;      /* drift of the tracks alive at the last frame */
  double last_frame_age;     /* their mean age, frames */
  double mean_track_length;  /* frames a track was observed in, its first included */
  double features_per_frame; /* live tracks after each frame's refill, mean */
  double max_scale_change;   /* the largest |scale - 1| among the observations */
  double max_rotation_deg;   /* the largest |rotation| among them */
} drift_stats;

extern const char* const drift_scale_bin_names[DRIFT_SCALE_BINS];
extern const char* const drift_rotation_bin_names[DRIFT_ROTATION_BINS];
extern const char* const drift_age_bin_names[DRIFT_AGE_BINS];
extern const double drift_within_px[DRIFT_WITHIN];

/* The default sequence, CPU backend, the frontend's default stages (vf_frontend_config_default:
 * first-observation templates). */
drift_options drift_options_default(void);

/* Renders the sequence, tracks through it and fills `out`. Failures print a message. */
vf_status drift_measure_run(const drift_options* options, drift_stats* out);

/* A human-readable table, and the same as a JSON object (a name and the options included). */
void drift_stats_print(FILE* f, const drift_stats* s);
int drift_stats_write_json(const char* path, const char* name, const drift_options* o,
                           const drift_stats* s);

#endif

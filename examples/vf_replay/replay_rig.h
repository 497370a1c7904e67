// SPDX-License-Identifier: BSD-3-Clause
/* vf_replay --rig: the image sets of a multi-camera sequence (replay_rig_sets.c), the run over
 * the rig frontend (replay_rig.c) and its summary (replay_rig_report.c). */
#ifndef REPLAY_RIG_H
#define REPLAY_RIG_H

#include "replay.h"
#include "replay_ahead.h"
#include "replay_eval.h"

/* Every camera's images of a rig sequence (mav0/camK/data.csv and data/), grouped in sets by
 * timestamp: a set is one time at which at least one camera has an image. */
typedef struct replay_rig_sets {
  char root[1024]; /* the mav0 folder */
  int cameras;
  int width[VF_RIG_MAX_CAMERAS], height[VF_RIG_MAX_CAMERAS]; /* the rig's image sizes */
  int count;                                                 /* sets */
  int64_t* t_ns;                                             /* of each set, increasing */
  char** name; /* [set * cameras + k]: camera k's file in the set, NULL where it has none */
  int rows[VF_RIG_MAX_CAMERAS];    /* images each camera lists */
  int missing[VF_RIG_MAX_CAMERAS]; /* of those, files that do not exist (left out of the sets) */
  replay_ahead* images;            /* the sets' images decoded ahead */
  int pinned; /* decoded into page-locked buffers where they can be had (a CUDA rig) */
} replay_rig_sets;

/* Reads every camera's list of `sequence` (the folder holding mav0, or mav0) for `rig` and starts
 * decoding the images ahead (`threads` threads, `depth` sets; `pinned`: into page-locked buffers,
 * which a CUDA frontend uploads asynchronously). 0, or -1 with the reason on stderr. */
int replay_rig_sets_open(const char* sequence, const vf_rig* rig, int threads, int depth,
                         int pinned, replay_rig_sets* out);
/* Camera k's image of set `set` (sets are asked for in order), NULL where it has none; a listed
 * image that cannot be read or has the wrong size is reported on stderr and NULL too. Valid
 * until a later set is asked for. */
const vf_image* replay_rig_sets_image(replay_rig_sets* s, int set, int k);
void replay_rig_sets_close(replay_rig_sets* s);

/* One replay of a rig: its frontend's units, with statistics and an evaluator each. */
typedef struct replay_rig_run {
  const replay_options* opt;
  const char* camchain;
  vf_rig rig;
  int units;
  vf_rig_unit unit[VF_RIG_MAX_CAMERAS];
  replay_stats stats[VF_RIG_MAX_CAMERAS]; /* per unit: its tracked camera's records */
  replay_eval* eval[VF_RIG_MAX_CAMERAS];  /* per unit; NULL without ground truth */
  int wrote_rectification[VF_RIG_MAX_CAMERAS];
  FILE* csv;
  long sets;          /* sets processed */
  long skipped;       /* sets with no unit's images (not processed) */
  long total;         /* sets to process */
  int imu_samples;    /* IMU samples of the sequence's span */
  int decode_threads; /* the image reader's */
  int prefetch;       /* sets decoded ahead */
  double wall_s;      /* the whole replay */
  double read_s;      /* waiting for decoded images */
  double process_s;   /* in vf_rig_frontend_process, callbacks and evaluation included */
  int failed;
} replay_rig_run;

/* The summary lines: per camera its features and tracks, the reader's and the frontend's time,
 * and per camera the evaluation with the drift of all cameras together. */
void replay_rig_print(replay_rig_run* r, FILE* out);
/* The summary as JSON: frames, and per unit its camera, features, tracks and evaluation. */
int replay_rig_write_json(replay_rig_run* r, const char* path);

#endif

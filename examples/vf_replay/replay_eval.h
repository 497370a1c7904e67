// SPDX-License-Identifier: BSD-3-Clause
/* vf_replay's evaluation against the ground truth of a vf_synth sequence (its groundtruth/
 * folder): tracking error of every feature observation against where its 3-D point projects,
 * the camera-1 records' error against where the left feature's 3-D point projects into camera
 * 1, and disparity bad-pixel rates against the rendered disparity. */
#ifndef REPLAY_EVAL_H
#define REPLAY_EVAL_H

#include <stdio.h>
#include <viofront/viofront.h>

typedef struct replay_eval replay_eval;

/* *out = NULL (and 0 returned) when the sequence has no ground truth; -1 on errors. The
 * ground-truth files are decoded ahead by `threads` threads, up to `depth` frames ahead. This
 * evaluates the records of cam0 and cam1 (the reader's stereo pairs). */
int replay_eval_open(const char* sequence, const vf_euroc* reader, int threads, int depth,
                     replay_eval** out);

/* One tracked camera of a sequence (a rig's) and, where it has one, its pair's right camera. */
typedef struct replay_eval_camera {
  vf_camera cam, right;   /* T_BS in the ground truth's body frame; right unused without a pair */
  int camera;             /* vf_feature.camera of the tracked camera's records (the others are its
                             camera-1 records) */
  char depth[32];         /* groundtruth/ folder of the tracked camera's depth ("depth0") */
  char disparity[32];     /* folder of the pair's disparity ("disparity"); "" for no pair */
  char rectification[48]; /* the disparity's rectification file ("rectification.yaml") */
} replay_eval_camera;

/* As replay_eval_open for camera `c` over the frames at t_ns (increasing; the reader gives the
 * ground-truth poses only). Record ids are taken modulo 2^VF_RIG_FRONTEND_ID_SHIFT, so a rig
 * unit's records (vf_rig_frontend.h) index its tracks. */
int replay_eval_open_camera(const char* sequence, const vf_euroc* reader,
                            const replay_eval_camera* c, const int64_t* t_ns, int frames,
                            int threads, int depth, replay_eval** out);
void replay_eval_features(replay_eval* e, const vf_feature_frame* frame);
void replay_eval_disparity(replay_eval* e, const vf_disparity_frame* frame);
void replay_eval_print(replay_eval* e, FILE* out);
/* The summary as one JSON object (the figures replay_eval_print prints). */
void replay_eval_write_json(replay_eval* e, FILE* out);
/* Takes the frame's decoded ground-truth files without evaluating anything (for measuring). */
void replay_eval_fetch(replay_eval* e, int64_t t_ns);
/* Seconds the evaluation waited for its decoded files. */
double replay_eval_wait_s(const replay_eval* e);
void replay_eval_close(replay_eval* e);

/* Tracking errors over the tracked observations (age >= 2) that have ground truth. */
typedef struct replay_eval_errors {
  long observations;
  double median_px, mean_px;
  double within_1px; /* share within 1 px */
} replay_eval_errors;

/* Camera-1 records against the true right pixel of their left feature. */
typedef struct replay_eval_right {
  long left;           /* left features */
  long records;        /* of those, with a camera-1 record */
  long observations;   /* records with ground truth (true depth at the left pixel) */
  double median_px;    /* error over those */
  double over_half_px; /* share over 0.5 px */
  double over_1px;     /* share over 1 px */
  double with_record;  /* records / left */
} replay_eval_right;

/* Signed drift (ours less the projection of the first observation's point, raw pixels) over the
 * tracked observations of an age bin: persistent errors that a median hides. */
#define REPLAY_EVAL_AGE_BINS 5 /* ages 2-5, 6-10, 11-20, 21-50, 51 and over */
typedef struct replay_eval_signed {
  long observations;
  double mean_du_px, mean_dv_px;
  /* Along the track's own image motion since its first observation (+: ahead of the point),
   * over the observations that moved over 1 px. */
  long moved;
  double mean_along_px;
} replay_eval_signed;

/* Signed disparity error of the camera-1 records: our left u_rect less the record's, against
 * the exact disparity of the 3-D point under our left pixel (rendered depth, interpolated in
 * inverse depth where the four pixels around lie on one surface). */
typedef struct replay_eval_disparity_bias {
  long observations;
  double mean_px, median_px;
  double mean_abs_px;
  double mean_within_1px_px; /* the mean over the errors within 1 px (the body, not the tail) */
} replay_eval_disparity_bias;

/* The results, for tests. */
typedef struct replay_eval_summary {
  replay_eval_errors step;            /* against the previous observation's true point */
  replay_eval_errors drift;           /* against the first observation's true point */
  replay_eval_errors drift_off_edges; /* the same, of tracks not born on a depth edge */
  replay_eval_errors drift_by_age[REPLAY_EVAL_AGE_BINS]; /* drift by the track's age */
  replay_eval_right right;                               /* camera-1 records */
  replay_eval_right right_edge; /* the same for left features flagged VF_FEATURE_DEPTH_EDGE */
  replay_eval_signed drift_signed[REPLAY_EVAL_AGE_BINS + 1]; /* by age bin, then all ages */
  /* Drift of the tracks whose 21 x 21 window at their first observation lies on one surface
   * ([0]) and of those whose window spans a depth step ([1]: occlusion edges, junctions). */
  replay_eval_errors drift_step[2];
  replay_eval_signed drift_step_signed[2];
  replay_eval_disparity_bias disparity_bias;
  long disparity_frames;   /* frames whose map was compared */
  double bad1, bad2, bad3; /* share of ground-truth pixels off by more than 1/2/3 px or
                              without a disparity */
  double density;          /* share of ground-truth pixels with a disparity */
} replay_eval_summary;

void replay_eval_get(replay_eval* e, replay_eval_summary* out);

/* A rig camera's lines: tracking step, drift and drift off depth edges prefixed "<name>: " and,
 * for a stereo pair (right_name not NULL), its camera-1 records prefixed "<right_name>: " and
 * the disparity map's line. */
void replay_eval_print_camera(replay_eval* e, const char* name, const char* right_name, FILE* out);
/* The drift of several evaluators' observations together (the rig's cameras). */
void replay_eval_pool_drift(replay_eval* const* e, int n, replay_eval_errors* out);
/* The tracking-drift line of `drift`, prefixed. */
void replay_eval_print_drift(const replay_eval_errors* drift, const char* prefix, FILE* out);
/* "  \"name\": {observations, median_px, mean_px, within_1px},\n", a JSON object's member. */
void replay_eval_json_errors(FILE* out, const char* name, const replay_eval_errors* t);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* vf_replay: replays an EuRoC sequence (real, or written by vf_synth) through the frontend.
 * The pieces: options, the features CSV, the overlay pictures, the statistics and, for
 * sequences with rendered ground truth, the evaluation. */
#ifndef VF_REPLAY_H
#define VF_REPLAY_H

#include <stdint.h>
#include <stdio.h>
#include <viofront/viofront.h>

typedef struct replay_options {
  const char* sequence; /* folder holding mav0 */
  const char* config;   /* viofront YAML, or NULL for the defaults */
  vf_backend backend;
  int backend_given;         /* 1: --backend given, over the config's context.backend */
  int realtime;              /* 1: pace the replay at the recorded rate */
  int max_frames;            /* 0 = all */
  const char* csv;           /* features CSV path, or NULL */
  const char* json;          /* summary JSON path, or NULL */
  const char* disparity_dir; /* 16-bit PNG disparity maps written here, or NULL */
  const char* overlay_dir;   /* overlay pictures written here, or NULL */
  int overlay_frames[16];    /* frame numbers to draw */
  int overlay_count;
  int quiet;
  int decode_threads; /* reader and ground-truth decoding threads, -1 = the reader's default */
  int prefetch;       /* pairs decoded ahead, -1 = max(8, 2 x decode threads) */
  int read_only;      /* 1: only read the sequence (no frontend): the reader's own speed */
  int no_eval;        /* 1: no evaluation even where the sequence has ground truth */
  int pageable;       /* --pageable: ordinary image buffers on CUDA too */
  int stereo;         /* --stereo: a vf_frontend_stereo_mode (stereo on), -1 = the config's */
  int dense_every;    /* --dense-every: sparse mode's map every N frames, -1 = the config's */
  int rig;            /* --rig: the cameras of a camchain file through the rig frontend */
  const char* rig_camchain; /* --rig's file, NULL = SEQUENCE/camchain.yaml */
} replay_options;

/* Per-frame statistics kept during the replay and summarised at the end. */
typedef struct replay_stats {
  int camera; /* vf_feature.camera of the tracked camera's records: 0, or a rig unit's camera */
  long frames;
  long features;   /* the tracked camera's records over all frames */
  long with_depth; /* of those, with a disparity */
  int* per_frame;  /* the tracked camera's records of each frame (grown as frames come) */
  size_t per_frame_cap;
  long right_records;                           /* camera-1 records over all frames */
  long right_missing[VF_RIGHT_MISSING_REASONS]; /* left features without one, by reason */
  long depth_edge;                              /* of them, flagged VF_FEATURE_DEPTH_EDGE */
  uint64_t max_id;                              /* largest track id seen + 1 */
  int* track_age;                               /* per id: frames observed (grown as ids appear) */
  size_t track_cap;
  vf_stage_times sum;
  double wall_s;
  long read_frames; /* stereo pairs the reader handed out */
  double read_s;    /* time spent in vf_euroc_next (waiting for decoded pairs) */
  double process_s; /* time spent in vf_frontend_process, callbacks and evaluation included */
} replay_stats;

int replay_parse_args(int argc, char** argv, replay_options* opt);
/* Whether the images are decoded into page-locked buffers: on CUDA, unless --pageable (the single
 * pair's reader and the rig's ring alike). */
int replay_pinned_buffers(const replay_options* opt, const vf_context* ctx);

/* Monotonic seconds (replay_clock.c). */
double replay_now_s(void);
/* --realtime: sleeps until t_ns is as far after t0_ns as now is after t_start_s. */
void replay_pace(double t_start_s, int64_t t0_ns, int64_t t_ns);

/* vf_replay --rig (replay_rig.c): the whole run over the rig's cameras, from the sequence to the
 * summary; the exit status. */
int replay_rig_main(const replay_options* opt, vf_context* ctx, const vf_frontend_config* fc);

/* Records one feature frame; 0 on success, -1 when out of memory. */
int replay_stats_add(replay_stats* st, const vf_feature_frame* frame);
void replay_stats_print(const replay_stats* st, FILE* out);
/* Camera-0 records per frame and the mean track length (frames), as printed. */
void replay_stats_summary(const replay_stats* st, double* per_frame, double* track_length);
/* The reader's own time: waiting for decoded pairs against the frontend's, with the evaluation's
 * wait for its ground-truth files (eval_wait_s). */
void replay_stats_print_reader(const replay_stats* st, int decode_threads, int prefetch,
                               double eval_wait_s, FILE* out);
void replay_stats_free(replay_stats* st);

/* Features CSV: "t_ns,id,cam,u,v,x,y,vx,vy,disparity,depth,u_rect,v_rect,flags" (VINS-style,
 * then the rectified pixel, then the VF_FEATURE_* bits), one row a record. */
FILE* replay_csv_open(const char* path);
void replay_csv_write(FILE* f, const vf_feature_frame* frame);
/* Writes "<csv_path>.rectification.yaml" (f, cx, cy, baseline_m, R1, R2) from a feature frame,
 * or "<csv_path>.<tag>.rectification.yaml" when tag is not NULL (a rig camera's name); 0 on
 * success, -1 when it cannot be written. */
int replay_csv_write_rectification(const char* csv_path, const char* tag,
                                   const vf_feature_frame* frame);

/* Sparse stereo's matches against the dense map at the features (replay_sparse.c). */
typedef struct replay_sparse_match {
  float u_rect, v_rect, disparity; /* a left record with a camera-1 record */
} replay_sparse_match;
typedef struct replay_sparse {
  replay_sparse_match* pending; /* the last feature frame's matches, until its map arrives */
  long pending_count, pending_cap;
  uint64_t pending_sequence;
  float* diffs; /* |sparse - dense| px where the map has a value */
  long diff_count, diff_cap;
  long records;  /* matches on frames with a map */
  long no_value; /* of those, where the map has no value */
  long frames;   /* frames compared */
} replay_sparse;
/* Whether the frontend's frames have both matches and maps: sparse mode with dense_every. */
int replay_sparse_wanted(const vf_frontend_config* fc);
/* Keeps the frame's matches; 0, or -1 when out of memory. */
int replay_sparse_features(replay_sparse* sp, const vf_feature_frame* frame);
/* Compares the kept matches with the frame's map (host memory); 0, or -1 when out of memory. */
int replay_sparse_disparity(replay_sparse* sp, const vf_disparity_frame* frame);
/* "sparse vs dense map at the features: ..." */
void replay_sparse_print(replay_sparse* sp, FILE* out);
void replay_sparse_free(replay_sparse* sp);

/* The rectified left image with the tracks drawn over it, beside the colour-mapped disparity,
 * as an RGB PNG. */
vf_status replay_overlay_write(const char* path, const vf_image* rectified_left,
                               const vf_feature_frame* frame, const vf_image* disparity_host,
                               int fractional_bits, int max_disparity);

#endif

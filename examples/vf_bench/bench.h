// SPDX-License-Identifier: BSD-3-Clause
/* vf_bench: shared pieces. Each stage benchmark lives in its own bench_<stage>.c and is listed
 * in bench_stages.c. Results are JSON objects, one per configuration. */
#ifndef VF_BENCH_H
#define VF_BENCH_H

#include <stdio.h>
#include <viofront/viofront.h>

#include "example_log.h"

typedef struct bench_options {
  vf_backend backend;
  int runs;          /* timed repetitions (median and min reported) */
  int warmup;        /* untimed repetitions first */
  int width, height; /* 0 = each stage's default sizes */
  const char* image; /* PNG to use instead of a generated texture (resized sizes ignored) */
  const char* data_dir;
  int quiet; /* 1: the library's warnings are not shown */
} bench_options;

typedef struct bench_stats {
  double median_ms;
  double min_ms;
  double mean_ms;
  int runs;
} bench_stats;

/* A JSON array writer: results are appended as objects. */
typedef struct bench_out {
  FILE* json;
  int count;
} bench_out;

/* Runs fn `warmup` times untimed, then `runs` times between vf_timer_start/stop. */
typedef vf_status (*bench_step_fn)(void* arg);
vf_status bench_time(vf_context* ctx, const bench_options* opt, bench_step_fn fn, void* arg,
                     bench_stats* out);
/* The same with prepare(arg) before each timed run, untimed (NULL: nothing). */
vf_status bench_time_prepared(vf_context* ctx, const bench_options* opt, bench_step_fn prepare,
                              bench_step_fn fn, void* arg, bench_stats* out);

/* Starts a result object with the common fields; finish with bench_result_end. */
void bench_result_begin(bench_out* out, const char* stage, int width, int height,
                        const bench_stats* st);
void bench_result_int(bench_out* out, const char* key, long long value);
void bench_result_num(bench_out* out, const char* key, double value);
void bench_result_str(bench_out* out, const char* key, const char* value);
/* A JSON array of numbers; stderr shows its range only. */
void bench_result_nums(bench_out* out, const char* key, const double* values, int count);
void bench_result_end(bench_out* out);

/* A deterministic textured 8-bit image (host memory, free with vf_image_free). */
vf_status bench_make_texture(int width, int height, unsigned seed, vf_image* out);

/* A stage benchmark: returns 0 on success, prints its own error otherwise. */
typedef int (*bench_stage_fn)(vf_context* ctx, const bench_options* opt, bench_out* out);
typedef struct bench_stage {
  const char* name;
  bench_stage_fn run;
} bench_stage;

extern const bench_stage bench_stages[];

int bench_pyramid(vf_context* ctx, const bench_options* opt, bench_out* out);
int bench_frontend(vf_context* ctx, const bench_options* opt, bench_out* out);
int bench_stereo(vf_context* ctx, const bench_options* opt, bench_out* out);
int bench_detector(vf_context* ctx, const bench_options* opt, bench_out* out);
int bench_remap(vf_context* ctx, const bench_options* opt, bench_out* out);
int bench_tracker(vf_context* ctx, const bench_options* opt, bench_out* out);
int bench_streams(vf_context* ctx, const bench_options* opt, bench_out* out);
int bench_rig(vf_context* ctx, const bench_options* opt, bench_out* out);

/* Where a stage's input frames live: ordinary host memory, page-locked host memory
 * (vf_image_alloc_pinned, CUDA only), device memory, or ordinary host memory locked in place
 * after its allocation (vf_image_pin, CUDA only: a caller's own buffers). */
typedef enum bench_input {
  BENCH_INPUT_HOST,
  BENCH_INPUT_PINNED,
  BENCH_INPUT_DEVICE,
  BENCH_INPUT_LOCKED
} bench_input;
const char* bench_input_name(bench_input input);

/* The "frontend" stage's input (bench_frontend.c), shared with "streams": a 752x480 pair that
 * moves by whole pixels, in one of the bench_input places, played back and forth. */
enum { BENCH_FRONTEND_FRAMES = 8 };
typedef struct bench_frontend_input {
  vf_image frames[BENCH_FRONTEND_FRAMES][2];
  int next;
  int64_t t_ns;
  int locked; /* BENCH_INPUT_LOCKED: unlock before freeing */
} bench_frontend_input;
vf_status bench_frontend_input_make(bench_input where, bench_frontend_input* in);
void bench_frontend_input_free(bench_frontend_input* in);
/* EuRoC's rig (rectified: ideal cameras instead, for which the pair's shift is a true
 * disparity), 200 features, SGM 64/4 without the median: the stage's configuration. */
vf_frontend_config bench_frontend_config(int rectified);
/* VF_BENCH_FRONTEND_PAIR=rectified: the frontend stage's cameras ideal (bench_frontend.c); the
 * rig and streams stages keep EuRoC's. */
int bench_frontend_pair_rectified(void);
/* The index of the input's next frame, its time (in->t_ns) advanced by 50 ms. */
int bench_frontend_next(bench_frontend_input* in);
/* Processes the input's next frame with fe. */
vf_status bench_frontend_step(vf_frontend* fe, bench_frontend_input* in);

/* A vf_stereo with its pair and output in the context's memory (bench_stereo.c): made from host
 * images hl, hr; bench_stereo_step computes one frame. */
typedef struct bench_stereo_job {
  vf_stereo* stereo;
  vf_image left, right, out;
} bench_stereo_job;
vf_status bench_stereo_job_make(vf_context* ctx, const vf_stereo_config* c, const vf_image* hl,
                                const vf_image* hr, bench_stereo_job* job);
/* The same with a textured pair whose right view is the left shifted by `shift`. */
vf_status bench_stereo_job_synthetic(vf_context* ctx, const vf_stereo_config* c, int shift,
                                     bench_stereo_job* job);
void bench_stereo_job_free(bench_stereo_job* job);
vf_status bench_stereo_step(void* arg);
/* Hierarchical SGM and 16 paths beside SGM on real pairs (bench_hsgm.c), part of "stereo". */
int bench_stereo_hsgm(vf_context* ctx, const bench_options* opt, bench_out* out);

#endif

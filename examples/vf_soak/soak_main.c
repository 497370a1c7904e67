// SPDX-License-Identifier: BSD-3-Clause
/* vf_soak: the frontend on a sequence replayed lap after lap (issue 9's soak test). It checks
 * that a long run holds steady: after the warm-up, host memory (RSS), threads, file descriptors
 * and GPU memory must stay where they were, and every frame must give exactly one callback.
 * Samples go to stdout (and --csv); the verdict is the last line and the exit status. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "example_context.h"
#include "example_log.h"
#include "soak.h"

/* Replaying from the reader, each of its decoding threads may hold one image file open when a
 * sample is taken. */
#define SOAK_GPU_SLACK_MB 0.5

typedef struct soak_run {
  long callbacks;
  uint64_t last_sequence;
  int sequence_ok;
} soak_run;

static void on_features(const vf_feature_frame* f, void* user) {
  soak_run* r = user;
  if (r->callbacks > 0 && f->sequence != r->last_sequence + 1) r->sequence_ok = 0;
  r->last_sequence = f->sequence;
  r->callbacks++;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static vf_status make_frontend(const soak_options* opt, vf_context* ctx, vf_euroc* reader,
                               soak_run* run, vf_frontend** fe) {
  vf_frontend_config fc = vf_frontend_config_default();
  int has_cameras = 0;
  vf_status s = VF_OK;
  if (opt->config != NULL) s = vf_frontend_config_load(opt->config, ctx, &fc, &has_cameras);
  if (s == VF_OK && !has_cameras) s = vf_euroc_camera(reader, 0, &fc.cam0);
  if (s == VF_OK && !has_cameras) s = vf_euroc_camera(reader, 1, &fc.cam1);
  vf_frontend_callbacks cb = {on_features, NULL, run};
  if (s == VF_OK) s = vf_frontend_create(ctx, &fc, &cb, fe);
  return s;
}

/* Runs the frames, sampling as it goes; fills `base` (after the warm-up) and `end`. */
static vf_status soak(const soak_options* opt, soak_source* src, vf_frontend* fe, int gpu,
                      FILE* csv, soak_sample* base, soak_sample* end, soak_sample* max) {
  const long warm = (long)(opt->warmup * (double)opt->frames);
  double t0 = now_s(), t_prev = t0;
  long frames = 0, prev = 0;
  vf_status s = VF_OK;
  while (frames < opt->frames && s == VF_OK) {
    vf_euroc_event ev;
    s = soak_source_next(src, &ev);
    if (s != VF_OK) break;
    if (ev.type == VF_EUROC_IMU) {
      s = vf_frontend_push_imu(fe, ev.t_ns, ev.imu.gyro, ev.imu.acc);
      continue;
    }
    s = vf_frontend_process(fe, ev.t_ns, &ev.left, &ev.right);
    if (++frames % opt->sample != 0 && frames != opt->frames) continue;
    soak_sample sm;
    soak_sample_take(&sm, gpu);
    double t = now_s();
    sm.frame = frames;
    sm.wall_s = t - t0;
    sm.ms_per_frame = 1e3 * (t - t_prev) / (double)(frames - prev);
    t_prev = t;
    prev = frames;
    soak_sample_print(stdout, &sm);
    if (csv != NULL) soak_sample_print(csv, &sm);
    fflush(stdout);
    if (frames <= warm || base->frame == 0) *base = sm;
    if (frames > warm || max->frame == 0) {
      max->frame = frames;
      max->rss_mb = fmax(max->rss_mb, sm.rss_mb);
      max->hwm_mb = fmax(max->hwm_mb, sm.hwm_mb);
      max->gpu_used_mb = fmax(max->gpu_used_mb, sm.gpu_used_mb);
      max->threads = sm.threads > max->threads ? sm.threads : max->threads;
      max->fds = sm.fds > max->fds ? sm.fds : max->fds;
    }
    *end = sm;
    if (opt->max_seconds > 0 && sm.wall_s > opt->max_seconds) break;
  }
  return s;
}

static void print_verdict(const soak_sample* base, const soak_sample* end, const soak_sample* max,
                          long laps, long callbacks, const char* verdict) {
  printf("vf_soak: %ld frames, %ld laps, %.1f s, %.3f ms/frame; after warm-up (frame %ld): ",
         end->frame, laps, end->wall_s, 1e3 * end->wall_s / (double)end->frame, base->frame);
  printf("rss %.1f -> %.1f MB (max %.1f), peak %.1f -> %.1f MB, ", base->rss_mb, end->rss_mb,
         max->rss_mb, base->hwm_mb, max->hwm_mb);
  printf("gpu %.1f -> %.1f MB (max %.1f), ", base->gpu_used_mb, end->gpu_used_mb, max->gpu_used_mb);
  printf("threads %d -> %d (max %d), fds %d -> %d (max %d); callbacks %ld: %s\n", base->threads,
         end->threads, max->threads, base->fds, end->fds, max->fds, callbacks, verdict);
}

int main(int argc, char** argv) {
  soak_options opt;
  if (soak_parse_args(argc, argv, &opt) != 0) return 2;
  /* The file's context section under the command line's; a file that does not load is reported
   * by make_frontend, with the context's log. */
  vf_context_config cc = example_context_config(opt.config);
  if (opt.backend_given) cc.backend = opt.backend;
  if (opt.threads_given) cc.cpu_threads = opt.threads;
  example_log_install(&cc, "vf_soak", opt.quiet);
  vf_context* ctx = NULL;
  vf_euroc* reader = NULL;
  soak_source* src = NULL;
  vf_frontend* fe = NULL;
  soak_run run = {0, 0, 1};
  vf_status s = vf_context_create(&cc, &ctx);
  const vf_euroc_config ec = vf_euroc_config_default();
  const int decoders = ec.decode_threads > 1 ? ec.decode_threads : 1;
  if (s == VF_OK) s = vf_euroc_open(opt.sequence, &ec, ctx, &reader);
  if (s == VF_OK) s = soak_source_open(reader, opt.preload, &src);
  if (s == VF_OK) s = make_frontend(&opt, ctx, reader, &run, &fe);
  FILE* csv = opt.csv != NULL ? fopen(opt.csv, "w") : NULL;
  soak_sample base, end, max;
  memset(&base, 0, sizeof base);
  memset(&end, 0, sizeof end);
  memset(&max, 0, sizeof max);
  max.gpu_used_mb = -1.0;
  if (s == VF_OK) {
    vf_device_info dev;
    vf_context_device_info(ctx, &dev);
    printf("vf_soak: %s, %ld frames on %s (%s, %d threads), %s, sample every %ld\n", opt.sequence,
           opt.frames, vf_backend_name(vf_context_backend(ctx)), dev.name, dev.multiprocessors,
           opt.preload ? "preloaded" : "reader rewound each lap", opt.sample);
    soak_sample_print(stdout, NULL);
    if (csv != NULL) soak_sample_print(csv, NULL);
    s = soak(&opt, src, fe, vf_context_backend(ctx) == VF_BACKEND_CUDA, csv, &base, &end, &max);
  }
  if (s != VF_OK) fprintf(stderr, "vf_soak: %s (%s)\n", vf_status_str(s), vf_last_error_message());
  int grew = max.hwm_mb > base.hwm_mb + SOAK_HWM_SLACK_MB ||
             max.gpu_used_mb > base.gpu_used_mb + SOAK_GPU_SLACK_MB || max.threads > base.threads ||
             max.fds > base.fds + (opt.preload ? 0 : decoders);
  int ok = s == VF_OK && run.sequence_ok && run.callbacks == end.frame;
  if (s == VF_OK)
    print_verdict(&base, &end, &max, soak_source_laps(src), run.callbacks,
                  !ok    ? "FAILED"
                  : grew ? "GREW"
                         : "FLAT");
  if (csv != NULL) fclose(csv);
  vf_frontend_destroy(fe);
  soak_source_close(src);
  vf_euroc_close(reader);
  vf_context_destroy(ctx);
  return !ok ? 1 : grew ? 3 : 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/* vf_bench "streams": N frontends at once on one device (a multi-camera rig, one GPU serving
 * several robots). Each has its own context, so its own CUDA stream, and its own thread, which
 * creates it, warms it up and then processes the "frontend" stage's input (752x480, SGM 64/4)
 * while the others do the same. All threads start the timed frames together (a barrier) and tear
 * down only after all have finished, so set-up and cudaFree never fall into another's timing.
 * Reported per N: aggregate frames per second (every timed frame / wall time from the first
 * start to the last finish) and the host wall time of each vf_frontend_process call, pooled and
 * per frontend (median, p99, max). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

enum { STREAMS_MAX = 16 };

typedef struct stream_job {
  vf_backend backend;
  bench_input where;
  int cpu_threads, quiet, warmup, frames;
  pthread_barrier_t* start; /* all warmed up: the timed frames begin */
  pthread_barrier_t* done;  /* all timed frames done: teardown may begin */
  double* latency_ms;       /* one per timed frame */
  struct timespec begin, end;
  long features; /* tracked + detected over every frame, warm-up included */
  vf_status status;
  char error[256];
} stream_job;

static void stream_on_features(const vf_feature_frame* fr, void* user) {
  stream_job* j = user;
  j->features += fr->tracked + fr->detected;
}

static double seconds_between(const struct timespec* a, const struct timespec* b) {
  return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

/* The steps after set-up; a failure stops the frames but never skips a barrier. */
static vf_status stream_frames(stream_job* j, vf_frontend* fe, bench_frontend_input* in,
                               vf_status s) {
  for (int i = 0; s == VF_OK && i < j->warmup; ++i) s = bench_frontend_step(fe, in);
  pthread_barrier_wait(j->start);
  clock_gettime(CLOCK_MONOTONIC, &j->begin);
  for (int i = 0; s == VF_OK && i < j->frames; ++i) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    s = bench_frontend_step(fe, in);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    j->latency_ms[i] = seconds_between(&t0, &t1) * 1e3;
  }
  clock_gettime(CLOCK_MONOTONIC, &j->end);
  if (s != VF_OK) snprintf(j->error, sizeof j->error, "%s", vf_last_error_message());
  pthread_barrier_wait(j->done);
  return s;
}

static void* stream_run(void* arg) {
  stream_job* j = arg;
  vf_context_config cc = vf_context_config_default();
  cc.backend = j->backend;
  cc.cpu_threads = j->cpu_threads;
  example_log_install(&cc, "vf_bench", j->quiet);
  vf_context* ctx = NULL;
  vf_frontend* fe = NULL;
  bench_frontend_input in;
  memset(&in, 0, sizeof in);
  vf_frontend_config fc = bench_frontend_config(0);
  vf_status s = vf_context_create(&cc, &ctx);
  if (s == VF_OK) s = bench_frontend_input_make(j->where, &in);
  vf_frontend_callbacks cb = {stream_on_features, NULL, j};
  if (s == VF_OK) s = vf_frontend_create(ctx, &fc, &cb, &fe);
  if (s != VF_OK) snprintf(j->error, sizeof j->error, "%s", vf_last_error_message());
  j->status = stream_frames(j, fe, &in, s);
  vf_frontend_destroy(fe);
  bench_frontend_input_free(&in);
  vf_context_destroy(ctx);
  return NULL;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Nearest-rank quantile of n sorted values. */
static double quantile(const double* sorted, int n, double q) {
  int k = (int)(q * n + 0.999999);
  k = k < 1 ? 1 : (k > n ? n : k);
  return sorted[k - 1];
}

static void streams_report(bench_out* out, stream_job* jobs, int n, double* all, int cpu_threads,
                           long features) {
  const int frames = jobs[0].frames, total = n * frames;
  double med[STREAMS_MAX], p99[STREAMS_MAX], max[STREAMS_MAX], worst_med = 0.0, worst_p99 = 0.0;
  struct timespec first = jobs[0].begin, last = jobs[0].end;
  for (int t = 0; t < n; ++t) {
    double* l = jobs[t].latency_ms;
    memcpy(all + (size_t)t * frames, l, sizeof *l * (size_t)frames);
    qsort(l, (size_t)frames, sizeof *l, cmp_double);
    med[t] = quantile(l, frames, 0.5);
    p99[t] = quantile(l, frames, 0.99);
    max[t] = l[frames - 1];
    worst_med = med[t] > worst_med ? med[t] : worst_med;
    worst_p99 = p99[t] > worst_p99 ? p99[t] : worst_p99;
    if (seconds_between(&jobs[t].begin, &first) > 0) first = jobs[t].begin;
    if (seconds_between(&last, &jobs[t].end) > 0) last = jobs[t].end;
  }
  double sum = 0.0;
  for (int i = 0; i < total; ++i) sum += all[i];
  qsort(all, (size_t)total, sizeof *all, cmp_double);
  bench_stats st = {quantile(all, total, 0.5), all[0], sum / total, frames};
  double wall_s = seconds_between(&first, &last);
  bench_result_begin(out, "streams", 752, 480, &st);
  bench_result_str(out, "input", bench_input_name(jobs[0].where));
  bench_result_int(out, "streams", n);
  bench_result_int(out, "cpu_threads", cpu_threads);
  bench_result_int(out, "frames", total);
  bench_result_num(out, "wall_s", wall_s);
  bench_result_num(out, "aggregate_fps", wall_s > 0 ? total / wall_s : 0.0);
  bench_result_num(out, "features_per_frame",
                   (double)features / ((double)n * (jobs[0].frames + jobs[0].warmup)));
  bench_result_num(out, "latency_median_ms", st.median_ms);
  bench_result_num(out, "latency_p99_ms", quantile(all, total, 0.99));
  bench_result_num(out, "latency_max_ms", all[total - 1]);
  bench_result_num(out, "worst_median_ms", worst_med);
  bench_result_num(out, "worst_p99_ms", worst_p99);
  bench_result_nums(out, "frontend_median_ms", med, n);
  bench_result_nums(out, "frontend_p99_ms", p99, n);
  bench_result_nums(out, "frontend_max_ms", max, n);
  bench_result_end(out);
}

static int streams_run(vf_backend backend, bench_input where, int n, int warmup, int frames,
                       const bench_options* opt, bench_out* out) {
  /* Each CPU frontend gets a share of the cores rather than all of them each. */
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int cpu_threads = cores > n ? (int)(cores / n) : 1;
  stream_job jobs[STREAMS_MAX];
  pthread_t threads[STREAMS_MAX];
  pthread_barrier_t start, done;
  double* latency = calloc((size_t)(2 * n * frames), sizeof *latency);
  if (latency == NULL) return 1;
  pthread_barrier_init(&start, NULL, (unsigned)n);
  pthread_barrier_init(&done, NULL, (unsigned)n);
  int started = 0, failed = 0;
  for (int t = 0; t < n; ++t) {
    stream_job* j = &jobs[t];
    memset(j, 0, sizeof *j);
    j->backend = backend;
    j->where = where;
    j->cpu_threads = cpu_threads;
    j->quiet = opt->quiet;
    j->warmup = warmup;
    j->frames = frames;
    j->start = &start;
    j->done = &done;
    j->latency_ms = latency + (size_t)t * frames;
  }
  /* Every thread must be running, or the others would wait at the barrier for ever. */
  for (; started < n; ++started)
    if (pthread_create(&threads[started], NULL, stream_run, &jobs[started]) != 0) break;
  if (started < n) {
    fprintf(stderr, "streams: could not start %d threads\n", n);
    exit(1);
  }
  for (int t = 0; t < n; ++t) pthread_join(threads[t], NULL);
  for (int t = 0; t < n; ++t) {
    if (jobs[t].status != VF_OK) {
      fprintf(stderr, "streams: frontend %d of %d: %s: %s\n", t, n, vf_status_str(jobs[t].status),
              jobs[t].error);
      failed = 1;
    }
  }
  long features = 0;
  for (int t = 0; t < n; ++t) features += jobs[t].features;
  if (!failed) streams_report(out, jobs, n, latency + (size_t)n * frames, cpu_threads, features);
  /* As in the "frontend" stage: frames that hold no feature time no tracking. */
  if (!failed && features == 0) {
    fprintf(stderr, "streams: no frame held a feature; this row tracks nothing\n");
    failed = 1;
  }
  pthread_barrier_destroy(&start);
  pthread_barrier_destroy(&done);
  free(latency);
  return failed;
}

int bench_streams(vf_context* ctx, const bench_options* opt, bench_out* out) {
  static const int gpu_counts[] = {1, 2, 4, 8, 16}, cpu_counts[] = {1, 2, 4};
  const vf_backend backend = vf_context_backend(ctx);
  const int cuda = backend == VF_BACKEND_CUDA;
  const int* counts = cuda ? gpu_counts : cpu_counts;
  const int kinds = cuda ? 5 : 3;
  /* A CPU frame takes a good part of a second at N 4: fewer frames keep the stage quick. */
  const int frames = cuda ? opt->runs : (opt->runs < 10 ? opt->runs : 10);
  const int warmup = cuda ? opt->warmup : (opt->warmup < 2 ? opt->warmup : 2);
  int failed = 0;
  const bench_input inputs[3] = {BENCH_INPUT_HOST, BENCH_INPUT_PINNED, BENCH_INPUT_DEVICE};
  for (int input = 0; input < (cuda ? 3 : 1); ++input) {
    const bench_input where = inputs[input];
    for (int i = 0; i < kinds; ++i)
      failed |= streams_run(backend, where, counts[i], warmup, frames, opt, out);
  }
  return failed;
}

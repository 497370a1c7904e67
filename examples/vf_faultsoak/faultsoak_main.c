// SPDX-License-Identifier: BSD-3-Clause
/* vf_faultsoak: see faultsoak.h. Usage:
 *   vf_faultsoak SEQUENCE --work DIR [--frames N] [--backend cpu|cuda] [--seed S]
 *                [--sample K] [--threads T] [--max-seconds S] [--csv FILE] [--csv-every L]
 *                [--config YAML]
 * Per lap (the reader reopened on the lap folder, timestamps shifted so that time goes on): one
 * lap in L (8) has a truncated CSV row (the open must fail naming the file); the others have two
 * corrupted and two truncated images and a missing one, and in the stream a dropped frame, a
 * duplicated frame and an IMU gap (the frontend's IMU gap limit is 30 ms here). Exit 0 when
 * every fault was reported once, nothing else failed, no track id came back and memory and
 * descriptors stayed flat; 1 on a wrong report, 3 when something grew. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "faultsoak.h"
#include "soak.h"

enum { KINDS = 6, MAX_WARN = 64 };
static const char* kind_name[KINDS] = {"truncated CSV row", "corrupted PNG",    "truncated PNG",
                                       "missing PNG",       "duplicated frame", "IMU gap"};

typedef struct run {
  long injected[KINDS], reported[KINDS], wrong; /* wrong: a report twice, none, or unexpected */
  long dropped, frames, callbacks, excerpt_warnings, boundary_warnings;
  uint64_t max_id, alive[512];
  int alive_count, ids_ok;
  int64_t last_t;
  char warn[MAX_WARN][512]; /* warnings since the last look */
  int warn_count;
} run;

static void on_log(vf_log_level level, const char* message, void* user) {
  run* r = user;
  if (level <= VF_LOG_WARN && r->warn_count < MAX_WARN)
    snprintf(r->warn[r->warn_count++], sizeof r->warn[0], "%s", message);
}

static void on_features(const vf_feature_frame* fr, void* user) {
  run* r = user;
  if (r->callbacks++ > 0 && fr->t_ns <= r->last_t) r->ids_ok = 0;
  r->last_t = fr->t_ns;
  uint64_t before = r->max_id, now[512];
  int n = 0;
  for (int i = 0; i < fr->count; ++i) {
    const vf_feature* f = &fr->features[i];
    if (f->camera != 0) continue;
    int was = 0;
    for (int j = 0; j < r->alive_count; ++j) was |= r->alive[j] == f->id;
    if (!was && f->id <= before) r->ids_ok = 0; /* an id came back, or a new one is not new */
    if (f->id > r->max_id) r->max_id = f->id;
    if (n < 512) now[n++] = f->id;
  }
  memcpy(r->alive, now, sizeof now[0] * (size_t)n);
  r->alive_count = n;
}

/* Warnings since the last call that contain `what`; the others are left. */
static int take_warnings(run* r, const char* what) {
  int found = 0, kept = 0;
  for (int i = 0; i < r->warn_count; ++i) {
    if (strstr(r->warn[i], what) != NULL) {
      found++;
    } else if (kept != i) {
      memcpy(r->warn[kept++], r->warn[i], sizeof r->warn[0]);
    } else {
      kept++;
    }
  }
  r->warn_count = kept;
  return found;
}

/* Compares a fault's reports with the one expected. */
static void account(run* r, int kind, int reports, const char* what) {
  r->injected[kind]++;
  r->reported[kind] += reports == 1;
  if (reports != 1) {
    r->wrong++;
    fprintf(stderr, "vf_faultsoak: %s %s reported %d times\n", kind_name[kind], what, reports);
  }
}

static void unexpected(run* r, const char* what) {
  r->wrong++;
  fprintf(stderr, "vf_faultsoak: unexpected: %s\n", what);
}

typedef struct opts {
  const char *sequence, *work, *csv, *config;
  long frames, sample, csv_every;
  unsigned seed;
  int threads;
  double max_seconds;
  vf_backend backend;
} opts;

static int parse(int argc, char** argv, opts* o) {
  memset(o, 0, sizeof *o);
  o->frames = 10000;
  o->sample = 500;
  o->csv_every = 8;
  o->seed = 1;
  o->backend = VF_BACKEND_CPU;
  if (argc < 2) return -1;
  o->sequence = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    const char *k = argv[i], *v = argv[i + 1];
    if (strcmp(k, "--work") == 0)
      o->work = v;
    else if (strcmp(k, "--frames") == 0)
      o->frames = atol(v);
    else if (strcmp(k, "--sample") == 0)
      o->sample = atol(v);
    else if (strcmp(k, "--seed") == 0)
      o->seed = (unsigned)atol(v);
    else if (strcmp(k, "--threads") == 0)
      o->threads = atoi(v);
    else if (strcmp(k, "--max-seconds") == 0)
      o->max_seconds = atof(v);
    else if (strcmp(k, "--csv") == 0)
      o->csv = v;
    else if (strcmp(k, "--csv-every") == 0)
      o->csv_every = atol(v);
    else if (strcmp(k, "--config") == 0)
      o->config = v;
    else if (strcmp(k, "--backend") == 0)
      o->backend = strcmp(v, "cuda") == 0   ? VF_BACKEND_CUDA
                   : strcmp(v, "auto") == 0 ? VF_BACKEND_AUTO
                                            : VF_BACKEND_CPU;
    else
      return -1;
  }
  return o->work != NULL && o->frames > 0 && o->sample > 0 && o->csv_every > 0 ? 0 : -1;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The stream faults of a lap: which stereo events (counted from 0) are dropped, duplicated, and
 * followed by an IMU gap. */
typedef struct stream_faults {
  int drop, duplicate, gap;
} stream_faults;

/* One lap: open (a CSV fault must fail it), replay with stream faults, account. Returns the
 * open's failure when the lap had no CSV fault, else VF_OK (other failures are counted). */
static vf_status lap(run* r, vf_context* ctx, vf_frontend* fe, const fs_lap_dir* d,
                     const fs_file_faults* ff, const stream_faults* sf, int64_t shift,
                     long frames_max) {
  vf_euroc* e = NULL;
  vf_euroc_config ec = vf_euroc_config_default();
  ec.prefetch = 2;
  vf_status s = vf_euroc_open(d->root, &ec, ctx, &e);
  if (ff->csv_cam >= 0) {
    int named = s == VF_ERR_FORMAT && strstr(vf_last_error_message(), "data.csv") != NULL;
    account(r, 0, named, ff->csv_cam < 2 ? "camera data.csv" : "imu0/data.csv");
    r->warn_count = 0;
    vf_euroc_close(e);
    return VF_OK;
  }
  if (s != VF_OK) return s;
  account(r, 3, take_warnings(r, ff->missing), ff->missing);
  r->excerpt_warnings += take_warnings(r, "does not exist") + take_warnings(r, "no partner");
  int png_reports[4] = {0, 0, 0, 0}, pair = 0, first = 1;
  int64_t gap_from = INT64_MAX, gap_to = INT64_MIN;
  vf_euroc_event ev;
  while (r->frames < frames_max) {
    s = vf_euroc_next(e, &ev);
    if (ev.type == VF_EUROC_END) break;
    if (s != VF_OK) {
      int known = 0;
      for (int j = 0; j < 4; ++j) {
        if (strstr(vf_euroc_last_error(e), ff->bad_png[j]) != NULL) png_reports[j]++, known = 1;
      }
      if (!known) unexpected(r, vf_euroc_last_error(e));
      pair++;
      continue;
    }
    int64_t t = ev.t_ns + shift;
    if (ev.type == VF_EUROC_IMU) {
      if (t >= gap_from && t <= gap_to) continue;
      if (vf_frontend_push_imu(fe, t, ev.imu.gyro, ev.imu.acc) != VF_OK)
        unexpected(r, vf_frontend_last_error(fe));
      continue;
    }
    int k = pair++;
    if (k == sf->drop) {
      r->dropped++;
      continue;
    }
    s = vf_frontend_process(fe, t, &ev.left, &ev.right);
    r->frames++;
    if (s != VF_OK) unexpected(r, vf_frontend_last_error(fe));
    if (k == sf->duplicate) {
      s = vf_frontend_process(fe, t, &ev.left, &ev.right);
      account(r, 4, s == VF_ERR_TIMESTAMP, "at a lap's frame");
    }
    /* Seeding warnings: the lap's first frame follows the previous lap's end (no IMU between),
     * the frame after the gap must have one, no other frame any. */
    int seeding = take_warnings(r, "no gyroscope seeding");
    if (first) {
      r->boundary_warnings += seeding;
    } else if (gap_to != INT64_MIN && t > gap_to) {
      account(r, 5, seeding, "in a lap");
      gap_to = INT64_MIN;
    } else if (seeding != 0) {
      unexpected(r, "seeding warning without an IMU gap");
    }
    first = 0;
    if (k == sf->gap) {
      gap_from = t + 10000000;
      gap_to = t + 40000000;
    }
    for (int i = 0; i < r->warn_count; ++i) unexpected(r, r->warn[i]);
    r->warn_count = 0;
  }
  vf_euroc_close(e);
  /* A lap cut short by the frame budget may not have reached its bad images. */
  for (int j = 0; j < 4; ++j) {
    if (ev.type == VF_EUROC_END || png_reports[j] > 0)
      account(r, j < 2 ? 1 : 2, png_reports[j], ff->bad_png[j]);
  }
  return VF_OK;
}

int main(int argc, char** argv) {
  opts o;
  if (parse(argc, argv, &o) != 0) {
    fprintf(stderr,
            "usage: vf_faultsoak SEQUENCE --work DIR [--frames N] [--backend cpu|cuda] "
            "[--seed S] [--sample K] [--threads T] [--max-seconds S] [--csv FILE] "
            "[--csv-every L] [--config YAML]\n");
    return 2;
  }
  static run r;
  r.ids_ok = 1;
  vf_context_config cc = vf_context_config_default();
  cc.backend = o.backend;
  cc.cpu_threads = o.threads;
  cc.log_fn = on_log;
  cc.log_user = &r;
  vf_context* ctx = NULL;
  vf_euroc* e = NULL;
  vf_frontend* fe = NULL;
  fs_lap_dir d;
  if (fs_lap_dir_create(o.sequence, o.work, &d) != 0) {
    fprintf(stderr, "vf_faultsoak: cannot make the lap folder under %s\n", o.work);
    return 1;
  }
  vf_frontend_config fc = vf_frontend_config_default();
  vf_frontend_callbacks cb = {on_features, NULL, &r};
  vf_status s = vf_context_create(&cc, &ctx);
  if (s == VF_OK && o.config != NULL) s = vf_frontend_config_load(o.config, ctx, &fc, NULL);
  fc.imu_max_gap_ns = 30000000;
  if (s == VF_OK) s = vf_euroc_open(o.sequence, NULL, ctx, &e);
  vf_euroc_info info;
  memset(&info, 0, sizeof info);
  if (s == VF_OK) s = vf_euroc_get_info(e, &info);
  if (s == VF_OK) s = vf_euroc_camera(e, 0, &fc.cam0);
  if (s == VF_OK) s = vf_euroc_camera(e, 1, &fc.cam1);
  vf_euroc_close(e);
  if (s == VF_OK) s = vf_frontend_create(ctx, &fc, &cb, &fe);
  r.warn_count = 0;
  FILE* csv = o.csv != NULL ? fopen(o.csv, "w") : NULL;
  soak_sample base, max, sm;
  memset(&base, 0, sizeof base);
  memset(&max, 0, sizeof max);
  const int gpu = vf_context_backend(ctx) == VF_BACKEND_CUDA;
  const int64_t lap_ns = info.t_last_ns - info.t_first_ns + 50000000;
  const double t0 = now_s();
  long laps = 0, next_sample = o.sample;
  if (s == VF_OK) soak_sample_print(stdout, NULL);
  if (csv != NULL) soak_sample_print(csv, NULL);
  while (s == VF_OK && r.frames < o.frames) {
    fs_file_faults ff;
    if (fs_lap_prepare(&d, &o.seed, laps % o.csv_every == o.csv_every - 1, &ff) != 0) {
      fprintf(stderr, "vf_faultsoak: cannot write lap %ld under %s\n", laps, o.work);
      break;
    }
    /* In the first, second and last third of the lap's pairs (n of them, 95 in the excerpt). */
    const unsigned n = (unsigned)(d.cam[0].count > 30 ? d.cam[0].count : 30) / 4;
    stream_faults sf = {2 + (int)(fs_rand(&o.seed) % n), (int)(n + 1 + fs_rand(&o.seed) % n),
                        (int)(2 * n + 1 + fs_rand(&o.seed) % n)};
    s = lap(&r, ctx, fe, &d, &ff, &sf, (int64_t)laps * lap_ns, o.frames);
    if (fs_lap_restore(&d, &ff) != 0) break;
    laps++;
    if (r.frames < next_sample && r.frames < o.frames) continue;
    next_sample += o.sample;
    soak_sample_take(&sm, gpu);
    sm.frame = r.frames;
    sm.wall_s = now_s() - t0;
    sm.ms_per_frame = 1e3 * sm.wall_s / (double)r.frames;
    soak_sample_print(stdout, &sm);
    if (csv != NULL) soak_sample_print(csv, &sm);
    fflush(stdout);
    if (r.frames <= o.frames / 5 || base.frame == 0) base = sm;
    max.rss_mb = fmax(max.rss_mb, sm.rss_mb);
    max.hwm_mb = fmax(max.hwm_mb, sm.hwm_mb);
    max.fds = sm.fds > max.fds ? sm.fds : max.fds;
    max.gpu_used_mb = fmax(max.gpu_used_mb, sm.gpu_used_mb);
    if (o.max_seconds > 0 && sm.wall_s > o.max_seconds) break;
  }
  if (s != VF_OK)
    fprintf(stderr, "vf_faultsoak: %s (%s)\n", vf_status_str(s), vf_last_error_message());
  if (csv != NULL) fclose(csv);
  printf("vf_faultsoak: %ld frames processed (%ld dropped on purpose), %ld laps, %.1f s\n",
         r.frames, r.dropped, laps, now_s() - t0);
  for (int k = 0; k < KINDS; ++k)
    printf("  %-17s injected %5ld, reported once %5ld\n", kind_name[k], r.injected[k],
           r.reported[k]);
  printf(
      "  wrong or unexpected reports %ld; the excerpt's own missing images: %ld warnings; lap "
      "boundaries (no IMU between laps): %ld seeding warnings\n",
      r.wrong, r.excerpt_warnings, r.boundary_warnings);
  int grew = max.hwm_mb > base.hwm_mb + SOAK_HWM_SLACK_MB || max.fds > base.fds ||
             (gpu && max.gpu_used_mb > base.gpu_used_mb + 2.0);
  printf(
      "  track ids %s (largest %llu); rss %.1f -> %.1f MB (peak %.1f -> %.1f), fds %d -> %d, "
      "gpu %.1f -> %.1f MB: %s\n",
      r.ids_ok ? "never reused" : "REUSED", (unsigned long long)r.max_id, base.rss_mb, max.rss_mb,
      base.hwm_mb, max.hwm_mb, base.fds, max.fds, base.gpu_used_mb, max.gpu_used_mb,
      grew ? "GREW" : "FLAT");
  vf_frontend_destroy(fe);
  vf_context_destroy(ctx);
  fs_lap_dir_free(&d);
  int ok = s == VF_OK && r.wrong == 0 && r.ids_ok;
  return !ok ? 1 : grew ? 3 : 0;
}

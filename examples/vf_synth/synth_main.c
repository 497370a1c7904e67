// SPDX-License-Identifier: BSD-3-Clause
/* vf_synth: writes a synthetic stereo-inertial (or multi-camera) sequence in the EuRoC ASL
 * layout, with ground truth (docs/synth.md):
 *
 *   vf_synth [--out DIR] [--duration S | --frames N] [--seed N] [--noise on|off]
 *            [--photometric on|off] [--depth on|off] [--speed X] [--alpha A] [--threads N]
 *            [--landmarks N] [--rig stereo|front-back|ring4]
 *
 * 752x480 cameras at 20 Hz with EuRoC's calibration (the rig's cameras, synth_rig.c), IMU at
 * 200 Hz from 1 s before the first frame to 0.1 s after the last. Deterministic for a seed (any
 * thread count). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "synth.h"

#define SYNTH_T_START 1500000000000000000LL /* first IMU sample, ns */
#define SYNTH_FRAME_NS 50000000LL
#define SYNTH_IMU_PER_FRAME 10

static int usage(void) {
  char rigs[256];
  synth_rig_names(rigs, sizeof rigs);
  fprintf(stderr,
          "usage: vf_synth [--out DIR] [--duration S | --frames N] [--seed N] [--noise on|off]\n"
          "                [--photometric on|off] [--depth on|off] [--speed X] [--alpha A]\n"
          "                [--threads N] [--landmarks N] [--rig %s]\n",
          rigs);
  return 2;
}

static int parse_switch(const char* v, int* out) {
  if (strcmp(v, "on") == 0 || strcmp(v, "off") == 0) {
    *out = strcmp(v, "on") == 0;
    return 1;
  }
  return 0;
}

static int parse_options(int argc, char** argv, synth_options* o) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  *o = (synth_options){"synth_seq", 200,     1, 1, 0, 1, 1.0, 0.0, cores > 0 ? (int)cores : 1,
                       2000,        "stereo"};
  for (int i = 1; i < argc; i += 2) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    char* end = NULL;
    if (v == NULL) return 0;
    if (strcmp(a, "--out") == 0) {
      o->out = v;
    } else if (strcmp(a, "--rig") == 0) {
      o->rig = v;
    } else if (strcmp(a, "--frames") == 0) {
      o->frames = (int)strtol(v, &end, 10);
    } else if (strcmp(a, "--duration") == 0) {
      o->frames = (int)(strtod(v, &end) * 20.0 + 0.5);
    } else if (strcmp(a, "--seed") == 0) {
      o->seed = strtoull(v, &end, 10);
    } else if (strcmp(a, "--speed") == 0) {
      o->speed = strtod(v, &end);
    } else if (strcmp(a, "--alpha") == 0) {
      o->alpha = strtod(v, &end);
    } else if (strcmp(a, "--threads") == 0) {
      o->threads = (int)strtol(v, &end, 10);
    } else if (strcmp(a, "--landmarks") == 0) {
      o->landmarks = (int)strtol(v, &end, 10);
    } else if (!((strcmp(a, "--noise") == 0 && parse_switch(v, &o->noise)) ||
                 (strcmp(a, "--photometric") == 0 && parse_switch(v, &o->photometric)) ||
                 (strcmp(a, "--depth") == 0 && parse_switch(v, &o->depth)))) {
      return 0;
    }
    if (end != NULL && *end != '\0') return 0;
  }
  return o->frames >= 1 && o->frames <= 100000 && o->speed > 0 && o->speed <= 10 &&
         o->alpha >= -1 && o->alpha <= 1 && o->threads >= 1 && o->threads <= 256 &&
         o->landmarks >= 0 && o->landmarks <= 1000000;
}

typedef struct synth_job {
  const synth_options* o;
  const synth_rig* rig;
  const synth_scene* scene;
  const synth_view* views;             /* the cameras', then each pair's rectified left view */
  const vf_stereo_rectification* rect; /* per pair */
  const int64_t* t;
  const synth_state* states;
  const float *gain, *bias;
  int next;
  int failed;
  pthread_mutex_t lock;
} synth_job;

static int synth_save(const char* root, const char* folder, int64_t t, const vf_image* img) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s/%lld.png", root, folder, (long long)t);
  return synth_png_write(path, img);
}

/* One frame of every camera, then of every pair's disparity. */
static int synth_render_frame(synth_job* j, int i, vf_image* img, vf_image* depth, vf_image* disp) {
  const synth_options* o = j->o;
  const synth_rig* rig = j->rig;
  int n = rig->ncams, bad = 0;
  char folder[64];
  for (int k = 0; k < n && !bad; ++k) {
    double R_WC[9], c[3];
    synth_camera_pose(&rig->cams[k], &j->states[i], R_WC, c);
    synth_render_view(j->scene, &j->views[k], R_WC, c, j->gain[n * i + k], j->bias[n * i + k],
                      o->noise ? 1.0f : 0.0f, o->seed * 7919u + (uint64_t)(n * i + k), img,
                      o->depth ? depth : NULL);
    snprintf(folder, sizeof folder, "mav0/cam%d/data", k);
    bad |= synth_save(o->out, folder, j->t[i], img) != 0;
    snprintf(folder, sizeof folder, "groundtruth/depth%d", k);
    if (o->depth) bad |= synth_save(o->out, folder, j->t[i], depth) != 0;
  }
  for (int p = 0; o->depth && p < rig->npairs && !bad; ++p) {
    const int* lr = rig->pairs[p];
    char suffix[16];
    synth_render_disparity(j->scene, &j->rect[p], &j->views[n + p], &rig->cams[lr[0]],
                           &rig->cams[lr[1]], &j->states[i], &disp[p]);
    snprintf(folder, sizeof folder, "groundtruth/disparity%s", synth_pair_suffix(lr[0], suffix));
    bad |= synth_save(o->out, folder, j->t[i], &disp[p]) != 0;
  }
  return bad ? -1 : 0;
}

/* Renders and writes whole frames until none is left. */
static void* synth_frame_worker(void* arg) {
  synth_job* j = arg;
  vf_image img = {0}, depth = {0}, disp[SYNTH_MAX_PAIRS] = {{0}};
  int bad = vf_image_alloc(&img, 752, 480, VF_PIXEL_U8, VF_MEMORY_HOST) != VF_OK ||
            vf_image_alloc(&depth, 752, 480, VF_PIXEL_U16, VF_MEMORY_HOST) != VF_OK;
  for (int p = 0; p < j->rig->npairs && !bad; ++p) {
    bad = vf_image_alloc(&disp[p], j->rect[p].width, j->rect[p].height, VF_PIXEL_U16,
                         VF_MEMORY_HOST) != VF_OK;
  }
  for (;;) {
    pthread_mutex_lock(&j->lock);
    int i = bad || j->failed ? INT32_MAX : j->next++;
    pthread_mutex_unlock(&j->lock);
    if (i >= j->o->frames) break;
    bad = synth_render_frame(j, i, &img, &depth, disp) != 0;
  }
  if (bad) {
    pthread_mutex_lock(&j->lock);
    j->failed = 1;
    pthread_mutex_unlock(&j->lock);
  }
  vf_image_free(&img);
  vf_image_free(&depth);
  for (int p = 0; p < SYNTH_MAX_PAIRS; ++p) vf_image_free(&disp[p]);
  return NULL;
}

static int synth_render_frames(synth_job* job, int threads) {
  pthread_t ids[256];
  int started = 0;
  for (int t = 1; t < threads; ++t)
    started += pthread_create(&ids[started], NULL, synth_frame_worker, job) == 0;
  synth_frame_worker(job);
  for (int t = 0; t < started; ++t) pthread_join(ids[t], NULL);
  return job->failed ? -1 : 0;
}

/* Everything but the rendering: IMU, states, tables, calibration. */
static int synth_write_tables(const synth_options* o, const synth_rig* rig,
                              const synth_scene* scene, const vf_stereo_rectification* rect,
                              const int64_t* t, const synth_state* states, const float* gain,
                              const float* bias) {
  vf_imu_calib imu;
  vf_euroc_vi_sensor(NULL, &imu);
  int nimu = (o->frames - 1) * SYNTH_IMU_PER_FRAME + 200 + 20 + 1;
  synth_imu_sample* samples = malloc(sizeof *samples * (size_t)nimu);
  double* X = malloc(sizeof *X * 3 * (size_t)(o->landmarks > 0 ? o->landmarks : 1));
  int bad = samples == NULL || X == NULL;
  if (!bad) {
    synth_imu_generate(o, &imu, SYNTH_T_START, nimu, samples);
    uint64_t rng = o->seed ^ 0x1a2d3a2bull;
    for (int i = 0; i < o->landmarks; ++i) synth_scene_random_point(scene, &rng, &X[3 * i]);
    bad = synth_write_calibration(o->out, rig, &imu) != 0 ||
          synth_write_camchain(o->out, rig, &imu) != 0;
    for (int k = 0; k < rig->ncams && !bad; ++k)
      bad = synth_write_camera_csv(o->out, k, t, o->frames) != 0;
    for (int p = 0; p < rig->npairs && !bad; ++p)
      bad = synth_write_rectification(o->out, rig->pairs[p], &rect[p], o->alpha) != 0;
    bad = bad || synth_write_imu_csv(o->out, samples, nimu) != 0 ||
          synth_write_state_csv(o->out, samples, nimu, SYNTH_T_START, o->speed) != 0 ||
          synth_write_landmarks(o->out, X, o->landmarks) != 0 ||
          synth_write_tracks(o->out, scene, rig->cams, rig->ncams, X, o->landmarks, t, states,
                             o->frames) != 0 ||
          synth_write_photometric(o->out, rig->ncams, t, gain, bias, o->frames) != 0 ||
          synth_write_readme(o->out, o, rig) != 0;
  }
  free(samples);
  free(X);
  return bad ? -1 : 0;
}

/* Each stereo pair's rectification (the disparity ground truth's) and, with depth, its
 * rectified left view: views[ncams + p]. */
static int synth_prepare_pairs(const synth_options* o, const synth_rig* rig,
                               vf_stereo_rectification* rect, synth_view* views) {
  vf_rectify_config rc = vf_rectify_config_default();
  rc.alpha = o->alpha;
  for (int p = 0; p < rig->npairs; ++p) {
    const vf_camera* left = &rig->cams[rig->pairs[p][0]];
    if (vf_stereo_rectify(left, &rig->cams[rig->pairs[p][1]], &rc, &rect[p]) != VF_OK) {
      fprintf(stderr, "vf_synth: %s\n", vf_last_error_message());
      return -1;
    }
    if (o->depth && synth_view_create_rectified(left, &rect[p], &views[rig->ncams + p]) != 0)
      return -1;
  }
  return 0;
}

int main(int argc, char** argv) {
  synth_options o;
  synth_rig rig;
  if (!parse_options(argc, argv, &o) || !synth_rig_find(o.rig, &rig)) return usage();
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int n = rig.ncams;
  vf_stereo_rectification rect[SYNTH_MAX_PAIRS];
  synth_view views[SYNTH_MAX_CAMS + SYNTH_MAX_PAIRS]; /* cameras, then rectified left views */
  memset(views, 0, sizeof views);
  if (synth_mkdirs(o.out, &rig, o.depth) != 0) return 1;
  int64_t* t = malloc(sizeof *t * (size_t)o.frames);
  synth_state* states = malloc(sizeof *states * (size_t)o.frames);
  float* gain = malloc(sizeof *gain * (size_t)n * (size_t)o.frames);
  float* bias = malloc(sizeof *bias * (size_t)n * (size_t)o.frames);
  synth_scene scene;
  memset(&scene, 0, sizeof scene);
  int bad = t == NULL || states == NULL || gain == NULL || bias == NULL ||
            synth_prepare_pairs(&o, &rig, rect, views) != 0 ||
            synth_scene_create(o.seed, o.threads, &scene) != 0;
  for (int k = 0; k < n && !bad; ++k) bad = synth_view_create(&rig.cams[k], &views[k]) != 0;
  for (int i = 0; !bad && i < o.frames; ++i) {
    t[i] = SYNTH_T_START + 1000000000LL + i * SYNTH_FRAME_NS;
    double ts = (double)(t[i] - SYNTH_T_START) * 1e-9;
    synth_motion_eval(ts, o.speed, &states[i]);
    for (int k = 0; k < n; ++k) {
      /* Slow exposure changes, different per camera, when asked for. */
      gain[n * i + k] = o.photometric ? 1.0f + 0.15f * (float)sin(0.9 * ts + 1.7 * k) : 1.0f;
      bias[n * i + k] = o.photometric ? 8.0f * (float)sin(0.55 * ts + 2.1 * k) : 0.0f;
    }
  }
  synth_job job = {.o = &o,
                   .rig = &rig,
                   .scene = &scene,
                   .views = views,
                   .rect = rect,
                   .t = t,
                   .states = states,
                   .gain = gain,
                   .bias = bias,
                   .lock = PTHREAD_MUTEX_INITIALIZER};
  if (!bad) bad = synth_render_frames(&job, o.threads) != 0;
  if (!bad) bad = synth_write_tables(&o, &rig, &scene, rect, t, states, gain, bias) != 0;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (!bad) {
    printf("vf_synth: %d %s frames (%.1f s, %d cameras) in %s, %.1f s on %d threads\n", o.frames,
           rig.name, o.frames / 20.0, n, o.out,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), o.threads);
  } else {
    fprintf(stderr, "vf_synth: failed\n");
  }
  for (int k = 0; k < n + rig.npairs; ++k) synth_view_destroy(&views[k]);
  synth_scene_destroy(&scene);
  free(t);
  free(states);
  free(gain);
  free(bias);
  return bad ? 1 : 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/* vf_synth: writes a synthetic stereo-inertial sequence in the EuRoC ASL layout, with ground
 * truth (docs/synth.md):
 *
 *   vf_synth [--out DIR] [--duration S | --frames N] [--seed N] [--noise on|off]
 *            [--photometric on|off] [--depth on|off] [--speed X] [--alpha A] [--threads N]
 *            [--landmarks N]
 *
 * 752x480 stereo at 20 Hz with EuRoC's calibration, IMU at 200 Hz from 1 s before the first
 * frame to 0.1 s after the last. Deterministic for a seed (any thread count). */
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
  fprintf(stderr,
          "usage: vf_synth [--out DIR] [--duration S | --frames N] [--seed N] [--noise on|off]\n"
          "                [--photometric on|off] [--depth on|off] [--speed X] [--alpha A]\n"
          "                [--threads N] [--landmarks N]\n");
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
  *o = (synth_options){"synth_seq", 200, 1, 1, 0, 1, 1.0, 0.0, cores > 0 ? (int)cores : 1, 2000};
  for (int i = 1; i < argc; i += 2) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    char* end = NULL;
    if (v == NULL) return 0;
    if (strcmp(a, "--out") == 0) {
      o->out = v;
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
  const synth_scene* scene;
  const synth_view* views;
  const vf_stereo_rectification* rect;
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

/* Renders and writes whole frames until none is left. */
static void* synth_frame_worker(void* arg) {
  synth_job* j = arg;
  const synth_options* o = j->o;
  vf_image img = {0}, depth = {0}, disp = {0};
  int bad =
      vf_image_alloc(&img, 752, 480, VF_PIXEL_U8, VF_MEMORY_HOST) != VF_OK ||
      vf_image_alloc(&depth, 752, 480, VF_PIXEL_U16, VF_MEMORY_HOST) != VF_OK ||
      vf_image_alloc(&disp, j->rect->width, j->rect->height, VF_PIXEL_U16, VF_MEMORY_HOST) != VF_OK;
  for (;;) {
    pthread_mutex_lock(&j->lock);
    int i = bad || j->failed ? INT32_MAX : j->next++;
    pthread_mutex_unlock(&j->lock);
    if (i >= o->frames) break;
    for (int k = 0; k < 2 && !bad; ++k) {
      double R_WC[9], c[3];
      synth_camera_pose(&j->views[k].cam, &j->states[i], R_WC, c);
      synth_render_view(j->scene, &j->views[k], R_WC, c, j->gain[2 * i + k], j->bias[2 * i + k],
                        o->noise ? 1.0f : 0.0f, o->seed * 7919u + (uint64_t)(2 * i + k), &img,
                        o->depth ? &depth : NULL);
      bad |= synth_save(o->out, k ? "mav0/cam1/data" : "mav0/cam0/data", j->t[i], &img) != 0;
      if (o->depth)
        bad |= synth_save(o->out, k ? "groundtruth/depth1" : "groundtruth/depth0", j->t[i],
                          &depth) != 0;
    }
    if (o->depth && !bad) {
      vf_camera cams[2] = {j->views[0].cam, j->views[1].cam};
      synth_render_disparity(j->scene, j->rect, &j->views[2], cams, &j->states[i], &disp);
      bad |= synth_save(o->out, "groundtruth/disparity", j->t[i], &disp) != 0;
    }
  }
  if (bad) {
    pthread_mutex_lock(&j->lock);
    j->failed = 1;
    pthread_mutex_unlock(&j->lock);
  }
  vf_image_free(&img);
  vf_image_free(&depth);
  vf_image_free(&disp);
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
static int synth_write_tables(const synth_options* o, const synth_scene* scene,
                              const vf_camera cams[2], const vf_stereo_rectification* rect,
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
    bad = synth_write_calibration(o->out, cams, &imu) != 0 ||
          synth_write_camera_csv(o->out, 0, t, o->frames) != 0 ||
          synth_write_camera_csv(o->out, 1, t, o->frames) != 0 ||
          synth_write_imu_csv(o->out, samples, nimu) != 0 ||
          synth_write_state_csv(o->out, samples, nimu, SYNTH_T_START, o->speed) != 0 ||
          synth_write_landmarks(o->out, X, o->landmarks) != 0 ||
          synth_write_tracks(o->out, scene, cams, X, o->landmarks, t, states, o->frames) != 0 ||
          synth_write_photometric(o->out, t, gain, bias, o->frames) != 0 ||
          synth_write_rectification(o->out, rect, o->alpha) != 0 ||
          synth_write_readme(o->out, o) != 0;
  }
  free(samples);
  free(X);
  return bad ? -1 : 0;
}

int main(int argc, char** argv) {
  synth_options o;
  if (!parse_options(argc, argv, &o)) return usage();
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  vf_camera cams[2]; /* the rig: EuRoC's VI-Sensor */
  vf_euroc_vi_sensor(cams, NULL);
  vf_rectify_config rc = vf_rectify_config_default();
  rc.alpha = o.alpha;
  vf_stereo_rectification rect;
  if (vf_stereo_rectify(&cams[0], &cams[1], &rc, &rect) != VF_OK) {
    fprintf(stderr, "vf_synth: %s\n", vf_last_error_message());
    return 1;
  }
  if (synth_mkdirs(o.out, o.depth) != 0) return 1;
  int64_t* t = malloc(sizeof *t * (size_t)o.frames);
  synth_state* states = malloc(sizeof *states * (size_t)o.frames);
  float* gain = malloc(sizeof *gain * 2 * (size_t)o.frames);
  float* bias = malloc(sizeof *bias * 2 * (size_t)o.frames);
  synth_scene scene;
  synth_view views[3]; /* cam0, cam1, rectified left */
  memset(views, 0, sizeof views);
  int bad = t == NULL || states == NULL || gain == NULL || bias == NULL ||
            synth_scene_create(o.seed, o.threads, &scene) != 0 ||
            synth_view_create(&cams[0], &views[0]) != 0 ||
            synth_view_create(&cams[1], &views[1]) != 0 ||
            (o.depth && synth_view_create_rectified(&cams[0], &rect, &views[2]) != 0);
  for (int i = 0; !bad && i < o.frames; ++i) {
    t[i] = SYNTH_T_START + 1000000000LL + i * SYNTH_FRAME_NS;
    double ts = (double)(t[i] - SYNTH_T_START) * 1e-9;
    synth_motion_eval(ts, o.speed, &states[i]);
    for (int k = 0; k < 2; ++k) {
      /* Slow exposure changes, different per camera, when asked for. */
      gain[2 * i + k] = o.photometric ? 1.0f + 0.15f * (float)sin(0.9 * ts + 1.7 * k) : 1.0f;
      bias[2 * i + k] = o.photometric ? 8.0f * (float)sin(0.55 * ts + 2.1 * k) : 0.0f;
    }
  }
  synth_job job = {
      &o, &scene, views, &rect, t, states, gain, bias, 0, 0, PTHREAD_MUTEX_INITIALIZER};
  if (!bad) bad = synth_render_frames(&job, o.threads) != 0;
  if (!bad) bad = synth_write_tables(&o, &scene, cams, &rect, t, states, gain, bias) != 0;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (!bad) {
    printf("vf_synth: %d stereo frames (%.1f s) in %s, %.1f s on %d threads\n", o.frames,
           o.frames / 20.0, o.out,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), o.threads);
  } else {
    fprintf(stderr, "vf_synth: failed\n");
  }
  for (int k = 0; k < 3; ++k) synth_view_destroy(&views[k]);
  synth_scene_destroy(&scene);
  free(t);
  free(states);
  free(gain);
  free(bias);
  return bad ? 1 : 0;
}

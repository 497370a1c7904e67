// SPDX-License-Identifier: BSD-3-Clause
/* Thread safety as docs/threads.md documents it: two contexts, each with its own frontend,
 * used at the same time from two threads give exactly what each gives alone; the per-thread
 * last-error message stays with its thread. With "cuda" as argument the contexts are CUDA ones
 * (skips without a device). */
#include <pthread.h>
#include <stdint.h>
#include <viofront/viofront.h>

#include "euroc_calib.h"
#include "frontend_scene.h"
#include "vf_test.h"

enum { FRAMES = 6, MAX_REC = 2048 };

typedef struct job {
  const uint8_t* tex;
  vf_backend backend;
  int counts[FRAMES];
  float u[FRAMES][MAX_REC];
  int frames;
  vf_status status;
  int error_stayed; /* the thread's own error message survived the other thread's work */
} job;

static void on_features(const vf_feature_frame* fr, void* user) {
  job* j = user;
  if (j->frames >= FRAMES) return;
  j->counts[j->frames] = fr->count;
  for (int i = 0; i < fr->count && i < MAX_REC; ++i) j->u[j->frames][i] = fr->features[i].u;
  j->frames++;
}

static void* run(void* arg) {
  job* j = arg;
  vf_context* ctx = NULL;
  vf_frontend* fe = NULL;
  vf_frontend_config fc = vf_frontend_config_default();
  fc.cam0 = euroc_camera(0);
  fc.cam1 = euroc_camera(1);
  fc.stereo_enabled = 0; /* the tracking path is what shares state, if anything does */
  vf_frontend_callbacks cb = {on_features, NULL, j};
  vf_image l, r;
  j->status = scene_frontend_open(j->backend, &fc, &cb, &ctx, &fe, &l, &r);
  /* A failure of this thread's own, whose message must still be there at the end. */
  vf_frontend_process(fe, 5, &l, NULL);
  char mine[256];
  snprintf(mine, sizeof mine, "%s", vf_last_error_message());
  if (j->status == VF_OK) j->status = scene_play(fe, j->tex, FRAMES, 1000, 1, &l, &r);
  j->error_stayed = strcmp(mine, vf_last_error_message()) == 0 && strstr(mine, "right") != NULL;
  scene_frontend_close(ctx, fe, &l, &r);
  return NULL;
}

static int same(const job* a, const job* b) {
  if (a->frames != FRAMES || b->frames != FRAMES) return 0;
  for (int k = 0; k < FRAMES; ++k) {
    if (a->counts[k] != b->counts[k]) return 0;
    int n = a->counts[k] < MAX_REC ? a->counts[k] : MAX_REC;
    if (memcmp(a->u[k], b->u[k], sizeof(float) * (size_t)n) != 0) return 0;
  }
  return 1;
}

int main(int argc, char** argv) {
  const vf_backend backend = scene_backend_arg(argc, argv);
  uint8_t* tex = scene_texture(21);
  static job alone, a, b;
  alone.tex = a.tex = b.tex = tex;
  alone.backend = a.backend = b.backend = backend;
  run(&alone);
  CHECK_OK(alone.status);
  pthread_t ta, tb;
  CHECK(pthread_create(&ta, NULL, run, &a) == 0);
  CHECK(pthread_create(&tb, NULL, run, &b) == 0);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  CHECK_OK(a.status);
  CHECK_OK(b.status);
  CHECK(same(&alone, &a));
  CHECK(same(&alone, &b));
  CHECK(alone.error_stayed && a.error_stayed && b.error_stayed);
  printf("%d frames on two threads at once, identical to one thread alone\n", FRAMES);
  free(tex);
  VF_TEST_END("test_threads");
}

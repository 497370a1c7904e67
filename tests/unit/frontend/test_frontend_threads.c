// SPDX-License-Identifier: BSD-3-Clause
/* Determinism under concurrency, the whole frontend with SGM: three frontends, each with its
 * own context, process the same moving scene on three threads at once (released together by a
 * barrier), and each must give exactly the records and disparity maps of one frontend run alone
 * on the same input. This is what vf_bench's "streams" stage relies on; under ThreadSanitizer
 * (CI) it also shows the stages share no state between contexts. With "cuda" as argument the
 * contexts are CUDA ones with the maps copied to the host (skips without a device). */
#include <pthread.h>
#include <stdint.h>
#include <viofront/viofront.h>

#include "euroc_calib.h"
#include "frontend_scene.h"
#include "vf_test.h"

/* Half EuRoC's size: SGM on the CPU under ThreadSanitizer is slow, and the stages run the same
 * code at any size. */
enum { FRAMES = 3, THREADS = 3, MAX_REC = 2048 };

typedef struct run_log {
  int frames, maps;
  int counts[FRAMES], tracked[FRAMES], detected[FRAMES];
  vf_feature rec[FRAMES][MAX_REC];
  uint64_t map_hash[FRAMES];
} run_log;

typedef struct job {
  const uint8_t* tex;
  vf_backend backend;
  pthread_barrier_t* start; /* NULL: alone */
  run_log* log;
  vf_status status;
} job;

static void on_features(const vf_feature_frame* fr, void* user) {
  run_log* g = ((job*)user)->log;
  if (g->frames >= FRAMES) return;
  int n = fr->count < MAX_REC ? fr->count : MAX_REC;
  g->counts[g->frames] = fr->count;
  g->tracked[g->frames] = fr->tracked;
  g->detected[g->frames] = fr->detected;
  memcpy(g->rec[g->frames], fr->features, sizeof *fr->features * (size_t)n);
  g->frames++;
}

/* FNV-1a over the map's rows (not the padding between them). */
static void on_disparity(const vf_disparity_frame* df, void* user) {
  run_log* g = ((job*)user)->log;
  if (g->maps >= FRAMES) return;
  uint64_t h = 1469598103934665603u;
  const vf_image* m = &df->disparity;
  for (int y = 0; y < m->height; ++y) {
    const uint8_t* row = (const uint8_t*)m->data + (size_t)y * m->stride_bytes;
    for (size_t x = 0; x < (size_t)m->width * 2; ++x) h = (h ^ row[x]) * 1099511628211u;
  }
  g->map_hash[g->maps++] = h;
}

static vf_camera half_size(vf_camera c) {
  c.width /= 2;
  c.height /= 2;
  c.fx *= 0.5;
  c.fy *= 0.5;
  c.cx = (c.cx + 0.5) * 0.5 - 0.5;
  c.cy = (c.cy + 0.5) * 0.5 - 0.5;
  return c;
}

static void* run(void* arg) {
  job* j = arg;
  vf_context* ctx = NULL;
  vf_frontend* fe = NULL;
  vf_frontend_config fc = vf_frontend_config_default();
  fc.cam0 = half_size(euroc_camera(0));
  fc.cam1 = half_size(euroc_camera(1));
  fc.disparity_location = VF_MEMORY_HOST;
  vf_frontend_callbacks cb = {on_features, on_disparity, j};
  vf_image l, r;
  j->status = scene_frontend_open(j->backend, &fc, &cb, &ctx, &fe, &l, &r);
  /* Every thread reaches the barrier, failed or not, so that none waits for ever. */
  if (j->start != NULL) pthread_barrier_wait(j->start);
  if (j->status == VF_OK) j->status = scene_play(fe, j->tex, FRAMES, 1000000, 50000000, &l, &r);
  scene_frontend_close(ctx, fe, &l, &r);
  return NULL;
}

/* Field by field, floats bit for bit (NaN where unknown must stay NaN): a record's padding is
 * not part of it. */
static int same_feature(const vf_feature* a, const vf_feature* b) {
  const float fa[] = {a->score,  a->u,      a->v,         a->x,       a->y,    a->vx,  a->vy,
                      a->u_rect, a->v_rect, a->disparity, a->depth_m, a->gain, a->bias};
  const float fb[] = {b->score,  b->u,      b->v,         b->x,       b->y,    b->vx,  b->vy,
                      b->u_rect, b->v_rect, b->disparity, b->depth_m, b->gain, b->bias};
  return a->id == b->id && a->camera == b->camera && a->age == b->age && a->level == b->level &&
         a->flags == b->flags && memcmp(fa, fb, sizeof fa) == 0;
}

static int same_log(const run_log* a, const run_log* b) {
  if (a->frames != FRAMES || b->frames != FRAMES || a->maps != FRAMES || b->maps != FRAMES)
    return 0;
  for (int k = 0; k < FRAMES; ++k) {
    if (a->counts[k] != b->counts[k] || a->tracked[k] != b->tracked[k] ||
        a->detected[k] != b->detected[k] || a->map_hash[k] != b->map_hash[k])
      return 0;
    int n = a->counts[k] < MAX_REC ? a->counts[k] : MAX_REC;
    for (int i = 0; i < n; ++i)
      if (!same_feature(&a->rec[k][i], &b->rec[k][i])) return 0;
  }
  return 1;
}

int main(int argc, char** argv) {
  const vf_backend backend = scene_backend_arg(argc, argv);
  uint8_t* tex = scene_texture(33);
  run_log* logs = calloc(THREADS + 1, sizeof *logs);
  CHECK(tex != NULL && logs != NULL);
  if (tex == NULL || logs == NULL) VF_TEST_END("test_frontend_threads");
  job alone = {tex, backend, NULL, &logs[THREADS], VF_OK};
  run(&alone);
  CHECK_OK(alone.status);
  CHECK(logs[THREADS].frames == FRAMES && logs[THREADS].counts[FRAMES - 1] > 0);

  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, THREADS);
  job jobs[THREADS];
  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    jobs[t] = (job){tex, backend, &start, &logs[t], VF_OK};
    CHECK(pthread_create(&th[t], NULL, run, &jobs[t]) == 0);
  }
  for (int t = 0; t < THREADS; ++t) pthread_join(th[t], NULL);
  pthread_barrier_destroy(&start);
  for (int t = 0; t < THREADS; ++t) {
    CHECK_OK(jobs[t].status);
    CHECK(same_log(&logs[THREADS], &logs[t]));
  }
  printf(
      "%d frontends with stereo, %d frames each on their own threads at once (%s): records "
      "and maps identical to one frontend alone (%d records in the last frame)\n",
      THREADS, FRAMES, vf_backend_name(backend), logs[THREADS].counts[FRAMES - 1]);
  free(logs);
  free(tex);
  VF_TEST_END("test_frontend_threads");
}

// SPDX-License-Identifier: BSD-3-Clause
/* Files decoded ahead (replay_ahead.h). Frame p lives in ring entry p % depth. A worker takes
 * the lowest frame nobody has taken, provided it is below `given_up + depth` (the entry is then
 * free: its last frame was given up), decodes it without the lock into the entry's own buffers
 * (reused from frame to frame) and marks it done. The consumer walks the frames in order,
 * waiting on each entry it passes, so no entry it gives up is still being written. */
#include "replay_ahead.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define AHEAD_MAX_THREADS 64

typedef struct ahead_entry {
  int frame; /* -1 = empty */
  int done;
  int ok[REPLAY_AHEAD_MAX_KINDS];
  vf_image image[REPLAY_AHEAD_MAX_KINDS];
} ahead_entry;

struct replay_ahead {
  replay_ahead_decode_fn decode;
  const void* user;
  int kinds;
  int64_t* t_ns; /* of each frame */
  int frames;
  ahead_entry* ring;
  int depth;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  pthread_t thread[AHEAD_MAX_THREADS];
  int threads;
  int stop;
  int next_claim; /* workers: the lowest frame not taken */
  int given_up;   /* frames below this are no longer read by the consumer */
  int walked;     /* consumer: frames below this were waited for */
  double wait_s;  /* consumer only */
};

static double ahead_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void ahead_decode(const replay_ahead* a, int frame, ahead_entry* en) {
  for (int k = 0; k < a->kinds; ++k)
    en->ok[k] = a->decode(a->user, frame, a->t_ns[frame], k, &en->image[k]);
}

/* With the lock held: the entry of the next frame for a worker to decode, marked taken, waiting
 * until one may be taken; NULL when the workers are to stop. */
static ahead_entry* ahead_claim(replay_ahead* a) {
  while (!a->stop) {
    const int p = a->next_claim;
    if (p < a->frames && p < a->given_up + a->depth) {
      ahead_entry* en = &a->ring[p % a->depth];
      en->frame = p;
      en->done = 0;
      a->next_claim = p + 1;
      return en;
    }
    pthread_cond_wait(&a->wake, &a->lock);
  }
  return NULL;
}

static void* ahead_worker(void* arg) {
  replay_ahead* a = arg;
  pthread_mutex_lock(&a->lock);
  for (ahead_entry* en; (en = ahead_claim(a)) != NULL;) {
    const int p = en->frame; /* only this worker changes the entry until it is done */
    pthread_mutex_unlock(&a->lock);
    ahead_decode(a, p, en);
    pthread_mutex_lock(&a->lock);
    en->done = 1;
    pthread_cond_broadcast(&a->wake);
  }
  pthread_mutex_unlock(&a->lock);
  return NULL;
}

int replay_ahead_open(const int64_t* t_ns, int frames, int kinds, replay_ahead_decode_fn decode,
                      const void* user, int threads, int depth, replay_ahead** out) {
  *out = NULL;
  if (kinds < 1 || kinds > REPLAY_AHEAD_MAX_KINDS || frames < 0 || decode == NULL) return -1;
  replay_ahead* a = calloc(1, sizeof *a);
  if (a == NULL) return -1;
  a->decode = decode;
  a->user = user;
  a->kinds = kinds;
  a->frames = frames;
  a->depth = depth < 2 ? 2 : depth;
  a->t_ns = malloc(sizeof *a->t_ns * (size_t)(a->frames > 0 ? a->frames : 1));
  a->ring = calloc((size_t)a->depth, sizeof *a->ring);
  int ok = a->t_ns != NULL && a->ring != NULL && pthread_mutex_init(&a->lock, NULL) == 0;
  if (ok && pthread_cond_init(&a->wake, NULL) != 0) {
    pthread_mutex_destroy(&a->lock);
    ok = 0;
  }
  if (!ok) {
    free(a->t_ns);
    free(a->ring);
    free(a);
    return -1;
  }
  if (a->frames > 0) memcpy(a->t_ns, t_ns, sizeof *a->t_ns * (size_t)a->frames);
  for (int i = 0; i < a->depth; ++i) a->ring[i].frame = -1;
  int want = threads < 1 ? 1 : threads > AHEAD_MAX_THREADS ? AHEAD_MAX_THREADS : threads;
  while (a->threads < want && pthread_create(&a->thread[a->threads], NULL, ahead_worker, a) == 0)
    ++a->threads;
  if (a->threads == 0) {
    replay_ahead_close(a);
    return -1;
  }
  *out = a;
  return 0;
}

const vf_image* replay_ahead_get(replay_ahead* a, int64_t t_ns, int which) {
  /* The frame at t_ns among those not given up (timestamps increase). */
  int p = a->given_up;
  while (p < a->frames && a->t_ns[p] < t_ns) ++p;
  if (p == a->frames || a->t_ns[p] != t_ns || which < 0 || which >= a->kinds) return NULL;
  const double t0 = ahead_now_s();
  pthread_mutex_lock(&a->lock);
  for (; a->walked <= p; ++a->walked) {
    const ahead_entry* en = &a->ring[a->walked % a->depth];
    while (!(en->frame == a->walked && en->done)) pthread_cond_wait(&a->wake, &a->lock);
  }
  if (p > a->given_up) {
    a->given_up = p;
    pthread_cond_broadcast(&a->wake);
  }
  pthread_mutex_unlock(&a->lock);
  a->wait_s += ahead_now_s() - t0;
  const ahead_entry* en = &a->ring[p % a->depth];
  return en->ok[which] ? &en->image[which] : NULL;
}

double replay_ahead_wait_s(const replay_ahead* a) { return a != NULL ? a->wait_s : 0.0; }

void replay_ahead_close(replay_ahead* a) {
  if (a == NULL) return;
  pthread_mutex_lock(&a->lock);
  a->stop = 1;
  pthread_cond_broadcast(&a->wake);
  pthread_mutex_unlock(&a->lock);
  for (int i = 0; i < a->threads; ++i) pthread_join(a->thread[i], NULL);
  for (int i = 0; i < a->depth; ++i) {
    for (int k = 0; k < a->kinds; ++k) vf_image_free(&a->ring[i].image[k]);
  }
  pthread_cond_destroy(&a->wake);
  pthread_mutex_destroy(&a->lock);
  free(a->ring);
  free(a->t_ns);
  free(a);
}

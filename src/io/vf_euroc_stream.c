// SPDX-License-Identifier: BSD-3-Clause
/* EuRoC replay: the time-ordered stream of IMU and stereo events, and the pool of decoding
 * threads that fill a ring of slots ahead of the consumer (pair k in slot k % nslots). Each
 * worker claims the next pair under the lock and decodes it outside; no worker goes more than
 * nslots pairs past what the consumer has released, so the ring bounds the memory, and the
 * consumer takes pair k only once its slot says it is done, so the order is the file's whatever
 * order the workers finish in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_fault.h"
#include "io/vf_euroc_internal.h"
#include "vf_euroc_internal.h"
#include "viofront/vf_png.h"

void vf_euroc_decode(const vf_euroc* e, int pair, vf_euroc_slot* slot) {
  slot->status = VF_OK;
  slot->message[0] = '\0';
  for (int k = 0; k < 2; ++k) {
    char path[2048];
    snprintf(path, sizeof path, "%s/cam%d/data/%s", e->root, k, e->pair[pair].name[k]);
    vf_status s = vf_png_read_gray_into(path, 8, &slot->image[k]);
    const vf_camera* cam = &e->cam[k];
    if (s == VF_OK &&
        (slot->image[k].width != cam->width || slot->image[k].height != cam->height)) {
      s = vf_fail(NULL, VF_ERR_FORMAT, "%s is %dx%d, cam%d/sensor.yaml says %dx%d", path,
                  slot->image[k].width, slot->image[k].height, k, cam->width, cam->height);
    }
    if (s != VF_OK) {
      /* The buffers stay for the next pair; a failed slot hands out no image. */
      slot->status = s;
      snprintf(slot->message, sizeof slot->message, "%s", vf_last_error_message());
      return;
    }
  }
}

static void* vf_euroc_worker(void* arg) {
  vf_euroc* e = arg;
  pthread_mutex_lock(&e->lock);
  while (!e->stop) {
    int k = e->load_next;
    if (k >= e->info.stereo_pairs || k >= e->released + e->nslots) {
      pthread_cond_wait(&e->changed, &e->lock);
      continue;
    }
    vf_euroc_slot* slot = &e->slots[k % e->nslots];
    slot->pair = k;
    slot->ready = 0;
    e->load_next = k + 1;
    /* The slot's previous pair (k - nslots) was released, so nobody reads it now. */
    pthread_mutex_unlock(&e->lock);
    vf_euroc_decode(e, k, slot);
    pthread_mutex_lock(&e->lock);
    slot->ready = 1;
    pthread_cond_broadcast(&e->changed);
  }
  pthread_mutex_unlock(&e->lock);
  return NULL;
}

/* config.pinned: each slot's two buffers page-locked ahead at the calibrated size, which the
 * decoding then reuses (an image of another size gets an ordinary buffer, and its error). Where
 * that memory cannot be had, the rest stay ordinary, with a warning. */
static void vf_euroc_pin_slots(vf_euroc* e) {
  for (int i = 0; i < e->nslots; ++i) {
    for (int k = 0; k < 2; ++k) {
      const vf_camera* cam = &e->cam[k];
      if (vf_image_alloc_pinned(&e->slots[i].image[k], cam->width, cam->height, VF_PIXEL_U8) !=
          VF_OK) {
        vf_log(e->log, VF_LOG_WARN, "EuRoC: page-locked image buffers: %s; ordinary memory",
               vf_last_error_message());
        return;
      }
    }
  }
}

/* The workers to start: decode_threads (0 counts as 1), no more than there are slots. */
static int vf_euroc_worker_count(const vf_euroc* e) {
  int n = e->config.decode_threads > 1 ? e->config.decode_threads : 1;
  return n < e->nslots ? n : e->nslots;
}

vf_status vf_euroc_stream_start(vf_euroc* e) {
  e->next_imu = e->next_pair = 0;
  e->held_pair = -1;
  e->load_next = e->released = 0;
  e->stop = 0;
  if (e->slots == NULL) {
    e->nslots = e->config.prefetch > 0 ? e->config.prefetch : 1;
    e->slots = vf_calloc((size_t)e->nslots, sizeof *e->slots);
    if (e->slots == NULL)
      return vf_fail(NULL, VF_ERR_NOMEM, "vf_euroc: %d prefetch slots", e->nslots);
    if (e->config.pinned) vf_euroc_pin_slots(e);
  }
  for (int i = 0; i < e->nslots; ++i) e->slots[i].pair = -1;
  if (!e->sync_ready) {
    if (pthread_mutex_init(&e->lock, NULL) != 0)
      return vf_fail(NULL, VF_ERR_NOMEM, "vf_euroc: mutex");
    if (pthread_cond_init(&e->changed, NULL) != 0) {
      pthread_mutex_destroy(&e->lock);
      return vf_fail(NULL, VF_ERR_NOMEM, "vf_euroc: condition variable");
    }
    e->sync_ready = 1;
  }
  e->thread_running = 0;
  if (e->config.prefetch > 0) {
    int want = vf_euroc_worker_count(e);
    while (e->thread_running < want &&
           pthread_create(&e->thread[e->thread_running], NULL, vf_euroc_worker, e) == 0)
      ++e->thread_running;
    if (e->thread_running == 0) {
      vf_log(e->log, VF_LOG_WARN, "EuRoC: no prefetch thread, images are decoded on demand");
    } else if (e->thread_running < want) {
      vf_log(e->log, VF_LOG_WARN, "EuRoC: %d of %d decoding threads started", e->thread_running,
             want);
    }
  }
  return VF_OK;
}

void vf_euroc_stream_stop(vf_euroc* e) {
  if (e->thread_running > 0) {
    pthread_mutex_lock(&e->lock);
    e->stop = 1;
    pthread_cond_broadcast(&e->changed);
    pthread_mutex_unlock(&e->lock);
    for (int i = 0; i < e->thread_running; ++i) pthread_join(e->thread[i], NULL);
    e->thread_running = 0;
  }
}

void vf_euroc_stream_destroy(vf_euroc* e) {
  vf_euroc_stream_stop(e);
  for (int i = 0; e->slots != NULL && i < e->nslots; ++i) {
    vf_image_free(&e->slots[i].image[0]);
    vf_image_free(&e->slots[i].image[1]);
  }
  free(e->slots);
  e->slots = NULL;
  if (e->sync_ready) {
    pthread_cond_destroy(&e->changed);
    pthread_mutex_destroy(&e->lock);
    e->sync_ready = 0;
  }
}

/* The slot of pair k, decoded: waits for the worker, or decodes here without one. */
static vf_euroc_slot* vf_euroc_acquire(vf_euroc* e, int k) {
  vf_euroc_slot* slot = &e->slots[k % e->nslots];
  if (e->thread_running == 0) {
    vf_euroc_decode(e, k, slot);
    slot->pair = k;
    slot->ready = 1;
    return slot;
  }
  pthread_mutex_lock(&e->lock);
  while (!(slot->pair == k && slot->ready)) pthread_cond_wait(&e->changed, &e->lock);
  pthread_mutex_unlock(&e->lock);
  return slot;
}

static void vf_euroc_release(vf_euroc* e) {
  if (e->held_pair < 0) return;
  if (e->thread_running > 0) {
    pthread_mutex_lock(&e->lock);
    e->released = e->held_pair + 1;
    pthread_cond_broadcast(&e->changed);
    pthread_mutex_unlock(&e->lock);
  }
  e->held_pair = -1;
}

vf_status vf_euroc_next(vf_euroc* e, vf_euroc_event* ev) {
  if (e == NULL || ev == NULL)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_next: NULL argument");
  memset(ev, 0, sizeof *ev);
  vf_euroc_release(e);
  int pairs = e->info.stereo_pairs;
  if (e->next_imu < e->imu_count &&
      (e->next_pair >= pairs || e->imu[e->next_imu].t_ns <= e->pair[e->next_pair].t_ns)) {
    ev->type = VF_EUROC_IMU;
    ev->imu = e->imu[e->next_imu++];
    ev->t_ns = ev->imu.t_ns;
    return VF_OK;
  }
  if (e->next_pair >= pairs) {
    ev->type = VF_EUROC_END;
    return VF_OK;
  }
  int k = e->next_pair++;
  vf_euroc_slot* slot = vf_euroc_acquire(e, k);
  e->held_pair = k;
  ev->type = VF_EUROC_STEREO;
  ev->t_ns = e->pair[k].t_ns;
  ev->pair = k;
  if (slot->status != VF_OK) return vf_fail(&e->err, slot->status, "%s", slot->message);
  ev->left = slot->image[0];
  ev->right = slot->image[1];
  return VF_OK;
}

vf_status vf_euroc_rewind(vf_euroc* e) {
  if (e == NULL) return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_rewind: reader is NULL");
  vf_euroc_stream_stop(e);
  return vf_euroc_stream_start(e);
}

vf_status vf_euroc_pair_time(const vf_euroc* e, int pair, int64_t* t_ns) {
  if (e == NULL || t_ns == NULL)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_pair_time: NULL argument");
  if (pair < 0 || pair >= e->info.stereo_pairs) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_pair_time: pair %d is outside 0..%d", pair,
                   e->info.stereo_pairs - 1);
  }
  *t_ns = e->pair[pair].t_ns;
  return VF_OK;
}

vf_status vf_euroc_imu_sample(const vf_euroc* e, int index, vf_imu_sample* out) {
  if (e == NULL || out == NULL)
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_imu_sample: NULL argument");
  if (index < 0 || index >= e->imu_count) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_imu_sample: sample %d is outside 0..%d",
                   index, e->imu_count - 1);
  }
  *out = e->imu[index];
  return VF_OK;
}

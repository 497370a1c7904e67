// SPDX-License-Identifier: BSD-3-Clause
/* The endless event stream: lap after lap of one sequence, timestamps shifted by a lap's length
 * (first to last event plus one frame period) so that frames and IMU samples keep increasing. */
#include <stdlib.h>
#include <string.h>

#include "soak.h"

typedef struct soak_event {
  vf_euroc_event ev; /* images: views of `pairs` in preload mode */
} soak_event;

struct soak_source {
  vf_euroc* reader;
  int preload;
  soak_event* events; /* preload: one lap */
  long count, next;
  vf_image* pairs; /* preload: left and right of each stereo event */
  long npairs;
  long laps;
  int64_t lap_ns;
};

static vf_status copy_image(const vf_image* src, vf_image* dst) {
  vf_status s = vf_image_alloc(dst, src->width, src->height, src->format, VF_MEMORY_HOST);
  return s == VF_OK ? vf_image_copy(src, dst) : s;
}

/* A pass over the sequence: its time span and, preloading, every event with image copies. */
static vf_status first_pass(soak_source* src) {
  vf_euroc_info info;
  vf_status s = vf_euroc_get_info(src->reader, &info);
  if (s != VF_OK) return s;
  long cap = info.stereo_pairs + info.imu_replayed + 1;
  if (src->preload) {
    src->events = calloc((size_t)cap, sizeof *src->events);
    src->pairs = calloc(2 * (size_t)info.stereo_pairs, sizeof *src->pairs);
    if (src->events == NULL || src->pairs == NULL) return VF_ERR_NOMEM;
    src->npairs = info.stereo_pairs;
  }
  int64_t first = 0, last = 0;
  long n = 0, stereo = 0;
  for (;;) {
    vf_euroc_event ev;
    s = vf_euroc_next(src->reader, &ev);
    if (s != VF_OK || ev.type == VF_EUROC_END) break;
    if (n == 0) first = ev.t_ns;
    last = ev.t_ns;
    if (src->preload) {
      /* The reader's info counts every event of a lap: more would be a reader bug. */
      if (n == cap || (ev.type == VF_EUROC_STEREO && stereo == src->npairs)) return VF_ERR_STATE;
      if (ev.type == VF_EUROC_STEREO) {
        vf_image* p = &src->pairs[2 * stereo];
        s = copy_image(&ev.left, &p[0]);
        if (s == VF_OK) s = copy_image(&ev.right, &p[1]);
        if (s != VF_OK) break;
        ev.left = p[0];
        ev.right = p[1];
      }
      src->events[n].ev = ev;
    }
    stereo += ev.type == VF_EUROC_STEREO;
    ++n;
  }
  if (s != VF_OK) return s;
  if (stereo == 0) return VF_ERR_STATE;
  src->count = n;
  src->lap_ns = last - first + (last - first) / (stereo > 1 ? stereo - 1 : 1) + 1;
  return vf_euroc_rewind(src->reader);
}

vf_status soak_source_open(vf_euroc* reader, int preload, soak_source** out) {
  soak_source* src = calloc(1, sizeof *src);
  if (src == NULL) return VF_ERR_NOMEM;
  src->reader = reader;
  src->preload = preload;
  vf_status s = first_pass(src);
  if (s != VF_OK) {
    soak_source_close(src);
    return s;
  }
  *out = src;
  return VF_OK;
}

vf_status soak_source_next(soak_source* src, vf_euroc_event* ev) {
  if (src->preload) {
    if (src->next == src->count) {
      src->next = 0;
      src->laps++;
    }
    *ev = src->events[src->next++].ev;
  } else {
    vf_status s = vf_euroc_next(src->reader, ev);
    if (s == VF_OK && ev->type == VF_EUROC_END) {
      src->laps++;
      s = vf_euroc_rewind(src->reader);
      if (s == VF_OK) s = vf_euroc_next(src->reader, ev);
    }
    if (s != VF_OK) return s;
  }
  ev->t_ns += src->laps * src->lap_ns;
  ev->imu.t_ns = ev->t_ns;
  return VF_OK;
}

long soak_source_laps(const soak_source* src) { return src->laps; }

void soak_source_close(soak_source* src) {
  if (src == NULL) return;
  for (long i = 0; src->pairs != NULL && i < 2 * src->npairs; ++i) vf_image_free(&src->pairs[i]);
  free(src->pairs);
  free(src->events);
  free(src);
}

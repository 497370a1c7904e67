// SPDX-License-Identifier: BSD-3-Clause
/* The EuRoC reader's state, shared by its files: vf_euroc.c (open, pairing, accessors),
 * vf_euroc_csv.c (the CSV files), vf_euroc_stream.c (events, decoding threads),
 * vf_euroc_gt.c (ground truth). */
#ifndef VF_EUROC_INTERNAL_H
#define VF_EUROC_INTERNAL_H

#include <pthread.h>

#include "core/vf_context_internal.h"
#include "io/vf_csv.h"
#include "viofront/vf_euroc.h"

#define VF_EUROC_MAX_PREFETCH 64
#define VF_EUROC_MAX_THREADS 64

/* One row of a camera's data.csv (name points into the kept CSV text). */
typedef struct vf_euroc_image {
  int64_t t_ns;
  const char* name;
} vf_euroc_image;

typedef struct vf_euroc_pair {
  int64_t t_ns; /* camera 0's timestamp */
  const char* name[2];
} vf_euroc_pair;

/* A decoded pair, in the prefetch ring; its images are reused from pair to pair. */
typedef struct vf_euroc_slot {
  int pair;  /* which pair it holds, -1 = none */
  int ready; /* loaded (or failed) */
  vf_status status;
  char message[VF_ERROR_MESSAGE_MAX];
  vf_image image[2];
} vf_euroc_slot;

struct vf_euroc {
  vf_error err;
  const vf_context* log;
  vf_euroc_config config;
  char root[1024]; /* the mav0 folder */
  vf_camera cam[2];
  vf_imu_calib imu_calib;
  vf_euroc_info info;
  vf_csv cam_csv[2]; /* kept: image names point into their text */
  vf_euroc_pair* pair;
  vf_imu_sample* imu; /* the replayed span */
  int imu_count;
  vf_euroc_state* gt;
  int gt_count;

  /* replay */
  int next_imu, next_pair;
  int held_pair; /* pair whose images the last event handed out, -1 = none */
  int nslots;
  vf_euroc_slot* slots;
  int sync_ready; /* lock and changed are initialized */
  pthread_t thread[VF_EUROC_MAX_THREADS];
  int thread_running; /* decoding threads started, 0 = decode in vf_euroc_next */
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int load_next; /* workers: next pair to claim for decoding */
  int released;  /* pairs below this are no longer used by the consumer */
  int stop;
};

/* vf_euroc_csv.c */
vf_status vf_euroc_read_camera_csv(vf_euroc* e, int cam, vf_euroc_image** rows, int* count);
/* Reads imu0/data.csv keeping samples within [t0, t1] plus one on each side. */
vf_status vf_euroc_read_imu_csv(vf_euroc* e, int64_t t0, int64_t t1);
/* Reads state_groundtruth_estimate0/data.csv when it exists. */
vf_status vf_euroc_read_gt_csv(vf_euroc* e);

/* vf_euroc_stream.c */
/* Starts replay from the first event (allocating the slots and starting the workers). */
vf_status vf_euroc_stream_start(vf_euroc* e);
/* Stops the workers and empties the queue (keeping its buffers); start again to rewind. */
void vf_euroc_stream_stop(vf_euroc* e);
/* Stop, then free the slots, their images and the lock. */
void vf_euroc_stream_destroy(vf_euroc* e);
/* Decodes pair `pair` into the slot's images (reusing their buffers) and sets its status and
 * message; leaves slot->pair and slot->ready to the caller. */
void vf_euroc_decode(const vf_euroc* e, int pair, vf_euroc_slot* slot);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* The features CSV of vf_replay: the fields VINS-Fusion's feature tracker publishes per point. */
#include <inttypes.h>

#include "replay.h"

FILE* replay_csv_open(const char* path) {
  FILE* f = fopen(path, "w");
  if (f != NULL) fprintf(f, "t_ns,id,cam,u,v,x,y,vx,vy,disparity,depth\n");
  return f;
}

void replay_csv_write(FILE* f, const vf_feature_frame* frame) {
  for (int i = 0; i < frame->count; ++i) {
    const vf_feature* p = &frame->features[i];
    fprintf(f, "%" PRId64 ",%" PRIu64 ",%d,%.3f,%.3f,%.6f,%.6f,%.5f,%.5f,%.3f,%.4f\n", frame->t_ns,
            p->id, p->camera, p->u, p->v, p->x, p->y, p->vx, p->vy, p->disparity, p->depth_m);
  }
}

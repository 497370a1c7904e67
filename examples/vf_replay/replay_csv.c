// SPDX-License-Identifier: BSD-3-Clause
/* The features CSV of vf_replay: the fields VINS-Fusion's feature tracker publishes per point,
 * then the rectified pixel; and the rectification those pixels belong to, written beside it so
 * that a backend can use the rectified stereo pair without recomputing it. */
#include <inttypes.h>

#include "replay.h"

FILE* replay_csv_open(const char* path) {
  FILE* f = fopen(path, "w");
  if (f != NULL) fprintf(f, "t_ns,id,cam,u,v,x,y,vx,vy,disparity,depth,u_rect,v_rect,flags\n");
  return f;
}

void replay_csv_write(FILE* f, const vf_feature_frame* frame) {
  for (int i = 0; i < frame->count; ++i) {
    const vf_feature* p = &frame->features[i];
    fprintf(f, "%" PRId64 ",%" PRIu64 ",%d,%.3f,%.3f,%.6f,%.6f,%.5f,%.5f,%.3f,%.4f,%.3f,%.3f,%u\n",
            frame->t_ns, p->id, p->camera, p->u, p->v, p->x, p->y, p->vx, p->vy, p->disparity,
            p->depth_m, p->u_rect, p->v_rect, (unsigned)p->flags);
  }
}

int replay_csv_write_rectification(const char* csv_path, const char* tag,
                                   const vf_feature_frame* frame) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s%s%s.rectification.yaml", csv_path, tag != NULL ? "." : "",
               tag != NULL ? tag : "") >= (int)sizeof path)
    return -1;
  FILE* f = fopen(path, "w");
  if (f == NULL) return -1;
  fprintf(f,
          "# The rectification of the CSV's u_rect, v_rect: rectified camera k sees a point X of\n"
          "# raw camera k at Rk X, at pixel (f x / z + cx, f y / z + cy); camera 1's pixel is\n"
          "# camera 0's moved by -f baseline_m / z along u. R1, R2 row-major.\n"
          "f: %.17g\ncx: %.17g\ncy: %.17g\nbaseline_m: %.17g\n",
          frame->f, frame->cx, frame->cy, frame->baseline_m);
  const double* m[2] = {frame->R1, frame->R2};
  for (int k = 0; k < 2; ++k) {
    fprintf(f, "R%d: [", k + 1);
    for (int i = 0; i < 9; ++i) fprintf(f, "%.17g%s", m[k][i], i < 8 ? ", " : "]\n");
  }
  return fclose(f) == 0 ? 0 : -1;
}

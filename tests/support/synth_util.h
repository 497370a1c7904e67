// SPDX-License-Identifier: BSD-3-Clause
/* Shared by the vf_synth tests: running the generator, quaternions to matrices, camera poses
 * from the ground truth, the landmark and track files. */
#ifndef SYNTH_UTIL_H
#define SYNTH_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <viofront/viofront.h>

#include "vf_test.h"

/* Runs vf_synth (its path compiled in as VF_SYNTH_EXE) with `args`; a check that it succeeded. */
static void run_synth(const char* args) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s %s > /dev/null", VF_SYNTH_EXE, args);
  int rc = system(cmd);
  if (rc != 0) fprintf(stderr, "%s: exit %d\n", cmd, rc);
  CHECK(rc == 0);
}

/* Unit quaternion (w x y z) -> row-major rotation matrix. */
static inline void quat_to_matrix(const double q[4], double R[9]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double m[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                 2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                 2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  memcpy(R, m, sizeof m);
}

/* Camera pose in the world from a ground-truth state: R_WC (row-major), centre c. */
static inline void camera_pose(const vf_euroc_state* st, const vf_camera* cam, double R_WC[9],
                               double c[3]) {
  double R[9];
  quat_to_matrix(st->q, R);
  const double* T = cam->T_BS;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j)
      R_WC[3 * i + j] = R[3 * i] * T[j] + R[3 * i + 1] * T[4 + j] + R[3 * i + 2] * T[8 + j];
    c[i] = st->p[i] + R[3 * i] * T[3] + R[3 * i + 1] * T[7] + R[3 * i + 2] * T[11];
  }
}

/* World point -> pixel of a camera at (R_WC, c); 0 when not in the image. */
static inline int project_world(const vf_camera* cam, const double R_WC[9], const double c[3],
                                const double X[3], double uv[2], double* z) {
  double d[3] = {X[0] - c[0], X[1] - c[1], X[2] - c[2]}, p[3];
  for (int i = 0; i < 3; ++i) p[i] = R_WC[i] * d[0] + R_WC[3 + i] * d[1] + R_WC[6 + i] * d[2];
  if (z != NULL) *z = p[2];
  return vf_camera_project(cam, p, uv) == VF_OK && uv[0] >= 0 && uv[1] >= 0 &&
         uv[0] <= cam->width - 1 && uv[1] <= cam->height - 1;
}

/* groundtruth/landmarks.csv of sequence `root` into X (ids 0, 1, ... in order, at most max);
 * the number read. */
static inline int read_landmarks(const char* root, double (*X)[3], int max) {
  char path[1024], line[256];
  snprintf(path, sizeof path, "%s/groundtruth/landmarks.csv", root);
  FILE* f = fopen(path, "r");
  int n = 0;
  while (f != NULL && fgets(line, sizeof line, f) != NULL) {
    int id;
    double a, b, c;
    if (line[0] != '#' && sscanf(line, "%d,%lf,%lf,%lf", &id, &a, &b, &c) == 4 && id == n &&
        n < max) {
      X[n][0] = a, X[n][1] = b, X[n][2] = c;
      ++n;
    }
  }
  if (f != NULL) fclose(f);
  return n;
}

/* One row of groundtruth/tracks<k>.csv: a landmark's raw pixel in camera k at a frame. */
typedef struct track_row {
  long long t_ns;
  int id;
  double u, v;
} track_row;

/* The rows of groundtruth/tracks<k>.csv (at most max); the number read. */
static inline int read_tracks(const char* root, int k, track_row* rows, int max) {
  char path[1024], line[256];
  snprintf(path, sizeof path, "%s/groundtruth/tracks%d.csv", root, k);
  FILE* f = fopen(path, "r");
  int n = 0;
  while (f != NULL && n < max && fgets(line, sizeof line, f) != NULL) {
    track_row* r = &rows[n];
    if (line[0] != '#' && sscanf(line, "%lld,%d,%lf,%lf", &r->t_ns, &r->id, &r->u, &r->v) == 4) ++n;
  }
  if (f != NULL) fclose(f);
  return n;
}

/* A track row against its landmark X projected through `cam` at the ground-truth pose of its
 * time: the larger of |du|, |dv| (INFINITY when it does not project into the image); z gets the
 * landmark's depth in the camera (may be NULL). */
static inline double track_error(const vf_euroc* e, const vf_camera* cam, const double X[3],
                                 const track_row* r, double* z) {
  vf_euroc_state st;
  double R[9], c[3], uv[2];
  if (vf_euroc_groundtruth_at(e, r->t_ns, &st) != VF_OK) return INFINITY;
  camera_pose(&st, cam, R, c);
  if (!project_world(cam, R, c, X, uv, z)) return INFINITY;
  return fmax(fabs(uv[0] - r->u), fabs(uv[1] - r->v));
}

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* The EuRoC CSV files: camera lists ("#timestamp [ns],filename"), the IMU
 * ("#timestamp [ns],w_RS_S_x,...,a_RS_S_z": gyro before accel) and the ground truth
 * ("#timestamp,p_RS_R_xyz,q_RS_wxyz,v_RS_R_xyz,b_w_RS_S_xyz,b_a_RS_S_xyz"). Timestamps must
 * increase strictly; every field is parsed strictly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_fault.h"
#include "io/vf_euroc_internal.h"
#include "vf_euroc_internal.h"

/* Checks the field count and that the row's timestamp follows `last`. */
static vf_status vf_row_start(const vf_csv* c, char** f, int n, int want_min, int want_max,
                              int64_t* last, int have_last, int64_t* t) {
  if (n < want_min || n > want_max) {
    if (want_min == want_max) {
      return vf_csv_fail(c, VF_ERR_FORMAT, "%d fields, expected %d", n, want_min);
    }
    return vf_csv_fail(c, VF_ERR_FORMAT, "%d fields, expected %d to %d", n, want_min, want_max);
  }
  vf_status s = vf_csv_int64(c, f[0], 1, t);
  if (s != VF_OK) return s;
  if (*t < 0) return vf_csv_fail(c, VF_ERR_FORMAT, "negative timestamp %lld", (long long)*t);
  if (have_last && *t <= *last) {
    return vf_csv_fail(c, VF_ERR_TIMESTAMP, "timestamp %lld ns %s the previous row's %lld ns",
                       (long long)*t, *t == *last ? "repeats" : "goes back from", (long long)*last);
  }
  *last = *t;
  return VF_OK;
}

vf_status vf_euroc_read_camera_csv(vf_euroc* e, int cam, vf_euroc_image** rows, int* count) {
  char path[2048];
  snprintf(path, sizeof path, "%s/cam%d/data.csv", e->root, cam);
  vf_csv* c = &e->cam_csv[cam];
  vf_status s = vf_csv_open(c, path, path);
  if (s != VF_OK) return s;
  vf_euroc_image* r = vf_malloc(sizeof *r * (size_t)c->data_lines);
  if (r == NULL) return vf_fail(NULL, VF_ERR_NOMEM, "%s: %d rows", c->name, c->data_lines);
  int n = 0, fields = 0;
  int64_t last = 0;
  char* f[2];
  while ((s = vf_csv_next(c, f, 2, &fields)) == VF_OK && fields > 0) {
    s = vf_row_start(c, f, fields, 2, 2, &last, n > 0, &r[n].t_ns);
    if (s == VF_OK && (f[1][0] == '\0' || strchr(f[1], '/') != NULL || strlen(f[1]) > 255)) {
      s = vf_csv_fail(c, VF_ERR_FORMAT, "'%.40s' is not a plain file name", f[1]);
    }
    if (s != VF_OK) break;
    r[n++].name = f[1];
  }
  if (s != VF_OK) {
    free(r);
    return s;
  }
  *rows = r;
  *count = n;
  return VF_OK;
}

vf_status vf_euroc_read_imu_csv(vf_euroc* e, int64_t t0, int64_t t1) {
  char path[2048];
  snprintf(path, sizeof path, "%s/imu0/data.csv", e->root);
  vf_csv c;
  vf_status s = vf_csv_open(&c, path, path);
  if (s != VF_OK) return s;
  e->imu = vf_malloc(sizeof *e->imu * (size_t)c.data_lines);
  if (e->imu == NULL) {
    vf_csv_close(&c);
    return vf_fail(NULL, VF_ERR_NOMEM, "%s: %d rows", c.name, c.data_lines);
  }
  int rows = 0, kept = 0, fields = 0, after = 0;
  int64_t last = 0;
  char* f[7];
  while ((s = vf_csv_next(&c, f, 7, &fields)) == VF_OK && fields > 0) {
    vf_imu_sample smp;
    s = vf_row_start(&c, f, fields, 7, 7, &last, rows > 0, &smp.t_ns);
    for (int i = 0; i < 3 && s == VF_OK; ++i) s = vf_csv_double(&c, f[1 + i], 2 + i, &smp.gyro[i]);
    for (int i = 0; i < 3 && s == VF_OK; ++i) s = vf_csv_double(&c, f[4 + i], 5 + i, &smp.acc[i]);
    if (s != VF_OK) break;
    ++rows;
    /* Keep [t0, t1] and one sample on each side of it, so the span is covered. */
    if (smp.t_ns < t0) {
      e->imu[0] = smp;
      kept = 1;
    } else if (smp.t_ns <= t1 || !after) {
      after = smp.t_ns > t1;
      e->imu[kept++] = smp;
    }
  }
  vf_csv_close(&c);
  if (s != VF_OK) return s;
  e->imu_count = kept;
  e->info.imu_rows = rows;
  e->info.imu_replayed = kept;
  e->info.imu_skipped = rows - kept;
  return VF_OK;
}

vf_status vf_euroc_read_gt_csv(vf_euroc* e) {
  char path[2048];
  snprintf(path, sizeof path, "%s/state_groundtruth_estimate0/data.csv", e->root);
  FILE* probe = fopen(path, "rb");
  if (probe == NULL) return VF_OK; /* optional: the real excerpt has none */
  fclose(probe);
  vf_csv c;
  vf_status s = vf_csv_open(&c, path, path);
  if (s != VF_OK) return s;
  e->gt = vf_calloc((size_t)c.data_lines, sizeof *e->gt);
  if (e->gt == NULL) {
    vf_csv_close(&c);
    return vf_fail(NULL, VF_ERR_NOMEM, "%s: %d rows", c.name, c.data_lines);
  }
  int n = 0, fields = 0;
  int64_t last = 0;
  char* f[17];
  while ((s = vf_csv_next(&c, f, 17, &fields)) == VF_OK && fields > 0) {
    vf_euroc_state* g = &e->gt[n];
    if (fields != 8 && fields != 17) {
      s = vf_csv_fail(&c, VF_ERR_FORMAT, "%d fields, expected 8 (pose) or 17 (full state)", fields);
      break;
    }
    s = vf_row_start(&c, f, fields, 8, 17, &last, n > 0, &g->t_ns);
    double v[16] = {0};
    for (int i = 1; i < fields && s == VF_OK; ++i) s = vf_csv_double(&c, f[i], i + 1, &v[i - 1]);
    if (s != VF_OK) break;
    double qn = v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6];
    if (qn < 0.81 || qn > 1.21) {
      s = vf_csv_fail(&c, VF_ERR_FORMAT, "quaternion has norm %.3f, not 1", qn);
      break;
    }
    memcpy(g->p, v, sizeof g->p);
    for (int i = 0; i < 4; ++i) g->q[i] = v[3 + i] / sqrt(qn);
    memcpy(g->v, v + 7, sizeof g->v);
    memcpy(g->bg, v + 10, sizeof g->bg);
    memcpy(g->ba, v + 13, sizeof g->ba);
    ++n;
  }
  vf_csv_close(&c);
  if (s != VF_OK) return s;
  e->gt_count = n;
  e->info.groundtruth_rows = n;
  return VF_OK;
}

// SPDX-License-Identifier: BSD-3-Clause
/* vf_vo: the smallest useful consumer of the frontend's callbacks, a stereo visual odometry.
 * Each frame's features with depth become 3-D points in the rectified left camera; in the next
 * frame the same track ids give their pixels, and PnP gives the camera motion between the two
 * frames. The chained motions are compared with the sequence's ground truth (vf_synth writes
 * one): the drift shows that the features, ids and depths are usable by a backend.
 *
 *   vf_vo SEQUENCE [--backend auto|cpu|cuda] [--max-frames N] [--max-drift-percent P]
 * With --max-drift-percent it fails (exit 1) when the final position error exceeds P% of the
 * path or the sequence has no ground truth. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <viofront/viofront.h>

#include "example_log.h"
#include "vo_pnp.h"

typedef struct vo_point {
  uint64_t id;
  double X[3];
} vo_point;

typedef struct vo_state {
  vo_point* prev; /* previous frame's points, sorted by id */
  int prev_count;
  double* P; /* scratch: matched points and pixels */
  double* uv;
  int capacity;
  vo_pose motion; /* previous frame -> current, the guess for the next solve */
  vo_pose T_w_c;  /* camera (rectified left) in the first camera's frame */
  int frames, solved, failed;
  int64_t* times; /* per frame: time and estimated position, for the evaluation */
  double* positions;
  int history_cap;
} vo_state;

static int by_id(const void* a, const void* b) {
  uint64_t x = ((const vo_point*)a)->id, y = ((const vo_point*)b)->id;
  return x < y ? -1 : x > y;
}

static int reserve(vo_state* s, int n) {
  if (n <= s->capacity) return 0;
  vo_point* p = realloc(s->prev, sizeof *p * (size_t)n);
  if (p != NULL) s->prev = p;
  double* a = realloc(s->P, sizeof *a * 3 * (size_t)n);
  if (a != NULL) s->P = a;
  double* b = realloc(s->uv, sizeof *b * 2 * (size_t)n);
  if (b != NULL) s->uv = b;
  if (p == NULL || a == NULL || b == NULL) return -1;
  s->capacity = n;
  return 0;
}

static int record(vo_state* s, int64_t t_ns) {
  if (s->frames >= s->history_cap) {
    int cap = s->history_cap ? 2 * s->history_cap : 256;
    int64_t* t = realloc(s->times, sizeof *t * (size_t)cap);
    if (t != NULL) s->times = t;
    double* p = realloc(s->positions, sizeof *p * 3 * (size_t)cap);
    if (p != NULL) s->positions = p;
    if (t == NULL || p == NULL) return -1;
    s->history_cap = cap;
  }
  s->times[s->frames] = t_ns;
  memcpy(s->positions + 3 * s->frames, s->T_w_c.t, sizeof s->T_w_c.t);
  s->frames++;
  return 0;
}

static void on_features(const vf_feature_frame* fr, void* user) {
  vo_state* s = user;
  if (reserve(s, fr->count) != 0) {
    s->failed = 1;
    return;
  }
  /* Match this frame's pixels with the previous frame's points by track id. */
  int n = 0;
  for (int i = 0; i < fr->count && s->prev_count > 0; ++i) {
    const vf_feature* f = &fr->features[i];
    vo_point key = {f->id, {0, 0, 0}};
    if (f->camera != 0) continue;
    const vo_point* p = bsearch(&key, s->prev, (size_t)s->prev_count, sizeof key, by_id);
    if (p == NULL) continue;
    memcpy(s->P + 3 * n, p->X, sizeof p->X);
    s->uv[2 * n] = f->u_rect;
    s->uv[2 * n + 1] = f->v_rect;
    ++n;
  }
  if (s->frames == 0) {
    vo_pose_identity(&s->T_w_c);
    vo_pose_identity(&s->motion);
  } else {
    vo_pose guess = s->motion;
    if (vo_pnp_solve(s->P, s->uv, n, fr->f, fr->cx, fr->cy, &guess) > 0) {
      s->motion = guess;
      s->solved++;
    }
    /* Chain: T_w_cur = T_w_prev * T_prev_cur, with T_prev_cur the inverse of the motion. */
    vo_pose inv;
    vo_pose_inverse(&s->motion, &inv);
    vo_pose_compose(&s->T_w_c, &inv, &s->T_w_c);
  }
  if (record(s, fr->t_ns) != 0) s->failed = 1;
  /* This frame's features with depth become the next frame's points. */
  s->prev_count = 0;
  for (int i = 0; i < fr->count; ++i) {
    const vf_feature* f = &fr->features[i];
    if (f->camera != 0 || !(f->depth_m > 0)) continue;
    vo_point* p = &s->prev[s->prev_count++];
    p->id = f->id;
    p->X[2] = f->depth_m;
    p->X[0] = (f->u_rect - fr->cx) / fr->f * f->depth_m;
    p->X[1] = (f->v_rect - fr->cy) / fr->f * f->depth_m;
  }
  qsort(s->prev, (size_t)s->prev_count, sizeof *s->prev, by_id);
}

/* The ground-truth pose of the rectified left camera: T_w_b(t) * T_b_c0 * R1^T. */
static int gt_camera(const vf_euroc* reader, const vf_camera* cam0, const double R1[9],
                     int64_t t_ns, vo_pose* out) {
  vf_euroc_state st;
  if (vf_euroc_groundtruth_at(reader, t_ns, &st) != VF_OK) return -1;
  double w = st.q[0], x = st.q[1], y = st.q[2], z = st.q[3];
  vo_pose wb = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)},
                {st.p[0], st.p[1], st.p[2]}};
  const double* T = cam0->T_BS;
  vo_pose bc = {{T[0], T[1], T[2], T[4], T[5], T[6], T[8], T[9], T[10]}, {T[3], T[7], T[11]}};
  vo_pose cr = {{R1[0], R1[3], R1[6], R1[1], R1[4], R1[7], R1[2], R1[5], R1[8]}, {0, 0, 0}};
  vo_pose_compose(&wb, &bc, out);
  vo_pose_compose(out, &cr, out);
  return 0;
}

/* Drift: the estimated trajectory (in the first camera's frame) against the ground truth
 * expressed in the same frame. */
static double evaluate(const vo_state* s, const vf_euroc* reader, const vf_frontend* fe,
                       const vf_camera* cam0) {
  vf_stereo_rectification rect;
  vo_pose g0, g0_inv, g;
  if (vf_euroc_groundtruth_count(reader) == 0 || vf_frontend_rectification(fe, &rect) != VF_OK ||
      s->frames == 0 || gt_camera(reader, cam0, rect.R1, s->times[0], &g0) != 0) {
    printf("vf_vo: no ground truth: drift not evaluated\n");
    return INFINITY;
  }
  vo_pose_inverse(&g0, &g0_inv);
  double path = 0, prev[3] = {0, 0, 0}, err = 0, max_err = 0;
  for (int i = 0; i < s->frames; ++i) {
    if (gt_camera(reader, cam0, rect.R1, s->times[i], &g) != 0) continue;
    vo_pose_compose(&g0_inv, &g, &g);
    double d = 0, step = 0;
    for (int k = 0; k < 3; ++k) {
      double e = s->positions[3 * i + k] - g.t[k], m = g.t[k] - prev[k];
      d += e * e;
      step += m * m;
      prev[k] = g.t[k];
    }
    path += sqrt(step);
    err = sqrt(d);
    if (err > max_err) max_err = err;
  }
  printf(
      "vf_vo: %d frames, PnP solved %d; path %.3f m, final position error %.3f m (%.2f%% of "
      "the path), largest %.3f m\n",
      s->frames, s->solved, path, err, path > 0 ? 100 * err / path : 0.0, max_err);
  return path > 0 ? 100 * err / path : INFINITY;
}

int main(int argc, char** argv) {
  const char* seq = NULL;
  vf_context_config cc = vf_context_config_default();
  int max_frames = 0, quiet = 0;
  double max_drift = INFINITY;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quiet") == 0) {
      quiet = 1;
    } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
      const char* b = argv[++i];
      cc.backend = strcmp(b, "cpu") == 0    ? VF_BACKEND_CPU
                   : strcmp(b, "cuda") == 0 ? VF_BACKEND_CUDA
                                            : VF_BACKEND_AUTO;
    } else if (strcmp(argv[i], "--max-frames") == 0 && i + 1 < argc) {
      max_frames = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--max-drift-percent") == 0 && i + 1 < argc) {
      max_drift = atof(argv[++i]);
    } else {
      seq = argv[i];
    }
  }
  if (seq == NULL) {
    fprintf(stderr,
            "usage: vf_vo SEQUENCE [--backend auto|cpu|cuda] [--max-frames N] "
            "[--max-drift-percent P] [--quiet]\n");
    return 2;
  }
  example_log_install(&cc, "vf_vo", quiet);
  vf_context* ctx = NULL;
  vf_euroc* reader = NULL;
  vf_frontend* fe = NULL;
  vo_state st;
  memset(&st, 0, sizeof st);
  vf_frontend_config fc = vf_frontend_config_default();
  vf_frontend_callbacks cb = {on_features, NULL, &st};
  vf_euroc_config ec = vf_euroc_config_default();
  int rc = 1, frames = 0;
  if (vf_context_create(&cc, &ctx) != VF_OK || vf_euroc_open(seq, &ec, ctx, &reader) != VF_OK ||
      vf_euroc_camera(reader, 0, &fc.cam0) != VF_OK ||
      vf_euroc_camera(reader, 1, &fc.cam1) != VF_OK ||
      vf_frontend_create(ctx, &fc, &cb, &fe) != VF_OK) {
    fprintf(stderr, "vf_vo: %s\n", vf_last_error_message());
    goto done;
  }
  for (;;) {
    vf_euroc_event ev;
    if (vf_euroc_next(reader, &ev) != VF_OK) continue; /* a damaged image: skipped */
    if (ev.type == VF_EUROC_END || (max_frames > 0 && frames >= max_frames)) break;
    vf_status s = ev.type == VF_EUROC_IMU
                      ? vf_frontend_push_imu(fe, ev.t_ns, ev.imu.gyro, ev.imu.acc)
                      : vf_frontend_process(fe, ev.t_ns, &ev.left, &ev.right);
    frames += ev.type == VF_EUROC_STEREO;
    if (s != VF_OK) {
      fprintf(stderr, "vf_vo: %s\n", vf_frontend_last_error(fe));
      goto done;
    }
  }
  double drift = evaluate(&st, reader, fe, &fc.cam0);
  rc = st.failed || (isfinite(max_drift) && !(drift <= max_drift));
done:
  vf_frontend_destroy(fe);
  vf_euroc_close(reader);
  vf_context_destroy(ctx);
  free(st.prev);
  free(st.P);
  free(st.uv);
  free(st.times);
  free(st.positions);
  return rc;
}

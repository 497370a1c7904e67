// SPDX-License-Identifier: BSD-3-Clause
/* Ground-truth evaluation of a replay on a vf_synth sequence. An observation's 3-D point comes
 * from the rendered depth at it (raw cam0 pixel, depth0/<t>.png, 1/5000 m) and the true pose.
 * Two errors per tracked observation: the step error against the projection of the track's
 * previous observation's point (what one tracking step got wrong), and the drift against the
 * projection of its first observation's point (what the track accumulated), also over the tracks
 * not born on a flagged depth edge (VF_FEATURE_DEPTH_EDGE). A camera-1 record is
 * compared with the projection into camera 1 of its left feature's point (the exact right pixel
 * of our left pixel, so the left tracking error does not count). Disparity maps are
 * compared with disparity/<t>.png (1/256 px) when the ground truth was rendered for the same
 * rectification. Both files of a frame are decoded ahead on worker threads (replay_ahead.c). */
#include "replay_eval.h"

#include "replay_ahead.h"
#include "replay_eval_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Records' ids modulo the rig frontend's unit bits: a unit's own track ids (a vf_frontend's ids
 * stay below them). */
#define EVAL_ID_MASK ((UINT64_C(1) << VF_RIG_FRONTEND_ID_SHIFT) - 1)

enum { EVAL_DEPTH, EVAL_DISPARITY };

/* The pose of raw cam0 in the world at t: X_w = R X_c + p. */
static int eval_pose(const replay_eval* e, int64_t t_ns, double R[9], double p[3]) {
  vf_euroc_state st;
  if (vf_euroc_groundtruth_at(e->reader, t_ns, &st) != VF_OK) return -1;
  double w = st.q[0], x = st.q[1], y = st.q[2], z = st.q[3];
  double Rb[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                  2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                  2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  const double* T = e->cam0.T_BS;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j)
      R[3 * i + j] = Rb[3 * i] * T[j] + Rb[3 * i + 1] * T[4 + j] + Rb[3 * i + 2] * T[8 + j];
    p[i] = st.p[i] + Rb[3 * i] * T[3] + Rb[3 * i + 1] * T[7] + Rb[3 * i + 2] * T[11];
  }
  return 0;
}

static void read_rectification(replay_eval* e) {
  char path[2200], line[512];
  snprintf(path, sizeof path, "%s/groundtruth/%s", e->root, e->which.rectification);
  FILE* f = fopen(path, "r");
  if (f == NULL) return;
  while (fgets(line, sizeof line, f) != NULL) {
    sscanf(line, "f: %lf", &e->gt_f);
    sscanf(line, "cx: %lf", &e->gt_cx);
    sscanf(line, "cy: %lf", &e->gt_cy);
  }
  fclose(f);
}

/* Reads groundtruth/<depth or disparity folder>/<t>.png of a frame (16-bit). */
static int eval_decode(const void* user, int frame, int64_t t_ns, int which, vf_image* image) {
  const replay_eval* e = user;
  const char* kind = which == EVAL_DEPTH ? e->which.depth : e->which.disparity;
  (void)frame;
  if (kind[0] == '\0') return 0;
  char path[2200];
  snprintf(path, sizeof path, "%s/groundtruth/%s/%lld.png", e->root, kind, (long long)t_ns);
  return vf_png_read_gray_into(path, 16, image) == VF_OK;
}

int replay_eval_open_camera(const char* sequence, const vf_euroc* reader,
                            const replay_eval_camera* c, const int64_t* t_ns, int frames,
                            int threads, int depth, replay_eval** out) {
  *out = NULL;
  struct stat sb;
  char dir[2200];
  snprintf(dir, sizeof dir, "%s/groundtruth/%s", sequence, c->depth);
  if (stat(dir, &sb) != 0 || vf_euroc_groundtruth_count(reader) == 0) return 0;
  replay_eval* e = calloc(1, sizeof *e);
  if (e == NULL) return -1;
  snprintf(e->root, sizeof e->root, "%s", sequence);
  e->reader = reader;
  e->which = *c;
  e->cam0 = c->cam;
  e->cam1 = c->right;
  if (c->disparity[0] != '\0') read_rectification(e);
  if (replay_ahead_open(t_ns, frames, 2, eval_decode, e, threads, depth, &e->files) != 0) {
    free(e);
    return -1;
  }
  *out = e;
  return 0;
}

int replay_eval_open(const char* sequence, const vf_euroc* reader, int threads, int depth,
                     replay_eval** out) {
  *out = NULL;
  replay_eval_camera c = {.camera = 0,
                          .depth = "depth0",
                          .disparity = "disparity",
                          .rectification = "rectification.yaml"};
  vf_euroc_info info;
  if (vf_euroc_get_info(reader, &info) != VF_OK || vf_euroc_camera(reader, 0, &c.cam) != VF_OK ||
      vf_euroc_camera(reader, 1, &c.right) != VF_OK)
    return -1;
  int64_t* t_ns = malloc(sizeof *t_ns * (size_t)(info.stereo_pairs > 0 ? info.stereo_pairs : 1));
  if (t_ns == NULL) return -1;
  for (int p = 0; p < info.stereo_pairs; ++p) vf_euroc_pair_time(reader, p, &t_ns[p]);
  int rc =
      replay_eval_open_camera(sequence, reader, &c, t_ns, info.stereo_pairs, threads, depth, out);
  free(t_ns);
  return rc;
}

static eval_point* eval_slot(replay_eval* e, uint64_t id) {
  if (id >= e->point_cap) {
    size_t cap = e->point_cap ? e->point_cap : 1024;
    while (cap <= id) cap *= 2;
    eval_point* p = realloc(e->points, cap * sizeof *p);
    if (p == NULL) return NULL;
    memset(p + e->point_cap, 0, (cap - e->point_cap) * sizeof *p);
    e->points = p;
    e->point_cap = cap;
  }
  return &e->points[id];
}

static void eval_add_error(eval_errors* e, double err) {
  if (e->count == e->cap) {
    long cap = e->cap ? 2 * e->cap : 4096;
    double* p = realloc(e->v, (size_t)cap * sizeof *p);
    if (p == NULL) return;
    e->v = p;
    e->cap = cap;
  }
  e->v[e->count++] = err;
}

/* The pixel error of an observation against world point X seen at pose (R, p); the signed
 * error (ours less the projection) in duv when duv is not NULL. Returns 0 when X does not
 * project. */
static int eval_compare(const replay_eval* e, const double R[9], const double p[3],
                        const double X[3], const vf_feature* f, eval_errors* out, double* duv) {
  double d[3] = {X[0] - p[0], X[1] - p[1], X[2] - p[2]}, Xc[3], uv[2];
  for (int k = 0; k < 3; ++k) Xc[k] = R[k] * d[0] + R[3 + k] * d[1] + R[6 + k] * d[2];
  if (vf_camera_project(&e->cam0, Xc, uv) != VF_OK) return 0;
  eval_add_error(out, hypot(uv[0] - f->u, uv[1] - f->v));
  if (duv != NULL) {
    duv[0] = f->u - uv[0];
    duv[1] = f->v - uv[1];
  }
  return 1;
}

static int eval_age_bin(int age) {
  return age <= 5 ? 0 : age <= 10 ? 1 : age <= 20 ? 2 : age <= 50 ? 3 : 4;
}

/* Adds a signed drift to its age bin, to the total and to its class by depth step; `along`
 * only for tracks that moved. */
static void eval_add_signed(replay_eval* e, const eval_point* pt, const vf_feature* f,
                            const double duv[2]) {
  const double mu = f->u - pt->first_u, mv = f->v - pt->first_v, m = hypot(mu, mv);
  eval_signed_sums* b[3] = {&e->drift_signed[eval_age_bin(f->age)],
                            &e->drift_signed[REPLAY_EVAL_AGE_BINS],
                            &e->drift_step_signed[pt->patch_on_step]};
  for (int k = 0; k < 3; ++k) {
    b[k]->du += duv[0];
    b[k]->dv += duv[1];
    b[k]->n++;
    if (m > 1.0) {
      b[k]->along += (duv[0] * mu + duv[1] * mv) / m;
      b[k]->moved++;
    }
  }
}

/* The rendered depth at raw pixel (u, v), interpolated bilinearly in inverse depth (affine in
 * the image for a plane, so exact there but for the distortion); 0 when one of the four pixels
 * around has none or they differ by over 2% (two surfaces: no one depth to interpolate). */
static double eval_depth_at(const vf_image* depth, double u, double v) {
  const int x = (int)floor(u), y = (int)floor(v);
  if (depth->data == NULL || x < 0 || y < 0 || x + 1 >= depth->width || y + 1 >= depth->height)
    return 0.0;
  double z[4];
  for (int k = 0; k < 4; ++k) {
    const uint16_t* row =
        (const uint16_t*)((const uint8_t*)depth->data + (size_t)(y + k / 2) * depth->stride_bytes);
    z[k] = row[x + k % 2] / 5000.0;
  }
  const double lo = fmin(fmin(z[0], z[1]), fmin(z[2], z[3]));
  const double hi = fmax(fmax(z[0], z[1]), fmax(z[2], z[3]));
  if (lo <= 0.0 || hi > 1.02 * lo) return 0.0;
  const double ax = u - x, ay = v - y;
  const double top = (1 - ax) / z[0] + ax / z[1], bot = (1 - ax) / z[2] + ax / z[3];
  return 1.0 / ((1 - ay) * top + ay * bot);
}

/* Nonzero when the rendered depth steps by more than 2% between neighbouring pixels (or is
 * missing) somewhere in the (2 r + 1)^2 window around raw pixel (u, v): a patch there spans an
 * occlusion edge, and a track on it may follow the edge (a junction), not one 3-D point. */
static int eval_window_steps(const vf_image* depth, double u, double v, int r) {
  const int x0 = (int)lrint(u) - r, y0 = (int)lrint(v) - r, side = 2 * r + 1;
  if (depth->data == NULL || x0 < 0 || y0 < 0 || x0 + side >= depth->width ||
      y0 + side >= depth->height)
    return 1;
  for (int y = y0; y < y0 + side; ++y) {
    const uint16_t* row =
        (const uint16_t*)((const uint8_t*)depth->data + (size_t)y * depth->stride_bytes);
    const uint16_t* next = (const uint16_t*)((const uint8_t*)row + depth->stride_bytes);
    for (int x = x0; x < x0 + side; ++x) {
      const double a = row[x], b = row[x + 1], c = next[x];
      if (a == 0 || b > 1.02 * a || a > 1.02 * b || c > 1.02 * a || a > 1.02 * c) return 1;
    }
  }
  return 0;
}

/* The world point of an observation from the rendered depth: interpolated at its sub-pixel
 * position where the four pixels around lie on one surface, else the nearest pixel's (a
 * junction). The nearest pixel's depth alone is off by up to half a pixel's depth change, which
 * on a slanted surface moves the point by a parallax that grows as the camera moves: about a
 * tenth of the drift median on vf_synth (docs/perf/drift_bias.md). */
static int eval_backproject(const vf_image* depth, const double R[9], const double p[3],
                            const vf_feature* f, double X[3]) {
  int x = (int)lrint(f->u), y = (int)lrint(f->v);
  if (depth->data == NULL || x < 0 || y < 0 || x >= depth->width || y >= depth->height) return 0;
  uint16_t z16 =
      ((const uint16_t*)((const uint8_t*)depth->data + (size_t)y * depth->stride_bytes))[x];
  if (z16 == 0) return 0;
  const double zi = eval_depth_at(depth, f->u, f->v);
  const double z = zi > 0.0 ? zi : z16 / 5000.0, Xc[3] = {f->x * z, f->y * z, z};
  for (int k = 0; k < 3; ++k)
    X[k] = R[3 * k] * Xc[0] + R[3 * k + 1] * Xc[1] + R[3 * k + 2] * Xc[2] + p[k];
  return 1;
}

/* The signed error of a camera-1 record's disparity (left u_rect less its u_rect) against the
 * exact disparity of the point under the left pixel l. */
static void eval_disparity(replay_eval* e, const vf_image* depth, const vf_feature_frame* fr,
                           const vf_feature* l, const vf_feature* r) {
  const double z = eval_depth_at(depth, l->u, l->v);
  if (!(z > 0.0)) return;
  const double* R1 = fr->R1;
  const double z_rect = z * (R1[6] * l->x + R1[7] * l->y + R1[8]);
  if (!(z_rect > 0.0)) return;
  eval_add_error(&e->disparity,
                 ((double)l->u_rect - (double)r->u_rect) - fr->f * fr->baseline_m / z_rect);
}

/* Camera-0 frame point -> camera-1 pixel through the body frame (X_b = R_BSk X_k + t_BSk). */
static int eval_project_cam1(const replay_eval* e, const double X0[3], double uv[2]) {
  const double *A = e->cam0.T_BS, *B = e->cam1.T_BS;
  double Xb[3], X1[3];
  for (int i = 0; i < 3; ++i)
    Xb[i] = A[4 * i] * X0[0] + A[4 * i + 1] * X0[1] + A[4 * i + 2] * X0[2] + A[4 * i + 3] -
            B[4 * i + 3];
  for (int i = 0; i < 3; ++i) X1[i] = B[i] * Xb[0] + B[4 + i] * Xb[1] + B[8 + i] * Xb[2];
  return vf_camera_project(&e->cam1, X1, uv) == VF_OK;
}

/* The camera-1 records of a frame against the true right pixels of their left features; left
 * and right records are in the same track order, so one walk pairs them. */
static void eval_right(replay_eval* e, const vf_image* depth, const vf_feature_frame* fr) {
  const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, o[3] = {0, 0, 0};
  int j = 0;
  for (int i = 0; i < fr->count; ++i) {
    const vf_feature* f = &fr->features[i];
    if (f->camera == e->which.camera) {
      e->left[0]++;
      e->left[1] += (f->flags & VF_FEATURE_DEPTH_EDGE) != 0;
      continue;
    }
    while (j < fr->count &&
           !(fr->features[j].camera == e->which.camera && fr->features[j].id == f->id))
      ++j;
    if (j == fr->count) return;
    const vf_feature* l = &fr->features[j];
    const int edge = (l->flags & VF_FEATURE_DEPTH_EDGE) != 0;
    e->records[0]++;
    if (edge) e->records[1]++;
    eval_disparity(e, depth, fr, l, f);
    double X[3], uv[2];
    /* Identity pose: the point in the camera-0 frame. */
    if (isnan(l->u) || !eval_backproject(depth, I, o, l, X) || !eval_project_cam1(e, X, uv))
      continue;
    const double err = hypot(uv[0] - f->u, uv[1] - f->v);
    eval_add_error(&e->right[0], err);
    if (edge) eval_add_error(&e->right[1], err);
  }
}

void replay_eval_features(replay_eval* e, const vf_feature_frame* fr) {
  double R[9], p[3];
  if (e == NULL || eval_pose(e, fr->t_ns, R, p) != 0) return;
  /* No file (or a damaged one): no observation of this frame has a 3-D point. */
  const vf_image none = {0}, *found = replay_ahead_get(e->files, fr->t_ns, EVAL_DEPTH);
  const vf_image depth = found != NULL ? *found : none;
  for (int i = 0; i < fr->count; ++i) {
    const vf_feature* f = &fr->features[i];
    eval_point* pt = f->camera == e->which.camera ? eval_slot(e, f->id & EVAL_ID_MASK) : NULL;
    if (pt == NULL || isnan(f->u)) continue;
    if (f->age == 1) {
      pt->first_valid = eval_backproject(&depth, R, p, f, pt->first);
      pt->born_on_edge = (f->flags & VF_FEATURE_DEPTH_EDGE) != 0;
      /* The default reference patch (21 x 21) around the first observation. */
      pt->patch_on_step = eval_window_steps(&depth, f->u, f->v, 10);
      pt->first_u = f->u;
      pt->first_v = f->v;
    } else {
      double duv[2];
      if (pt->first_valid && eval_compare(e, R, p, pt->first, f, &e->drift, duv)) {
        eval_add_signed(e, pt, f, duv);
        eval_add_error(&e->drift_by_age[eval_age_bin(f->age)], hypot(duv[0], duv[1]));
        eval_add_error(&e->drift_step[pt->patch_on_step], hypot(duv[0], duv[1]));
      }
      /* A junction of two surfaces is not one 3-D point: its "truth" is ambiguous. */
      if (pt->first_valid && !pt->born_on_edge) {
        eval_compare(e, R, p, pt->first, f, &e->drift_off_edges, NULL);
      }
      if (pt->last_valid) eval_compare(e, R, p, pt->last, f, &e->step, NULL);
    }
    pt->last_valid = eval_backproject(&depth, R, p, f, pt->last);
  }
  eval_right(e, &depth, fr);
}

void replay_eval_disparity(replay_eval* e, const vf_disparity_frame* fr) {
  if (e == NULL || fr->disparity.location != VF_MEMORY_HOST) return;
  /* Only a map of the same rectification can be compared pixel for pixel. */
  if (fabs(e->gt_f - fr->f) > 1e-6 * fr->f || fabs(e->gt_cx - fr->cx) > 1e-6 * fr->f ||
      fabs(e->gt_cy - fr->cy) > 1e-6 * fr->f)
    return;
  const vf_image* found = replay_ahead_get(e->files, fr->t_ns, EVAL_DISPARITY);
  if (found == NULL) return;
  const vf_image gt = *found;
  const vf_image* d = &fr->disparity;
  const double scale = 1.0 / (1 << fr->fractional_bits);
  if (gt.width == d->width && gt.height == d->height) {
    e->disparity_frames++;
    for (int y = 0; y < gt.height; ++y) {
      const uint16_t* g = (const uint16_t*)((const uint8_t*)gt.data + (size_t)y * gt.stride_bytes);
      const uint16_t* m = (const uint16_t*)((const uint8_t*)d->data + (size_t)y * d->stride_bytes);
      for (int x = 0; x < gt.width; ++x) {
        double truth = g[x] / 256.0;
        /* Only disparities inside the searched range can be found. */
        if (g[x] == 0 || truth < fr->min_disparity || truth > fr->max_disparity) continue;
        e->gt_pixels++;
        double err = m[x] == VF_STEREO_INVALID ? INFINITY : fabs(m[x] * scale - truth);
        e->valid += m[x] != VF_STEREO_INVALID;
        for (int t = 0; t < 3; ++t) e->bad[t] += err > t + 1;
      }
    }
  }
}

void replay_eval_fetch(replay_eval* e, int64_t t_ns) {
  replay_ahead_get(e->files, t_ns, EVAL_DEPTH);
  replay_ahead_get(e->files, t_ns, EVAL_DISPARITY);
}

double replay_eval_wait_s(const replay_eval* e) {
  return e != NULL ? replay_ahead_wait_s(e->files) : 0.0;
}

void replay_eval_close(replay_eval* e) {
  if (e == NULL) return;
  replay_ahead_close(e->files);
  free(e->points);
  free(e->step.v);
  free(e->drift.v);
  free(e->drift_off_edges.v);
  for (int k = 0; k < REPLAY_EVAL_AGE_BINS; ++k) free(e->drift_by_age[k].v);
  for (int k = 0; k < 2; ++k) free(e->drift_step[k].v);
  free(e->disparity.v);
  free(e->right[0].v);
  free(e->right[1].v);
  free(e);
}

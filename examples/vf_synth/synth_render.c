// SPDX-License-Identifier: BSD-3-Clause
/* Rendering by ray casting: each pixel's ray (unprojected once through the camera model, so
 * images carry the real lens distortion) is rotated into the world, intersected with the
 * scene, and shaded with the texture filtered over the pixel's footprint. Also the z-depth of
 * each raw pixel, the rectified left view's disparity, and landmark visibility. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

#define SYNTH_FAR 100.0f

int synth_view_create(const vf_camera* cam, synth_view* v) {
  memset(v, 0, sizeof *v);
  v->cam = *cam;
  size_t n = (size_t)cam->width * cam->height;
  v->ray = malloc(n * 3 * sizeof *v->ray);
  v->footprint = malloc(n * sizeof *v->footprint);
  if (v->ray == NULL || v->footprint == NULL) return -1;
  for (int y = 0; y < cam->height; ++y) {
    for (int x = 0; x < cam->width; ++x) {
      double uv[2] = {x, y}, r[3];
      if (vf_camera_unproject(cam, uv, r) != VF_OK) return -1;
      float* out = &v->ray[((size_t)y * cam->width + x) * 3];
      out[0] = (float)r[0];
      out[1] = (float)r[1];
      out[2] = 1.0f;
    }
  }
  /* A pixel's angular size: the angle to its right (or left) neighbour's ray. */
  for (int y = 0; y < cam->height; ++y) {
    for (int x = 0; x < cam->width; ++x) {
      const float* a = &v->ray[((size_t)y * cam->width + x) * 3];
      const float* b = x + 1 < cam->width ? a + 3 : a - 3;
      float na = sqrtf(a[0] * a[0] + a[1] * a[1] + 1), nb = sqrtf(b[0] * b[0] + b[1] * b[1] + 1);
      float dx = a[0] / na - b[0] / nb, dy = a[1] / na - b[1] / nb, dz = 1 / na - 1 / nb;
      v->footprint[(size_t)y * cam->width + x] = sqrtf(dx * dx + dy * dy + dz * dz);
    }
  }
  return 0;
}

void synth_view_destroy(synth_view* v) {
  free(v->ray);
  free(v->footprint);
  memset(v, 0, sizeof *v);
}

void synth_camera_pose(const vf_camera* cam, const synth_state* st, double R_WC[9], double c[3]) {
  const double* T = cam->T_BS;
  double R_BS[9] = {T[0], T[1], T[2], T[4], T[5], T[6], T[8], T[9], T[10]};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      R_WC[3 * i + j] =
          st->R[3 * i] * R_BS[j] + st->R[3 * i + 1] * R_BS[3 + j] + st->R[3 * i + 2] * R_BS[6 + j];
    }
    c[i] = st->p[i] + st->R[3 * i] * T[3] + st->R[3 * i + 1] * T[7] + st->R[3 * i + 2] * T[11];
  }
}

/* cglm matrices are column-major: m[column][row]. */
static void synth_to_mat3(const double R[9], mat3 m) {
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) m[j][i] = (float)R[3 * i + j];
  }
}

void synth_render_view(const synth_scene* s, const synth_view* v, const double R_WC[9],
                       const double c[3], float gain, float bias, float noise_sigma,
                       uint64_t noise_seed, vf_image* image, vf_image* depth) {
  mat3 R;
  synth_to_mat3(R_WC, R);
  vec3 o = {(float)c[0], (float)c[1], (float)c[2]};
  unsigned boxes = synth_scene_boxes_in_front(s, R_WC, c);
  uint64_t rng = noise_seed;
  for (int y = 0; y < v->cam.height; ++y) {
    uint8_t* row = image != NULL ? (uint8_t*)image->data + (size_t)y * image->stride_bytes : NULL;
    uint16_t* drow =
        depth != NULL ? (uint16_t*)((uint8_t*)depth->data + (size_t)y * depth->stride_bytes) : NULL;
    for (int x = 0; x < v->cam.width; ++x) {
      size_t i = (size_t)y * v->cam.width + x;
      vec3 d, p;
      glm_mat3_mulv(R, &v->ray[i * 3], d);
      synth_hit hit;
      int found = synth_scene_cast(s, o, d, SYNTH_FAR, boxes, &hit);
      if (drow != NULL) {
        float z = hit.t * 5000.0f + 0.5f;
        drow[x] = found ? (uint16_t)(z < 65535.0f ? z : 65535.0f) : 0;
      }
      if (row == NULL) continue;
      float value = 0.0f;
      if (found) {
        glm_vec3_copy(o, p);
        glm_vec3_muladds(d, hit.t, p);
        /* The footprint grows as the surface tilts away (geometric mean of the two axes). */
        float len = glm_vec3_norm(d);
        float cosine = fabsf(d[s->faces[hit.face].axis]) / len;
        if (cosine < 0.05f) cosine = 0.05f;
        value = synth_scene_radiance(s, hit.face, p, hit.t * len * v->footprint[i] / sqrtf(cosine));
      }
      float g = gain * value * 255.0f + bias + 0.5f;
      if (noise_sigma > 0) g += noise_sigma * synth_gauss_fast(&rng);
      row[x] = (uint8_t)(g < 0.0f ? 0.0f : g > 255.0f ? 255.0f : g);
    }
  }
}

int synth_point_visible(const synth_scene* s, const vf_camera* cam, const double R_WC[9],
                        const double c[3], unsigned boxes, const double X[3], double uv[2]) {
  double d[3] = {X[0] - c[0], X[1] - c[1], X[2] - c[2]}, pc[3];
  for (int i = 0; i < 3; ++i) pc[i] = R_WC[i] * d[0] + R_WC[3 + i] * d[1] + R_WC[6 + i] * d[2];
  if (pc[2] < 0.05 || vf_camera_project(cam, pc, uv) != VF_OK) return 0;
  if (uv[0] < 0 || uv[1] < 0 || uv[0] > cam->width - 1 || uv[1] > cam->height - 1) return 0;
  /* Hidden when anything lies between the camera and the point (1 mm per metre of slack). */
  float o[3] = {(float)c[0], (float)c[1], (float)c[2]},
        df[3] = {(float)d[0], (float)d[1], (float)d[2]};
  synth_hit hit;
  return !synth_scene_cast(s, o, df, 0.999f, boxes, &hit);
}

int synth_view_create_rectified(const vf_camera* left, const vf_stereo_rectification* rect,
                                synth_view* v) {
  memset(v, 0, sizeof *v);
  v->cam = *left;
  v->cam.width = rect->width;
  v->cam.height = rect->height;
  size_t n = (size_t)rect->width * rect->height;
  v->ray = malloc(n * 3 * sizeof *v->ray);
  if (v->ray == NULL) return -1;
  const double* R1 = rect->R1;
  for (int y = 0; y < rect->height; ++y) {
    for (int x = 0; x < rect->width; ++x) {
      /* Rectified ray r = ((x - cx) / f, (y - cy) / f, 1); in the raw left camera: R1^T r. */
      double r[3] = {(x - rect->cx) / rect->f, (y - rect->cy) / rect->f, 1.0}, raw[3], uv[2];
      for (int i = 0; i < 3; ++i) raw[i] = R1[i] * r[0] + R1[3 + i] * r[1] + R1[6 + i] * r[2];
      float* out = &v->ray[((size_t)y * rect->width + x) * 3];
      out[0] = out[1] = out[2] = 0.0f; /* z = 0: the pixel has no raw source */
      if (raw[2] <= 0 || vf_camera_project(left, raw, uv) != VF_OK || uv[0] < 0 || uv[1] < 0 ||
          uv[0] > left->width - 1 || uv[1] > left->height - 1) {
        continue;
      }
      out[0] = (float)(raw[0] / raw[2]);
      out[1] = (float)(raw[1] / raw[2]);
      out[2] = (float)(1.0 / raw[2]); /* the rectified depth per unit of raw depth */
    }
  }
  return 0;
}

void synth_render_disparity(const synth_scene* s, const vf_stereo_rectification* rect,
                            const synth_view* rectified, const vf_camera* left,
                            const vf_camera* right, const synth_state* st, vf_image* disparity) {
  double R_WC[2][9], c[2][3];
  synth_camera_pose(left, st, R_WC[0], c[0]);
  synth_camera_pose(right, st, R_WC[1], c[1]);
  mat3 R0;
  synth_to_mat3(R_WC[0], R0);
  vec3 o = {(float)c[0][0], (float)c[0][1], (float)c[0][2]};
  unsigned boxes0 = synth_scene_boxes_in_front(s, R_WC[0], c[0]);
  unsigned boxes1 = synth_scene_boxes_in_front(s, R_WC[1], c[1]);
  for (int y = 0; y < rect->height; ++y) {
    uint16_t* row = (uint16_t*)((uint8_t*)disparity->data + (size_t)y * disparity->stride_bytes);
    for (int x = 0; x < rect->width; ++x) {
      row[x] = 0;
      const float* r = &rectified->ray[((size_t)y * rect->width + x) * 3];
      if (r[2] == 0.0f) continue;
      vec3 dc = {r[0], r[1], 1.0f}, d;
      glm_mat3_mulv(R0, dc, d);
      synth_hit hit;
      if (!synth_scene_cast(s, o, d, SYNTH_FAR, boxes0, &hit)) continue;
      /* The hit is t (x, y, 1) in the raw left camera, at rectified depth t r[2]. */
      double X[3], uv1[2];
      for (int i = 0; i < 3; ++i) X[i] = c[0][i] + (double)hit.t * d[i];
      if (!synth_point_visible(s, right, R_WC[1], c[1], boxes1, X, uv1)) continue;
      double disp = rect->f * rect->baseline_m / ((double)hit.t * r[2]);
      row[x] = (uint16_t)fmin(65535.0, fmax(1.0, round(disp * 256.0)));
    }
  }
}

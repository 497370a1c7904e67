// SPDX-License-Identifier: BSD-3-Clause
/* The synthetic scene: a 10 x 8 x 3.5 m room with boxes (crates, pillars, shelves) along the
 * walls, every face an axis-aligned textured rectangle; ray casting (slab tests), trilinear
 * texture filtering by pixel footprint, and view-independent shading from a point light (so
 * that brightness is constant across views, as the trackers assume). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

uint64_t synth_rand(uint64_t* s) {
  /* splitmix64: deterministic for a seed, independent of platform. */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double synth_uniform(uint64_t* s) {
  return (double)(synth_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

float synth_gauss_fast(uint64_t* s) {
  /* Irwin-Hall: the sum of four 16-bit uniforms, centred and scaled to unit variance. */
  uint64_t r = synth_rand(s);
  float sum = (float)(r & 0xffff) + (float)((r >> 16) & 0xffff) + (float)((r >> 32) & 0xffff) +
              (float)(r >> 48);
  return (sum * (1.0f / 65536.0f) - 2.0f) * 1.7320508f;
}

double synth_gauss(uint64_t* s) {
  double u = synth_uniform(s), v = synth_uniform(s);
  return sqrt(-2.0 * log(u > 1e-300 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

/* Boxes: (lo, hi) before a seeded jitter of up to 0.15 m in x and y. */
static const float synth_boxes[][6] = {
    {3.0f, -3.5f, 0.0f, 4.2f, -2.3f, 1.2f},   {-4.5f, 1.5f, 0.0f, -3.7f, 2.3f, 2.4f},
    {-1.0f, 3.0f, 0.0f, 0.6f, 3.7f, 0.9f},    {1.5f, 2.4f, 0.0f, 2.3f, 3.2f, 1.6f},
    {-3.2f, -3.6f, 0.0f, -2.0f, -2.8f, 0.7f}, {4.3f, 0.5f, 0.8f, 4.9f, 2.0f, 2.0f},
    {-0.5f, -3.9f, 1.2f, 1.0f, -3.6f, 2.2f},  {-4.8f, -1.5f, 1.0f, -4.4f, 0.2f, 1.6f},
};

static void synth_add_face(synth_scene* s, int axis, float plane, float nsign, const float lo[3],
                           const float hi[3]) {
  synth_face* f = &s->faces[s->nfaces++];
  memset(f, 0, sizeof *f);
  f->axis = axis;
  f->plane = plane;
  f->nsign = nsign;
  f->ua = (axis + 1) % 3;
  f->va = (axis + 2) % 3;
  f->lo[0] = lo[f->ua];
  f->hi[0] = hi[f->ua];
  f->lo[1] = lo[f->va];
  f->hi[1] = hi[f->va];
}

typedef struct synth_texture_job {
  synth_scene* s;
  uint64_t seed;
  int next; /* next face to fill, shared */
  int failed;
  pthread_mutex_t lock;
} synth_texture_job;

static void* synth_texture_worker(void* arg) {
  synth_texture_job* j = arg;
  for (;;) {
    pthread_mutex_lock(&j->lock);
    int i = j->next++;
    pthread_mutex_unlock(&j->lock);
    if (i >= j->s->nfaces) return NULL;
    if (synth_texture_fill(&j->s->faces[i], j->s->texel_m, j->seed * 1000003u + (uint64_t)i) != 0) {
      j->failed = 1;
    }
  }
}

int synth_scene_create(uint64_t seed, int threads, synth_scene* s) {
  memset(s, 0, sizeof *s);
  glm_vec3_copy((vec3){-5.0f, -4.0f, 0.0f}, s->room_lo);
  glm_vec3_copy((vec3){5.0f, 4.0f, 3.5f}, s->room_hi);
  glm_vec3_copy((vec3){0.5f, -0.3f, 3.3f}, s->light);
  s->texel_m = 0.005f;
  s->nboxes = (int)(sizeof synth_boxes / sizeof synth_boxes[0]);
  s->faces = calloc((size_t)(6 + 6 * s->nboxes), sizeof *s->faces);
  if (s->faces == NULL) return -1;
  for (int a = 0; a < 3; ++a) {
    for (int side = 0; side < 2; ++side) {
      s->room_face[2 * a + side] = s->nfaces;
      /* Walls face inwards: the max wall's normal points to -axis. */
      synth_add_face(s, a, side ? s->room_hi[a] : s->room_lo[a], side ? -1.0f : 1.0f, s->room_lo,
                     s->room_hi);
    }
  }
  uint64_t rng = seed ^ 0x5ce9e5ull;
  for (int b = 0; b < s->nboxes; ++b) {
    float jx = (float)(synth_uniform(&rng) - 0.5) * 0.3f,
          jy = (float)(synth_uniform(&rng) - 0.5) * 0.3f;
    const float* bx = synth_boxes[b];
    glm_vec3_copy((vec3){bx[0] + jx, bx[1] + jy, bx[2]}, s->box_lo[b]);
    glm_vec3_copy((vec3){bx[3] + jx, bx[4] + jy, bx[5]}, s->box_hi[b]);
    /* Keep every box inside the room. */
    for (int a = 0; a < 2; ++a) {
      float shift = fmaxf(0.0f, s->room_lo[a] + 0.01f - s->box_lo[b][a]) -
                    fmaxf(0.0f, s->box_hi[b][a] - (s->room_hi[a] - 0.01f));
      s->box_lo[b][a] += shift;
      s->box_hi[b][a] += shift;
    }
    for (int a = 0; a < 3; ++a) {
      for (int side = 0; side < 2; ++side) {
        s->box_face[b][2 * a + side] = s->nfaces;
        synth_add_face(s, a, side ? s->box_hi[b][a] : s->box_lo[b][a], side ? 1.0f : -1.0f,
                       s->box_lo[b], s->box_hi[b]);
      }
    }
  }
  synth_texture_job job = {s, seed, 0, 0, PTHREAD_MUTEX_INITIALIZER};
  pthread_t ids[16];
  int n = threads < 1 ? 1 : threads > 16 ? 16 : threads, started = 0;
  for (int t = 1; t < n; ++t)
    started += pthread_create(&ids[started], NULL, synth_texture_worker, &job) == 0;
  synth_texture_worker(&job);
  for (int t = 0; t < started; ++t) pthread_join(ids[t], NULL);
  return job.failed ? -1 : 0;
}

void synth_scene_destroy(synth_scene* s) {
  for (int i = 0; s->faces != NULL && i < s->nfaces; ++i) free(s->faces[i].mip[0]);
  free(s->faces);
  memset(s, 0, sizeof *s);
}

unsigned synth_scene_boxes_in_front(const synth_scene* s, const double R_WC[9], const double c[3]) {
  unsigned mask = 0;
  for (int b = 0; b < s->nboxes; ++b) {
    for (int corner = 0; corner < 8; ++corner) {
      double p[3];
      for (int a = 0; a < 3; ++a)
        p[a] = ((corner >> a) & 1 ? s->box_hi[b][a] : s->box_lo[b][a]) - c[a];
      /* Depth along the optical axis: the third column of R_WC. */
      if (R_WC[2] * p[0] + R_WC[5] * p[1] + R_WC[8] * p[2] > 0) mask |= 1u << b;
    }
  }
  return mask;
}

int synth_scene_cast(const synth_scene* s, const float o[3], const float d[3], float tmax,
                     unsigned boxes, synth_hit* hit) {
  float best = tmax;
  int face = -1;
  /* The room is convex and holds the origin: the hit is the nearest exit plane. */
  for (int a = 0; a < 3; ++a) {
    if (d[a] == 0.0f) continue;
    int side = d[a] > 0;
    float t = ((side ? s->room_hi[a] : s->room_lo[a]) - o[a]) / d[a];
    if (t > 0 && t < best) {
      best = t;
      face = s->room_face[2 * a + side];
    }
  }
  /* Slab tests against the boxes, with the reciprocal direction computed once. */
  float inv[3];
  for (int a = 0; a < 3; ++a) inv[a] = d[a] != 0.0f ? 1.0f / d[a] : INFINITY;
  for (int b = 0; b < s->nboxes; ++b) {
    if (!((boxes >> b) & 1)) continue;
    float tnear = -INFINITY, tfar = best;
    int near_face = -1;
    for (int a = 0; a < 3 && tnear <= tfar; ++a) {
      if (d[a] == 0.0f) {
        if (o[a] < s->box_lo[b][a] || o[a] > s->box_hi[b][a]) tnear = INFINITY;
        continue;
      }
      float t1 = (s->box_lo[b][a] - o[a]) * inv[a], t2 = (s->box_hi[b][a] - o[a]) * inv[a];
      int side = 0; /* the face the ray enters through: lo side when moving towards +axis */
      if (t1 > t2) {
        float tmp = t1;
        t1 = t2;
        t2 = tmp;
        side = 1;
      }
      if (t1 > tnear) {
        tnear = t1;
        near_face = s->box_face[b][2 * a + side];
      }
      tfar = t2 < tfar ? t2 : tfar;
    }
    if (tnear <= tfar && tnear > 1e-4f && tnear < best && near_face >= 0) {
      best = tnear;
      face = near_face;
    }
  }
  if (face < 0) return 0;
  hit->t = best;
  hit->face = face;
  return 1;
}

/* Bilinear texel lookup at level l, (x, y) in level-0 texel units of the face. Texel j of level l
 * is the box of level-0 texels [j 2^l, (j + 1) 2^l) (synth_texture_fill), so its centre is at
 * (j + 1/2) 2^l whatever the face's texel count: scaling by w[l] / w[0] instead moved the coarser
 * levels against level 0 by up to a texel on faces whose count is not a multiple of 2^l, and the
 * texture slid over the surface as the trilinear blend changed with distance. */
static float synth_bilinear(const synth_face* f, int l, float x, float y) {
  const float scale = 1.0f / (float)(1 << l);
  float sx = x * scale - 0.5f, sy = y * scale - 0.5f;
  float mx = (float)(f->w[l] - 1), my = (float)(f->h[l] - 1);
  sx = sx < 0.0f ? 0.0f : sx > mx ? mx : sx;
  sy = sy < 0.0f ? 0.0f : sy > my ? my : sy;
  int x0 = (int)sx, y0 = (int)sy;
  int x1 = x0 + 1 < f->w[l] ? x0 + 1 : x0, y1 = y0 + 1 < f->h[l] ? y0 + 1 : y0;
  float fx = sx - (float)x0, fy = sy - (float)y0;
  const uint8_t* m = f->mip[l];
  int w = f->w[l];
  float top = m[y0 * w + x0] + fx * (float)(m[y0 * w + x1] - m[y0 * w + x0]);
  float bot = m[y1 * w + x0] + fx * (float)(m[y1 * w + x1] - m[y1 * w + x0]);
  return (top + fy * (bot - top)) * (1.0f / 255.0f);
}

float synth_scene_radiance(const synth_scene* s, int face, const float p[3], float footprint_m) {
  const synth_face* f = &s->faces[face];
  float x = (p[f->ua] - f->lo[0]) / s->texel_m, y = (p[f->va] - f->lo[1]) / s->texel_m;
  /* Trilinear: the level whose texels match the footprint, blended with the next. */
  float ratio = footprint_m / s->texel_m;
  float lod = ratio > 1.0f ? log2f(ratio) : 0.0f;
  if (lod > (float)(f->levels - 1)) lod = (float)(f->levels - 1);
  int l0 = (int)lod;
  float albedo = synth_bilinear(f, l0, x, y);
  if (l0 + 1 < f->levels && lod > (float)l0) {
    albedo += (lod - (float)l0) * (synth_bilinear(f, l0 + 1, x, y) - albedo);
  }
  vec3 to_light;
  glm_vec3_sub((float*)s->light, (float*)p, to_light);
  float dist = glm_vec3_norm(to_light);
  float cosine = f->nsign * to_light[f->axis] / (dist > 1e-3f ? dist : 1e-3f);
  if (cosine < 0.0f) cosine = 0.0f;
  float light = 0.45f + 0.55f * cosine / (1.0f + dist * dist / 40.0f);
  return albedo * light;
}

void synth_scene_random_point(const synth_scene* s, uint64_t* rng, double p[3]) {
  double total = 0;
  for (int i = 0; i < s->nfaces; ++i) {
    const synth_face* f = &s->faces[i];
    total += (f->hi[0] - f->lo[0]) * (f->hi[1] - f->lo[1]);
  }
  double pick = synth_uniform(rng) * total;
  int i = 0;
  for (; i < s->nfaces - 1; ++i) {
    const synth_face* f = &s->faces[i];
    pick -= (f->hi[0] - f->lo[0]) * (f->hi[1] - f->lo[1]);
    if (pick <= 0) break;
  }
  const synth_face* f = &s->faces[i];
  p[f->axis] = f->plane;
  p[f->ua] = f->lo[0] + synth_uniform(rng) * (f->hi[0] - f->lo[0]);
  p[f->va] = f->lo[1] + synth_uniform(rng) * (f->hi[1] - f->lo[1]);
}

// SPDX-License-Identifier: BSD-3-Clause
/* A moving textured scene for frontend tests without data files: a smooth value-noise texture
 * viewed through EuRoC's stereo rig, cropped at an offset that moves by a few pixels a frame
 * (left) and at a horizontal offset for the right camera. Deterministic. */
#ifndef FRONTEND_SCENE_H
#define FRONTEND_SCENE_H

#include <stdint.h>
#include <stdlib.h>
#include <viofront/viofront.h>

#include "vf_test.h"

enum { SCENE_W = 1400, SCENE_H = 900, SCENE_DISPARITY = 24 };

/* Value noise at several scales: blobs and edges that FAST and LK both like. */
static inline uint8_t* scene_texture(unsigned seed) {
  uint8_t* t = malloc((size_t)SCENE_W * SCENE_H);
  float* acc = calloc((size_t)SCENE_W * SCENE_H, sizeof *acc);
  if (t == NULL || acc == NULL) {
    free(t);
    free(acc);
    return NULL;
  }
  for (int cell = 64; cell >= 4; cell /= 2) {
    int gw = SCENE_W / cell + 2, gh = SCENE_H / cell + 2;
    float* g = malloc(sizeof *g * (size_t)gw * gh);
    if (g == NULL) break;
    for (int i = 0; i < gw * gh; ++i) g[i] = (float)(vf_test_rand(&seed) % 256) / 255.0f;
    for (int y = 0; y < SCENE_H; ++y) {
      float fy = (float)y / cell;
      int y0 = (int)fy;
      float wy = fy - y0;
      for (int x = 0; x < SCENE_W; ++x) {
        float fx = (float)x / cell;
        int x0 = (int)fx;
        float wx = fx - x0;
        float a = g[y0 * gw + x0] * (1 - wx) + g[y0 * gw + x0 + 1] * wx;
        float b = g[(y0 + 1) * gw + x0] * (1 - wx) + g[(y0 + 1) * gw + x0 + 1] * wx;
        acc[(size_t)y * SCENE_W + x] += (a * (1 - wy) + b * wy) * (cell >= 16 ? 1.0f : 0.6f);
      }
    }
    free(g);
  }
  for (size_t i = 0; i < (size_t)SCENE_W * SCENE_H; ++i) {
    float v = acc[i] * 70.0f - 40.0f;
    t[i] = (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
  }
  free(acc);
  return t;
}

/* A pinhole camera of w x h pixels, focal length f, the principal point at the centre, no
 * distortion, at the body origin: the small cameras of tests that build their own rigs. */
static inline vf_camera scene_pinhole(int w, int h, double f) {
  vf_camera c = vf_camera_default();
  c.width = w;
  c.height = h;
  c.fx = c.fy = f;
  c.cx = (w - 1) / 2.0;
  c.cy = (h - 1) / 2.0;
  return c;
}

/* Frame k of the left (right = 1) camera: a 752x480 crop of the texture. */
static inline void scene_frame(const uint8_t* tex, int k, int right, vf_image* out) {
  int ox = 40 + 2 * k + (right ? SCENE_DISPARITY : 0), oy = 30 + k;
  for (int y = 0; y < out->height; ++y) {
    memcpy((uint8_t*)out->data + (size_t)y * out->stride_bytes,
           tex + (size_t)(y + oy) * SCENE_W + ox, (size_t)out->width);
  }
}

/* The backend a thread test runs on: CPU, or CUDA with "cuda" as its argument (skips without a
 * device). */
static inline vf_backend scene_backend_arg(int argc, char** argv) {
  if (argc < 2 || strcmp(argv[1], "cuda") != 0) return VF_BACKEND_CPU;
  VF_TEST_REQUIRE_CUDA();
  return VF_BACKEND_CUDA;
}

/* A context of `backend` (2 CPU threads) with a frontend, and host images l, r of cam0's size:
 * the set-up of the tests that run frontends on threads. Close with scene_frontend_close. */
static inline vf_status scene_frontend_open(vf_backend backend, const vf_frontend_config* fc,
                                            const vf_frontend_callbacks* cb, vf_context** ctx,
                                            vf_frontend** fe, vf_image* l, vf_image* r) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = backend;
  cc.cpu_threads = 2;
  *ctx = NULL;
  *fe = NULL;
  memset(l, 0, sizeof *l);
  memset(r, 0, sizeof *r);
  int w = fc->cam0.width, h = fc->cam0.height;
  vf_status s = vf_context_create(&cc, ctx);
  if (s == VF_OK) s = vf_frontend_create(*ctx, fc, cb, fe);
  if (s == VF_OK) s = vf_image_alloc(l, w, h, VF_PIXEL_U8, VF_MEMORY_HOST);
  if (s == VF_OK) s = vf_image_alloc(r, w, h, VF_PIXEL_U8, VF_MEMORY_HOST);
  return s;
}

/* Frames 0..frames-1 of the scene at t0_ns, t0_ns + dt_ns, ...; stops at the first failure. */
static inline vf_status scene_play(vf_frontend* fe, const uint8_t* tex, int frames, int64_t t0_ns,
                                   int64_t dt_ns, vf_image* l, vf_image* r) {
  vf_status s = VF_OK;
  for (int k = 0; s == VF_OK && k < frames; ++k) {
    scene_frame(tex, k, 0, l);
    scene_frame(tex, k, 1, r);
    s = vf_frontend_process(fe, t0_ns + dt_ns * k, l, r);
  }
  return s;
}

static inline void scene_frontend_close(vf_context* ctx, vf_frontend* fe, vf_image* l,
                                        vf_image* r) {
  vf_image_free(l);
  vf_image_free(r);
  vf_frontend_destroy(fe);
  vf_context_destroy(ctx);
}

#endif

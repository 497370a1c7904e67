// SPDX-License-Identifier: BSD-3-Clause
/* Procedural textures: multi-octave value noise (smooth shading variation, so stereo has
 * texture everywhere) under random rectangles and discs of random grey (sharp corners for FAST,
 * blobs for tracking), then 2x2 box-filtered mipmaps for footprint-filtered rendering. */
#include <math.h>
#include <stdlib.h>

#include "synth.h"

/* A hash of a lattice point to [0, 1). */
static float synth_lattice(int x, int y, uint32_t seed) {
  uint32_t h = (uint32_t)x * 0x8da6b343u ^ (uint32_t)y * 0xd8163841u ^ seed * 0xcb1ab31fu;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (float)(h & 0xffffffu) * (1.0f / 16777216.0f);
}

/* Value noise at (u, v) in lattice units: smoothstep-interpolated lattice values. */
static float synth_value_noise(float u, float v, uint32_t seed) {
  float fu = floorf(u), fv = floorf(v);
  int x = (int)fu, y = (int)fv;
  float tx = u - fu, ty = v - fv;
  tx = tx * tx * (3 - 2 * tx);
  ty = ty * ty * (3 - 2 * ty);
  float a = synth_lattice(x, y, seed), b = synth_lattice(x + 1, y, seed);
  float c = synth_lattice(x, y + 1, seed), d = synth_lattice(x + 1, y + 1, seed);
  float top = a + tx * (b - a), bot = c + tx * (d - c);
  return top + ty * (bot - top);
}

static void synth_fill_noise(synth_face* f, float texel, uint32_t seed) {
  uint8_t* m = f->mip[0];
  for (int j = 0; j < f->h[0]; ++j) {
    float v = (f->lo[1] + (j + 0.5f) * texel);
    for (int i = 0; i < f->w[0]; ++i) {
      float u = (f->lo[0] + (i + 0.5f) * texel);
      /* Octaves of 0.5 m, 12 cm and 3 cm. */
      float n = 0.55f * synth_value_noise(u * 2.0f, v * 2.0f, seed) +
                0.30f * synth_value_noise(u * 8.0f, v * 8.0f, seed + 1) +
                0.15f * synth_value_noise(u * 33.0f, v * 33.0f, seed + 2);
      m[(size_t)j * f->w[0] + i] = (uint8_t)(40.0f + 170.0f * n);
    }
  }
}

/* Random axis-aligned rectangles and discs, about 14 shapes per square metre. */
static void synth_fill_shapes(synth_face* f, float texel, uint64_t seed) {
  uint64_t rng = seed;
  double area = (double)(f->hi[0] - f->lo[0]) * (f->hi[1] - f->lo[1]);
  int count = (int)(area * 14.0) + 1;
  uint8_t* m = f->mip[0];
  for (int k = 0; k < count; ++k) {
    int disc = synth_uniform(&rng) < 0.25;
    double w = 0.04 + 0.30 * synth_uniform(&rng), h = 0.04 + 0.30 * synth_uniform(&rng);
    double cx = synth_uniform(&rng) * f->w[0], cy = synth_uniform(&rng) * f->h[0];
    uint8_t grey = (uint8_t)(15 + 225 * synth_uniform(&rng));
    int hw = (int)(w / texel / 2), hh = disc ? hw : (int)(h / texel / 2);
    int x0 = (int)cx - hw, x1 = (int)cx + hw, y0 = (int)cy - hh, y1 = (int)cy + hh;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 >= f->w[0]) x1 = f->w[0] - 1;
    if (y1 >= f->h[0]) y1 = f->h[0] - 1;
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x) {
        double dx = x - cx, dy = y - cy;
        if (disc && dx * dx + dy * dy > (double)hw * hw) continue;
        m[(size_t)y * f->w[0] + x] = grey;
      }
    }
  }
}

int synth_texture_fill(synth_face* f, float texel, uint64_t seed) {
  int w = (int)ceilf((f->hi[0] - f->lo[0]) / texel), h = (int)ceilf((f->hi[1] - f->lo[1]) / texel);
  if (w < 1) w = 1;
  if (h < 1) h = 1;
  size_t total = 0;
  f->levels = 0;
  for (int lw = w, lh = h;
       f->levels<SYNTH_MAX_LEVELS; lw = lw> 1 ? lw / 2 : 1, lh = lh > 1 ? lh / 2 : 1) {
    f->w[f->levels] = lw;
    f->h[f->levels] = lh;
    total += (size_t)lw * lh;
    f->levels++;
    if (lw == 1 && lh == 1) break;
  }
  uint8_t* block = malloc(total);
  if (block == NULL) return -1;
  for (int l = 0, off = 0; l < f->levels; off += f->w[l] * f->h[l], ++l) f->mip[l] = block + off;
  synth_fill_noise(f, texel, (uint32_t)seed);
  synth_fill_shapes(f, texel, seed);
  for (int l = 1; l < f->levels; ++l) {
    const uint8_t* a = f->mip[l - 1];
    int pw = f->w[l - 1], ph = f->h[l - 1];
    for (int y = 0; y < f->h[l]; ++y) {
      int ya = 2 * y < ph ? 2 * y : ph - 1, yb = 2 * y + 1 < ph ? 2 * y + 1 : ph - 1;
      for (int x = 0; x < f->w[l]; ++x) {
        int xa = 2 * x < pw ? 2 * x : pw - 1, xb = 2 * x + 1 < pw ? 2 * x + 1 : pw - 1;
        unsigned s =
            (unsigned)a[ya * pw + xa] + a[ya * pw + xb] + a[yb * pw + xa] + a[yb * pw + xb];
        f->mip[l][y * f->w[l] + x] = (uint8_t)((s + 2) >> 2);
      }
    }
  }
  return 0;
}

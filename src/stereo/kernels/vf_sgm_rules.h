// SPDX-License-Identifier: BSD-3-Clause
/* The integer rules of SGM that the CPU reference and the CUDA kernels share, so that both give
 * the same disparities bit for bit: penalties, uniqueness, sub-pixel rounding, census layout.
 * Included by C (src/) and by CUDA (cuda/). */
#ifndef VF_SGM_RULES_H
#define VF_SGM_RULES_H

#include <stdint.h>

#ifdef __CUDACC__
#define VF_HD __host__ __device__ __forceinline__
#else
#define VF_HD static inline
#endif

/* Census window 9x7 (half sizes 4 and 3); pixels outside the image replicate the edge. */
#define VF_CENSUS_RX 4
#define VF_CENSUS_RY 3
/* Costs of one cell: Hamming distances up to these (CS 9x7: 31 pairs; full: 62 neighbours).
 * A right pixel outside the image costs the maximum. */
#define VF_CENSUS_CS_BITS 31
#define VF_CENSUS_FULL_BITS 62
/* Uniqueness ratio in 1/1024: valid when best * 1024 <= second * q. */
#define VF_UNIQUENESS_ONE 1024

/* A validated configuration in the form both backends use. */
typedef struct vf_sgm_params {
  int width, height;
  int min_disparity, disparities;
  int census_full; /* 0: CS 9x7 (31 bits), 1: full 9x7 (62 bits) */
  int max_cost;    /* census bits: cost of a right pixel outside the image */
  int p1, p2, adaptive_p2;
  int paths;
  int uniqueness_q; /* VF_UNIQUENESS_ONE = off */
  int lr_check, lr_max_diff;
  int subpixel, median;
} vf_sgm_params;

/* Aggregation directions (dx, dy) in the order the backends number paths: 2 paths use the first
 * two, 4 the first four, 8 the first eight, 16 all: paths 8..15 are the knight moves (+-2, +-1)
 * and (+-1, +-2). */
VF_HD void vf_sgm_direction(int path, int* dx, int* dy) {
  if (path < 8) {
    /* Nibble per path: bits 0-1 dx + 1, bits 2-3 dy + 1 (a table would sit in GPU local memory). */
    const uint32_t table = 0x028A1946u;
    *dx = (int)((table >> (4 * path)) & 3u) - 1;
    *dy = (int)((table >> (4 * path + 2)) & 3u) - 1;
    return;
  }
  /* Bit 0: x backwards, bit 1: steep (one column per two rows), bit 2: y backwards. */
  const int i = path - 8, steep = (i >> 1) & 1;
  *dx = (i & 1 ? -1 : 1) * (steep ? 1 : 2);
  *dy = (i & 4 ? -1 : 1) * (steep ? 2 : 1);
}

/* The walks that cover every pixel of a w x h image once for direction (dx, dy): `walks` walks
 * of `steps` steps. Walk i starts at vf_sgm_walk_start; each step moves by (dx, dy) with x taken
 * modulo w (a walk leaving through a side re-enters through the other), and a walk whose y has
 * left the image is over (the shorter half of the |dy| = 2 walks). A pixel starts a new path
 * where its predecessor (x - dx, y - dy) lies outside the image (vf_sgm_path_start). */
VF_HD void vf_sgm_walks(int dx, int dy, int w, int h, int* walks, int* steps) {
  if (dy == 0) {
    *walks = h;
    *steps = w;
  } else if (dy == 1 || dy == -1) {
    *walks = w;
    *steps = h;
  } else {
    *walks = 2 * w;
    *steps = (h + 1) / 2;
  }
}

VF_HD void vf_sgm_walk_start(int dx, int dy, int w, int h, int walk, int* x, int* y) {
  if (dy == 0) {
    *x = dx > 0 ? 0 : w - 1;
    *y = walk;
    return;
  }
  const int row = dy == 1 || dy == -1 ? 0 : walk / w; /* |dy| = 2: two walks per column */
  *x = walk % w;
  *y = dy > 0 ? row : h - 1 - row;
}

/* Pixel (x, y) of step t of the walk starting at (x0, y0). */
VF_HD void vf_sgm_walk_at(int dx, int dy, int w, int x0, int y0, int t, int* x, int* y) {
  const int xx = (x0 + t * dx) % w;
  *x = xx < 0 ? xx + w : xx;
  *y = y0 + t * dy;
}

VF_HD int vf_sgm_path_start(int dx, int dy, int w, int h, int x, int y) {
  return x - dx < 0 || x - dx >= w || y - dy < 0 || y - dy >= h;
}

/* Adaptive P2 along a path: P2 / |I(p) - I(p-r)| (a difference of 0 counts as 1), at least P1. */
VF_HD int vf_sgm_p2(int p1, int p2, int adaptive, int i_here, int i_prev) {
  if (!adaptive) return p2;
  int g = i_here > i_prev ? i_here - i_prev : i_prev - i_here;
  int v = p2 / (g > 1 ? g : 1);
  return v > p1 ? v : p1;
}

/* Sub-pixel offset in 1/16 px from costs a (d-1), b (d), c (d+1), b minimal: the symmetric V
 * through them (equiangular line fit), 8 (a - c) / (max(a, c) - b), rounded half away from zero;
 * 0 for a flat fit. In -8..8. Why not a parabola: census costs grow about linearly away from the
 * match, and a parabola through a V pulls the offset towards whole pixels (on vf_synth it put 37%
 * of the disparities at features within 1/16 px of one, errors up to 0.1 px; docs/estimator.md). */
VF_HD int vf_sgm_subpixel16(int a, int b, int c) {
  int den = (a > c ? a : c) - b;
  if (den <= 0) return 0;
  int num = 8 * (a - c);
  return num >= 0 ? (2 * num + den) / (2 * den) : -((-2 * num + den) / (2 * den));
}

/* Packs an aggregated cost and a disparity index so that a minimum picks the smallest cost,
 * then the smallest index (the tie rule of both winner-takes-all searches). */
VF_HD uint32_t vf_sgm_pack(uint32_t cost, uint32_t k) { return (cost << 8) | k; }

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* CPU SGM aggregation, the textbook recurrence (Hirschmueller 2008, eq. 13):
 *   L_r(p, k) = C(p, k) + min(L_r(p-r, k), L_r(p-r, k+-1) + P1, min_i L_r(p-r, i) + P2)
 *               - min_i L_r(p-r, i)
 * with L_r = C at the first pixel of each path, summed over the paths into S. The configuration
 * guarantees C + P2 <= 255 and min_i L_r <= C <= 62, so with q = L_r(p-r) - min_i L_r(p-r, i) a
 * step is C + min(q(k), min(q(k-1), q(k+1), P2 - P1) + P1) in bytes, without overflow.
 *
 * Two sweeps over the rows (Hirschmueller's two-pass scheme): the forward one (rows down, pixels
 * rightwards) carries the paths that come from the left or from above, the backward one the
 * others; each keeps L_r of the previous pixel and row only. The first sweep to reach a row stores
 * its partial sum beside the matching cost (sum << 6 | C fits 16 bits), the second adds its own
 * and selects the row's disparities. At each pixel one loop over the disparities steps all of a
 * sweep's paths (vf_steps), so the costs are read and the sums written once. With 2 threads the
 * forward sweep does the top half while the backward one does the bottom half, then each finishes
 * the other half. With 2 paths the rows are independent and split over all threads. Integer sums
 * in any order: results do not depend on the schedule. */
#include <string.h>

#include "core/vf_parallel.h"
#include "stereo/kernels/vf_sgm_cpu.h"

/* A path's L_r at one pixel is a slot: D bytes with pad bytes of 255 either side, so that k - 1
 * and k + 1 need no test (255 >= min L_r + P2 - P1 never wins the minimum). */
#define VF_SLOT_PAD 16
#define VF_COST_BITS 6
#define VF_MAX_WORKERS 64
/* Inner loops run over blocks of this many disparities: a fixed trip count -O2 vectorizes. */
#define VF_BLOCK 64
/* A left census byte repeated over one vector: the costs load it instead of broadcasting it, as
 * GCC's SSE2 broadcast goes through a stack slot and stalls on store forwarding. */
#define VF_REP 16
/* The largest sum of the paths' L_r (8 paths of at most 255). */
#define VF_MAX_SUM (8 * 255)

_Static_assert(VF_CENSUS_FULL_BITS < (1 << VF_COST_BITS), "a cost fits the low bits");
_Static_assert(((4 * 255) << VF_COST_BITS | 63) <= UINT16_MAX, "4 paths' sum and a cost fit");

typedef struct vf_sweep {
  int dir;         /* +1: rows down, pixels rightwards; -1: rows up, pixels leftwards */
  int started;     /* a row was swept: row[0] holds its vertical and diagonal paths */
  uint8_t* zero;   /* the state before a path's first pixel: L_r = 0, minimum 0 */
  uint8_t* h[2];   /* horizontal path at the previous and at the current pixel */
  uint8_t* row[2]; /* vertical and diagonal paths, previous and current row: (r * w + x) slots */
  uint8_t* row_min[2];
  uint8_t* right_rev; /* the right census row's planes reversed, w + D bytes each */
  uint8_t* left_rep;  /* the left census row's planes, each byte repeated VF_REP times */
  int16_t* tot;       /* the row's complete sums S, w * D (at most 8 * 255) */
  int16_t* right_val;
  int16_t* right_k;
  int16_t* best;       /* the row's smallest sums, w */
  int16_t* unique_thr; /* the uniqueness thresholds of the sums 0 .. VF_MAX_SUM */
} vf_sweep;

typedef struct vf_sgm_job {
  const vf_sgm_params* p;
  const uint8_t* left;
  size_t left_stride;
  const uint8_t* cl;
  const uint8_t* cr;
  uint16_t* sum;
  uint16_t* out;
  vf_sweep* sweeps;
  int nrow;    /* vertical and diagonal paths per sweep: 0, 1 or 3 */
  int phase;   /* the halves schedule: 0 first sweeps, 1 second sweeps */
  int workers; /* the rows schedule (2 paths): row blocks */
} vf_sgm_job;

static size_t vf_align64(size_t v) { return (v + 63) & ~(size_t)63; }
static size_t vf_slot(int D) { return (size_t)D + 2 * VF_SLOT_PAD; }
static int vf_row_paths(const vf_sgm_params* p) { return p->paths == 8 ? 3 : p->paths == 4; }

static int vf_workers(const vf_sgm_params* p, int threads) {
  if (vf_row_paths(p) > 0) return 2;
  return threads < 1 ? 1 : threads > VF_MAX_WORKERS ? VF_MAX_WORKERS : threads;
}

/* Carves one sweep's buffers from b (or only measures when s is NULL); returns the bytes. */
static size_t vf_sweep_carve(const vf_sgm_params* p, uint8_t* b, vf_sweep* s) {
  size_t w = (size_t)p->width, D = (size_t)p->disparities, slot = vf_slot(p->disparities);
  size_t rows = (size_t)vf_row_paths(p) * w;
  size_t right = (w + (size_t)p->min_disparity + D) * sizeof(int16_t);
  /* zero and h slots, row paths of two rows, their minima, right census, tot, right winners,
   * repeated left census, row minima, uniqueness thresholds */
  size_t sz[] = {3 * slot,    rows * slot,
                 rows * slot, rows,
                 rows,        (w + D) * VF_CPU_CENSUS_BYTES,
                 w * D * 2,   right,
                 right,       w * VF_REP * VF_CPU_CENSUS_BYTES,
                 w * 2,       (VF_MAX_SUM + 1) * 2};
  uint8_t* part[sizeof sz / sizeof sz[0]];
  size_t at = 0;
  for (size_t i = 0; i < sizeof sz / sizeof sz[0]; ++i) {
    part[i] = b != NULL ? b + at : NULL; /* NULL + offset is undefined even when only measuring */
    at += vf_align64(sz[i]);
  }
  if (s == NULL) return at;
  memset(part[0], 255, 3 * slot);
  s->zero = part[0] + VF_SLOT_PAD;
  memset(s->zero, 0, D);
  s->h[0] = s->zero + slot;
  s->h[1] = s->zero + 2 * slot;
  for (int i = 0; i < 2; ++i) {
    memset(part[1 + i], 255, rows * slot);
    s->row[i] = part[1 + i] + VF_SLOT_PAD;
    s->row_min[i] = part[3 + i];
  }
  s->right_rev = part[5];
  s->left_rep = part[9];
  s->best = (int16_t*)part[10];
  s->unique_thr = (int16_t*)part[11];
  vf_cpu_sgm_unique_thresholds(p, s->unique_thr, VF_MAX_SUM);
  s->tot = (int16_t*)part[6];
  s->right_val = (int16_t*)part[7];
  s->right_k = (int16_t*)part[8];
  s->started = 0;
  return at;
}

size_t vf_cpu_sgm_scratch_bytes(const vf_sgm_params* p, int threads) {
  return (size_t)vf_workers(p, threads) * vf_sweep_carve(p, NULL, NULL);
}

/* One path's L_r at one cell from the previous pixel's slot around k: the step of the header
 * with the minimum pm taken out of the minima, C + min(L(k), min(L(k-1), L(k+1), pm + P2 - P1)
 * + P1) - pm, where pmj = pm + P2 - P1. Exact in bytes: every L >= pm, pm <= C <= 255 - P2. */
static inline uint8_t vf_step_cell(const uint8_t* pv, uint8_t pm, uint8_t pmj, uint8_t pen,
                                   uint8_t c) {
  uint8_t n = pv[-1] < pv[1] ? pv[-1] : pv[1];
  n = (uint8_t)((n < pmj ? n : pmj) + pen);
  return (uint8_t)(c + (uint8_t)((pv[0] < n ? pv[0] : n) - pm));
}

/* The steps of a sweep's n paths (1, 2 or 4; path 0 horizontal) at one pixel, fused so that the
 * costs are read and the sum written once: path r goes from prev_r (minimum pm[r]) into cur_r
 * with penalties p1 and p2[r]; mins[r] = min_k cur_r. The first sweep reads the costs from
 * `cost` and stores sum << 6 | C into `packed`; the second unpacks C and the first sweep's sum
 * from `packed`, stores the complete sum into `tot` and its minimum into mins[4]. Called with
 * constant n and second, the tests fold away and the loop over k vectorizes. */
static inline void vf_steps(int n, int second, const uint8_t* restrict cost,
                            uint16_t* restrict packed, int16_t* restrict tot,
                            const uint8_t* restrict prev0, const uint8_t* restrict prev1,
                            const uint8_t* restrict prev2, const uint8_t* restrict prev3,
                            uint8_t* restrict cur0, uint8_t* restrict cur1, uint8_t* restrict cur2,
                            uint8_t* restrict cur3, const int* pm, const int* p2, int p1, int D,
                            int* mins) {
  uint8_t m0 = (uint8_t)pm[0], m1 = (uint8_t)pm[1], m2 = (uint8_t)pm[2], m3 = (uint8_t)pm[3];
  uint8_t j0 = (uint8_t)(pm[0] + p2[0] - p1), j1 = (uint8_t)(pm[1] + p2[1] - p1),
          j2 = (uint8_t)(pm[2] + p2[2] - p1), j3 = (uint8_t)(pm[3] + p2[3] - p1);
  uint8_t pen = (uint8_t)p1, mn0 = 255, mn1 = 255, mn2 = 255, mn3 = 255;
  int16_t best = INT16_MAX; /* sums stay below VF_MAX_SUM */
  for (int b = 0; b < D; b += VF_BLOCK) {
    for (int k = b; k < b + VF_BLOCK; ++k) {
      uint16_t in = second ? packed[k] : 0;
      uint8_t c = second ? (uint8_t)(in & ((1u << VF_COST_BITS) - 1)) : cost[k];
      uint16_t sum = (uint16_t)(in >> VF_COST_BITS);
      uint8_t v = vf_step_cell(prev0 + k, m0, j0, pen, c);
      cur0[k] = v;
      mn0 = v < mn0 ? v : mn0;
      sum = (uint16_t)(sum + v);
      if (n > 1) {
        v = vf_step_cell(prev1 + k, m1, j1, pen, c);
        cur1[k] = v;
        mn1 = v < mn1 ? v : mn1;
        sum = (uint16_t)(sum + v);
      }
      if (n > 2) {
        v = vf_step_cell(prev2 + k, m2, j2, pen, c);
        cur2[k] = v;
        mn2 = v < mn2 ? v : mn2;
        sum = (uint16_t)(sum + v);
        v = vf_step_cell(prev3 + k, m3, j3, pen, c);
        cur3[k] = v;
        mn3 = v < mn3 ? v : mn3;
        sum = (uint16_t)(sum + v);
      }
      if (second) {
        tot[k] = (int16_t)sum;
        best = (int16_t)sum < best ? (int16_t)sum : best;
      } else {
        packed[k] = (uint16_t)(sum << VF_COST_BITS | c);
      }
    }
  }
  mins[0] = mn0;
  mins[1] = mn1;
  mins[2] = mn2;
  mins[3] = mn3;
  mins[4] = best;
}

/* Bit counts of a byte's two nibbles, each in its nibble (at most 4). Byte-wise SWAR because
 * the baseline x86-64 ISA has no popcount; 16 bytes per SSE2 operation. */
static uint8_t vf_nibble_counts(uint8_t v) {
  v = (uint8_t)(v - ((v >> 1) & 0x55));
  return (uint8_t)((v & 0x33) + ((v >> 2) & 0x33));
}

/* The byte's count from nibble counts summed over up to 3 planes (at most 12 each). */
static uint8_t vf_fold(uint8_t v) { return (uint8_t)((v & 0x0F) + (v >> 4)); }

/* Costs of one block of disparities: Hamming distances between the left census planes (each
 * byte repeated VF_REP times, planes l + i * VF_REP * w) and the right census planes at
 * r + i * ps. */
static void vf_block_costs_cs(const uint8_t* restrict l, size_t ls, const uint8_t* restrict r,
                              size_t ps, uint8_t* restrict c) {
  for (int k0 = 0; k0 < VF_BLOCK; k0 += VF_REP) {
    for (int i = 0; i < VF_REP; ++i) {
      int k = k0 + i;
      uint8_t a =
          (uint8_t)(vf_nibble_counts(l[i] ^ r[k]) + vf_nibble_counts(l[ls + i] ^ r[ps + k]) +
                    vf_nibble_counts(l[2 * ls + i] ^ r[2 * ps + k]));
      c[k] = (uint8_t)(vf_fold(a) + vf_fold(vf_nibble_counts(l[3 * ls + i] ^ r[3 * ps + k])));
    }
  }
}

static void vf_block_costs_full(const uint8_t* restrict l, size_t ls, const uint8_t* restrict r,
                                size_t ps, uint8_t* restrict c) {
  for (int k0 = 0; k0 < VF_BLOCK; k0 += VF_REP) {
    for (int i = 0; i < VF_REP; ++i) {
      int k = k0 + i;
      uint8_t a =
          (uint8_t)(vf_nibble_counts(l[i] ^ r[k]) + vf_nibble_counts(l[ls + i] ^ r[ps + k]) +
                    vf_nibble_counts(l[2 * ls + i] ^ r[2 * ps + k]));
      uint8_t b = (uint8_t)(vf_nibble_counts(l[3 * ls + i] ^ r[3 * ps + k]) +
                            vf_nibble_counts(l[4 * ls + i] ^ r[4 * ps + k]) +
                            vf_nibble_counts(l[5 * ls + i] ^ r[5 * ps + k]));
      uint8_t d = (uint8_t)(vf_nibble_counts(l[6 * ls + i] ^ r[6 * ps + k]) +
                            vf_nibble_counts(l[7 * ls + i] ^ r[7 * ps + k]));
      c[k] = (uint8_t)(vf_fold(a) + vf_fold(b) + vf_fold(d));
    }
  }
}

static int vf_planes(const vf_sgm_params* p) { return p->census_full ? 8 : 4; }

/* Row y of the right census, each plane reversed into w + D bytes (rev[i] = plane[w - 1 - i],
 * zeros after), so that pixel x's right pixels x - min - k ascend with k. */
static void vf_reverse_row(const vf_sgm_params* p, const uint8_t* census, int y, uint8_t* rev) {
  size_t w = (size_t)p->width, n = w + (size_t)p->disparities;
  const uint8_t* row = census + (size_t)y * vf_planes(p) * w;
  for (int pl = 0; pl < vf_planes(p); ++pl) {
    const uint8_t* src = row + pl * w;
    uint8_t* dst = rev + pl * n;
    size_t i = 0;
    /* 8 bytes at a time: a byte swap reverses them (the same on either byte order). */
    for (; i + 8 <= w; i += 8) {
      uint64_t v;
      memcpy(&v, src + w - 8 - i, sizeof v);
      v = __builtin_bswap64(v);
      memcpy(dst + i, &v, sizeof v);
    }
    for (; i < w; ++i) dst[i] = src[w - 1 - i];
    memset(dst + w, 0, n - w);
  }
}

/* Row y of the left census with each byte repeated VF_REP times (a loop GCC vectorizes with
 * byte unpacks), plane after plane. */
static void vf_repeat_row(const vf_sgm_params* p, const uint8_t* census, int y,
                          uint8_t* restrict rep) {
  size_t n = (size_t)vf_planes(p) * (size_t)p->width;
  const uint8_t* restrict row = census + (size_t)y * n;
  for (size_t i = 0; i < n; ++i) {
    for (int j = 0; j < VF_REP; ++j) rep[i * VF_REP + j] = row[i];
  }
}

/* Matching costs of left pixel (x, y) for every disparity index; rep: vf_repeat_row's row y. */
static void vf_costs(const vf_sgm_params* p, const uint8_t* rep, const uint8_t* rev, int x,
                     uint8_t* c) {
  int D = p->disparities, first_out = x - p->min_disparity + 1; /* k >= this: outside */
  if (first_out <= 0) {
    memset(c, p->max_cost, (size_t)D);
    return;
  }
  size_t w = (size_t)p->width, ps = w + (size_t)D, ls = w * VF_REP;
  const uint8_t* l = rep + (size_t)x * VF_REP;
  const uint8_t* r = rev + (w - (size_t)first_out);
  for (int b = 0; b < D; b += VF_BLOCK) {
    if (p->census_full) {
      vf_block_costs_full(l, ls, r + b, ps, c + b);
    } else {
      vf_block_costs_cs(l, ls, r + b, ps, c + b);
    }
  }
  if (first_out < D) memset(c + first_out, p->max_cost, (size_t)(D - first_out));
}

/* vf_steps for n paths and the sweep's turn: restrict parameters (lost when the steps inline
 * into the pixel loop) and constants let the loop over k vectorize. */
typedef void (*vf_steps_fn)(const uint8_t* restrict cost, uint16_t* restrict packed,
                            int16_t* restrict tot, const uint8_t* restrict prev0,
                            const uint8_t* restrict prev1, const uint8_t* restrict prev2,
                            const uint8_t* restrict prev3, uint8_t* restrict cur0,
                            uint8_t* restrict cur1, uint8_t* restrict cur2, uint8_t* restrict cur3,
                            const int* pm, const int* p2, int p1, int D, int* mins);
#define VF_STEPS_VARIANT(N, SECOND)                                                                \
  static void vf_steps_##N##_##SECOND(                                                             \
      const uint8_t* restrict cost, uint16_t* restrict packed, int16_t* restrict tot,              \
      const uint8_t* restrict prev0, const uint8_t* restrict prev1, const uint8_t* restrict prev2, \
      const uint8_t* restrict prev3, uint8_t* restrict cur0, uint8_t* restrict cur1,               \
      uint8_t* restrict cur2, uint8_t* restrict cur3, const int* pm, const int* p2, int p1, int D, \
      int* mins) {                                                                                 \
    vf_steps(N, SECOND, cost, packed, tot, prev0, prev1, prev2, prev3, cur0, cur1, cur2, cur3, pm, \
             p2, p1, D, mins);                                                                     \
  }
VF_STEPS_VARIANT(1, 0)
VF_STEPS_VARIANT(2, 0)
VF_STEPS_VARIANT(4, 0)
VF_STEPS_VARIANT(1, 1)
VF_STEPS_VARIANT(2, 1)
VF_STEPS_VARIANT(4, 1)
#undef VF_STEPS_VARIANT

/* Row y's pixels in s's direction with n paths per sweep (steps: the matching variant);
 * `second`: the other sweep has stored this row. Inlined with constants, so that the set-up of
 * the paths at each pixel has no tests on them. */
__attribute__((always_inline)) static inline void vf_sweep_pixels(const vf_sgm_job* j, vf_sweep* s,
                                                                  int y, int n, int second,
                                                                  vf_steps_fn steps) {
  const vf_sgm_params* p = j->p;
  int w = p->width, D = p->disparities, dir = s->dir;
  size_t slot = vf_slot(D);
  const uint8_t* img = j->left + (size_t)y * j->left_stride;
  const uint8_t* img_prev = s->started ? j->left + (size_t)(y - dir) * j->left_stride : NULL;
  uint16_t* srow = j->sum + (size_t)y * w * D;
  uint8_t cost[256];
  int h_min = 0;
  for (int i = 0; i < w; ++i) {
    int x = dir > 0 ? i : w - 1 - i;
    if (!second) vf_costs(p, s->left_rep, s->right_rev, x, cost);
    /* Path 0 is the horizontal one, paths 1.. the vertical, then the diagonals from the previous
     * row's pixel x - 1 and x + 1. Entries past n are never read. */
    const uint8_t* prev[4] = {s->zero, s->zero, s->zero, s->zero};
    uint8_t* cur[4] = {s->h[1], NULL, NULL, NULL};
    int pm[4] = {0, 0, 0, 0}, p2[4] = {p->p2, p->p2, p->p2, p->p2}, mins[5];
    if (i > 0) {
      prev[0] = s->h[0];
      pm[0] = h_min;
      p2[0] = vf_sgm_p2(p->p1, p->p2, p->adaptive_p2, img[x], img[x - dir]);
    }
    for (int r = 0; r + 1 < n; ++r) {
      int xp = x + (r == 0 ? 0 : r == 1 ? -1 : 1);
      size_t line = (size_t)r * w;
      cur[r + 1] = s->row[1] + (line + x) * slot;
      if (img_prev != NULL && xp >= 0 && xp < w) {
        prev[r + 1] = s->row[0] + (line + xp) * slot;
        pm[r + 1] = s->row_min[0][line + xp];
        p2[r + 1] = vf_sgm_p2(p->p1, p->p2, p->adaptive_p2, img[x], img_prev[xp]);
      }
    }
    steps(cost, srow + (size_t)x * D, s->tot + (size_t)x * D, prev[0], prev[1], prev[2], prev[3],
          cur[0], cur[1], cur[2], cur[3], pm, p2, p->p1, D, mins);
    h_min = mins[0];
    if (second) s->best[x] = (int16_t)mins[4];
    for (int r = 0; r + 1 < n; ++r) s->row_min[1][(size_t)r * w + x] = (uint8_t)mins[r + 1];
    uint8_t* t = s->h[0];
    s->h[0] = s->h[1];
    s->h[1] = t;
  }
}

/* Sweeps row y in s's direction; `second`: the other sweep has stored this row. */
static void vf_sweep_row(const vf_sgm_job* j, vf_sweep* s, int y, int second) {
  const vf_sgm_params* p = j->p;
  int w = p->width;
  if (!second) {
    vf_reverse_row(p, j->cr, y, s->right_rev);
    vf_repeat_row(p, j->cl, y, s->left_rep);
  }
  if (second) {
    if (j->nrow == 3) {
      vf_sweep_pixels(j, s, y, 4, 1, vf_steps_4_1);
    } else if (j->nrow == 1) {
      vf_sweep_pixels(j, s, y, 2, 1, vf_steps_2_1);
    } else {
      vf_sweep_pixels(j, s, y, 1, 1, vf_steps_1_1);
    }
  } else if (j->nrow == 3) {
    vf_sweep_pixels(j, s, y, 4, 0, vf_steps_4_0);
  } else if (j->nrow == 1) {
    vf_sweep_pixels(j, s, y, 2, 0, vf_steps_2_0);
  } else {
    vf_sweep_pixels(j, s, y, 1, 0, vf_steps_1_0);
  }
  uint8_t* t = s->row[0];
  s->row[0] = s->row[1];
  s->row[1] = t;
  t = s->row_min[0];
  s->row_min[0] = s->row_min[1];
  s->row_min[1] = t;
  s->started = 1;
  if (second) {
    vf_cpu_sgm_select_row(p, s->tot, s->best, s->unique_thr, s->right_val, s->right_k,
                          j->out + (size_t)y * w);
  }
}

/* Sweep 0 goes down, sweep 1 up; phase 0 takes each one's first half, phase 1 the rest. */
static void vf_halves(int begin, int end, void* arg) {
  const vf_sgm_job* j = arg;
  int h = j->p->height, mid = h / 2;
  for (int t = begin; t < end; ++t) {
    if (t == 0) {
      for (int y = j->phase ? mid : 0; y < (j->phase ? h : mid); ++y) {
        vf_sweep_row(j, &j->sweeps[0], y, j->phase);
      }
    } else {
      for (int y = j->phase ? mid - 1 : h - 1; y >= (j->phase ? 0 : mid); --y) {
        vf_sweep_row(j, &j->sweeps[1], y, j->phase);
      }
    }
  }
}

/* 2 paths: each worker takes a block of rows and sweeps each row both ways. */
static void vf_rows(int begin, int end, void* arg) {
  const vf_sgm_job* j = arg;
  int h = j->p->height;
  for (int t = begin; t < end; ++t) {
    vf_sweep* s = &j->sweeps[t];
    for (int y = (int)((long long)h * t / j->workers); y < (long long)h * (t + 1) / j->workers;
         ++y) {
      for (int second = 0; second < 2; ++second) {
        s->dir = second ? -1 : 1;
        s->started = 0;
        vf_sweep_row(j, s, y, second);
      }
    }
  }
}

void vf_cpu_sgm(const vf_sgm_params* p, const uint8_t* left, size_t left_stride,
                const uint8_t* census_l, const uint8_t* census_r, uint16_t* sum, void* scratch,
                uint16_t* out, int threads) {
  vf_sweep sweeps[VF_MAX_WORKERS];
  int workers = vf_workers(p, threads);
  size_t bytes = vf_sweep_carve(p, NULL, NULL);
  for (int t = 0; t < workers; ++t) {
    vf_sweep_carve(p, (uint8_t*)scratch + (size_t)t * bytes, &sweeps[t]);
    sweeps[t].dir = t == 0 ? 1 : -1;
  }
  vf_sgm_job job = {p,   left,   left_stride,     census_l, census_r, sum,
                    out, sweeps, vf_row_paths(p), 0,        workers};
  /* Threads pay off from about a quarter million cells each. */
  int useful = (int)((size_t)p->width * p->height * p->disparities / 262144);
  if (useful < 1) useful = 1;
  if (job.nrow == 0) {
    if (job.workers > useful) job.workers = useful;
    if (job.workers > p->height) job.workers = p->height;
    vf_parallel_for(job.workers, job.workers, vf_rows, &job);
    return;
  }
  int n = threads >= 2 && useful >= 2 ? 2 : 1;
  for (job.phase = 0; job.phase < 2; ++job.phase) vf_parallel_for(2, n, vf_halves, &job);
}

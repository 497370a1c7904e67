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
 * sweep's paths (vf_steps), so the costs are read and the sums written once; it runs on 16-byte
 * vectors (src/core/vf_simd16.h: SSE2, NEON or plain C, the same bits), 16 disparities of a path
 * per operation (32 where the x86-64 CPU has AVX2, asked at run time: vf_sweep_row32, the same
 * integers: 752x480, 64 disparities, 4 paths, 2 threads 17.5 -> 15.1 ms, docs/perf/stereo.md), and
 * the paths' minima come out of one interleaved reduction already in every lane. The first sweep's
 * stores of the sums bypass the caches: the second reads them only after half the image. With 2
 * threads the forward sweep does the top half while the backward one does the bottom half, then
 * each finishes the other half. With 2 paths the rows are independent and split over all threads.
 * Integer sums in any order: results do not depend on the schedule. */
#include <string.h>

#include "core/vf_cpu_avx2.h"
#include "core/vf_parallel.h"
#include "core/vf_simd16.h"
#include "stereo/cpu/vf_sgm_steps.h"
#include "stereo/kernels/vf_sgm_cpu.h"

#define VF_MAX_WORKERS 64
/* The largest sum of the paths' L_r (8 paths of at most 255). */
#define VF_MAX_SUM (8 * 255)

typedef struct vf_sweep {
  int dir;       /* +1: rows down, pixels rightwards; -1: rows up, pixels leftwards */
  int started;   /* a row was swept: row[0] holds its vertical and diagonal paths */
  uint8_t* zero; /* the state before a path's first pixel: L_r = 0, minimum 0 */
  uint8_t* h[2]; /* horizontal path at the previous and at the current pixel */
  /* Vertical and diagonal paths, previous and current row: slot (r * (w + 2) + x + 1), and
   * their minima in every lane; columns -1 and w stay in the zero state, so that a path that
   * starts there needs no test. */
  uint8_t* row[2];
  vf_u8x16* row_min[2];
  uint8_t* right_rev; /* the right census row's planes reversed, w + D bytes each */
  uint8_t* left_rep;  /* the left census row's planes, each byte repeated VF_REP times */
  int16_t* tot;       /* the row's complete sums S, w * D (at most 8 * 255) */
  int16_t* right_val;
  int16_t* right_k;
  int16_t* best;       /* the row's smallest sums, w */
  int16_t* unique_thr; /* the uniqueness thresholds of the sums 0 .. VF_MAX_SUM */
} vf_sweep;

typedef struct vf_sgm_job vf_sgm_job;
struct vf_sgm_job {
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
  /* One row of a sweep: 16 disparities a vector, or 32 where the CPU has AVX2. */
  void (*row)(const vf_sgm_job* j, vf_sweep* s, int y, int second);
};

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
  size_t rows = (size_t)vf_row_paths(p) * (w + 2);
  size_t right = (w + (size_t)p->min_disparity + D) * sizeof(int16_t);
  /* zero and h slots, row paths of two rows, their minima, right census, tot, right winners,
   * repeated left census, row minima, uniqueness thresholds */
  size_t sz[] = {3 * slot,
                 rows * slot,
                 rows * slot,
                 rows * sizeof(vf_u8x16),
                 rows * sizeof(vf_u8x16),
                 (w + D) * VF_CPU_CENSUS_BYTES,
                 w * D * 2,
                 right,
                 right,
                 w * VF_REP * VF_CPU_CENSUS_BYTES,
                 w * 2,
                 (VF_MAX_SUM + 1) * 2};
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
    /* Pads of 255, every path in the zero state: the row before a sweep's first. */
    memset(part[1 + i], 255, rows * slot);
    s->row[i] = part[1 + i] + VF_SLOT_PAD;
    for (size_t j = 0; j < rows; ++j) memset(s->row[i] + j * slot, 0, D);
    memset(part[3 + i], 0, rows * sizeof(vf_u8x16));
    s->row_min[i] = (vf_u8x16*)(void*)part[3 + i];
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

/* P2 - P1 of a path into pixel value `here` from pixel value `prev`, for vf_steps' pmj. */
static inline vf_u8x16 vf_jump(const vf_sgm_params* p, int here, int prev) {
  return vf_u8x16_set1((uint8_t)(vf_sgm_p2(p->p1, p->p2, 1, here, prev) - p->p1));
}

/* Row y's pixels in s's direction with n paths per sweep; `second`: the other sweep has stored
 * this row. Inlined with constants, so that the set-up of the paths at each pixel has no tests
 * on them. Path 0 is the horizontal one, paths 1.. the vertical, then the diagonals from the
 * previous row's pixel x - 1 and x + 1: slots and minima of the previous row at column x + dx
 * are at offset dx from column x (columns -1 and w hold the zero state). */
__attribute__((always_inline)) static inline void vf_sweep_pixels(const vf_sgm_job* j, vf_sweep* s,
                                                                  int y, int n, int second,
                                                                  int wide) {
  const vf_sgm_params* p = j->p;
  int w = p->width, D = p->disparities, dir = s->dir, adaptive = p->adaptive_p2;
  ptrdiff_t slot = (ptrdiff_t)vf_slot(D), line = w + 2, step = dir * slot;
  const uint8_t* img = j->left + (size_t)y * j->left_stride;
  /* Before a sweep's first row the paths are in the zero state and P2 does not matter. */
  const uint8_t* img_prev = s->started ? j->left + (size_t)(y - dir) * j->left_stride : img;
  int x = dir > 0 ? 0 : w - 1;
  uint16_t* packed = j->sum + ((size_t)y * w + (size_t)x) * D;
  int16_t* tot = s->tot + (size_t)x * D;
  ptrdiff_t col = x + 1, sum_step = dir * D;
  /* Path r's slot at column x, previous and current row, for the paths there are (the tests
   * on the constant n fold away); minima likewise. All stay inside the row buffers, one step
   * past the last pixel included (the border columns). */
  const uint8_t *pv1 = NULL, *pv2 = NULL, *pv3 = NULL;
  uint8_t *cv1 = NULL, *cv2 = NULL, *cv3 = NULL;
  const vf_u8x16* pmin = NULL;
  vf_u8x16* cmin = NULL;
  if (n > 1) {
    pv1 = s->row[0] + col * slot;
    cv1 = s->row[1] + col * slot;
    pmin = s->row_min[0] + col;
    cmin = s->row_min[1] + col;
  }
  if (n > 2) {
    pv2 = pv1 + (line - 1) * slot;
    pv3 = pv1 + (2 * line + 1) * slot;
    cv2 = cv1 + line * slot;
    cv3 = cv1 + 2 * line * slot;
  }
  const vf_u8x16 pen = vf_u8x16_set1((uint8_t)p->p1);
  const vf_u8x16 jump = vf_u8x16_set1((uint8_t)(p->p2 - p->p1));
  vf_u8x16 h_min = vf_u8x16_set1(0), m1, m2, m3;
  uint8_t cost[256];
  for (int i = 0; i < w; ++i, x += dir) {
    if (!second) vf_costs(p, s->left_rep, s->right_rev, x, cost, wide);
    vf_u8x16 pm1 = vf_u8x16_set1(0), pm2 = pm1, pm3 = pm1;
    if (n > 1) pm1 = pmin[0];
    if (n > 2) {
      pm2 = pmin[line - 1];
      pm3 = pmin[2 * line + 1];
    }
    vf_u8x16 j0 = jump, j1 = jump, j2 = jump, j3 = jump;
    if (adaptive) {
      /* Neighbours clamped: a path that starts at the border ignores P2. */
      int here = img[x], xl = x > 0 ? x - 1 : 0, xr = x + 1 < w ? x + 1 : w - 1;
      j0 = vf_jump(p, here, i > 0 ? img[x - dir] : here);
      j1 = vf_jump(p, here, img_prev[x]);
      j2 = vf_jump(p, here, img_prev[xl]);
      j3 = vf_jump(p, here, img_prev[xr]);
    }
#define VF_STEP_ARGS                                                                               \
  n, second, cost, packed, tot, i > 0 ? s->h[0] : s->zero, pv1, pv2, pv3, s->h[1], cv1, cv2, cv3,  \
      h_min, pm1, pm2, pm3, vf_u8x16_add(h_min, j0), vf_u8x16_add(pm1, j1), vf_u8x16_add(pm2, j2), \
      vf_u8x16_add(pm3, j3), pen, D, &h_min, &m1, &m2, &m3
    int best = 0;
#ifdef VF_AVX2
    if (wide) best = vf_steps32(VF_STEP_ARGS);
#endif
    if (!wide) best = vf_steps(VF_STEP_ARGS);
#undef VF_STEP_ARGS
    if (second) s->best[x] = (int16_t)best;
    if (n > 1) cmin[0] = m1;
    if (n > 2) {
      cmin[line] = m2;
      cmin[2 * line] = m3;
    }
    uint8_t* t = s->h[0];
    s->h[0] = s->h[1];
    s->h[1] = t;
    packed += sum_step;
    tot += sum_step;
    if (n > 1) {
      pv1 += step;
      cv1 += step;
      pmin += dir;
      cmin += dir;
    }
    if (n > 2) {
      pv2 += step;
      pv3 += step;
      cv2 += step;
      cv3 += step;
    }
  }
}

/* Sweeps row y in s's direction; `second`: the other sweep has stored this row; `wide`: 32
 * disparities a vector (AVX2). */
__attribute__((always_inline)) static inline void vf_sweep_row_any(const vf_sgm_job* j, vf_sweep* s,
                                                                   int y, int second, int wide) {
  const vf_sgm_params* p = j->p;
  int w = p->width;
  if (!second) {
    vf_reverse_row(p, j->cr, y, s->right_rev);
    vf_repeat_row(p, j->cl, y, s->left_rep);
  }
  if (second) {
    if (j->nrow == 3) {
      vf_sweep_pixels(j, s, y, 4, 1, wide);
    } else if (j->nrow == 1) {
      vf_sweep_pixels(j, s, y, 2, 1, wide);
    } else {
      vf_sweep_pixels(j, s, y, 1, 1, wide);
    }
  } else if (j->nrow == 3) {
    vf_sweep_pixels(j, s, y, 4, 0, wide);
  } else if (j->nrow == 1) {
    vf_sweep_pixels(j, s, y, 2, 0, wide);
  } else {
    vf_sweep_pixels(j, s, y, 1, 0, wide);
  }
  uint8_t* t = s->row[0];
  s->row[0] = s->row[1];
  s->row[1] = t;
  vf_u8x16* m = s->row_min[0];
  s->row_min[0] = s->row_min[1];
  s->row_min[1] = m;
  s->started = 1;
  if (second) {
    vf_cpu_sgm_select_row(p, s->tot, s->best, s->unique_thr, s->right_val, s->right_k,
                          j->out + (size_t)y * w, wide);
  }
}

static void vf_sweep_row16(const vf_sgm_job* j, vf_sweep* s, int y, int second) {
  vf_sweep_row_any(j, s, y, second, 0);
}

#ifdef VF_AVX2
/* flatten: the 32-lane steps and costs (AVX2 functions, which the 16-lane row cannot inline)
 * inlined here with the row's constants. */
static VF_AVX2_TARGET __attribute__((flatten)) void vf_sweep_row32(const vf_sgm_job* j, vf_sweep* s,
                                                                   int y, int second) {
  vf_sweep_row_any(j, s, y, second, 1);
}
#endif

/* Sweep 0 goes down, sweep 1 up; phase 0 takes each one's first half, phase 1 the rest. */
static void vf_halves(int begin, int end, void* arg) {
  const vf_sgm_job* j = arg;
  int h = j->p->height, mid = h / 2;
  for (int t = begin; t < end; ++t) {
    if (t == 0) {
      for (int y = j->phase ? mid : 0; y < (j->phase ? h : mid); ++y) {
        j->row(j, &j->sweeps[0], y, j->phase);
      }
    } else {
      for (int y = j->phase ? mid - 1 : h - 1; y >= (j->phase ? 0 : mid); --y) {
        j->row(j, &j->sweeps[1], y, j->phase);
      }
    }
  }
  vf_simd16_fence(); /* the streamed sums, before the other thread reads them */
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
        j->row(j, s, y, second);
      }
    }
  }
}

void vf_cpu_sgm_lanes(const vf_sgm_params* p, const uint8_t* left, size_t left_stride,
                      const uint8_t* census_l, const uint8_t* census_r, uint16_t* sum,
                      void* scratch, uint16_t* out, vf_pool* pool, int lanes) {
  int threads = vf_pool_threads(pool);
  vf_sweep sweeps[VF_MAX_WORKERS];
  int workers = vf_workers(p, threads);
  size_t bytes = vf_sweep_carve(p, NULL, NULL);
  for (int t = 0; t < workers; ++t) {
    vf_sweep_carve(p, (uint8_t*)scratch + (size_t)t * bytes, &sweeps[t]);
    sweeps[t].dir = t == 0 ? 1 : -1;
  }
  vf_sgm_job job = {p,   left,   left_stride,     census_l, census_r, sum,
                    out, sweeps, vf_row_paths(p), 0,        workers,  vf_sweep_row16};
#ifdef VF_AVX2
  if (lanes != 16 && vf_cpu_avx2()) job.row = vf_sweep_row32;
#endif
  /* Threads pay off from about a quarter million cells each. */
  int useful = (int)((size_t)p->width * p->height * p->disparities / 262144);
  if (useful < 1) useful = 1;
  if (job.nrow == 0) {
    if (job.workers > useful) job.workers = useful;
    if (job.workers > p->height) job.workers = p->height;
    vf_parallel_for(pool, job.workers, job.workers, vf_rows, &job);
    return;
  }
  int n = threads >= 2 && useful >= 2 ? 2 : 1;
  for (job.phase = 0; job.phase < 2; ++job.phase) vf_parallel_for(pool, 2, n, vf_halves, &job);
}

void vf_cpu_sgm(const vf_sgm_params* p, const uint8_t* left, size_t left_stride,
                const uint8_t* census_l, const uint8_t* census_r, uint16_t* sum, void* scratch,
                uint16_t* out, vf_pool* pool) {
  vf_cpu_sgm_lanes(p, left, left_stride, census_l, census_r, sum, scratch, out, pool, 0);
}

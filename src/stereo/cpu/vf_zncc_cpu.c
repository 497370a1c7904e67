// SPDX-License-Identifier: BSD-3-Clause
/* CPU ZNCC matching cost (Chang et al., Sec. 3): the window sums of I and I^2 once per image
 * (direct summation or integral images), the sums of the products L(x) R(x-d) by sliding column
 * sums down the rows and a running sum along the row, so each cost costs O(1) whatever the window.
 * Integer sums are exact, so this order of summation gives the same costs as the CUDA zig-zag. */
#include <stdint.h>

#include "core/vf_parallel.h"
#include "stereo/kernels/vf_local_cpu.h"

typedef struct vf_sums_job {
  const uint8_t* img;
  size_t stride;
  int w, h, r;
  const uint32_t* sat; /* NULL: direct summation */
  uint16_t* sum;
  uint32_t* var;
} vf_sums_job;

/* Writes one pixel's terms; the true var is below 2^32, so wrapping uint32 arithmetic is exact. */
static void vf_put_terms(const vf_sums_job* j, int x, int y, uint32_t s1, uint32_t s2) {
  const uint32_t n = (uint32_t)((2 * j->r + 1) * (2 * j->r + 1));
  j->sum[(size_t)y * j->w + x] = (uint16_t)s1;
  j->var[(size_t)y * j->w + x] = n * s2 - s1 * s1;
}

static void vf_sums_rows(int begin, int end, void* arg) {
  const vf_sums_job* j = arg;
  const int r = j->r, w1 = j->w + 1;
  for (int y = begin; y < end; ++y) {
    for (int x = 0; x < j->w; ++x) {
      if (y < r || y >= j->h - r || x < r || x >= j->w - r) {
        j->sum[(size_t)y * j->w + x] = 0;
        j->var[(size_t)y * j->w + x] = 0;
        continue;
      }
      uint32_t s1 = 0, s2 = 0;
      if (j->sat != NULL) {
        /* Summed-area tables wrap modulo 2^32; a window's sum is below 2^32, so the four-corner
         * difference is still exact. */
        const uint32_t* t1 = j->sat;
        const uint32_t* t2 = j->sat + (size_t)w1 * (j->h + 1);
        size_t a = (size_t)(y - r) * w1 + (x - r), b = (size_t)(y - r) * w1 + (x + r + 1);
        size_t c = (size_t)(y + r + 1) * w1 + (x - r), d = (size_t)(y + r + 1) * w1 + (x + r + 1);
        s1 = t1[d] - t1[b] - t1[c] + t1[a];
        s2 = t2[d] - t2[b] - t2[c] + t2[a];
      } else {
        for (int dy = -r; dy <= r; ++dy) {
          const uint8_t* row = j->img + (size_t)(y + dy) * j->stride;
          for (int dx = -r; dx <= r; ++dx) {
            uint32_t v = row[x + dx];
            s1 += v;
            s2 += v * v;
          }
        }
      }
      vf_put_terms(j, x, y, s1, s2);
    }
  }
}

/* Summed-area tables of I and I^2 (one row of zeros on top, one column on the left). */
static void vf_build_sat(const uint8_t* img, size_t stride, int w, int h, uint32_t* sat) {
  const int w1 = w + 1;
  uint32_t* t1 = sat;
  uint32_t* t2 = sat + (size_t)w1 * (h + 1);
  for (int x = 0; x <= w; ++x) t1[x] = t2[x] = 0;
  for (int y = 0; y < h; ++y) {
    const uint8_t* row = img + (size_t)y * stride;
    uint32_t* o1 = t1 + (size_t)(y + 1) * w1;
    uint32_t* o2 = t2 + (size_t)(y + 1) * w1;
    o1[0] = o2[0] = 0;
    uint32_t run1 = 0, run2 = 0;
    for (int x = 0; x < w; ++x) {
      run1 += row[x];
      run2 += (uint32_t)row[x] * row[x];
      o1[x + 1] = o1[x + 1 - w1] + run1;
      o2[x + 1] = o2[x + 1 - w1] + run2;
    }
  }
}

void vf_cpu_zncc_window_sums(const uint8_t* img, size_t stride, int w, int h, int radius,
                             int integral, uint32_t* sat, uint16_t* sum, uint32_t* var,
                             vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  if (integral) vf_build_sat(img, stride, w, h, sat);
  vf_sums_job job = {img, stride, w, h, radius, integral ? sat : NULL, sum, var};
  vf_parallel_for(pool, h, threads, vf_sums_rows, &job);
}

typedef struct vf_zncc_job {
  const vf_local_pair* p;
  int r;
  const uint16_t *sum_l, *sum_r;
  const uint32_t *var_l, *var_r;
  void* volume;
  int pack8;
  uint32_t* scratch;
  int chunks;
} vf_zncc_job;

/* Adds sign * L(x, row) R(x - d, row) to every column sum of every disparity. */
static void vf_add_row(const vf_zncc_job* j, uint32_t* col, int row, int sign) {
  const vf_local_pair* p = j->p;
  const uint8_t* l = p->left + (size_t)row * p->left_stride;
  const uint8_t* rr = p->right + (size_t)row * p->right_stride;
  for (int d = 0; d < p->disparities; ++d) {
    uint32_t* c = col + (size_t)d * p->width;
    for (int x = d; x < p->width; ++x) c[x] += (uint32_t)(sign * (int)(l[x] * rr[x - d]));
  }
}

/* One row of costs from the column sums (each the product sum over the window's rows). */
static void vf_emit_row(const vf_zncc_job* j, const uint32_t* col, int y) {
  const vf_local_pair* p = j->p;
  const int r = j->r, w = p->width, n = (2 * r + 1) * (2 * r + 1);
  const size_t row = (size_t)y * w;
  for (int d = 0; d < p->disparities; ++d) {
    const uint32_t* c = col + (size_t)d * w;
    uint32_t prod = 0;
    int started = 0;
    for (int x = 0; x < w; ++x) {
      /* A window or match that leaves the image says nothing: the neutral cost. */
      uint32_t code = VF_COST_ZERO;
      if (x >= r && x < w - r && x - r - d >= 0) {
        if (!started) {
          for (int i = x - r; i <= x + r; ++i) prod += c[i];
          started = 1;
        } else {
          prod += c[x + r] - c[x - r - 1];
        }
        const size_t il = row + x, ir = row + x - d;
        int64_t num = (int64_t)n * prod - (int64_t)j->sum_l[il] * j->sum_r[ir];
        code = vf_zncc_cost16(num, j->var_l[il], j->var_r[ir]);
      }
      vf_cost_store(j->volume, j->pack8, (row + x) * p->disparities + d, code);
    }
  }
}

static void vf_zncc_chunks(int begin, int end, void* arg) {
  const vf_zncc_job* j = arg;
  const vf_local_pair* p = j->p;
  const int r = j->r, h = p->height;
  for (int k = begin; k < end; ++k) {
    const int y0 = (int)((long long)h * k / j->chunks),
              y1 = (int)((long long)h * (k + 1) / j->chunks);
    uint32_t* col = j->scratch + (size_t)k * p->disparities * p->width;
    int have = 0; /* col holds the sums of rows y-r..y+r for the previous valid y */
    for (int y = y0; y < y1; ++y) {
      if (y < r || y >= h - r) {
        for (size_t i = (size_t)y * p->width * p->disparities;
             i < (size_t)(y + 1) * p->width * p->disparities; ++i) {
          vf_cost_store(j->volume, j->pack8, i, VF_COST_ZERO);
        }
        continue;
      }
      if (!have) {
        for (size_t i = 0; i < (size_t)p->disparities * p->width; ++i) col[i] = 0;
        for (int dy = -r; dy <= r; ++dy) vf_add_row(j, col, y + dy, 1);
        have = 1;
      } else {
        vf_add_row(j, col, y + r, 1);
        vf_add_row(j, col, y - r - 1, -1);
      }
      vf_emit_row(j, col, y);
    }
  }
}

void vf_cpu_zncc_costs(const vf_local_pair* p, int radius, const uint16_t* sum_l,
                       const uint32_t* var_l, const uint16_t* sum_r, const uint32_t* var_r,
                       void* volume, int pack8, uint32_t* scratch, vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  int chunks = threads < p->height ? threads : p->height;
  if (chunks < 1) chunks = 1;
  vf_zncc_job job = {p, radius, sum_l, sum_r, var_l, var_r, volume, pack8, scratch, chunks};
  vf_parallel_for(pool, chunks, chunks, vf_zncc_chunks, &job);
}

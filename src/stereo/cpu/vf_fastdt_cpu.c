// SPDX-License-Identifier: BSD-3-Clause
/* CPU FastDT cost aggregation (Chang et al., Sec. 4, after Pham and Jeon's domain-transform
 * aggregation): the normalized recursive filter A(p) = (1 - W) C(p) + W A(p - 1) run left->right,
 * right->left, top->bottom and bottom->top, with W from the left image's step |dI| between the
 * two pixels. The volume is rewritten in place after each of the first three passes (8 or 16-bit
 * codes); the last pass feeds winner-takes-all directly. */
#include <stdint.h>

#include "core/vf_parallel.h"
#include "stereo/kernels/vf_local_cpu.h"

static int vf_absdiff(int a, int b) { return a > b ? a - b : b - a; }

/* The winner over candidates 0..min(D-1, x) (the match must be inside the right image); ties go
 * to the smaller disparity. A pixel whose candidates all cost the same has no winner. */
static uint16_t vf_wta_pixel(const uint32_t* cost, int candidates) {
  uint32_t best = cost[0], worst = cost[0];
  int arg = 0;
  for (int d = 1; d < candidates; ++d) {
    if (cost[d] < best) {
      best = cost[d];
      arg = d;
    }
    if (cost[d] > worst) worst = cost[d];
  }
  return best == worst ? (uint16_t)VF_STEREO_LOCAL_INVALID : (uint16_t)arg;
}

typedef struct vf_dt_job {
  const vf_local_pair* p;
  const uint16_t* wt;
  void* volume;
  int pack8;
  uint32_t* acc; /* width * disparities running values */
  uint16_t* disp;
  size_t disp_stride;
} vf_dt_job;

/* One horizontal pass over row y, starting from the stored costs of its first pixel. */
static void vf_dt_row_pass(const vf_dt_job* j, int y, int x0, int step, uint32_t* acc) {
  const vf_local_pair* p = j->p;
  const int w = p->width, nd = p->disparities;
  const uint8_t* l = p->left + (size_t)y * p->left_stride;
  const size_t base = (size_t)y * w * nd;
  for (int d = 0; d < nd; ++d)
    acc[d] = vf_cost_load(j->volume, j->pack8, base + (size_t)x0 * nd + d);
  for (int x = x0 + step; x >= 0 && x < w; x += step) {
    const uint32_t wx = j->wt[vf_absdiff(l[x], l[x - step])];
    const size_t i = base + (size_t)x * nd;
    for (int d = 0; d < nd; ++d) {
      acc[d] = vf_dt_step(acc[d], vf_cost_load(j->volume, j->pack8, i + d), wx);
      vf_cost_store(j->volume, j->pack8, i + d, acc[d]);
    }
  }
}

static void vf_dt_rows(int begin, int end, void* arg) {
  const vf_dt_job* j = arg;
  uint32_t acc[VF_STEREO_LOCAL_MAX_DISPARITY];
  for (int y = begin; y < end; ++y) {
    vf_dt_row_pass(j, y, 0, 1, acc);
    vf_dt_row_pass(j, y, j->p->width - 1, -1, acc);
  }
}

/* One vertical step for columns [begin, end): row y's costs into acc with row y's weights
 * against the row it comes from (the first row of a pass just loads). */
static void vf_dt_vstep(const vf_dt_job* j, int begin, int end, int y, int from) {
  const vf_local_pair* p = j->p;
  const int nd = p->disparities;
  const uint8_t* l = p->left + (size_t)y * p->left_stride;
  /* The first row of a pass has no row before it (from = -1 or height): no pointer is formed. */
  const int inside = from >= 0 && from < p->height;
  const uint8_t* lf = inside ? p->left + (size_t)from * p->left_stride : l;
  for (int x = begin; x < end; ++x) {
    const size_t i = ((size_t)y * p->width + x) * nd;
    uint32_t* a = j->acc + (size_t)x * nd;
    if (!inside) {
      for (int d = 0; d < nd; ++d) a[d] = vf_cost_load(j->volume, j->pack8, i + d);
      continue;
    }
    const uint32_t wx = j->wt[vf_absdiff(l[x], lf[x])];
    for (int d = 0; d < nd; ++d)
      a[d] = vf_dt_step(a[d], vf_cost_load(j->volume, j->pack8, i + d), wx);
  }
}

/* Top->bottom (stored) then bottom->top with winner-takes-all, for a range of columns. */
static void vf_dt_columns(int begin, int end, void* arg) {
  const vf_dt_job* j = arg;
  const vf_local_pair* p = j->p;
  const int nd = p->disparities, h = p->height;
  for (int y = 0; y < h; ++y) {
    vf_dt_vstep(j, begin, end, y, y - 1);
    for (int x = begin; x < end; ++x) {
      const size_t i = ((size_t)y * p->width + x) * nd;
      for (int d = 0; d < nd; ++d)
        vf_cost_store(j->volume, j->pack8, i + d, j->acc[(size_t)x * nd + d]);
    }
  }
  for (int y = h - 1; y >= 0; --y) {
    vf_dt_vstep(j, begin, end, y, y + 1);
    uint16_t* out = (uint16_t*)((uint8_t*)j->disp + (size_t)y * j->disp_stride);
    for (int x = begin; x < end; ++x) {
      out[x] = vf_wta_pixel(j->acc + (size_t)x * nd, x + 1 < nd ? x + 1 : nd);
    }
  }
}

void vf_cpu_fastdt(const vf_local_pair* p, const uint16_t* weights, void* volume, int pack8,
                   uint32_t* scratch, uint16_t* disparity, size_t disparity_stride, vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  vf_dt_job job = {p, weights, volume, pack8, scratch, disparity, disparity_stride};
  vf_parallel_for(pool, p->height, threads, vf_dt_rows, &job);
  vf_parallel_for(pool, p->width, threads, vf_dt_columns, &job);
}

typedef struct vf_wta_job {
  const vf_local_pair* p;
  const void* volume;
  int pack8;
  uint16_t* disp;
  size_t disp_stride;
} vf_wta_job;

static void vf_wta_rows(int begin, int end, void* arg) {
  const vf_wta_job* j = arg;
  const int w = j->p->width, nd = j->p->disparities;
  uint32_t cost[VF_STEREO_LOCAL_MAX_DISPARITY];
  for (int y = begin; y < end; ++y) {
    uint16_t* out = (uint16_t*)((uint8_t*)j->disp + (size_t)y * j->disp_stride);
    for (int x = 0; x < w; ++x) {
      const size_t i = ((size_t)y * w + x) * nd;
      for (int d = 0; d < nd; ++d) cost[d] = vf_cost_load(j->volume, j->pack8, i + d);
      out[x] = vf_wta_pixel(cost, x + 1 < nd ? x + 1 : nd);
    }
  }
}

void vf_cpu_wta(const vf_local_pair* p, const void* volume, int pack8, uint16_t* disparity,
                size_t disparity_stride, vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  vf_wta_job job = {p, volume, pack8, disparity, disparity_stride};
  vf_parallel_for(pool, p->height, threads, vf_wta_rows, &job);
}

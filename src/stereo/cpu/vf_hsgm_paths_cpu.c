// SPDX-License-Identifier: BSD-3-Clause
/* CPU aggregation of hierarchical SGM over per-pixel disparity ranges
 * (src/stereo/kernels/vf_hsgm_rules.h): every path direction of src/stereo/kernels/vf_sgm_rules.h
 * (2, 4, 8 or 16 paths) walked as the CUDA kernels walk it, each pixel's aggregated costs over its
 * own range added into the dynamic cost cube. The matching cost: census Hamming distance, or (ZNCC
 * + SGM) the ZNCC cost codes. With full ranges this is SGM (Hirschmueller 2008, eq. 13), 16 paths
 * included. Paths run one after another; the walks of one path, which share no pixel, run in
 * parallel. */
#include <string.h>

#include "core/vf_parallel.h"
#include "stereo/kernels/vf_hsgm_cpu.h"

typedef struct vf_walk_job {
  const vf_sgm_params* p;
  const uint8_t* left;
  size_t left_stride;
  const uint64_t *cl, *cr;
  const uint16_t* zncc;
  const vf_hsgm_ranges* r;
  uint16_t* sum;
  int dx, dy, steps;
} vf_walk_job;

static void vf_walks(int begin, int end, void* arg) {
  const vf_walk_job* j = arg;
  const vf_sgm_params* p = j->p;
  const int w = p->width, h = p->height;
  uint8_t buf_a[256], buf_b[256];
  for (int walk = begin; walk < end; ++walk) {
    int x0, y0;
    vf_sgm_walk_start(j->dx, j->dy, w, h, walk, &x0, &y0);
    uint8_t* prev = buf_a;
    uint8_t* cur = buf_b;
    int plo = 0, pn = 0, pmin = 0;
    for (int t = 0; t < j->steps; ++t) {
      int x, y;
      vf_sgm_walk_at(j->dx, j->dy, w, x0, y0, t, &x, &y);
      if (y < 0 || y >= h) break;
      const size_t i = (size_t)y * w + x;
      const int lo = vf_hsgm_range_lo(j->r->range[i]), n = vf_hsgm_range_n(j->r->range[i]);
      const int start = vf_sgm_path_start(j->dx, j->dy, w, h, x, y);
      int p2 = p->p2;
      if (!start) {
        p2 = vf_sgm_p2(p->p1, p->p2, p->adaptive_p2, j->left[(size_t)y * j->left_stride + x],
                       j->left[(size_t)(y - j->dy) * j->left_stride + (x - j->dx)]);
      }
      const uint16_t* codes = j->zncc != NULL ? j->zncc + i * p->disparities : NULL;
      const uint64_t l = codes == NULL ? j->cl[i] : 0;
      const uint64_t* rrow = j->cr + (size_t)y * w;
      uint16_t* s = j->sum + (size_t)y * w * p->disparities + j->r->offset[i];
      int here_min = 1 << 30;
      for (int k = lo; k < lo + n; ++k) {
        const int xr = x - p->min_disparity - k;
        const int c = codes != NULL ? vf_zncc_sgm_cost(codes[k])
                      : xr >= 0     ? __builtin_popcountll(l ^ rrow[xr])
                                    : p->max_cost;
        const int v = start ? c : vf_hsgm_step(c, k, prev, plo, pn, pmin, p->p1, p2);
        cur[k] = (uint8_t)v;
        s[k - lo] = (uint16_t)(s[k - lo] + v);
        if (v < here_min) here_min = v;
      }
      uint8_t* t8 = prev;
      prev = cur;
      cur = t8;
      plo = lo;
      pn = n;
      pmin = here_min;
    }
  }
}

void vf_cpu_hsgm_aggregate(const vf_sgm_params* p, const uint8_t* left, size_t left_stride,
                           const uint64_t* census_l, const uint64_t* census_r, const uint16_t* zncc,
                           const vf_hsgm_ranges* r, uint16_t* sum, vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  const int w = p->width, h = p->height;
  size_t cells = 0;
  for (int y = 0; y < h; ++y) {
    const size_t last = (size_t)y * w + w - 1;
    const size_t row = r->offset[last] + (size_t)vf_hsgm_range_n(r->range[last]);
    memset(sum + (size_t)y * w * p->disparities, 0, row * sizeof(uint16_t));
    cells += row;
  }
  for (int path = 0; path < p->paths; ++path) {
    vf_walk_job job = {p, left, left_stride, census_l, census_r, zncc, r, sum, 0, 0, 0};
    vf_sgm_direction(path, &job.dx, &job.dy);
    int walks;
    vf_sgm_walks(job.dx, job.dy, w, h, &walks, &job.steps);
    int useful = (int)(cells / 262144);
    vf_parallel_for(pool, walks, useful < threads ? useful : threads, vf_walks, &job);
  }
}

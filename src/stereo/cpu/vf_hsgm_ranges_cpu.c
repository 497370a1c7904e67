// SPDX-License-Identifier: BSD-3-Clause
/* CPU per-pixel disparity ranges of an HSGM level (rule in src/stereo/kernels/vf_hsgm_rules.h) and
 * the offsets of the pixels' cells in the dynamic cost cube, row by row. Rows run in parallel. */
#include "core/vf_parallel.h"
#include "stereo/kernels/vf_hsgm_cpu.h"

typedef struct vf_ranges_job {
  const vf_sgm_params* p;
  const uint16_t* coarse;
  int cw, ch, radius, margin;
  const vf_hsgm_ranges* r;
} vf_ranges_job;

static void vf_ranges_rows(int begin, int end, void* arg) {
  const vf_ranges_job* j = arg;
  const vf_sgm_params* p = j->p;
  for (int y = begin; y < end; ++y) {
    uint32_t offset = 0;
    for (int x = 0; x < p->width; ++x) {
      const size_t i = (size_t)y * p->width + x;
      const uint32_t rg = j->coarse == NULL
                              ? vf_hsgm_range_pack(0, p->disparities)
                              : vf_hsgm_range_at(j->coarse, j->cw, j->ch, x, y, j->radius,
                                                 j->margin, p->min_disparity, p->disparities);
      j->r->range[i] = rg;
      j->r->offset[i] = offset;
      offset += (uint32_t)vf_hsgm_range_n(rg);
    }
  }
}

void vf_cpu_hsgm_ranges(const vf_sgm_params* p, const uint16_t* coarse, int cw, int ch, int radius,
                        int margin, const vf_hsgm_ranges* r, vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  vf_ranges_job job = {p, coarse, cw, ch, radius, margin, r};
  int useful = p->width * p->height / 32768;
  vf_parallel_for(pool, p->height, useful < threads ? useful : threads, vf_ranges_rows, &job);
}

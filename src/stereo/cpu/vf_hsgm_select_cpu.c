// SPDX-License-Identifier: BSD-3-Clause
/* CPU disparity selection of hierarchical SGM over per-pixel ranges: winner takes all (smallest
 * index on ties) with the uniqueness ratio against the best cost outside +-1 of the winner, the
 * left-right check against the right image's winners (the packed minimum of cost and index over
 * every left pixel that reaches a right pixel), and the sub-pixel V fit where both neighbours
 * lie in the range. With full ranges these are SGM's rules (src/stereo/cpu/vf_sgm_select_cpu.c).
 * Rows run in parallel. */
#include "core/vf_parallel.h"
#include "stereo/kernels/vf_hsgm_cpu.h"
#include "viofront/vf_stereo.h"

typedef struct vf_hsgm_select_job {
  const vf_sgm_params* p;
  const vf_hsgm_ranges* r;
  const uint16_t* sum;
  uint32_t* right_best;
  uint16_t* out;
} vf_hsgm_select_job;

static uint16_t vf_select_pixel(const vf_hsgm_select_job* j, int x, int y, const uint32_t* right) {
  const vf_sgm_params* p = j->p;
  const size_t i = (size_t)y * p->width + x;
  if (x < p->min_disparity) return VF_STEREO_INVALID;
  const int lo = vf_hsgm_range_lo(j->r->range[i]), n = vf_hsgm_range_n(j->r->range[i]);
  const uint16_t* s = j->sum + (size_t)y * p->width * p->disparities + j->r->offset[i];
  int jb = 0;
  for (int q = 1; q < n; ++q) {
    if (s[q] < s[jb]) jb = q;
  }
  int second = 1 << 30;
  for (int q = 0; q < n; ++q) {
    if ((q < jb - 1 || q > jb + 1) && s[q] < second) second = s[q];
  }
  if ((long)s[jb] * VF_UNIQUENESS_ONE > (long)second * p->uniqueness_q) return VF_STEREO_INVALID;
  const int kb = lo + jb;
  if (p->lr_check) {
    const int xr = x - p->min_disparity - kb;
    const int kr = xr >= 0 && right[xr] != UINT32_MAX ? (int)(right[xr] & 0xFF) : -1;
    const int diff = kr > kb ? kr - kb : kb - kr;
    if (kr < 0 || diff > p->lr_max_diff) return VF_STEREO_INVALID;
  }
  const int d = p->min_disparity + kb;
  if (!p->subpixel) return (uint16_t)d;
  const int off = jb > 0 && jb < n - 1 ? vf_sgm_subpixel16(s[jb - 1], s[jb], s[jb + 1]) : 0;
  return (uint16_t)(d * 16 + off);
}

static void vf_select_rows(int begin, int end, void* arg) {
  const vf_hsgm_select_job* j = arg;
  const vf_sgm_params* p = j->p;
  const int w = p->width;
  for (int y = begin; y < end; ++y) {
    uint32_t* right = j->right_best + (size_t)y * w;
    if (p->lr_check) {
      for (int x = 0; x < w; ++x) right[x] = UINT32_MAX;
      for (int x = 0; x < w; ++x) {
        const size_t i = (size_t)y * w + x;
        const int lo = vf_hsgm_range_lo(j->r->range[i]), n = vf_hsgm_range_n(j->r->range[i]);
        const uint16_t* s = j->sum + (size_t)y * w * p->disparities + j->r->offset[i];
        for (int q = 0; q < n; ++q) {
          const int xr = x - p->min_disparity - lo - q;
          if (xr < 0) break;
          const uint32_t v = vf_sgm_pack(s[q], (uint32_t)(lo + q));
          if (v < right[xr]) right[xr] = v;
        }
      }
    }
    for (int x = 0; x < w; ++x) j->out[(size_t)y * w + x] = vf_select_pixel(j, x, y, right);
  }
}

void vf_cpu_hsgm_select(const vf_sgm_params* p, const vf_hsgm_ranges* r, const uint16_t* sum,
                        uint32_t* right_best, uint16_t* out, vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  vf_hsgm_select_job job = {p, r, sum, right_best, out};
  int useful = p->width * p->height / 16384;
  vf_parallel_for(pool, p->height, useful < threads ? useful : threads, vf_select_rows, &job);
}

// SPDX-License-Identifier: BSD-3-Clause
/* CPU census matching cost for FastDT: the Hamming distance of the 9x7 census words (made by the
 * SGM census, src/stereo/cpu/vf_census_cpu.c, byte planes) as cost codes around zero
 * (vf_census_cost16); a match outside the right image is neutral, as for ZNCC. */
#include <stdint.h>

#include "core/vf_parallel.h"
#include "stereo/kernels/vf_local_cpu.h"

typedef struct vf_census_cost_job {
  const vf_local_pair* p;
  const uint8_t *census_l, *census_r;
  int bits;
  void* volume;
  int pack8;
} vf_census_cost_job;

static void vf_census_cost_rows(int begin, int end, void* arg) {
  const vf_census_cost_job* j = arg;
  const int w = j->p->width, nd = j->p->disparities, planes = (j->bits + 7) / 8;
  for (int y = begin; y < end; ++y) {
    /* Byte planes: census bit i of pixel x is bit i % 8 of row[(i / 8) * w + x]. */
    const uint8_t* cl = j->census_l + (size_t)y * planes * w;
    const uint8_t* cr = j->census_r + (size_t)y * planes * w;
    for (int x = 0; x < w; ++x) {
      const size_t base = ((size_t)y * w + x) * nd;
      for (int d = 0; d < nd; ++d) {
        uint32_t code = VF_COST_ZERO;
        if (x - d >= 0) {
          int hamming = 0;
          for (int pl = 0; pl < planes; ++pl)
            hamming +=
                __builtin_popcount((unsigned)(cl[(size_t)pl * w + x] ^ cr[(size_t)pl * w + x - d]));
          code = vf_census_cost16(hamming, j->bits);
        }
        vf_cost_store(j->volume, j->pack8, base + d, code);
      }
    }
  }
}

void vf_cpu_census_costs(const vf_local_pair* p, const uint8_t* census_l, const uint8_t* census_r,
                         int bits, void* volume, int pack8, vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  vf_census_cost_job job = {p, census_l, census_r, bits, volume, pack8};
  vf_parallel_for(pool, p->height, threads, vf_census_cost_rows, &job);
}

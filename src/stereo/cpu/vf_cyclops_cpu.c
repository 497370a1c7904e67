// SPDX-License-Identifier: BSD-3-Clause
/* CPU Cyclops2 ("Real-time CUDA-based stereo matching using Cyclops2 algorithm"): for every pixel
 * a search along the scan line over the disparity candidates, keeping the one that minimizes the
 * weight function:
 *  MD  |L(x) - R(x-d)|;
 *  RMA the mean of |L - R| over the 2^N pixels ending at x, N grown while x - 2^N - d > 0 (up to
 *      rma_max_log2), compared as SAD * 2^(max - N) so that every N is on one integer scale;
 *  MNS sum |n (L - R) - (sum L - sum R)| over an h x w block sampled every kernel_step pixels
 *      (n samples): n times the mean-normalized SAD, exact in integers. Block rows are replicated
 *      at the top and bottom; a block that leaves the image sideways is no candidate.
 * Ties go to the smaller disparity. The CUDA kernels (cuda/stereo/vf_cyclops.cu) match bit for bit.
 */
#include <stdint.h>

#include "core/vf_parallel.h"
#include "stereo/kernels/vf_local_cpu.h"

typedef struct vf_cyclops_job {
  const vf_local_pair* p;
  const vf_local_cyclops* c;
  uint16_t* disp;
  size_t disp_stride;
} vf_cyclops_job;

static uint32_t vf_absdiff_u(int a, int b) { return (uint32_t)(a > b ? a - b : b - a); }

static int vf_clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static uint32_t vf_rma_cost(const uint8_t* l, const uint8_t* r, int x, int d, int max_log2) {
  int n = 0;
  while (n < max_log2 && x - (1 << (n + 1)) - d > 0) ++n;
  uint32_t sad = 0;
  for (int i = 0; i < (1 << n); ++i) sad += vf_absdiff_u(l[x - i], r[x - d - i]);
  return sad << (max_log2 - n);
}

/* n (sum over samples of |n (L - R) - (sum L - sum R)|) / n, kept as the integer before division.
 */
static uint32_t vf_mns_cost(const vf_local_pair* p, const vf_local_cyclops* c, int x, int y,
                            int d) {
  const int hy = c->mns_height / 2, hx = c->mns_width / 2, ks = c->kernel_step;
  int n = 0, sum_l = 0, sum_r = 0;
  for (int dy = -hy; dy <= hy; dy += ks) {
    const int yy = vf_clampi(y + dy, 0, p->height - 1);
    const uint8_t* l = p->left + (size_t)yy * p->left_stride;
    const uint8_t* r = p->right + (size_t)yy * p->right_stride;
    for (int dx = -hx; dx <= hx; dx += ks) {
      sum_l += l[x + dx];
      sum_r += r[x + dx - d];
      ++n;
    }
  }
  const int mean_diff = sum_l - sum_r;
  uint32_t cost = 0;
  for (int dy = -hy; dy <= hy; dy += ks) {
    const int yy = vf_clampi(y + dy, 0, p->height - 1);
    const uint8_t* l = p->left + (size_t)yy * p->left_stride;
    const uint8_t* r = p->right + (size_t)yy * p->right_stride;
    for (int dx = -hx; dx <= hx; dx += ks) {
      const int v = n * (l[x + dx] - r[x + dx - d]) - mean_diff;
      cost += (uint32_t)(v < 0 ? -v : v);
    }
  }
  return cost;
}

static void vf_cyclops_rows(int begin, int end, void* arg) {
  const vf_cyclops_job* j = arg;
  const vf_local_pair* p = j->p;
  const vf_local_cyclops* c = j->c;
  const int w = p->width;
  /* The block's half width: the first and last columns a candidate may use. */
  const int half = c->weight == VF_CYCLOPS_WEIGHT_MNS ? c->mns_width / 2 : 0;
  for (int y = begin; y < end; ++y) {
    const uint8_t* l = p->left + (size_t)y * p->left_stride;
    const uint8_t* r = p->right + (size_t)y * p->right_stride;
    uint16_t* out = (uint16_t*)((uint8_t*)j->disp + (size_t)y * j->disp_stride);
    for (int x = 0; x < w; ++x) {
      uint32_t best = UINT32_MAX;
      int arg_best = VF_STEREO_LOCAL_INVALID;
      if (x + half < w) {
        for (int d = 0; d < p->disparities && x - half - d >= 0; d += c->disparity_step) {
          uint32_t cost;
          if (c->weight == VF_CYCLOPS_WEIGHT_MD) {
            cost = vf_absdiff_u(l[x], r[x - d]);
          } else if (c->weight == VF_CYCLOPS_WEIGHT_RMA) {
            cost = vf_rma_cost(l, r, x, d, c->rma_max_log2);
          } else {
            cost = vf_mns_cost(p, c, x, y, d);
          }
          if (cost < best) {
            best = cost;
            arg_best = d;
          }
        }
      }
      out[x] = (uint16_t)arg_best;
    }
  }
}

void vf_cpu_cyclops(const vf_local_pair* p, const vf_local_cyclops* c, uint16_t* disparity,
                    size_t disparity_stride, vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  vf_cyclops_job job = {p, c, disparity, disparity_stride};
  vf_parallel_for(pool, p->height, threads, vf_cyclops_rows, &job);
}

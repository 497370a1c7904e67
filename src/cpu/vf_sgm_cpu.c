/* CPU SGM aggregation, the textbook recurrence (Hirschmueller 2008, eq. 13):
 *   L_r(p, k) = C(p, k) + min(L_r(p-r, k), L_r(p-r, k+-1) + P1, min_i L_r(p-r, i) + P2)
 *               - min_i L_r(p-r, i)
 * with L_r = C at the first pixel of each path, summed over the paths into 16-bit S. The
 * configuration guarantees C + P2 <= 255, so every L_r fits the 8 bits the GPU keeps.
 * Paths are processed one after another; the lines of one path run in parallel. */
#include <stdlib.h>

#include "vf_parallel.h"
#include "vf_stereo_cpu.h"

typedef struct vf_path_job {
  const vf_sgm_params* p;
  const uint8_t* left;
  size_t left_stride;
  const uint64_t* cl;
  const uint64_t* cr;
  uint16_t* sum;
  int dx, dy;
  int edge_lines; /* lines [0, edge_lines) start on the entry edge (a column for horizontal
                   * paths, a row otherwise); diagonal lines after that on a side column */
} vf_path_job;

static int vf_popcount64(uint64_t v) { return __builtin_popcountll(v); }

/* Matching costs of pixel (x, y) for every disparity index. */
static void vf_costs(const vf_path_job* j, int x, int y, int* c) {
  const vf_sgm_params* p = j->p;
  uint64_t l = j->cl[(size_t)y * p->width + x];
  const uint64_t* rrow = j->cr + (size_t)y * p->width;
  for (int k = 0; k < p->disparities; ++k) {
    int xr = x - p->min_disparity - k;
    c[k] = xr >= 0 ? vf_popcount64(l ^ rrow[xr]) : p->max_cost;
  }
}

/* The first pixel of line `line`. */
static void vf_line_start(const vf_path_job* j, int line, int* x, int* y) {
  int w = j->p->width, h = j->p->height;
  if (line < j->edge_lines) {
    if (j->dy == 0) {
      *x = j->dx > 0 ? 0 : w - 1;
      *y = line;
    } else {
      *x = line;
      *y = j->dy > 0 ? 0 : h - 1;
    }
    return;
  }
  /* Diagonal paths also start on the left or right column, below/above the first row. */
  int i = line - j->edge_lines + 1;
  *x = j->dx > 0 ? 0 : w - 1;
  *y = j->dy > 0 ? i : h - 1 - i;
}

static void vf_path_lines(int begin, int end, void* arg) {
  const vf_path_job* j = arg;
  const vf_sgm_params* p = j->p;
  int D = p->disparities;
  int prev_buf[256], cur_buf[256], cost[256];
  for (int line = begin; line < end; ++line) {
    int x, y;
    vf_line_start(j, line, &x, &y);
    int* prev = prev_buf;
    int* cur = cur_buf;
    int prev_min = 0;
    for (int first = 1; x >= 0 && x < p->width && y >= 0 && y < p->height; first = 0) {
      vf_costs(j, x, y, cost);
      int here_min = 1 << 30;
      if (first) {
        for (int k = 0; k < D; ++k) cur[k] = cost[k];
      } else {
        int i_here = j->left[(size_t)y * j->left_stride + x];
        int i_prev = j->left[(size_t)(y - j->dy) * j->left_stride + (x - j->dx)];
        int p2 = vf_sgm_p2(p->p1, p->p2, p->adaptive_p2, i_here, i_prev);
        for (int k = 0; k < D; ++k) {
          int best = prev[k];
          if (k > 0 && prev[k - 1] + p->p1 < best) best = prev[k - 1] + p->p1;
          if (k + 1 < D && prev[k + 1] + p->p1 < best) best = prev[k + 1] + p->p1;
          if (prev_min + p2 < best) best = prev_min + p2;
          cur[k] = cost[k] + best - prev_min;
        }
      }
      uint16_t* s = j->sum + ((size_t)y * p->width + x) * (size_t)D;
      for (int k = 0; k < D; ++k) {
        s[k] = (uint16_t)(s[k] + cur[k]);
        if (cur[k] < here_min) here_min = cur[k];
      }
      prev_min = here_min;
      int* t = prev;
      prev = cur;
      cur = t;
      x += j->dx;
      y += j->dy;
    }
  }
}

void vf_cpu_sgm_aggregate(const vf_sgm_params* p, const uint8_t* left, size_t left_stride,
                          const uint64_t* census_l, const uint64_t* census_r, uint16_t* sum,
                          int threads) {
  size_t cells = (size_t)p->width * p->height * (size_t)p->disparities;
  for (size_t i = 0; i < cells; ++i) sum[i] = 0;
  for (int r = 0; r < p->paths; ++r) {
    vf_path_job job = {p, left, left_stride, census_l, census_r, sum, 0, 0, 0};
    vf_sgm_direction(r, &job.dx, &job.dy);
    int lines;
    if (job.dy == 0) {
      job.edge_lines = lines = p->height;
    } else {
      job.edge_lines = p->width;
      lines = p->width + (job.dx != 0 ? p->height - 1 : 0);
    }
    int useful = (int)(cells / 262144);
    vf_parallel_for(lines, useful < threads ? useful : threads, vf_path_lines, &job);
  }
}

// SPDX-License-Identifier: BSD-3-Clause
/* CPU FAST reference (Rosten and Drummond, ECCV 2006): the textbook segment test walking the
 * 16-pixel circle, then plain 3x3 non-maxima suppression and the best survivor per grid cell
 * over the searched levels. Rows of all levels, then rows of cells, are split across threads.
 * The scores are integers converted to float once, so the CUDA backend gets identical floats. */
#include "features/kernels/vf_fast_cpu.h"

#include "core/vf_parallel.h"
#include "viofront/vf_detector.h"

/* Bresenham circle of radius 3, clockwise from the top; 0, 4, 8, 12 are the compass points. */
static const int vf_circle[16][2] = {{0, -3}, {1, -3},  {2, -2},  {3, -1}, {3, 0},  {3, 1},
                                     {2, 2},  {1, 3},   {0, 3},   {-1, 3}, {-2, 2}, {-3, 1},
                                     {-3, 0}, {-3, -1}, {-2, -2}, {-1, -3}};

/* Whether the circle holds n contiguous pixels with side * d > t (side +1: brighter, -1:
 * darker). The walk goes round once plus n - 1 pixels so that arcs across pixel 0 count. */
static int vf_has_arc(const int d[16], int side, int t, int n) {
  int run = 0;
  for (int i = 0; i < 16 + n - 1; ++i) {
    run = side * d[i & 15] > t ? run + 1 : 0;
    if (run >= n) return 1;
  }
  return 0;
}

/* +1 for an arc of >= n brighter pixels (d > t), -1 for darker (d < -t), else 0. */
static int vf_segment_test(const int d[16], int t, int n) {
  if (vf_has_arc(d, 1, t, n)) return 1;
  return vf_has_arc(d, -1, t, n) ? -1 : 0;
}

/* The score of a corner of the given side at threshold t (integer, > 0). */
static int vf_corner_score(const int d[16], int side, int t, int n, int type) {
  int s = 0;
  if (type == VF_FAST_SCORE_SAD_CIRCLE) {
    for (int i = 0; i < 16; ++i) s += d[i] < 0 ? -d[i] : d[i];
  } else if (type == VF_FAST_SCORE_SAD_ARC) {
    for (int i = 0; i < 16; ++i) {
      int v = side * d[i];
      if (v > t) s += v - t;
    }
  } else {
    /* Largest threshold still passing: binary search, the test being monotonic in t. */
    int lo = t, hi = 255;
    while (hi - lo > 1) {
      int mid = (lo + hi) / 2;
      if (vf_segment_test(d, mid, n) != 0) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    s = lo;
  }
  return s;
}

typedef struct vf_row_ref {
  int level; /* index into job->level */
  int y;
} vf_row_ref;

/* The i-th response row over all levels (rows of level 0 first). */
static vf_row_ref vf_response_row(const vf_fast_job* job, int i) {
  int lo = vf_fast_response_margin(job->border);
  vf_row_ref r = {0, 0};
  for (int l = 0; l < job->levels; ++l) {
    int rows = job->level[l].height - 2 * lo;
    if (rows < 0) rows = 0;
    if (i < rows) {
      r.level = l;
      r.y = lo + i;
      return r;
    }
    i -= rows;
  }
  r.level = -1;
  return r;
}

static void vf_response_rows(int begin, int end, void* arg) {
  const vf_fast_job* job = arg;
  int lo = vf_fast_response_margin(job->border), t = job->threshold;
  for (int i = begin; i < end; ++i) {
    vf_row_ref r = vf_response_row(job, i);
    const vf_fast_level* lv = &job->level[r.level];
    ptrdiff_t off[16];
    for (int k = 0; k < 16; ++k) off[k] = vf_circle[k][1] * (ptrdiff_t)lv->stride + vf_circle[k][0];
    const uint8_t* row = lv->image + (size_t)r.y * lv->stride;
    float* out = lv->response + (size_t)r.y * (size_t)lv->pitch;
    for (int x = lo; x < lv->width - lo; ++x) {
      const uint8_t* p = row + x;
      int c = p[0], d[16];
      out[x] = 0.0f;
      /* An arc of n holds at least n / 4 of the compass points 0, 4, 8, 12 (the high-speed
       * test): most pixels are rejected after reading those four. */
      int up = 0, down = 0, need = job->arc_length / 4;
      for (int k = 0; k < 16; k += 4) {
        d[k] = (int)p[off[k]] - c;
        up += d[k] > t;
        down += d[k] < -t;
      }
      if (up < need && down < need) continue;
      for (int k = 0; k < 16; ++k) d[k] = (int)p[off[k]] - c;
      /* n >= 9 > 16 / 2: at most one side can hold an arc. */
      int side = up >= need && vf_has_arc(d, 1, t, job->arc_length)      ? 1
                 : down >= need && vf_has_arc(d, -1, t, job->arc_length) ? -1
                                                                         : 0;
      if (side != 0) out[x] = (float)vf_corner_score(d, side, t, job->arc_length, job->score);
    }
  }
}

/* A local maximum: beats the neighbours before it in raster order, at least ties those after. */
static int vf_is_maximum(const float* r, int pitch) {
  float v = r[0];
  return v > r[-pitch - 1] && v > r[-pitch] && v > r[-pitch + 1] && v > r[-1] && v >= r[1] &&
         v >= r[pitch - 1] && v >= r[pitch] && v >= r[pitch + 1];
}

static void vf_cell_best(const vf_fast_job* job, int cell, vf_keypoint* out) {
  int cx = cell % job->cols, cy = cell / job->cols, b = job->border;
  vf_keypoint best = {0.0f, 0.0f, 0.0f, -1, cell};
  if (job->occupancy != NULL && job->occupancy[cell] != 0) {
    *out = best;
    return;
  }
  /* Levels, rows and columns ascending with a strict '>' make the first of equal scores win:
   * lower level, then lower y, then lower x (the documented tie rule). */
  for (int l = 0; l < job->levels; ++l) {
    const vf_fast_level* lv = &job->level[l];
    int k = job->first_level + l;
    int cw = job->cell_width >> k, ch = job->cell_height >> k;
    int x0 = cx * cw < b ? b : cx * cw, x1 = cx * cw + cw;
    int y0 = cy * ch < b ? b : cy * ch, y1 = cy * ch + ch;
    if (x1 > lv->width - b) x1 = lv->width - b;
    if (y1 > lv->height - b) y1 = lv->height - b;
    for (int y = y0; y < y1; ++y) {
      const float* row = lv->response + (size_t)y * (size_t)lv->pitch;
      for (int x = x0; x < x1; ++x) {
        if (row[x] > best.score && vf_is_maximum(row + x, lv->pitch)) {
          float scale = (float)(1 << k);
          best.score = row[x];
          best.level = k;
          best.x = ((float)x + 0.5f) * scale - 0.5f;
          best.y = ((float)y + 0.5f) * scale - 0.5f;
        }
      }
    }
  }
  *out = best;
}

static void vf_cell_rows(int begin, int end, void* arg) {
  const vf_fast_job* job = arg;
  for (int cell = begin * job->cols; cell < end * job->cols; ++cell) {
    vf_cell_best(job, cell, &job->cells[cell]);
  }
}

void vf_cpu_fast_detect(const vf_fast_job* job, vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  int lo = vf_fast_response_margin(job->border), rows = 0;
  long pixels = 0;
  for (int l = 0; l < job->levels; ++l) {
    int h = job->level[l].height - 2 * lo, w = job->level[l].width - 2 * lo;
    if (h > 0) rows += h; /* counted as vf_response_row counts them */
    if (h > 0 && w > 0) pixels += (long)h * w;
  }
  /* A thread start costs about what the segment test does on 16K pixels. */
  long useful = pixels / 16384 + 1;
  vf_parallel_for(pool, rows, useful < threads ? (int)useful : threads, vf_response_rows,
                  (void*)job);
  vf_parallel_for(pool, job->rows, threads, vf_cell_rows, (void*)job);
}

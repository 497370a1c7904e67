// SPDX-License-Identifier: BSD-3-Clause
/* CPU FAST reference (Rosten and Drummond, ECCV 2006): the textbook segment test walking the
 * 16-pixel circle, then plain 3x3 non-maxima suppression and the best survivor per grid cell
 * over the searched levels. Rows of all levels, then rows of cells, are split across threads;
 * the segment test runs on 16 pixels at once (vf_simd16.h), the walk and score only on corners.
 * The scores are integers converted to float once, so the CUDA backend gets identical floats. */
#include "features/kernels/vf_fast_cpu.h"

#include "core/vf_parallel.h"
#include "core/vf_simd16.h"
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

/* The segment test and score of one pixel (the textbook walk), 0 when it is no corner. */
static float vf_response_pixel(const vf_fast_job* job, const uint8_t* p, const ptrdiff_t off[16]) {
  const int t = job->threshold, c = p[0];
  int d[16];
  /* An arc of n holds at least n / 4 of the compass points 0, 4, 8, 12 (the high-speed test):
   * most pixels are rejected after reading those four. */
  int up = 0, down = 0, need = job->arc_length / 4;
  for (int k = 0; k < 16; k += 4) {
    d[k] = (int)p[off[k]] - c;
    up += d[k] > t;
    down += d[k] < -t;
  }
  if (up < need && down < need) return 0.0f;
  for (int k = 0; k < 16; ++k) d[k] = (int)p[off[k]] - c;
  /* n >= 9 > 16 / 2: at most one side can hold an arc. */
  int side = up >= need && vf_has_arc(d, 1, t, job->arc_length)      ? 1
             : down >= need && vf_has_arc(d, -1, t, job->arc_length) ? -1
                                                                     : 0;
  return side != 0 ? (float)vf_corner_score(d, side, t, job->arc_length, job->score) : 0.0f;
}

/* Bit i: lane i of the 0/1 masks m (one a circle pixel) holds n contiguous ones round the
 * circle. Runs of 2, 4 and 8 by doubling, so an arc costs a few dozen vector ANDs for 16
 * pixels instead of a walk per pixel; the same test as vf_has_arc, lane by lane. */
static unsigned vf_arc_bits(const vf_u8x16 m[16], int n) {
  vf_u8x16 p2[16], p4[16], any = vf_u8x16_set1(0);
  for (int i = 0; i < 16; ++i) p2[i] = vf_u8x16_and(m[i], m[(i + 1) & 15]);
  for (int i = 0; i < 16; ++i) p4[i] = vf_u8x16_and(p2[i], p2[(i + 2) & 15]);
  for (int i = 0; i < 16; ++i) {
    vf_u8x16 r = vf_u8x16_and(p4[i], p4[(i + 4) & 15]);
    if (n == 9) r = vf_u8x16_and(r, m[(i + 8) & 15]);
    if (n == 10 || n == 11) r = vf_u8x16_and(r, p2[(i + 8) & 15]);
    if (n == 11) r = vf_u8x16_and(r, m[(i + 10) & 15]);
    if (n == 12) r = vf_u8x16_and(r, p4[(i + 8) & 15]);
    any = vf_u8x16_or(any, r);
  }
  return vf_u8x16_nonzero_bits(any);
}

/* Bit i: lane i of the compass masks m[0], m[4], m[8], m[12] (north, east, south, west) could
 * hold an arc of n (see vf_response_block). */
static unsigned vf_compass_bits(const vf_u8x16 m[16], int n) {
  const vf_u8x16 ns = vf_u8x16_or(m[0], m[8]), ew = vf_u8x16_or(m[4], m[12]);
  if (n < 12) return vf_u8x16_nonzero_bits(vf_u8x16_and(ns, ew));
  /* Three of four: both of one axis and one of the other. */
  const vf_u8x16 both_ns = vf_u8x16_and(m[0], m[8]), both_ew = vf_u8x16_and(m[4], m[12]);
  return vf_u8x16_nonzero_bits(vf_u8x16_or(vf_u8x16_and(both_ns, ew), vf_u8x16_and(both_ew, ns)));
}

/* The lanes' sums of 16 byte vectors, in 16 bits (at most 16 x 255). */
static void vf_sum16(const vf_u8x16 v[16], uint16_t out[16]) {
  vf_i16x8 lo = vf_u8x16_widen_lo(v[0]), hi = vf_u8x16_widen_hi(v[0]);
  for (int k = 1; k < 16; ++k) {
    lo = vf_i16x8_add(lo, vf_u8x16_widen_lo(v[k]));
    hi = vf_i16x8_add(hi, vf_u8x16_widen_hi(v[k]));
  }
  vf_i16x8_store(out, lo);
  vf_i16x8_store(out + 8, hi);
}

/* The responses of the 16 pixels from p into out, 0 where no corner. Saturating arithmetic
 * gives d > t as the excess v -sat (c +sat t) > 0 (where c + t > 255 no v is brighter) and
 * d < -t as (c -sat t) -sat v > 0; the excesses summed are the SAD-arc score, and v -sat c
 * plus c -sat v is |d| for the SAD-circle one. The largest-threshold score takes the walk. */
static void vf_response_block(const vf_fast_job* job, const uint8_t* p, const ptrdiff_t off[16],
                              float* out) {
  const vf_u8x16 c = vf_u8x16_load(p), t = vf_u8x16_set1((uint8_t)job->threshold);
  const vf_u8x16 hi = vf_u8x16_adds(c, t), lo = vf_u8x16_subs(c, t), one = vf_u8x16_set1(1);
  vf_u8x16 bright[16], dark[16], bright_mask[16], dark_mask[16];
  /* The compass pixels first: an arc of n >= 9 holds n / 4 of them in a row round the circle
   * (for n < 12 one of north and south with one of east and west, for n = 12 three of four), so
   * a block where no pixel has that on either side has no corner and ends here. */
  for (int k = 0; k < 16; k += 4) {
    const vf_u8x16 v = vf_u8x16_load(p + off[k]);
    bright[k] = vf_u8x16_subs(v, hi);
    dark[k] = vf_u8x16_subs(lo, v);
    bright_mask[k] = vf_u8x16_min(bright[k], one);
    dark_mask[k] = vf_u8x16_min(dark[k], one);
  }
  if ((vf_compass_bits(bright_mask, job->arc_length) |
       vf_compass_bits(dark_mask, job->arc_length)) == 0) {
    for (int k = 0; k < 16; ++k) out[k] = 0.0f;
    return;
  }
  for (int k = 0; k < 16; ++k) {
    if (k % 4 == 0) continue;
    const vf_u8x16 v = vf_u8x16_load(p + off[k]);
    bright[k] = vf_u8x16_subs(v, hi);
    dark[k] = vf_u8x16_subs(lo, v);
    bright_mask[k] = vf_u8x16_min(bright[k], one);
    dark_mask[k] = vf_u8x16_min(dark[k], one);
  }
  const unsigned up = vf_arc_bits(bright_mask, job->arc_length);
  const unsigned down = vf_arc_bits(dark_mask, job->arc_length);
  for (int k = 0; k < 16; ++k) out[k] = 0.0f;
  if ((up | down) == 0) return;
  uint16_t up_score[16], down_score[16];
  if (job->score == VF_FAST_SCORE_SAD_ARC) {
    vf_sum16(bright, up_score);
    vf_sum16(dark, down_score);
  } else if (job->score == VF_FAST_SCORE_SAD_CIRCLE) {
    vf_u8x16 above[16], below[16];
    for (int k = 0; k < 16; ++k) {
      const vf_u8x16 v = vf_u8x16_load(p + off[k]);
      above[k] = vf_u8x16_subs(v, c);
      below[k] = vf_u8x16_subs(c, v);
    }
    vf_sum16(above, up_score);
    vf_sum16(below, down_score);
    for (int k = 0; k < 16; ++k) up_score[k] = down_score[k] = up_score[k] + down_score[k];
  }
  for (int k = 0; k < 16; ++k) {
    if (((up | down) >> k & 1u) == 0) continue;
    if (job->score == VF_FAST_SCORE_MAX_THRESHOLD)
      out[k] = vf_response_pixel(job, p + k, off);
    else
      out[k] = (float)(up >> k & 1u ? up_score[k] : down_score[k]);
  }
}

/* The cell column or row of pixel v of a level whose cells are `size` pixels, clamped to the
 * grid (pixels past the last cell belong to it for the neighbours' reads). */
static int vf_cell_of(int v, int size, int count) {
  const int c = v < 0 ? 0 : v / size;
  return c < count ? c : count - 1;
}

/* Which cell columns row y of level l must have responses for: those with an empty cell in the
 * cell rows of y - 1, y and y + 1 (a candidate's maximum test reads its 8 neighbours). Occupied
 * cells are not searched, so with tracks in most cells most of the image is skipped; skipped
 * pixels keep older responses that no search reads. Returns 0 when no column is needed. */
static int vf_row_columns(const vf_fast_job* job, int l, int y, uint8_t* need) {
  const int k = job->first_level + l, ch = job->cell_height >> k;
  int any = 0;
  for (int cx = 0; cx < job->cols; ++cx) {
    need[cx] = 0;
    for (int dy = -1; dy <= 1 && !need[cx]; ++dy) {
      need[cx] = job->occupancy[vf_cell_of(y + dy, ch, job->rows) * job->cols + cx] == 0;
    }
    any |= need[cx];
  }
  return any;
}

/* Responses of pixels x0..x1 - 1 of a row whose circles fit in lo..x_end - 1: 16 at a time; the
 * rest as one more block ending at x1 or at the row's end (it recomputes a few pixels, or computes
 * some outside the span: the same values, and cheaper than the segment test one pixel at a time,
 * which runs of 8-pixel cells on level 2 would otherwise take throughout). */
static void vf_response_span(const vf_fast_job* job, const uint8_t* row, const ptrdiff_t off[16],
                             float* out, int x0, int x1, int lo, int x_end) {
  int x = x0;
  for (; x + 16 <= x1; x += 16) vf_response_block(job, row + x, off, out + x);
  if (x >= x1) return;
  if (x_end - lo >= 16) {
    const int last = x < x_end - 16 ? x : x_end - 16;
    vf_response_block(job, row + last, off, out + last);
    return;
  }
  for (; x < x1; ++x) out[x] = vf_response_pixel(job, row + x, off);
}

static void vf_response_rows(int begin, int end, void* arg) {
  const vf_fast_job* job = arg;
  const int lo = vf_fast_response_margin(job->border);
  const int pick = job->occupancy != NULL && job->cols <= VF_FAST_MAX_COLS;
  uint8_t need[VF_FAST_MAX_COLS];
  for (int i = begin; i < end; ++i) {
    vf_row_ref r = vf_response_row(job, i);
    if (pick && !vf_row_columns(job, r.level, r.y, need)) continue;
    const vf_fast_level* lv = &job->level[r.level];
    ptrdiff_t off[16];
    for (int k = 0; k < 16; ++k) off[k] = vf_circle[k][1] * (ptrdiff_t)lv->stride + vf_circle[k][0];
    const uint8_t* row = lv->image + (size_t)r.y * lv->stride;
    float* out = lv->response + (size_t)r.y * (size_t)lv->pitch;
    /* The circle stays inside the row's margin: pixels lo..width - lo - 1. */
    const int x_end = lv->width - lo;
    if (!pick) {
      vf_response_span(job, row, off, out, lo, x_end, lo, x_end);
      continue;
    }
    /* Runs of needed cell columns, each with a pixel more on both sides for the neighbours'
     * reads; the last cell column reaches the row's end. */
    const int cw = job->cell_width >> (job->first_level + r.level);
    for (int cx = 0; cx < job->cols;) {
      if (!need[cx]) {
        ++cx;
        continue;
      }
      const int first = cx;
      while (cx < job->cols && need[cx]) ++cx;
      const int x0 = first * cw - 1, x1 = cx == job->cols ? x_end : cx * cw + 1;
      vf_response_span(job, row, off, out, x0 > lo ? x0 : lo, x1 < x_end ? x1 : x_end, lo, x_end);
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

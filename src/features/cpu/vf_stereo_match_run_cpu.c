// SPDX-License-Identifier: BSD-3-Clause
/* The whole-pixel search of the CPU sparse stereo match (vf_match_run of
 * src/features/kernels/vf_stereo_match_rules.h) with the same integer results, its costs 8
 * pixels at a time in 16-bit lanes (src/core/vf_simd16_sad.h); the correlation and texture
 * tests (vf_match_zncc, vf_match_textured) likewise, their integer sums in lanes.
 *
 * The rules' cost of a disparity is sum |e| over the window's n pixels, e = n (f - m) - off,
 * off the difference of the windows' sums; its terms need 18 bits. The e sum to 0, so the cost is
 * 2 sum max(e, 0). With off = n q + r (q = floor(off / n), 0 <= r < n) and k = f - m - q, e =
 * n k - r is positive exactly where k > 0: the cost is 2 (n K - r P), K the sum of max(k, 0)
 * and P the count of k > 0. max(k, 0) <= 510 fits 16 bits: an unsigned saturating difference of
 * f + 256 and m + q + 256. The moving image's band (the rows of the window, the columns of every
 * disparity) is widened to 16 bits once per search. */
#include <string.h>

#include "core/vf_cpu_avx2.h"
#include "core/vf_simd16_sad.h"
#include "features/kernels/vf_stereo_match_cpu.h"
#include "features/kernels/vf_stereo_match_point.h"

/* The windows this path takes: two vectors a row, rows few enough that a lane's sum of up to
 * 2 rows max(k, 0) (510 each) stays below 2^15. Larger ones take the rules' loop. */
#define VF_MATCH_FAST_COLS 16
#define VF_MATCH_FAST_ROWS (2 * VF_STEREO_MATCH_MAX_RADIUS + 1)
#define VF_MATCH_BAND (VF_STEREO_MATCH_MAX_DISPARITY + 2 * VF_MATCH_FAST_COLS)

/* The rows of the fixed window (f, plus 256; the lanes past its columns too) and of the moving
 * image's band (m), widened, and their shapes. */
typedef struct vf_match_band {
  int16_t f[VF_MATCH_FAST_ROWS][VF_MATCH_FAST_COLS];
  int16_t m[VF_MATCH_FAST_ROWS][VF_MATCH_BAND]; /* zeros up to 7 columns past width */
  int rows, cols, width;                        /* width: the band's columns (then zeros) */
} vf_match_band;

/* Lane masks: the vector at vf_match_lane_mask + 32 - n keeps its first n lanes (n <= 16; at
 * + 40 - n, lanes 8..n-1 of the next vector), the one at + 8 + m its last m lanes (m <= 8). */
static const int16_t vf_match_lane_mask[48] = {0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,
                                               0,  0,  0,  0,  0,  -1, -1, -1, -1, -1, -1,
                                               -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};

/* Columns 0..count-1 of an image row, widened into out[0..count-1], then zeros up to out[end - 1]
 * at least (whole vectors: out has room for end rounded up to 8). Reads only those columns (a
 * last vector that overlaps the one before it) or, below 8 columns, 8 bytes where the row holds
 * them (avail: the row's bytes from p on), else single bytes. */
static void vf_match_widen(const uint8_t* p, int count, int avail, int end, int16_t* out) {
  for (int i = count & ~7; i < end; i += 8) vf_i16x8_store(out + i, vf_i16x8_set1(0));
  if (count < 8) {
    if (avail >= 8) {
      const vf_i16x8 keep = vf_i16x8_load(vf_match_lane_mask + 32 - count);
      vf_i16x8_store(out, vf_i16x8_and(vf_i16x8_from_u8(p), keep));
    } else {
      for (int i = 0; i < count; ++i) out[i] = p[i];
    }
    return;
  }
  for (int i = 0; i + 8 <= count; i += 8) vf_i16x8_store(out + i, vf_i16x8_from_u8(p + i));
  if (count % 8 != 0) vf_i16x8_store(out + count - 8, vf_i16x8_from_u8(p + count - 8));
}

/* off = n q + r with 0 <= r < n (the floor division; n > 0). */
static inline void vf_match_divide(int32_t off, int32_t n, int32_t* q, int32_t* r) {
  *q = off / n;
  *q -= off - *q * n < 0;
  *r = off - *q * n;
}

/* The moving window at band column `at`: off = the fixed window's sum less its sum, divided as
 * above. */
static inline void vf_match_split(const vf_match_band* b, int32_t sf, const int32_t* prefix, int at,
                                  int32_t* q, int32_t* r) {
  vf_match_divide(sf - (prefix[at + b->cols] - prefix[at]), b->rows * b->cols, q, r);
}

/* The cost 2 (n K - r P) from the window's lane sums of max(k, 0) (k) and minus its counts of
 * k <= 0 (z; P = n - Z). */
static inline int32_t vf_match_cost_of(vf_i16x8 k, vf_i16x8 z, int32_t n, int32_t r) {
  return vf_i16x8_dot(k, vf_i16x8_set1((int16_t)(2 * n))) +
         vf_i16x8_dot(z, vf_i16x8_set1((int16_t)(-2 * r))) - 2 * r * n;
}

/* The costs of count disparities, the e-th's moving window at band column at0 + step e; chunks:
 * vectors a row (1 or 2). Inlined once per chunk count, so that the loop over the rows knows
 * it. */
static inline void vf_match_costs(const vf_match_band* b, int chunks, int32_t sf,
                                  const int32_t* prefix, int count, int at0, int step,
                                  int32_t* cost) {
  const int32_t n = b->rows * b->cols;
  /* the lanes of the window's columns */
  const vf_i16x8 keep0 = vf_i16x8_load(vf_match_lane_mask + 32 - b->cols),
                 keep1 = vf_i16x8_load(vf_match_lane_mask + 40 - b->cols);
  const vf_i16x8 zero = vf_i16x8_set1(0);
  for (int e = 0; e < count; ++e) {
    const int at = at0 + step * e;
    int32_t q, r;
    vf_match_split(b, sf, prefix, at, &q, &r);
    const vf_i16x8 qv = vf_i16x8_set1((int16_t)(q + 256));
    /* k: the lanes' sums of max(k, 0); z: minus their counts of k <= 0. */
    vf_i16x8 k0 = zero, k1 = zero, z0 = zero, z1 = zero;
    for (int j = 0; j < b->rows; ++j) {
      const int16_t* m = &b->m[j][at];
      const vf_i16x8 p0 =
          vf_i16x8_subs_u(vf_i16x8_load(b->f[j]), vf_i16x8_add(vf_i16x8_load(m), qv));
      k0 = vf_i16x8_add(k0, p0);
      z0 = vf_i16x8_add(z0, vf_i16x8_eq(p0, zero));
      if (chunks == 2) {
        const vf_i16x8 p1 =
            vf_i16x8_subs_u(vf_i16x8_load(b->f[j] + 8), vf_i16x8_add(vf_i16x8_load(m + 8), qv));
        k1 = vf_i16x8_add(k1, p1);
        z1 = vf_i16x8_add(z1, vf_i16x8_eq(p1, zero));
      }
    }
    /* The lanes past the window's columns summed garbage: masked once here. P = n - Z. */
    const vf_i16x8 k = vf_i16x8_add(vf_i16x8_and(k0, keep0), vf_i16x8_and(k1, keep1));
    const vf_i16x8 z = vf_i16x8_add(vf_i16x8_and(z0, keep0), vf_i16x8_and(z1, keep1));
    cost[e] = vf_match_cost_of(k, z, n, r);
  }
}

#ifdef VF_AVX2
/* vf_match_costs for windows of 9..16 columns where the CPU has AVX2 (asked at run time): a row's
 * 16 lanes in one 32-byte vector instead of two, the two halves added at the end as
 * vf_match_costs adds its two vectors: the same integers. */
static VF_AVX2_TARGET void vf_match_costs_avx2(const vf_match_band* b, int32_t sf,
                                               const int32_t* prefix, int count, int at0, int step,
                                               int32_t* cost) {
  const int32_t n = b->rows * b->cols;
  const __m256i keep = _mm256_loadu_si256((const __m256i*)(vf_match_lane_mask + 32 - b->cols));
  const __m256i zero = _mm256_setzero_si256();
  for (int e = 0; e < count; ++e) {
    const int at = at0 + step * e;
    int32_t q, r;
    vf_match_split(b, sf, prefix, at, &q, &r);
    const __m256i qv = _mm256_set1_epi16((int16_t)(q + 256));
    __m256i k = zero, z = zero;
    for (int j = 0; j < b->rows; ++j) {
      const __m256i m = _mm256_loadu_si256((const __m256i*)&b->m[j][at]);
      const __m256i p =
          _mm256_subs_epu16(_mm256_loadu_si256((const __m256i*)b->f[j]), _mm256_add_epi16(m, qv));
      k = _mm256_add_epi16(k, p);
      z = _mm256_add_epi16(z, _mm256_cmpeq_epi16(p, zero));
    }
    k = _mm256_and_si256(k, keep);
    z = _mm256_and_si256(z, keep);
    const vf_i16x8 k8 = _mm_add_epi16(_mm256_castsi256_si128(k), _mm256_extracti128_si256(k, 1));
    const vf_i16x8 z8 = _mm_add_epi16(_mm256_castsi256_si128(z), _mm256_extracti128_si256(z, 1));
    cost[e] = vf_match_cost_of(k8, z8, n, r);
  }
}
#endif

/* Whether the search's vectors take window w: its lane sums stay below 2^15 and 2^31. */
static int vf_match_fits(const vf_match_rect* w) {
  const int cols = w->x1 - w->x0 + 1, rows = w->y1 - w->y0 + 1;
  return cols >= 1 && cols <= VF_MATCH_FAST_COLS && rows >= 1 && rows <= VF_MATCH_FAST_ROWS;
}

vf_match_search vf_cpu_match_run(const uint8_t* f, size_t f_stride, const uint8_t* m,
                                 size_t m_stride, int width, int xf, int y, int sign, int lo,
                                 int hi, const vf_match_rect* w) {
  if (!vf_match_fits(w))
    return vf_match_run(f, f_stride, m, m_stride, width, xf, y, sign, lo, hi, w);
  const int cols = w->x1 - w->x0 + 1, rows = w->y1 - w->y0 + 1;
  vf_match_search s = vf_match_begin(width, xf, sign, lo, hi, w);
  lo = s.lo;
  hi = s.hi;
  if (lo > hi) return s;
  vf_match_band b;
  b.rows = rows;
  b.cols = cols;
  /* The band's columns c0..c1: every moving window's. */
  const int c0 = (sign > 0 ? xf - hi : xf + lo) + w->x0,
            c1 = (sign > 0 ? xf - lo : xf + hi) + w->x1;
  b.width = c1 - c0 + 1;
  /* The fixed window's sum from its rows' lanes (at most 2 x 15 x 255 a lane). */
  const vf_i16x8 offset = vf_i16x8_set1(256);
  vf_i16x8 fsum = vf_i16x8_set1(0);
  for (int j = 0; j < rows; ++j) {
    int16_t* fr = b.f[j];
    vf_match_widen(f + (size_t)(y + w->y0 + j) * f_stride + (size_t)(xf + w->x0), cols,
                   width - (xf + w->x0), VF_MATCH_FAST_COLS, fr);
    const vf_i16x8 f0 = vf_i16x8_load(fr), f1 = vf_i16x8_load(fr + 8);
    fsum = vf_i16x8_add(fsum, vf_i16x8_add(f0, f1));
    vf_i16x8_store(fr, vf_i16x8_add(f0, offset));
    vf_i16x8_store(fr + 8, vf_i16x8_add(f1, offset));
    /* A window's vectors read up to 7 columns past the band's last. */
    vf_match_widen(m + (size_t)(y + w->y0 + j) * m_stride + (size_t)c0, b.width, width - c0,
                   b.width + 7, b.m[j]);
  }
  const int32_t sf = vf_i16x8_dot(fsum, vf_i16x8_set1(1));
  /* Prefix sums of the band's column sums (at most 15 x 255: 16 bits, summed a vector at a
   * time over the rows): each moving window's sum in two reads. */
  int16_t column[VF_MATCH_BAND];
  for (int c = 0; c < b.width; c += 8) {
    vf_i16x8 sum = vf_i16x8_load(b.m[0] + c);
    for (int j = 1; j < rows; ++j) sum = vf_i16x8_add(sum, vf_i16x8_load(b.m[j] + c));
    vf_i16x8_store(column + c, sum);
  }
  int32_t prefix[VF_MATCH_BAND + 1];
  prefix[0] = 0;
  for (int c = 0; c < b.width; ++c) prefix[c + 1] = prefix[c] + column[c];
  const int count = hi - lo + 1;
  /* Disparity lo + e: its moving window at band column hi - lo - e (sign +1) or e (-1). */
  const int at0 = sign > 0 ? hi - lo : 0, step = sign > 0 ? -1 : 1;
  int32_t cost[VF_STEREO_MATCH_MAX_DISPARITY + 1];
  int wide = 0;
#ifdef VF_AVX2
  wide = cols > 8 && vf_cpu_avx2();
  if (wide) vf_match_costs_avx2(&b, sf, prefix, count, at0, step, cost);
#endif
  if (!wide && cols > 8)
    vf_match_costs(&b, 2, sf, prefix, count, at0, step, cost);
  else if (!wide)
    vf_match_costs(&b, 1, sf, prefix, count, at0, step, cost);
  vf_match_pick(cost, &s);
  return s;
}

/* Whether a window of w at column x loads as vf_match_window_row does: below 8 columns it reads
 * the bytes before the window's first column, which must lie in its row. */
static int vf_match_row_loads(const vf_match_rect* w, int x) {
  const int cols = w->x1 - w->x0 + 1;
  return cols >= 8 || x + w->x0 >= 8 - cols;
}

/* Row j of the window w of img at column x, row y, in two vectors: its pixels in some lanes and
 * zeros in the others, the same lanes for every window of w (sums over the lanes do not see
 * where a pixel lies, and two windows' products pair their pixels). Reads the window's row, then
 * the last 8 of its columns, or below 8 columns the 8 bytes that end with it. */
static void vf_match_window_row(const uint8_t* img, size_t stride, int x, int y,
                                const vf_match_rect* w, int j, vf_i16x8 v[2]) {
  const int cols = w->x1 - w->x0 + 1;
  const uint8_t* p = img + (size_t)(y + w->y0 + j) * stride + (size_t)(x + w->x0);
  const int last = cols > 8 ? cols - 8 : cols; /* the lanes that the last vector adds */
  const vf_i16x8 end =
      vf_i16x8_and(vf_i16x8_from_u8(p + cols - 8), vf_i16x8_load(vf_match_lane_mask + 8 + last));
  v[0] = cols >= 8 ? vf_i16x8_from_u8(p) : end;
  v[1] = cols > 8 ? end : vf_i16x8_set1(0);
}

float vf_cpu_match_zncc(const uint8_t* a, size_t sa, int xa, const uint8_t* b, size_t sb, int xb,
                        int y, const vf_match_rect* w) {
  if (!vf_match_fits(w) || !vf_match_row_loads(w, xa) || !vf_match_row_loads(w, xb))
    return vf_match_zncc(a, sa, xa, b, sb, xb, y, w);
  vf_i16x8 s_a = vf_i16x8_set1(0), s_b = s_a;
  vf_i32x4 s_aa = vf_i32x4_zero(), s_bb = s_aa, s_ab = s_aa;
  for (int j = 0; j <= w->y1 - w->y0; ++j) {
    vf_i16x8 u[2], v[2];
    vf_match_window_row(a, sa, xa, y, w, j, u);
    vf_match_window_row(b, sb, xb, y, w, j, v);
    for (int c = 0; c < 2; ++c) {
      s_a = vf_i16x8_add(s_a, u[c]);
      s_b = vf_i16x8_add(s_b, v[c]);
      s_aa = vf_i32x4_add(s_aa, vf_i16x8_madd(u[c], u[c]));
      s_bb = vf_i32x4_add(s_bb, vf_i16x8_madd(v[c], v[c]));
      s_ab = vf_i32x4_add(s_ab, vf_i16x8_madd(u[c], v[c]));
    }
  }
  const vf_i16x8 one = vf_i16x8_set1(1);
  return vf_match_zncc_sums(vf_match_rect_size(w), vf_i16x8_dot(s_a, one), vf_i16x8_dot(s_b, one),
                            vf_i32x4_sum(s_aa), vf_i32x4_sum(s_bb), vf_i32x4_sum(s_ab));
}

int vf_cpu_match_textured(const uint8_t* img, size_t stride, int x, int y, int r) {
  const vf_match_rect w = {-r, r, -r, r};
  if (!vf_match_fits(&w) || !vf_match_row_loads(&w, x))
    return vf_match_textured(img, stride, x, y, r);
  vf_i16x8 s1 = vf_i16x8_set1(0);
  vf_i32x4 s2 = vf_i32x4_zero();
  for (int j = 0; j <= 2 * r; ++j) {
    vf_i16x8 v[2];
    vf_match_window_row(img, stride, x, y, &w, j, v);
    for (int c = 0; c < 2; ++c) {
      s1 = vf_i16x8_add(s1, v[c]);
      s2 = vf_i32x4_add(s2, vf_i16x8_madd(v[c], v[c]));
    }
  }
  return vf_match_textured_sums(vf_match_rect_size(&w), vf_i16x8_dot(s1, vf_i16x8_set1(1)),
                                vf_i32x4_sum(s2));
}

/* The costs of cell-sized windows (radius r, 8 columns or fewer) of f at column x, row y against
 * m at x - d for d = lo..hi into cost[d - lo] (vf_match_zsad's integers): a row is one vector
 * (vf_match_window_row), the fixed window's rows widened once for every disparity, each cost by
 * the identity above. Where such a row would start before the image's row: the rules' sums. */
static void vf_match_cell_costs(const uint8_t* f, size_t fs, const uint8_t* m, size_t ms, int x,
                                int y, int r, int lo, int hi, int32_t* cost) {
  const vf_match_rect w = {-r, r, -r, r};
  const int side = 2 * r + 1;
  const int32_t n = side * side;
  if (!vf_match_row_loads(&w, x) || !vf_match_row_loads(&w, x - hi)) {
    const int32_t sf = vf_match_sum(f, fs, x, y, &w);
    for (int d = lo; d <= hi; ++d)
      cost[d - lo] =
          vf_match_zsad(f, fs, x, m, ms, x - d, y, &w, sf, vf_match_sum(m, ms, x - d, y, &w));
    return;
  }
  const vf_i16x8 keep = vf_i16x8_load(vf_match_lane_mask + 8 + side);
  const vf_i16x8 zero = vf_i16x8_set1(0), one = vf_i16x8_set1(1), plus = vf_i16x8_set1(256);
  vf_i16x8 fr[8], fsum = zero;
  for (int j = 0; j < side; ++j) {
    vf_i16x8 v[2];
    vf_match_window_row(f, fs, x, y, &w, j, v);
    fsum = vf_i16x8_add(fsum, v[0]);
    fr[j] = vf_i16x8_add(v[0], plus);
  }
  const int32_t sf = vf_i16x8_dot(fsum, one);
  for (int d = lo; d <= hi; ++d) {
    vf_i16x8 mr[8], msum = zero;
    for (int j = 0; j < side; ++j) {
      vf_i16x8 v[2];
      vf_match_window_row(m, ms, x - d, y, &w, j, v);
      mr[j] = v[0];
      msum = vf_i16x8_add(msum, mr[j]);
    }
    int32_t q, rem;
    vf_match_divide(sf - vf_i16x8_dot(msum, one), n, &q, &rem);
    const vf_i16x8 qv = vf_i16x8_set1((int16_t)(q + 256));
    vf_i16x8 k = zero, z = zero;
    for (int j = 0; j < side; ++j) {
      const vf_i16x8 p = vf_i16x8_subs_u(fr[j], vf_i16x8_add(mr[j], qv));
      k = vf_i16x8_add(k, p);
      z = vf_i16x8_add(z, vf_i16x8_eq(p, zero));
    }
    /* The lanes before the window's columns (256 against q + 256) summed max(-q, 0): masked. */
    cost[d - lo] = vf_match_cost_of(vf_i16x8_and(k, keep), vf_i16x8_and(z, keep), n, rem);
  }
}

void vf_cpu_match_cells(const uint8_t* left, size_t ls, const uint8_t* right, size_t rs, int width,
                        int xi, int yi, int d, int cr, float cell[9], int valid[9]) {
  const vf_match_rect w = {-cr, cr, -cr, cr};
  for (int k = 0; k < 9; ++k) {
    int cx, cy;
    vf_match_search s = vf_match_cell_search(width, xi, yi, d, cr, k, &cx, &cy);
    valid[k] = vf_cpu_match_textured(left, ls, cx, cy, cr);
    cell[k] = 0.0f;
    if (!valid[k]) continue;
    if (2 * cr + 1 > 8) {
      s = vf_cpu_match_run(left, ls, right, rs, width, cx, cy, 1, d - VF_STEREO_MATCH_STEP_REACH,
                           d + VF_STEREO_MATCH_STEP_REACH, &w);
    } else if (s.lo <= s.hi) {
      int32_t cost[2 * VF_STEREO_MATCH_STEP_REACH + 1];
      vf_match_cell_costs(left, ls, right, rs, cx, cy, cr, s.lo, s.hi, cost);
      vf_match_pick(cost, &s);
    }
    valid[k] = s.lo <= s.hi;
    cell[k] = (float)s.d + vf_match_vertex(s.cm, s.cost, s.cp);
  }
}

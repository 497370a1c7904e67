// SPDX-License-Identifier: BSD-3-Clause
/* CPU disparity selection from the summed costs S, one row at a time: winner takes all (smallest
 * index on ties), uniqueness against the best cost outside +-1 of the winner, right-image
 * disparities argmin_k S(xr + min + k, k) for the left-right check, sub-pixel V fit
 * (src/stereo/kernels/vf_sgm_rules.h); and the 3x3 median. Loops over blocks of 64 disparities
 * vectorize. Where the CPU has AVX2 (asked at run time) the right winners and each pixel's first
 * winning index are 16 sums a vector in intrinsics instead (GCC built each block's index vector
 * lane by lane, which cost more than the comparisons): the same integers. */
#include <string.h>

#include "core/vf_cpu_avx2.h"
#include "core/vf_parallel.h"
#include "stereo/kernels/vf_sgm_cpu.h"
#include "viofront/vf_stereo.h"

#define VF_BLOCK 64

/* Every right pixel's winner before the first left pixel: none (the w + min + D entries). */
static void vf_right_winners_reset(const vf_sgm_params* p, int16_t* val, int16_t* best_k) {
  const int n = p->width + p->min_disparity + p->disparities;
  for (int t = 0; t < n; ++t) {
    val[t] = INT16_MAX;
    best_k[t] = -1;
  }
}

/* Right pixel xr's winner, stored at t = w - 1 - xr: left pixel x meets t = w - 1 - x + min + k,
 * ascending in k. Going through x upwards visits each t's k in increasing order, so a strict <
 * keeps the smallest k on ties. t >= w (xr < 0) collects nothing used. */
__attribute__((always_inline)) static inline void vf_right_winners(const vf_sgm_params* p,
                                                                   const int16_t* sum,
                                                                   int16_t* restrict val,
                                                                   int16_t* restrict best_k) {
  int w = p->width, D = p->disparities;
  vf_right_winners_reset(p, val, best_k);
  for (int x = 0; x < w; ++x) {
    for (int b = 0; b < D; b += VF_BLOCK) {
      const int16_t* restrict s = sum + (size_t)x * D + b;
      int16_t* restrict v = val + (w - 1 - x + p->min_disparity + b);
      int16_t* restrict kk = best_k + (w - 1 - x + p->min_disparity + b);
      /* 16-bit counters (here and below) keep the vectorized index arithmetic in 16-bit lanes. */
      int16_t i = (int16_t)b;
      for (int k = 0; k < VF_BLOCK; ++k, ++i) {
        int better = s[k] < v[k];
        v[k] = better ? s[k] : v[k];
        kk[k] = better ? i : kk[k];
      }
    }
  }
}

/* The first k with cost `best`, and in *below the number of costs under thr; masks instead of
 * branches (and costs >= 0) let the pass vectorize. */
__attribute__((always_inline)) static inline int vf_first_index(const int16_t* s, int D, int best,
                                                                int thr, int* below) {
  int16_t m = INT16_MAX, value = (int16_t)best, t = (int16_t)thr, n = 0;
  for (int b = 0; b < D; b += VF_BLOCK) {
    int16_t i = (int16_t)b;
    for (int k = 0; k < VF_BLOCK; ++k, ++i) {
      int16_t other = (int16_t)(0 - (s[b + k] != value));
      int16_t c = (int16_t)((i | other) & INT16_MAX);
      m = c < m ? c : m;
      n = (int16_t)(n + (s[b + k] < t));
    }
  }
  *below = n;
  return m;
}

/* The uniqueness rule fails (best * 1024 > second * q, second the smallest cost at
 * |k - k_best| > 1) exactly when some such cost s has s * q < best * 1024, that is s < thr. */
void vf_cpu_sgm_unique_thresholds(const vf_sgm_params* p, int16_t* thr, int max_sum) {
  int q = p->uniqueness_q;
  for (int best = 0; best <= max_sum; ++best) {
    long t = q >= VF_UNIQUENESS_ONE ? 0
             : q == 0               ? (best > 0 ? INT16_MAX : 0)
                                    : ((long)best * VF_UNIQUENESS_ONE + q - 1) / q;
    thr[best] = (int16_t)(t < INT16_MAX ? t : INT16_MAX); /* costs stay far below INT16_MAX */
  }
}

#ifdef VF_AVX2
/* vf_right_winners, 16 sums a vector: a lane takes the sum and its k where the sum is smaller. */
static inline VF_AVX2_TARGET void vf_right_winners_avx2(const vf_sgm_params* p, const int16_t* sum,
                                                        int16_t* val, int16_t* best_k) {
  int w = p->width, D = p->disparities;
  vf_right_winners_reset(p, val, best_k);
  const __m256i lanes = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (int x = 0; x < w; ++x) {
    const int16_t* s = sum + (size_t)x * D;
    int16_t* v = val + (w - 1 - x + p->min_disparity);
    int16_t* kk = best_k + (w - 1 - x + p->min_disparity);
    for (int b = 0; b < D; b += 16) {
      const __m256i sv = _mm256_loadu_si256((const __m256i*)(s + b));
      const __m256i vv = _mm256_loadu_si256((const __m256i*)(v + b));
      const __m256i kv = _mm256_loadu_si256((const __m256i*)(kk + b));
      const __m256i better = _mm256_cmpgt_epi16(vv, sv);
      const __m256i k = _mm256_add_epi16(lanes, _mm256_set1_epi16((int16_t)b));
      _mm256_storeu_si256((__m256i*)(v + b), _mm256_min_epi16(vv, sv));
      _mm256_storeu_si256((__m256i*)(kk + b), _mm256_blendv_epi8(kv, k, better));
    }
  }
}

/* Lane i of cur becomes lane i - 1's value, lane 0 takes lane 15 of below: one 16-bit lane up
 * across a window held in consecutive vectors. */
static inline VF_AVX2_TARGET __m256i vf_lane_up(__m256i cur, __m256i below) {
  return _mm256_alignr_epi8(cur, _mm256_permute2x128_si256(cur, below, 0x03), 14);
}

/* vf_right_winners_avx2 for 64 disparities with the window in registers: left pixel x meets the
 * right winners t = T .. T + 63 (T = w - 1 - x + min), so from x to x + 1 the window moves one
 * t down; the t that leaves it is final and is stored, the others move one lane up. The memory
 * version's loads each overlapped the previous pixel's stores, which the CPU cannot forward. */
static inline VF_AVX2_TARGET void vf_right_winners64_avx2(const vf_sgm_params* p,
                                                          const int16_t* sum, int16_t* val,
                                                          int16_t* best_k) {
  const int w = p->width;
  vf_right_winners_reset(p, val, best_k);
  const __m256i none_v = _mm256_set1_epi16(INT16_MAX), none_k = _mm256_set1_epi16(-1);
  const __m256i i0 = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m256i i1 = _mm256_add_epi16(i0, _mm256_set1_epi16(16));
  const __m256i i2 = _mm256_add_epi16(i0, _mm256_set1_epi16(32));
  const __m256i i3 = _mm256_add_epi16(i0, _mm256_set1_epi16(48));
  __m256i v0 = none_v, v1 = none_v, v2 = none_v, v3 = none_v;
  __m256i k0 = none_k, k1 = none_k, k2 = none_k, k3 = none_k;
  int T = w - 1 + p->min_disparity;
  for (int x = 0; x < w; ++x, --T) {
    if (x > 0) {
      val[T + 64] = (int16_t)_mm256_extract_epi16(v3, 15);
      best_k[T + 64] = (int16_t)_mm256_extract_epi16(k3, 15);
      v3 = vf_lane_up(v3, v2);
      v2 = vf_lane_up(v2, v1);
      v1 = vf_lane_up(v1, v0);
      v0 = vf_lane_up(v0, none_v);
      k3 = vf_lane_up(k3, k2);
      k2 = vf_lane_up(k2, k1);
      k1 = vf_lane_up(k1, k0);
      k0 = vf_lane_up(k0, none_k);
    }
    const int16_t* s = sum + (size_t)x * 64;
#define VF_WIN(J)                                                          \
  {                                                                        \
    const __m256i sv = _mm256_loadu_si256((const __m256i*)(s + 16 * (J))); \
    k##J = _mm256_blendv_epi8(k##J, i##J, _mm256_cmpgt_epi16(v##J, sv));   \
    v##J = _mm256_min_epi16(v##J, sv);                                     \
  }
    VF_WIN(0)
    VF_WIN(1)
    VF_WIN(2)
    VF_WIN(3)
#undef VF_WIN
  }
  /* The last pixel's window, t = min .. min + 63. */
  int16_t* v = val + p->min_disparity;
  int16_t* kk = best_k + p->min_disparity;
  _mm256_storeu_si256((__m256i*)v, v0);
  _mm256_storeu_si256((__m256i*)(v + 16), v1);
  _mm256_storeu_si256((__m256i*)(v + 32), v2);
  _mm256_storeu_si256((__m256i*)(v + 48), v3);
  _mm256_storeu_si256((__m256i*)kk, k0);
  _mm256_storeu_si256((__m256i*)(kk + 16), k1);
  _mm256_storeu_si256((__m256i*)(kk + 32), k2);
  _mm256_storeu_si256((__m256i*)(kk + 48), k3);
}

/* vf_first_index, 16 sums a vector: the lanes equal to best and under thr as bits (two a lane),
 * the first of the one and the count of the other. */
static inline VF_AVX2_TARGET int vf_first_index_avx2(const int16_t* s, int D, int best, int thr,
                                                     int* below) {
  const __m256i value = _mm256_set1_epi16((int16_t)best), t = _mm256_set1_epi16((int16_t)thr);
  int first = -1, n = 0;
  for (int b = 0; b < D; b += 16) {
    const __m256i v = _mm256_loadu_si256((const __m256i*)(s + b));
    const unsigned eq = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi16(v, value));
    n += __builtin_popcount((unsigned)_mm256_movemask_epi8(_mm256_cmpgt_epi16(t, v)));
    if (first < 0 && eq != 0) first = b + __builtin_ctz(eq) / 2;
  }
  *below = n / 2;
  return first;
}
#endif

/* The output value of left pixel x before the median; right_k from vf_right_winners. The checks
 * run cheapest first (each alone makes the pixel invalid). wide: vf_first_index_avx2. */
__attribute__((always_inline)) static inline uint16_t vf_select_pixel(const vf_sgm_params* p,
                                                                      const int16_t* s, int best,
                                                                      int thr, int x,
                                                                      const int16_t* right_k,
                                                                      int wide) {
  int D = p->disparities;
  if (x < p->min_disparity) return VF_STEREO_INVALID;
  int unique = p->uniqueness_q < VF_UNIQUENESS_ONE, below = 0;
  int k_best = 0;
  if (wide) {
#ifdef VF_AVX2
    k_best = vf_first_index_avx2(s, D, best, thr, &below);
#endif
  } else {
    k_best = vf_first_index(s, D, best, thr, &below);
  }
  if (p->lr_check) {
    int xr = x - p->min_disparity - k_best;
    int kr = xr >= 0 ? right_k[p->width - 1 - xr] : -1;
    int diff = kr > k_best ? kr - k_best : k_best - kr;
    if (kr < 0 || diff > p->lr_max_diff) return VF_STEREO_INVALID;
  }
  /* With q = 1024 the test is best > second, never true: skipped. */
  if (unique) {
    for (int k = k_best - 1; k <= k_best + 1; ++k) below -= k >= 0 && k < D && s[k] < thr;
    if (below > 0) return VF_STEREO_INVALID;
  }
  int d = p->min_disparity + k_best;
  if (!p->subpixel) return (uint16_t)d;
  int off = 0;
  if (k_best > 0 && k_best < D - 1) off = vf_sgm_subpixel16(s[k_best - 1], best, s[k_best + 1]);
  return (uint16_t)(d * 16 + off);
}

/* wide: the AVX2 parts (only from vf_select_row_avx2). */
__attribute__((always_inline)) static inline void vf_select_row(
    const vf_sgm_params* p, const int16_t* sum_row, const int16_t* best, const int16_t* thr,
    int16_t* right_val, int16_t* right_k, uint16_t* out, int wide) {
  if (p->lr_check && wide) {
#ifdef VF_AVX2
    if (p->disparities == 64) {
      vf_right_winners64_avx2(p, sum_row, right_val, right_k);
    } else {
      vf_right_winners_avx2(p, sum_row, right_val, right_k);
    }
#endif
  } else if (p->lr_check) {
    vf_right_winners(p, sum_row, right_val, right_k);
  }
  for (int x = 0; x < p->width; ++x) {
    out[x] = vf_select_pixel(p, sum_row + (size_t)x * p->disparities, best[x], thr[best[x]], x,
                             right_k, wide);
  }
}

#ifdef VF_AVX2
/* flatten: the AVX2 parts inlined with the row's loop. */
static VF_AVX2_TARGET __attribute__((flatten)) void vf_select_row_avx2(
    const vf_sgm_params* p, const int16_t* sum_row, const int16_t* best, const int16_t* thr,
    int16_t* right_val, int16_t* right_k, uint16_t* out) {
  vf_select_row(p, sum_row, best, thr, right_val, right_k, out, 1);
}
#endif

void vf_cpu_sgm_select_row(const vf_sgm_params* p, const int16_t* sum_row, const int16_t* best,
                           const int16_t* thr, int16_t* right_val, int16_t* right_k, uint16_t* out,
                           int wide) {
#ifdef VF_AVX2
  if (wide) {
    vf_select_row_avx2(p, sum_row, best, thr, right_val, right_k, out);
    return;
  }
#endif
  vf_select_row(p, sum_row, best, thr, right_val, right_k, out, 0);
}

typedef struct vf_median_job {
  const uint16_t* in;
  int w, h;
  uint16_t* out;
  size_t out_stride;
} vf_median_job;

static uint16_t vf_min16(uint16_t a, uint16_t b) { return a < b ? a : b; }
static uint16_t vf_max16(uint16_t a, uint16_t b) { return a > b ? a : b; }
static uint16_t vf_med3(uint16_t a, uint16_t b, uint16_t c) {
  return vf_max16(vf_min16(a, b), vf_min16(vf_max16(a, b), c));
}

/* Median of 9 from three sorted columns (Paeth, Graphics Gems): the median of the largest low,
 * the middle middle and the smallest high. Columns x0 - 1 .. x0 + 64 of one output row. */
static void vf_median_chunk(const vf_median_job* j, int y, int x0) {
  uint16_t col[3][VF_BLOCK + 8], lo[VF_BLOCK + 8], mid[VF_BLOCK + 8], hi[VF_BLOCK + 8];
  uint16_t med[VF_BLOCK];
  for (int r = 0; r < 3; ++r) {
    int yy = y + r - 1 < 0 ? 0 : y + r - 1 >= j->h ? j->h - 1 : y + r - 1;
    const uint16_t* src = j->in + (size_t)yy * j->w;
    if (x0 >= 1 && x0 - 1 + VF_BLOCK + 8 <= j->w) {
      memcpy(col[r], src + x0 - 1, sizeof col[r]);
      continue;
    }
    for (int i = 0; i < VF_BLOCK + 8; ++i) {
      int x = x0 + i - 1 < 0 ? 0 : x0 + i - 1 >= j->w ? j->w - 1 : x0 + i - 1;
      col[r][i] = src[x];
    }
  }
  for (int i = 0; i < VF_BLOCK + 8; ++i) {
    uint16_t a = vf_min16(col[0][i], col[1][i]), b = vf_max16(col[0][i], col[1][i]);
    lo[i] = vf_min16(a, col[2][i]);
    hi[i] = vf_max16(b, col[2][i]);
    mid[i] = vf_max16(a, vf_min16(b, col[2][i]));
  }
  for (int i = 0; i < VF_BLOCK; ++i) {
    uint16_t l = vf_max16(vf_max16(lo[i], lo[i + 1]), lo[i + 2]);
    uint16_t h = vf_min16(vf_min16(hi[i], hi[i + 1]), hi[i + 2]);
    med[i] = vf_med3(l, vf_med3(mid[i], mid[i + 1], mid[i + 2]), h);
  }
  uint16_t* row = (uint16_t*)((uint8_t*)j->out + (size_t)y * j->out_stride);
  memcpy(row + x0, med, (size_t)(j->w - x0 < VF_BLOCK ? j->w - x0 : VF_BLOCK) * sizeof *med);
}

static void vf_median_rows(int begin, int end, void* arg) {
  const vf_median_job* j = arg;
  for (int y = begin; y < end; ++y) {
    for (int x0 = 0; x0 < j->w; x0 += VF_BLOCK) vf_median_chunk(j, y, x0);
  }
}

void vf_cpu_median3(const uint16_t* in, int w, int h, uint16_t* out, size_t out_stride,
                    vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  vf_median_job job = {in, w, h, out, out_stride};
  int useful = w * h / 65536;
  vf_parallel_for(pool, h, useful < threads ? useful : threads, vf_median_rows, &job);
}

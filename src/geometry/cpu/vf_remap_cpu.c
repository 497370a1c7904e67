// SPDX-License-Identifier: BSD-3-Clause
/* CPU remap: per output pixel, bilinear interpolation of the source at a 1/256-pixel position
 * with integer weights, (top (256 - fy) + bottom fy + 2^15) >> 16 (round half up): the same
 * integer arithmetic as the CUDA kernel, so both agree bit for bit. The map is unpacked once
 * into a plan (offsets, weights, fill mask) so that eight pixels go through the SIMD blend of
 * vf_simd_bilinear.h at a time with no clamps or branches. Rows split across threads.
 *
 * A rectifying map moves along a source row about a pixel per output pixel, so the pairs of most
 * groups of eight pixels lie in 16 consecutive bytes of one source row, or of two rows where
 * the map crosses a row boundary. Where the CPU has a byte shuffle (SSSE3 on x86-64, asked at run
 * time; NEON) such a group is a 40-byte record (first byte, the lanes' places in it, byte
 * weights) instead of the 72 bytes of gathered offsets, 16-bit weights and mask: 3.6 MB for a
 * 752x480 pair instead of 6.5 MB. A frame's decoding still evicts it, so a replay reads it from
 * memory every frame (docs/perf/remap.md, "CPU: the remap from cold caches"). The
 * bytes blended are the same, so is the result. With AVX2 (asked at run time) two groups go
 * through one 32-byte pass. */
#include "geometry/kernels/vf_remap_cpu.h"
#include "geometry/kernels/vf_remap_rules.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/vf_cpu_avx2.h"
#include "core/vf_fault.h"
#include "core/vf_parallel.h"
#include "core/vf_simd_bilinear.h"
#include "viofront/vf_rectify.h"

struct vf_remap_cpu_plan {
  const int32_t* map;
  int map_stride;
  int out_w, out_h, src_w, src_h;
  int stride;                   /* plan entries per row: out_w rounded up to 8 */
  size_t src_stride;            /* the source stride the offsets hold for; 0 = not computed yet */
  int32_t* offset;              /* top-left source byte; 0 where filled */
  uint16_t* wx;                 /* weight of the right column, 0..256 */
  uint16_t* wy;                 /* weight of the lower row, 0..256 */
  uint8_t* fill;                /* 0xFF where the output is the fill value */
  struct vf_remap_group* group; /* per 8 pixels, where the CPU shuffles bytes (else NULL) */
  int direct; /* 1: a source under 2x2 or beyond int32 offsets, read the map per pixel */
};

typedef struct vf_remap_job vf_remap_job;
struct vf_remap_job {
  const vf_remap_cpu_plan* plan;
  const uint8_t* src;
  size_t src_stride;
  uint8_t* dst;
  size_t dst_stride;
  uint8_t fill;
  void (*row)(const vf_remap_job* j, int y); /* one output row through the plan */
};

/* The blend of samples a b (top row) and c d (bottom row) with weights fx, fy (0..256). */
static inline uint8_t vf_remap_mix(int32_t a, int32_t b, int32_t c, int32_t d, int32_t fx,
                                   int32_t fy) {
  /* a (256 - f) + b f as 256 a + (b - a) f: the same integers, one product fewer. */
  const int32_t top = 256 * a + (b - a) * fx;
  const int32_t bot = 256 * c + (d - c) * fx;
  return (uint8_t)((256 * top + (bot - top) * fy + 32768) >> 16);
}

/* The blend of one pixel whose top-left source byte is p (p[1], p[s], p[s + 1] readable). */
static inline uint8_t vf_remap_blend(const uint8_t* p, size_t s, int32_t fx, int32_t fy) {
  return vf_remap_mix(p[0], p[1], p[s], p[s + 1], fx, fy);
}

/* The map read per pixel: sources narrower or lower than 2 pixels, where the last column or
 * row has no left or upper neighbour to move the weight to. */
static void vf_remap_rows_direct(int begin, int end, void* arg) {
  const vf_remap_job* j = arg;
  const vf_remap_cpu_plan* p = j->plan;
  for (int y = begin; y < end; ++y) {
    const int32_t* m = p->map + (size_t)y * p->map_stride * 2;
    uint8_t* out = j->dst + (size_t)y * j->dst_stride;
    for (int x = 0; x < p->out_w; ++x) {
      int32_t sx = m[2 * x], sy = m[2 * x + 1];
      if (sx < 0 || sy < 0) {
        out[x] = j->fill;
        continue;
      }
      const int x0 = sx >> VF_REMAP_FRAC_BITS, y0 = sy >> VF_REMAP_FRAC_BITS;
      const int32_t fx = sx & (VF_REMAP_UNIT - 1), fy = sy & (VF_REMAP_UNIT - 1);
      const uint8_t* r0 = j->src + (size_t)y0 * j->src_stride + (size_t)x0;
      const int dx = x0 < p->src_w - 1;
      const uint8_t* r1 = y0 < p->src_h - 1 ? r0 + j->src_stride : r0;
      out[x] = vf_remap_mix(r0[0], r0[dx], r1[0], r1[dx], fx, fy);
    }
  }
}

/* Eight pixels from x of plan row `row` from gathered pairs. */
static inline void vf_remap_gather8(const vf_remap_job* j, size_t row, int x, uint8_t* out) {
  const vf_remap_cpu_plan* p = j->plan;
  const int32_t* off = p->offset + row + x;
  const vf_u8x16 v = vf_u8x16_bilinear8(
      vf_u8x16_gather_pairs(j->src, off), vf_u8x16_gather_pairs(j->src + j->src_stride, off),
      vf_i16x8_load(p->wx + row + x), vf_i16x8_load(p->wy + row + x));
  vf_u8x16_store_lo8(
      out + x, vf_u8x16_select(vf_u8x16_load_lo8(p->fill + row + x), vf_u8x16_set1(j->fill), v));
}

/* The pixels past the last whole group of eight, one at a time. */
static inline void vf_remap_tail(const vf_remap_job* j, size_t row, int x, uint8_t* out) {
  const vf_remap_cpu_plan* p = j->plan;
  for (; x < p->out_w; ++x) {
    const size_t i = row + (size_t)x;
    out[x] = p->fill[i] ? j->fill
                        : vf_remap_blend(j->src + p->offset[i], j->src_stride, p->wx[i], p->wy[i]);
  }
}

static void vf_remap_row_gathered(const vf_remap_job* j, int y) {
  const size_t row = (size_t)y * j->plan->stride;
  uint8_t* out = j->dst + (size_t)y * j->dst_stride;
  int x = 0;
  for (; x + 8 <= j->plan->out_w; x += 8) vf_remap_gather8(j, row, x, out);
  vf_remap_tail(j, row, x, out);
}

static void vf_remap_rows(int begin, int end, void* arg) {
  const vf_remap_job* j = arg;
  for (int y = begin; y < end; ++y) j->row(j, y);
}

/* A group of eight pixels whose pairs lie in the 16 bytes from `first` of one source row, or of
 * two rows (first's and the next). pick[2i], pick[2i + 1]: where pixel i's pair lies among them,
 * plus 16 on the second row; wx, wy its weights, under 256 in such a group. first < 0: the group
 * gathers (vf_remap_gather8). */
typedef struct vf_remap_group {
  uint8_t pick[16];
  uint8_t wx[8];
  uint8_t wy[8];
  int32_t first;
  int32_t two_rows;
} vf_remap_group;

/* Byte shuffles: lanes i of the result are bytes idx[i] of v, for the pairs on the first row
 * (lane < 16) and on the second (lane >= 16), 0 for the others. SSSE3 on x86-64, outside its
 * SSE2 baseline (so asked of the CPU at run time), the table lookup on AArch64. */
#if defined(__SSE2__) && !defined(VF_SIMD4_PORTABLE) && (defined(__GNUC__) || defined(__clang__))
#include <tmmintrin.h>
#define VF_REMAP_SHUFFLE_TARGET __attribute__((target("ssse3")))
/* pshufb zeroes a lane whose index has bit 7 set: +0x70 sets it for 16..31 and leaves 0..15's
 * low four bits. */
static inline VF_REMAP_SHUFFLE_TARGET vf_u8x16 vf_remap_pick_first(vf_u8x16 v, vf_u8x16 idx) {
  return _mm_shuffle_epi8(v, _mm_add_epi8(idx, _mm_set1_epi8(0x70)));
}
static inline VF_REMAP_SHUFFLE_TARGET vf_u8x16 vf_remap_pick_second(vf_u8x16 v, vf_u8x16 idx) {
  return _mm_shuffle_epi8(
      v, _mm_add_epi8(_mm_xor_si128(idx, _mm_set1_epi8(0x10)), _mm_set1_epi8(0x70)));
}
static int vf_remap_cpu_shuffles(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("ssse3") != 0;
}
#elif defined(__SSE2__) && !defined(VF_SIMD4_PORTABLE)
#define VF_REMAP_NO_SHUFFLE
static int vf_remap_cpu_shuffles(void) { return 0; }
#elif defined(__ARM_NEON) && defined(__aarch64__) && !defined(__ARM_BIG_ENDIAN) && \
    !defined(VF_SIMD4_PORTABLE)
#define VF_REMAP_SHUFFLE_TARGET
/* The table lookup gives 0 for an index of 16 or more. */
static inline vf_u8x16 vf_remap_pick_first(vf_u8x16 v, vf_u8x16 idx) { return vqtbl1q_u8(v, idx); }
static inline vf_u8x16 vf_remap_pick_second(vf_u8x16 v, vf_u8x16 idx) {
  return vqtbl1q_u8(v, veorq_u8(idx, vdupq_n_u8(0x10)));
}
static int vf_remap_cpu_shuffles(void) { return 1; }
#else
#define VF_REMAP_SHUFFLE_TARGET
static inline vf_u8x16 vf_remap_pick_first(vf_u8x16 v, vf_u8x16 idx) {
  vf_u8x16 r;
  for (int i = 0; i < 16; ++i) r.v[i] = idx.v[i] < 16 ? v.v[idx.v[i]] : 0;
  return r;
}
static inline vf_u8x16 vf_remap_pick_second(vf_u8x16 v, vf_u8x16 idx) {
  vf_u8x16 r;
  for (int i = 0; i < 16; ++i) r.v[i] = idx.v[i] >= 16 ? v.v[idx.v[i] - 16] : 0;
  return r;
}
static int vf_remap_cpu_shuffles(void) { return 1; }
#endif

#ifndef VF_REMAP_NO_SHUFFLE
/* The eight pixels of group g from its record: rows loaded whole and their bytes picked. */
static inline VF_REMAP_SHUFFLE_TARGET void vf_remap_group8(const vf_remap_job* j,
                                                           const vf_remap_group* g, uint8_t* out) {
  const size_t s = j->src_stride;
  const uint8_t* q = j->src + g->first;
  const vf_u8x16 idx = vf_u8x16_load(g->pick);
  const vf_u8x16 r0 = vf_u8x16_load(q), r1 = vf_u8x16_load(q + s);
  vf_u8x16 top = vf_remap_pick_first(r0, idx), bot = vf_remap_pick_first(r1, idx);
  if (g->two_rows) {
    const vf_u8x16 r2 = vf_u8x16_load(q + 2 * s);
    top = vf_u8x16_or(top, vf_remap_pick_second(r1, idx));
    bot = vf_u8x16_or(bot, vf_remap_pick_second(r2, idx));
  }
  const vf_u8x16 w = vf_u8x16_load(g->wx); /* wx then wy */
  vf_u8x16_store_lo8(out, vf_u8x16_bilinear8(top, bot, vf_u8x16_widen_lo(w), vf_u8x16_widen_hi(w)));
}

/* One group of eight at x: its record, or gathered pairs. */
static inline VF_REMAP_SHUFFLE_TARGET void vf_remap_group_or_gather(const vf_remap_job* j,
                                                                    size_t row, int x,
                                                                    const vf_remap_group* g,
                                                                    uint8_t* out) {
  if (g->first >= 0) {
    vf_remap_group8(j, g, out + x);
  } else {
    vf_remap_gather8(j, row, x, out);
  }
}

static VF_REMAP_SHUFFLE_TARGET void vf_remap_row_grouped(const vf_remap_job* j, int y) {
  const size_t row = (size_t)y * j->plan->stride;
  const vf_remap_group* g = j->plan->group + row / 8;
  uint8_t* out = j->dst + (size_t)y * j->dst_stride;
  int x = 0;
  for (; x + 8 <= j->plan->out_w; x += 8, ++g) vf_remap_group_or_gather(j, row, x, g, out);
  vf_remap_tail(j, row, x, out);
}

#ifdef VF_AVX2
/* Where the CPU has AVX2 (asked at run time), two groups at once, one in each 128-bit half: its
 * byte shuffles, unpacks and multiply-adds stay within halves, so each half blends its group's
 * bytes as vf_remap_group8 does, with the same integers. */
static inline VF_AVX2_TARGET __m256i vf_remap_load2(const uint8_t* lo, const uint8_t* hi) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i*)lo)),
                                 _mm_loadu_si128((const __m128i*)hi), 1);
}

/* vf_bilinear4_sse2 in each half. */
static inline VF_AVX2_TARGET __m256i vf_remap_bilinear4x2(__m256i t, __m256i b, __m256i wy) {
  const __m256i tb = _mm256_or_si256(t, _mm256_slli_epi32(b, 16));
  const __m256i hi = _mm256_madd_epi16(_mm256_srli_epi16(tb, 8), wy);
  const __m256i lo = _mm256_madd_epi16(_mm256_and_si256(tb, _mm256_set1_epi16(255)), wy);
  const __m256i sum =
      _mm256_add_epi32(_mm256_add_epi32(_mm256_slli_epi32(hi, 8), lo), _mm256_set1_epi32(32768));
  return _mm256_srli_epi32(sum, 16);
}

/* The sixteen pixels of groups g[0] and g[1], both with records. */
static inline VF_AVX2_TARGET void vf_remap_group16(const vf_remap_job* j, const vf_remap_group* g,
                                                   uint8_t* out) {
  const size_t s = j->src_stride;
  const uint8_t *q0 = j->src + g[0].first, *q1 = j->src + g[1].first;
  const __m256i idx = vf_remap_load2(g[0].pick, g[1].pick);
  const __m256i k70 = _mm256_set1_epi8(0x70);
  const __m256i first = _mm256_add_epi8(idx, k70);
  const __m256i r1 = vf_remap_load2(q0 + s, q1 + s);
  __m256i top = _mm256_shuffle_epi8(vf_remap_load2(q0, q1), first);
  __m256i bot = _mm256_shuffle_epi8(r1, first);
  if (g[0].two_rows | g[1].two_rows) {
    /* A one-row group picks nothing from its second row: any readable row serves it. */
    const __m256i r2 =
        vf_remap_load2(g[0].two_rows ? q0 + 2 * s : q0 + s, g[1].two_rows ? q1 + 2 * s : q1 + s);
    const __m256i second = _mm256_add_epi8(_mm256_xor_si256(idx, _mm256_set1_epi8(0x10)), k70);
    top = _mm256_or_si256(top, _mm256_shuffle_epi8(r1, second));
    bot = _mm256_or_si256(bot, _mm256_shuffle_epi8(r2, second));
  }
  const __m256i z = _mm256_setzero_si256(), k256 = _mm256_set1_epi16(256);
  const __m256i w = vf_remap_load2(g[0].wx, g[1].wx); /* each half: wx then wy */
  const __m256i fx = _mm256_unpacklo_epi8(w, z), fy = _mm256_unpackhi_epi8(w, z);
  const __m256i wx0 = _mm256_sub_epi16(k256, fx), wy0 = _mm256_sub_epi16(k256, fy);
  const __m256i wx_lo = _mm256_unpacklo_epi16(wx0, fx), wx_hi = _mm256_unpackhi_epi16(wx0, fx);
  const __m256i t_lo = _mm256_madd_epi16(_mm256_unpacklo_epi8(top, z), wx_lo);
  const __m256i t_hi = _mm256_madd_epi16(_mm256_unpackhi_epi8(top, z), wx_hi);
  const __m256i b_lo = _mm256_madd_epi16(_mm256_unpacklo_epi8(bot, z), wx_lo);
  const __m256i b_hi = _mm256_madd_epi16(_mm256_unpackhi_epi8(bot, z), wx_hi);
  const __m256i r_lo = vf_remap_bilinear4x2(t_lo, b_lo, _mm256_unpacklo_epi16(wy0, fy));
  const __m256i r_hi = vf_remap_bilinear4x2(t_hi, b_hi, _mm256_unpackhi_epi16(wy0, fy));
  const __m256i r16 = _mm256_packs_epi32(r_lo, r_hi);
  /* Each half's eight bytes in its low quadword; quadwords 0 and 2 to the low 16 bytes. */
  const __m256i r8 = _mm256_permute4x64_epi64(_mm256_packus_epi16(r16, r16), 0x08);
  _mm_storeu_si128((__m128i*)out, _mm256_castsi256_si128(r8));
}

static VF_AVX2_TARGET void vf_remap_row_grouped_avx2(const vf_remap_job* j, int y) {
  const size_t row = (size_t)y * j->plan->stride;
  const vf_remap_group* g = j->plan->group + row / 8;
  uint8_t* out = j->dst + (size_t)y * j->dst_stride;
  const int w = j->plan->out_w;
  int x = 0;
  for (; x + 16 <= w; x += 16, g += 2) {
    if (g[0].first >= 0 && g[1].first >= 0) {
      vf_remap_group16(j, g, out + x);
    } else {
      vf_remap_group_or_gather(j, row, x, g, out);
      vf_remap_group_or_gather(j, row, x + 8, g + 1, out);
    }
  }
  for (; x + 8 <= w; x += 8, ++g) vf_remap_group_or_gather(j, row, x, g, out);
  vf_remap_tail(j, row, x, out);
}
#endif
#endif

/* Group records from the unpacked plan, for source rows src_stride bytes apart: a group whose
 * pixels are all inside, with weights under 256, on source rows y and perhaps y + 1 (the rows
 * read, up to y + 2, inside the image) and within 16 bytes from its leftmost pair, those 16
 * bytes inside the row. */
static void vf_remap_plan_groups(vf_remap_cpu_plan* p, size_t src_stride) {
  const size_t groups = (size_t)p->stride / 8 * (size_t)p->out_h;
  for (size_t k = 0; k < groups; ++k) {
    const size_t at = 8 * k;
    vf_remap_group* g = &p->group[k];
    memset(g, 0, sizeof *g);
    g->first = -1;
    size_t y_min = SIZE_MAX, y_max = 0, x_min = SIZE_MAX, x_max = 0;
    int ok = 1;
    for (int i = 0; i < 8 && ok; ++i) {
      const size_t o = (size_t)p->offset[at + i], y = o / src_stride, x = o % src_stride;
      ok = !p->fill[at + i] && p->wx[at + i] < VF_REMAP_UNIT && p->wy[at + i] < VF_REMAP_UNIT;
      y_min = y < y_min ? y : y_min;
      y_max = y > y_max ? y : y_max;
      x_min = x < x_min ? x : x_min;
      x_max = x > x_max ? x : x_max;
    }
    const size_t rows_read = y_max - y_min + 2;
    if (!ok || y_max > y_min + 1 || y_min + rows_read > (size_t)p->src_h ||
        x_max + 1 - x_min > 15 || x_min + 16 > (size_t)p->src_w)
      continue;
    g->first = (int32_t)(y_min * src_stride + x_min);
    g->two_rows = y_max > y_min;
    for (int i = 0; i < 8; ++i) {
      const size_t o = (size_t)p->offset[at + i], y = o / src_stride, x = o % src_stride;
      const uint8_t lane = (uint8_t)(x - x_min + (y > y_min ? 16 : 0));
      g->pick[2 * i] = lane;
      g->pick[2 * i + 1] = (uint8_t)(lane + 1);
      g->wx[i] = (uint8_t)p->wx[at + i];
      g->wy[i] = (uint8_t)p->wy[at + i];
    }
  }
}

/* Offsets, weights and fill mask from the map, for source rows src_stride bytes apart. */
static void vf_remap_plan_fill(vf_remap_cpu_plan* p, size_t src_stride) {
  for (int y = 0; y < p->out_h; ++y) {
    const int32_t* m = p->map + (size_t)y * p->map_stride * 2;
    const size_t row = (size_t)y * p->stride;
    for (int x = 0; x < p->stride; ++x) {
      int32_t sx = x < p->out_w ? m[2 * x] : -1, sy = x < p->out_w ? m[2 * x + 1] : -1;
      int x0 = sx >> VF_REMAP_FRAC_BITS, y0 = sy >> VF_REMAP_FRAC_BITS;
      int fx = sx & (VF_REMAP_UNIT - 1), fy = sy & (VF_REMAP_UNIT - 1);
      const int inside = sx >= 0 && sy >= 0 && x0 < p->src_w && y0 < p->src_h;
      if (inside) {
        vf_remap_last_tap(&x0, &fx, p->src_w);
        vf_remap_last_tap(&y0, &fy, p->src_h);
      }
      p->offset[row + x] = inside ? (int32_t)((size_t)y0 * src_stride + (size_t)x0) : 0;
      p->wx[row + x] = (uint16_t)(inside ? fx : 0);
      p->wy[row + x] = (uint16_t)(inside ? fy : 0);
      p->fill[row + x] = inside ? 0 : 0xFF;
    }
  }
  if (p->group != NULL) vf_remap_plan_groups(p, src_stride);
  p->src_stride = src_stride;
}

vf_status vf_cpu_remap_plan_create(const int32_t* map, int map_stride, int out_w, int out_h,
                                   int src_w, int src_h, vf_remap_cpu_plan** out) {
  *out = NULL;
  vf_remap_cpu_plan* p = vf_calloc(1, sizeof *p);
  if (p == NULL) return VF_ERR_NOMEM;
  p->map = map;
  p->map_stride = map_stride;
  p->out_w = out_w, p->out_h = out_h, p->src_w = src_w, p->src_h = src_h;
  p->stride = (out_w + 7) & ~7;
  p->direct = src_w < 2 || src_h < 2;
  if (!p->direct) {
    const size_t n = (size_t)p->stride * (size_t)out_h;
    p->offset = vf_malloc(n * sizeof *p->offset);
    p->wx = vf_malloc(n * sizeof *p->wx);
    p->wy = vf_malloc(n * sizeof *p->wy);
    p->fill = vf_malloc(n);
    /* Rows of at least 16 bytes hold a group's loads. */
    const int grouped = src_w >= 16 && vf_remap_cpu_shuffles();
    if (grouped) p->group = vf_malloc(n / 8 * sizeof *p->group);
    if (p->offset == NULL || p->wx == NULL || p->wy == NULL || p->fill == NULL ||
        (grouped && p->group == NULL)) {
      vf_cpu_remap_plan_destroy(p);
      return VF_ERR_NOMEM;
    }
  }
  *out = p;
  return VF_OK;
}

void vf_cpu_remap_plan_destroy(vf_remap_cpu_plan* p) {
  if (p == NULL) return;
  free(p->offset);
  free(p->wx);
  free(p->wy);
  free(p->fill);
  free(p->group);
  free(p);
}

void vf_cpu_remap_u8(vf_remap_cpu_plan* plan, const uint8_t* src, size_t src_stride, uint8_t* dst,
                     size_t dst_stride, uint8_t fill, vf_pool* pool) {
  /* int32 offsets: the bottom-right byte of the source must be within reach. */
  const int direct =
      plan->direct || (size_t)(plan->src_h - 1) * src_stride + (size_t)plan->src_w > INT32_MAX;
  if (!direct && plan->src_stride != src_stride) vf_remap_plan_fill(plan, src_stride);
  int threads = vf_pool_threads(pool);
  vf_remap_job job = {plan, src, src_stride, dst, dst_stride, fill, vf_remap_row_gathered};
  /* As for the pyramid: a thread only pays for itself beyond about 64K pixels. */
  int useful = (int)((long long)plan->out_w * plan->out_h / 65536);
#ifndef VF_REMAP_NO_SHUFFLE
  if (plan->group != NULL) job.row = vf_remap_row_grouped;
#endif
#ifdef VF_AVX2
  if (plan->group != NULL && vf_cpu_avx2()) job.row = vf_remap_row_grouped_avx2;
#endif
  vf_parallel_for(pool, plan->out_h, useful < threads ? useful : threads,
                  direct ? vf_remap_rows_direct : vf_remap_rows, &job);
}

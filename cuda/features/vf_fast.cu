// SPDX-License-Identifier: BSD-3-Clause
// CUDA FAST detection with grid non-maxima suppression in one launch (Nagy et al., "Faster than
// FAST", IROS 2020, sections III-A and III-B). Two blocks per group of cells (one cell, two of a
// row, or up to four rows of low cells) handle it, one on its first searched level and one on
// the others (the group scaled by 2^-k on level k, as one window), in chunks of at most 64x32
// pixels; two small levels whose windows fit share one chunk, side by side:
//  1. the chunk's pixels plus a 4-pixel margin are loaded into shared memory in one go;
//  2. the float response map of the chunk plus a 1-pixel margin is computed into shared memory:
//     pixels passing a four-pixel high-speed test (four pixels a thread, bytes compared in the
//     16-bit halves of words) are queued, then the whole block runs the full test on the queue:
//     the 16 circle pixels give a brighter and a darker bit mask, and one bit of the 2^16-entry
//     arc table per mask says whether an arc of n contiguous pixels exists (no branch on the
//     segment test); scores are integer sums converted to float once, as on the CPU; the
//     corners inside the chunk go to a second queue;
//  3. those corners are checked against their 3x3 neighbourhood (no other pixel has a
//     response), and each maximum goes to its cell's key in shared memory.
// A cell's two blocks meet in one atomic exchange, and the second to arrive writes the result.
// Candidates compare as 64-bit keys: the score's float bits (positive floats order like
// integers) above the inverted (level, y, x), so the maximum key is the documented tie rule
// whatever the order. The CPU reference is src/features/cpu/vf_fast_cpu.c.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "features/kernels/vf_fast_cuda.h"
#include "viofront/vf_detector.h"

namespace {

// Four warps a block: with a cell's levels split over two blocks (below), twice as many blocks
// as cells are resident at once at 752x480 (eight warps: 19.1 us; four: 15.4-15.7 us; two, or
// four warps without the split: slower, docs/perf/detector.md).
constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr unsigned kFull = 0xffffffffu;
constexpr int kChunkW = 64, kChunkH = 32;  // pixels whose maxima one chunk decides
constexpr int kImgW = kChunkW + 8;         // shared image tile: the chunk and 4 pixels around
constexpr int kImgH = kChunkH + 8;
constexpr int kRespW = kChunkW + 2;  // shared response tile: the chunk and 1 pixel around
constexpr int kRespH = kChunkH + 2;
constexpr int kQueue = kRespW * kRespH;  // a queue's room: every response pixel
static_assert(kRespW * kRespH % 4 == 0, "the response tile is cleared as 16-byte words");

// Offset of circle pixel i in the shared image tile: the Bresenham circle of radius 3,
// clockwise from the top (the CPU reference's order). Constant once the loops are unrolled.
__device__ __forceinline__ constexpr int vf_circle_offset(int i) {
  const int dx[16] = {0, 1, 2, 3, 3, 3, 2, 1, 0, -1, -2, -3, -3, -3, -2, -1};
  const int dy[16] = {-3, -3, -2, -1, 0, 1, 2, 3, 3, 3, 2, 1, 0, -1, -2, -3};
  return dy[i] * kImgW + dx[i];
}

// A rectangle of one level: pixels [x, x + w) x [y, y + h).
struct vf_rect {
  int x, y, w, h;
};

// A block's cells: up to kMaxCells, pc columns by pr rows from (c0, r0) (ncol x nrow of them
// inside the grid), bit r pc + c of `used` set for those not masked.
constexpr int kMaxCells = 8;
struct vf_group {
  int c0, r0, pc, pr, ncol, nrow;
  unsigned used;
  int cmin, cmax, rmin, rmax;  // the used cells' columns and rows (the same on every level)
};

// The used cells' first and last column and row, from the bits of g.used (not 0) alone, once a
// block: cell c is column c & (pc - 1), row c >> (pc - 1). A loop over the cells on every level
// cost 5% of a detection's instructions (docs/perf/detector.md).
__device__ __forceinline__ void vf_group_span(vf_group& g) {
  unsigned cols = 1u, rows = g.used;
  if (g.pc > 1) {
    cols = (g.used & 0x55u ? 1u : 0u) | (g.used & 0xaau ? 2u : 0u);
    rows = (g.used | (g.used >> 1)) & 0x55u;  // row r's pair onto bit 2 r, then bit r
    rows = (rows | (rows >> 1)) & 0x33u;
    rows = (rows | (rows >> 2)) & 0x0fu;
  }
  g.cmin = __ffs(cols) - 1;
  g.cmax = 31 - __clz(cols);
  g.rmin = __ffs(rows) - 1;
  g.rmax = 31 - __clz(rows);
}

// What one chunk decides on one level: its pixels `c`, where its tile starts in the shared tile
// (column col0, a multiple of 4; its responses start at response column col0 too), the level k,
// the group's origin (ox, oy) and a cell's size (cw, ch) on the level. A chunk holds one band,
// or two of different levels side by side (vf_chunk<.., true>).
struct vf_band {
  vf_rect c;
  int col0, k, ox, oy, cw, ch;
};

__device__ __forceinline__ unsigned vf_lut_bit(const uint32_t* __restrict__ lut, unsigned m) {
  return (__ldg(lut + (m >> 5)) >> (m & 31u)) & 1u;
}

template <int SCORE>
__device__ __forceinline__ int vf_score(const int (&d)[16], int t, int n, unsigned bright) {
  int s = 0;
  if (SCORE == VF_FAST_SCORE_SAD_CIRCLE) {
#pragma unroll
    for (int i = 0; i < 16; ++i) s += abs(d[i]);
  } else if (SCORE == VF_FAST_SCORE_SAD_ARC) {
    // The corner's side: +1 for a bright arc, -1 for a dark one (never both for n >= 9).
    const int side = bright ? 1 : -1;
#pragma unroll
    for (int i = 0; i < 16; ++i) s += max(side * d[i] - t, 0);
  } else {
    // Largest t' with an arc all > t' (or all < -t'): the best window's minimum, minus one.
    int best = -256;
#pragma unroll
    for (int start = 0; start < 16; ++start) {
      int lo_b = 255, lo_d = 255;
#pragma unroll
      for (int i = 0; i < 12; ++i) {
        if (i < n) {
          lo_b = min(lo_b, d[(start + i) & 15]);
          lo_d = min(lo_d, -d[(start + i) & 15]);
        }
      }
      best = max(best, max(lo_b, lo_d));
    }
    s = best - 1;
  }
  return s;
}

// The response of the pixel at `p` in the shared image tile (0 when it is no corner). The circle
// pixels go in pairs (i, i + 8) into the two 16-bit halves of a word, where one add per pair
// gives both comparisons with the threshold (vf_compass_flags' rule: bit 15 of q + up says
// q > c + t, of down - q says q < c - t), and bit 15 (31) of pair k becomes bit k (k + 8) of the
// masks. The SAD-on-arc score reuses the biased differences: max(q - c - t, 0) is
// max(q + up, 2^15 - 1) - (2^15 - 1) per half (a packed maximum), and likewise on the dark side.
template <int SCORE>
__device__ __forceinline__ float vf_response(const vf_fast_job& job, const uint8_t* p) {
  const unsigned c = p[0], t = (unsigned)job.threshold;
  const unsigned up = 0x80008000u - (c + t + 1u) * 0x00010001u;
  const unsigned down = (c + 0x7fffu - t) * 0x00010001u;
  unsigned q[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) q[i] = p[vf_circle_offset(i)];
  unsigned bv[8], dv[8], bm = 0u, dm = 0u;
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const unsigned pair = __byte_perm(q[k], q[k + 8], 0x5410u);
    bv[k] = pair + up;
    dv[k] = down - pair;
    bm |= (bv[k] & 0x80008000u) >> (15 - k);
    dm |= (dv[k] & 0x80008000u) >> (15 - k);
  }
  const unsigned bright = (bm & 0xffu) | ((bm >> 8) & 0xff00u);
  const unsigned dark = (dm & 0xffu) | ((dm >> 8) & 0xff00u);
  const unsigned is_b = vf_lut_bit(job.lut, bright), is_d = vf_lut_bit(job.lut, dark);
  int s;
  if (SCORE == VF_FAST_SCORE_SAD_ARC) {
    // The corner's side: the bright arc's differences, or the dark one's (never both, n >= 9).
    unsigned acc = 0u;
#pragma unroll
    for (int k = 0; k < 8; ++k) acc += __vmaxu2(is_b ? bv[k] : dv[k], 0x7fff7fffu) - 0x7fff7fffu;
    s = (int)((acc & 0xffffu) + (acc >> 16));
  } else {
    int d[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) d[i] = (int)q[i] - (int)c;
    s = vf_score<SCORE>(d, (int)t, job.arc_length, is_b);
  }
  return (is_b | is_d) ? (float)s : 0.0f;
}

// x / d for 0 <= x <= kThreads and 1 <= d <= kImgW without an integer division (some 30
// instructions on the GPU): (x + 1/2) / d lies at least 1 / (2 d) from an integer, and the
// approximate reciprocal (one MUFU.RCP, relative error under 2^-22) with the product's rounding
// moves it by under (x + 1/2) / d 2^-21, far less, so truncating it is exact. (The correctly
// rounded __frcp_rn added a refinement and a slow-path branch.)
__device__ __forceinline__ int vf_div_small(int x, int d) {
  return (int)(((float)x + 0.5f) * __fdividef(1.0f, (float)d));
}

// Walks a w-wide rectangle in row-major order with stride kThreads, starting at index `tid`,
// keeping (x, y) up to date without a division per step.
struct vf_walker {
  int x, y, w, step_x, step_y;
  __device__ __forceinline__ vf_walker(int tid, int width) : w(width) {
    y = vf_div_small(tid, width);
    x = tid - y * width;
    step_y = vf_div_small(kThreads, width);
    step_x = kThreads - step_y * width;
  }
  __device__ __forceinline__ void next() {
    x += step_x;
    y += step_y;
    if (x >= w) {
      x -= w;
      ++y;
    }
  }
};

// Phase 1: the chunk's pixels and 4 around (clamped to the level; clamped pixels only feed
// responses that are forced to 0 because their circle leaves the image).
__device__ __forceinline__ void vf_load_tile(const vf_fast_level& lv, const vf_rect& c,
                                             uint8_t* s_img, int tid) {
  const int h = c.h + 8;
  for (vf_walker i(tid, c.w + 8); i.y < h; i.next()) {
    const int x = min(max(c.x - 4 + i.x, 0), lv.width - 1);
    const int y = min(max(c.y - 4 + i.y, 0), lv.height - 1);
    s_img[i.y * kImgW + i.x] = __ldg(lv.image + (size_t)y * lv.stride + x);
  }
}

// Whether a chunk's tile lies inside the level with rows that start 4-byte aligned (all but
// the level's edge chunks), so that vf_load_tile_words can read it.
__device__ __forceinline__ bool vf_tile_words_ok(const vf_fast_level& lv, const vf_rect& c) {
  const int x0 = c.x - 4, y0 = c.y - 4, w = c.w + 8, h = c.h + 8;
  if (x0 < 0 || y0 < 0 || x0 + w > lv.width || y0 + h > lv.height || (w & 3) != 0) return false;
  // The tile's first byte, image + y0 stride + x0, and the stride 4-byte aligned: with such a
  // stride the first byte's low bits are those of image + x0 (no 64-bit product needed).
  return ((((unsigned)(uintptr_t)lv.image + (unsigned)x0) | (unsigned)lv.stride) & 3u) == 0;
}

// Phase 1 for a chunk that vf_tile_words_ok accepts, into the tile from column `col0` on: 32-bit
// words, warp k taking rows k, k + 4, ..., lane l word l of each (a row is at most 18 words),
// every load of a thread issued before its first store, so that a thread waits on memory once
// rather than once per byte.
__device__ __forceinline__ void vf_load_tile_words(const vf_fast_level& lv, const vf_rect& c,
                                                   int col0, uint8_t* s_img, int warp, int lane) {
  const int x0 = c.x - 4, y0 = c.y - 4, w = c.w + 8, h = c.h + 8;
  if (lane >= (w >> 2)) return;
  const uint8_t* base = lv.image + (size_t)y0 * lv.stride + x0;
  constexpr int kRowsPerWarp = (kImgH + kWarps - 1) / kWarps;
  // One pointer stepped from row to row (an address computed afresh per row cost a 64-bit
  // multiply-add each), the row count known before the loads.
  const unsigned* src = reinterpret_cast<const unsigned*>(base + (size_t)warp * lv.stride) + lane;
  const size_t step = lv.stride / 4 * kWarps;  // words from a warp's row to its next
  const int rows = (h - warp + kWarps - 1) / kWarps;
  unsigned v[kRowsPerWarp];
#pragma unroll
  for (int j = 0; j < kRowsPerWarp; ++j, src += step)
    if (j < rows) v[j] = __ldg(src);
  unsigned* dst = reinterpret_cast<unsigned*>(s_img + col0 + warp * kImgW) + lane;
#pragma unroll
  for (int j = 0; j < kRowsPerWarp; ++j)
    if (j < rows) dst[j * (kWarps * kImgW / 4)] = v[j];  // kWarps rows on
}

// Whether an arc of n >= 9 pixels can hold the compass pixels with these flags (north, east,
// south, west): it holds n / 4 of them in a row round the circle, so for n < 12 two neighbours
// (one of north and south with one of east and west), for n = 12 three of the four. A test the
// arc needs, stricter than counting n / 4 flags (it drops a pixel with only north and south).
__device__ __forceinline__ bool vf_compass_arc(bool n, bool e, bool s, bool w, bool twelve) {
  return twelve ? (n && e && (s || w)) || (s && w && (n || e)) : (n || s) && (e || w);
}

// Phase 2a: responses of the chunk and 1 pixel around start at 0; pixels that can be corners
// are queued (vf_compass_arc, the high-speed test): most pixels stop after reading the four
// compass pixels, and the queue lets every thread of the block share the remaining full tests
// evenly. This pixel-a-thread form serves the chunks at a level's edges, where each pixel is
// checked against them; vf_queue_candidates_words the others.
__device__ __forceinline__ void vf_queue_candidates(const vf_fast_job& job, const vf_fast_level& lv,
                                                    const vf_rect& c, const uint8_t* s_img,
                                                    float* s_resp, uint16_t* s_queue, int* s_count,
                                                    int tid) {
  const int h = c.h + 2, t = job.threshold;
  const bool twelve = job.arc_length >= 12;
  // The level's size read once (an indexed parameter, else loaded again every step).
  const int x_end = lv.width - 3, y_end = lv.height - 3;
  for (vf_walker i(tid, c.w + 2); i.y < h; i.next()) {
    const int x = c.x - 1 + i.x, y = c.y - 1 + i.y;
    s_resp[i.y * kRespW + i.x] = 0.0f;
    if (x < 3 || y < 3 || x >= x_end || y >= y_end) continue;
    const uint8_t* p = s_img + (i.y + 3) * kImgW + i.x + 3;
    const int hi = p[0] + t, lo = p[0] - t;
    const int n = p[-3 * kImgW], e = p[3], s = p[3 * kImgW], w = p[-3];
    if (vf_compass_arc(n > hi, e > hi, s > hi, w > hi, twelve) ||
        vf_compass_arc(n < lo, e < lo, s < lo, w < lo, twelve)) {
      s_queue[atomicAdd(s_count, 1)] = (uint16_t)(i.y * kRespW + i.x);
    }
  }
}

// Phase 2a for a chunk loaded by vf_load_tile_words (inside the level, rows of w = c.w + 8
// pixels, w a multiple of 4): the same test on four pixels a thread, in two 16-bit halves a
// word. Group g takes the response columns 4 g - 3 .. 4 g, whose centres are tile word g of the
// row, so the centre, north and south pixels are whole words and west and east one funnel shift
// each. With bytes in 16-bit halves every comparison is one add whose bit 15 (31) is the answer:
// q > c + t where q + 2^15 - (c + t + 1) >= 2^15, q < c - t where c + 2^15 - 1 - t - q >= 2^15,
// no half borrowing from the other (all values stay within 2^15 +- 2^9). The responses of the
// chunk and 1 pixel around are cleared beforehand as 16-byte words.
__device__ __forceinline__ unsigned vf_halves(unsigned w, unsigned sel) {
  return __byte_perm(w, 0u, sel);  // two bytes of w into the low bytes of two halves
}

__device__ __forceinline__ unsigned vf_compass_flags(unsigned c, unsigned n, unsigned e, unsigned s,
                                                     unsigned w, unsigned t, bool twelve) {
  const unsigned up = 0x80008000u - (c + (t + 1u) * 0x00010001u);  // q > c + t: q + up
  const unsigned down = c + (0x7fffu - t) * 0x00010001u;           // q < c - t: down - q
  const unsigned bn = n + up, be = e + up, bs = s + up, bw = w + up;
  const unsigned dn = down - n, de = down - e, ds = down - s, dw = down - w;
  unsigned f;
  if (twelve) {
    f = (bn & be & (bs | bw)) | (bs & bw & (bn | be)) | (dn & de & (ds | dw)) |
        (ds & dw & (dn | de));
  } else {
    f = ((bn | bs) & (be | bw)) | ((dn | ds) & (de | dw));
  }
  return f & 0x80008000u;
}

// With TWO, the chunk holds two bands side by side (b1's tile words follow b0's): the walk takes
// both bands' groups as one row, each group within its band's rows and edge rules.
template <bool TWO>
__device__ __forceinline__ void vf_queue_candidates_words(const vf_fast_job& job, const vf_band& b0,
                                                          const vf_band& b1, const uint8_t* s_img,
                                                          float* s_resp, uint16_t* s_queue,
                                                          int* s_count, int tid) {
  const int g0 = (b0.c.w + 8) >> 2;
  const int groups = TWO ? g0 + ((b1.c.w + 8) >> 2) : g0;
  const int rows = (TWO ? max(b0.c.h, b1.c.h) : b0.c.h) + 2;
  const int clear = (rows * kRespW + 3) >> 2;  // the tile holds a multiple of 4 floats
  for (int i = tid; i < clear; i += kThreads)
    reinterpret_cast<uint4*>(s_resp)[i] = make_uint4(0u, 0u, 0u, 0u);
  const unsigned t = (unsigned)job.threshold;
  const bool twelve = job.arc_length >= 12;
  const unsigned* s_words = reinterpret_cast<const unsigned*>(s_img);
  constexpr int kRowWords = kImgW / 4;
  for (vf_walker i(tid, groups); i.y < rows; i.next()) {
    // The group's tile word, its place in its band, and the band's group count.
    int word = i.x, gx = i.x, gn = g0;
    if (TWO && i.x >= g0) {
      gx = i.x - g0;
      word = (b1.col0 >> 2) + gx;
      gn = groups - g0;
      if (i.y >= b1.c.h + 2) continue;
    } else if (TWO && i.y >= b0.c.h + 2) {
      continue;
    }
    // Response row i.y is tile row i.y + 3; its north and south rows are i.y and i.y + 6.
    const unsigned* mid = s_words + (i.y + 3) * kRowWords + word;
    const unsigned wm = mid[-1], wc = mid[0], wp = mid[1];
    const unsigned wn = mid[-3 * kRowWords], ws = mid[3 * kRowWords];
    const unsigned ww = __funnelshift_r(wm, wc, 8), we = __funnelshift_r(wc, wp, 24);
    const unsigned f01 =
        vf_compass_flags(vf_halves(wc, 0x4140u), vf_halves(wn, 0x4140u), vf_halves(we, 0x4140u),
                         vf_halves(ws, 0x4140u), vf_halves(ww, 0x4140u), t, twelve);
    const unsigned f23 =
        vf_compass_flags(vf_halves(wc, 0x4342u), vf_halves(wn, 0x4342u), vf_halves(we, 0x4342u),
                         vf_halves(ws, 0x4342u), vf_halves(ww, 0x4342u), t, twelve);
    const unsigned bits = (f01 >> 15) | (f23 >> 13);  // pixels 0, 2 at bits 0, 2; 1, 3 at 16, 18
    const unsigned valid = gx == 0 ? 0x8u : gx == gn - 1 ? 0x1u : 0xfu;
    const unsigned m = (bits | (bits >> 15)) & valid;
    if (m != 0u) {
      int at = atomicAdd(s_count, __popc(m));
      const int q = i.y * kRespW + 4 * word - 3;
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if ((m >> j) & 1u) s_queue[at++] = (uint16_t)(q + j);
    }
  }
}

// Phase 2b: the full test and score of every queued pixel (the queue's order varies from run
// to run, the responses do not). The corners inside the chunk proper (the margin's only serve
// as neighbours) go to a second queue, so that phase 3 takes those alone: on a textured image
// most candidates are no corner.
template <int SCORE, bool TWO>
__device__ __forceinline__ void vf_score_candidates(const vf_fast_job& job, const vf_band& b0,
                                                    const vf_band& b1, const uint8_t* s_img,
                                                    float* s_resp, const uint16_t* s_queue,
                                                    int count, uint16_t* s_corners,
                                                    int* s_corner_count, int tid) {
  for (int i = tid; i < count; i += kThreads) {
    const int q = s_queue[i], ry = q / kRespW, rx = q - ry * kRespW;
    const float r = vf_response<SCORE>(job, s_img + (ry + 3) * kImgW + rx + 3);
    s_resp[q] = r;
    const bool second = TWO && rx >= b1.col0;
    const int bx = second ? rx - b1.col0 : rx;
    const int w = second ? b1.c.w : b0.c.w, h = second ? b1.c.h : b0.c.h;
    if (r > 0.0f && bx >= 1 && ry >= 1 && bx <= w && ry <= h)
      s_corners[atomicAdd(s_corner_count, 1)] = (uint16_t)q;
  }
}

__device__ __forceinline__ unsigned long long vf_key(float score, int level, int ly, int lx) {
  const unsigned where = ((unsigned)level << 28) | ((unsigned)ly << 14) | (unsigned)lx;
  return ((unsigned long long)__float_as_uint(score) << 32) | (0xffffffffu - where);
}

// Phase 3: the local maxima among the chunk's corners (a pixel that is no corner has response 0
// and cannot be one), so that the work follows the corners rather than the chunk's area. Each
// goes to its cell's key in shared memory (a maximum, whatever the order), unless the cell is
// masked.
template <bool TWO>
__device__ __forceinline__ void vf_chunk_best(const vf_group& g, const vf_band& b0,
                                              const vf_band& b1, const float* s_resp,
                                              const uint16_t* s_corners, int count, int tid,
                                              unsigned long long* s_key) {
  for (int i = tid; i < count; i += kThreads) {
    const int q = s_corners[i], ry = q / kRespW, rx = q - ry * kRespW;
    const float* p = s_resp + q;
    const float m = p[0];
    // Strictly above the neighbours before it in raster order, at least equal to those after.
    const bool is_max = m > 0.0f && m > p[-kRespW - 1] && m > p[-kRespW] && m > p[-kRespW + 1] &&
                        m > p[-1] && m >= p[1] && m >= p[kRespW - 1] && m >= p[kRespW] &&
                        m >= p[kRespW + 1];
    if (!is_max) continue;
    // The band's fields picked one by one (a reference to either band would put both in
    // local memory); x, y from the group's origin on the level.
    const bool second = TWO && rx >= b1.col0;
    const int x = (second ? b1.c.x - b1.ox - b1.col0 : b0.c.x - b0.ox) + rx - 1;
    const int y = (second ? b1.c.y - b1.oy : b0.c.y - b0.oy) + ry - 1;
    const int k = second ? b1.k : b0.k, cw = second ? b1.cw : b0.cw, ch = second ? b1.ch : b0.ch;
    const int col = g.pc > 1 && x >= cw ? 1 : 0;
    const int row = g.pr > 1 ? vf_div_small(y, ch) : 0;  // y < pr ch <= 32: exact
    const int cell = row * g.pc + col;
    if ((g.used >> cell) & 1u) atomicMax(s_key + cell, vf_key(m, k, y - row * ch, x - col * cw));
  }
}

// Level-0 coordinate of a level-k pixel centre: the 2x2 box filter puts it at (u + 0.5) 2^k - 0.5.
__device__ __forceinline__ float vf_level0(int u, int level) {
  return __fsub_rn(__fmul_rn(__fadd_rn((float)u, 0.5f), (float)(1 << level)), 0.5f);
}

// The keypoint a cell's best key stands for (key 0: none).
__device__ __forceinline__ vf_keypoint vf_decode(const vf_fast_job& job, int cell, int col, int row,
                                                 unsigned long long best) {
  vf_keypoint kp = {0.0f, 0.0f, 0.0f, -1, cell};
  if (best != 0) {
    const unsigned where = 0xffffffffu - (unsigned)best;
    const int k = (int)(where >> 28), ly = (int)((where >> 14) & 0x3fffu);
    const int lx = (int)(where & 0x3fffu);
    kp.x = vf_level0(col * (job.cell_width >> k) + lx, k);
    kp.y = vf_level0(row * (job.cell_height >> k) + ly, k);
    kp.score = __uint_as_float((unsigned)(best >> 32));
    kp.level = k;
  }
  return kp;
}

// One chunk: band b0, or with TWO bands b0 and b1 (both vf_tile_words_ok, one chunk each,
// their tiles side by side), so that two small levels share one chunk's fixed costs.
template <int SCORE, bool TWO>
__device__ __forceinline__ void vf_chunk(const vf_fast_job& job, const vf_fast_level& lv0,
                                         const vf_band& b0, const vf_fast_level& lv1,
                                         const vf_band& b1, uint8_t* s_img, float* s_resp,
                                         uint16_t* s_queue, int* s_count, int tid,
                                         const vf_group& g, unsigned long long* s_key) {
  const int lane = tid & 31, warp = tid >> 5;
  // The previous chunk's last readers of the counts passed two barriers since.
  if (tid == 0) s_count[0] = s_count[1] = 0;
  // The word path takes tiles inside the level: the responses' circles are inside too.
  const bool inside = TWO || vf_tile_words_ok(lv0, b0.c);
  if (inside) {
    vf_load_tile_words(lv0, b0.c, b0.col0, s_img, warp, lane);
    if (TWO) vf_load_tile_words(lv1, b1.c, b1.col0, s_img, warp, lane);
  } else {
    vf_load_tile(lv0, b0.c, s_img, tid);
  }
  __syncthreads();
  if (inside) {
    vf_queue_candidates_words<TWO>(job, b0, b1, s_img, s_resp, s_queue, s_count, tid);
  } else {
    vf_queue_candidates(job, lv0, b0.c, s_img, s_resp, s_queue, s_count, tid);
  }
  __syncthreads();
  vf_score_candidates<SCORE, TWO>(job, b0, b1, s_img, s_resp, s_queue, s_count[0], s_queue + kQueue,
                                  s_count + 1, tid);
  __syncthreads();
  vf_chunk_best<TWO>(g, b0, b1, s_resp, s_queue + kQueue, s_count[1], tid, s_key);
  __syncthreads();
}

// The block's work on one level's window `win`, chunk by chunk.
template <int SCORE>
__device__ __forceinline__ void vf_window(const vf_fast_job& job, const vf_fast_level& lv,
                                          const vf_rect& win, const vf_band& band, uint8_t* s_img,
                                          float* s_resp, uint16_t* s_queue, int* s_count, int tid,
                                          const vf_group& g, unsigned long long* s_key) {
  // Block-uniform loops: every thread meets every barrier.
  for (int y = 0; y < win.h; y += kChunkH) {
    for (int x = 0; x < win.w; x += kChunkW) {
      vf_band b = band;
      b.c = {win.x + x, win.y + y, min(kChunkW, win.w - x), min(kChunkH, win.h - y)};
      vf_chunk<SCORE, false>(job, lv, b, lv, b, s_img, s_resp, s_queue, s_count, tid, g, s_key);
    }
  }
}

// A level's part of a block: the window of its used cells (their bounding box, inside the
// border; maxima in masked cells within it are dropped) and its band; run false when empty.
struct vf_level_plan {
  vf_rect win;
  vf_band band;
  bool run;
};

__device__ __forceinline__ vf_level_plan vf_plan_level(const vf_fast_job& job,
                                                       const vf_fast_level& lv, int l,
                                                       const vf_group& g) {
  vf_level_plan p;
  const int k = job.first_level + l;
  vf_band& b = p.band;
  b.k = k;
  b.col0 = 0;
  b.cw = job.cell_width >> k;
  b.ch = job.cell_height >> k;
  b.ox = g.c0 * b.cw;
  b.oy = g.r0 * b.ch;
  // The used cells' span (vf_group_span; g.used is not 0 here).
  const int bd = job.border;
  p.win.x = max(b.ox + g.cmin * b.cw, bd);
  p.win.y = max(b.oy + g.rmin * b.ch, bd);
  p.win.w = min(b.ox + (g.cmax + 1) * b.cw, lv.width - bd) - p.win.x;
  p.win.h = min(b.oy + (g.rmax + 1) * b.ch, lv.height - bd) - p.win.y;
  p.run = p.win.w > 0 && p.win.h > 0;
  return p;
}

// Whether a plan is one window that fits one chunk read as words.
__device__ __forceinline__ bool vf_plan_one_chunk(const vf_level_plan& p, const vf_fast_level& lv) {
  return p.run && p.win.w <= kChunkW && p.win.h <= kChunkH && vf_tile_words_ok(lv, p.win);
}

// A cell's result: with two blocks a cell (parts > 1), one exchange a block, no fence: the first
// to arrive leaves its key, marked by the top bit (which no key sets: scores are non-negative
// floats); the second takes it, keeps the larger key (the tie rule, whatever the order), clears
// the word for the next launch and writes the keypoint.
__device__ __forceinline__ void vf_cell_result(const vf_fast_job& job, int parts, int col, int row,
                                               unsigned long long best) {
  const int cell = row * job.cols + col;
  if (parts > 1) {
    constexpr unsigned long long kLeft = 1ull << 63;
    const unsigned long long other = atomicExch(&job.meet[cell].best, best | kLeft);
    if (other == 0ull) return;
    best = max(best, other & ~kLeft);
    job.meet[cell].best = 0ull;
  }
  job.cells[cell] = vf_decode(job, cell, col, row, best);
}

// A block takes job.cells_per_block (1 or 2) neighbouring cells of a row, times
// job.rows_per_block rows (1 to 4; several where cells are low, as the frontend's birth bands of
// 32x8), so that a chunk's fixed costs (tile, barriers, set-up: a third of the instructions with
// one 32x32 cell a block) are paid for several cells: 32x32 cells in pairs fill one 64x32
// chunk, as do 32x8 ones in pairs of columns four rows high.
//
// Blocks a multiprocessor the registers must allow. Two cells a block is the choice of GPUs with
// few multiprocessors, where a detection's blocks come in several waves: on 8 SMs of an H200, 8
// blocks (64 registers, a few bytes spilled) took 48.3-48.8 us against 54.4-55.4 with 4 (92
// registers, 5 resident) and 50.6-50.9 with 6. One cell a block (a large GPU, one wave) keeps 4.
// Below sm_70 (a TX2) shared memory allows 3 blocks whatever the registers: 4 there.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
constexpr int kPairMinBlocks = 4;
#else
constexpr int kPairMinBlocks = 8;
#endif

// Group (bx, by)'s part `part` of `parts` (a block's work).
template <int SCORE, bool PAIRS>
__device__ __forceinline__ void vf_fast_detect_group(const vf_fast_job& job, int bx, int by,
                                                     int part, int parts) {
  __shared__ __align__(4) uint8_t s_img[kImgW * kImgH];
  __shared__ __align__(16) float s_resp[kRespW * kRespH];
  __shared__ uint16_t s_queue[2 * kQueue];  // the candidates, then the corners (phase 2b)
  __shared__ int s_count[2];
  __shared__ unsigned long long s_key[kMaxCells];  // each cell's best key (0: none)
  const int tid = threadIdx.x, lane = tid & 31;
  vf_group g;
  g.pc = job.cells_per_block;
  g.pr = job.rows_per_block;
  // The grid is the groups' (columns, rows, blocks a group): no division for a cell's place.
  g.c0 = g.pc * bx;
  g.r0 = g.pr * by;
  g.ncol = min(g.pc, job.cols - g.c0);
  g.nrow = min(g.pr, job.rows - g.r0);
  // Lane t of every warp reads cell t's mask byte; the ballot gives every thread the same bits.
  const int tc = lane & (g.pc - 1), tr = lane >> (g.pc - 1);  // pc is 1 or 2
  const bool in_grid = lane < kMaxCells && tc < g.ncol && tr < g.nrow;
  const uint8_t* occ = job.occupancy;
  const bool use = in_grid && (occ == nullptr || occ[(g.r0 + tr) * job.cols + g.c0 + tc] == 0);
  g.used = __ballot_sync(kFull, use);
  if (g.used != 0u) vf_group_span(g);
  if (tid < kMaxCells) s_key[tid] = 0ull;  // read after the chunks' barriers, or the one below
  // Two blocks a group when there are several levels: the first level (most of the pixels) in
  // one, the others in the second, so that a cell's levels run side by side.
  const int l_begin = part, l_end = part == parts - 1 ? job.levels : part + 1;
  for (int l = l_begin; l < l_end && g.used != 0u; ++l) {
    const vf_fast_level& lv = job.level[l];
    const vf_level_plan p = vf_plan_level(job, lv, l, g);
    // Two levels in one chunk where both are one window that fits, side by side in the tile
    // (the smaller levels: a group's second block pays one chunk's fixed costs for them, not two).
    if (l + 1 < l_end && vf_plan_one_chunk(p, lv)) {
      const vf_fast_level& lv1 = job.level[l + 1];
      const vf_level_plan p1 = vf_plan_level(job, lv1, l + 1, g);
      const int col1 = p.win.w + 8;  // a multiple of 4: vf_tile_words_ok
      if (vf_plan_one_chunk(p1, lv1) && col1 + p1.win.w + 8 <= kImgW) {
        vf_band b0 = p.band, b1 = p1.band;
        b0.c = p.win;
        b1.c = p1.win;
        b1.col0 = col1;
        vf_chunk<SCORE, true>(job, lv, b0, lv1, b1, s_img, s_resp, s_queue, s_count, tid, g, s_key);
        ++l;
        continue;
      }
    }
    if (p.run)
      vf_window<SCORE>(job, lv, p.win, p.band, s_img, s_resp, s_queue, s_count, tid, g, s_key);
  }
  __syncthreads();
  // Thread t writes cell t's result (masked cells too: a cell's two blocks always meet).
  if (in_grid && tid < kMaxCells) vf_cell_result(job, parts, g.c0 + tc, g.r0 + tr, s_key[tid]);
}

template <int SCORE, bool PAIRS>
__global__ void __launch_bounds__(kThreads, PAIRS ? kPairMinBlocks : 4)
    vf_fast_detect_kernel(vf_fast_job job) {
  vf_fast_detect_group<SCORE, PAIRS>(job, (int)blockIdx.x, (int)blockIdx.y, (int)blockIdx.z,
                                     (int)gridDim.z);
}

// Several detections in one launch (a rig's cameras): blockIdx.z = job * parts + part; a job's
// groups beyond its own grid return. Every job of a launch has the same score, cells a block and
// parts (vf_cuda_fast_detect_batch groups them): the same cells as their own launches.
struct vf_fast_jobs {
  vf_fast_job job[VF_CUDA_FAST_BATCH_MAX];
};
static_assert(sizeof(vf_fast_jobs) + sizeof(int) <= 4096, "a kernel's arguments take 4 KB");

template <int SCORE, bool PAIRS>
__global__ void __launch_bounds__(kThreads, PAIRS ? kPairMinBlocks : 4)
    vf_fast_detect_batch_kernel(const vf_fast_jobs jobs, int parts) {
  const int z = (int)blockIdx.z, part = z % parts;
  const vf_fast_job& job = jobs.job[z / parts];
  const int bx = (int)blockIdx.x, by = (int)blockIdx.y;
  if (bx * job.cells_per_block >= job.cols || by * job.rows_per_block >= job.rows) return;
  vf_fast_detect_group<SCORE, PAIRS>(job, bx, by, part, parts);
}

template <int SCORE>
void vf_fast_launch(const vf_fast_job* job, dim3 grid, cudaStream_t s) {
  if (job->cells_per_block == 2) {
    vf_fast_detect_kernel<SCORE, true><<<grid, kThreads, 0, s>>>(*job);
  } else {
    vf_fast_detect_kernel<SCORE, false><<<grid, kThreads, 0, s>>>(*job);
  }
}

template <int SCORE>
void vf_fast_launch_batch(const vf_fast_jobs* jobs, bool pairs, dim3 grid, int parts,
                          cudaStream_t s) {
  if (pairs) {
    vf_fast_detect_batch_kernel<SCORE, true><<<grid, kThreads, 0, s>>>(*jobs, parts);
  } else {
    vf_fast_detect_batch_kernel<SCORE, false><<<grid, kThreads, 0, s>>>(*jobs, parts);
  }
}

// One launch of `count` jobs that share the score, the cells a block and the parts.
int vf_fast_batch_launch(const vf_fast_jobs* jobs, int count, cudaStream_t s) {
  const vf_fast_job& first = jobs->job[0];
  const int parts = first.levels > 1 ? 2 : 1;
  unsigned cols = 0, rows = 0;
  for (int i = 0; i < count; ++i) {
    const vf_fast_job& j = jobs->job[i];
    const unsigned c =
        ((unsigned)j.cols + (unsigned)j.cells_per_block - 1) / (unsigned)j.cells_per_block;
    const unsigned r =
        ((unsigned)j.rows + (unsigned)j.rows_per_block - 1) / (unsigned)j.rows_per_block;
    cols = c > cols ? c : cols;
    rows = r > rows ? r : rows;
  }
  const dim3 grid(cols, rows, (unsigned)(count * parts));
  const bool pairs = first.cells_per_block == 2;
  if (first.score == VF_FAST_SCORE_SAD_CIRCLE) {
    vf_fast_launch_batch<VF_FAST_SCORE_SAD_CIRCLE>(jobs, pairs, grid, parts, s);
  } else if (first.score == VF_FAST_SCORE_SAD_ARC) {
    vf_fast_launch_batch<VF_FAST_SCORE_SAD_ARC>(jobs, pairs, grid, parts, s);
  } else {
    vf_fast_launch_batch<VF_FAST_SCORE_MAX_THRESHOLD>(jobs, pairs, grid, parts, s);
  }
  return VF_CUDA_LAUNCH_STATUS();
}

// Whether two jobs can share a launch.
bool vf_fast_same_launch(const vf_fast_job& a, const vf_fast_job& b) {
  return a.score == b.score && a.cells_per_block == b.cells_per_block &&
         (a.levels > 1) == (b.levels > 1);
}

}  // namespace

extern "C" int vf_cuda_fast_detect_batch(const vf_fast_job* jobs, int n, void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  bool done[VF_CUDA_FAST_BATCH_GROUPS] = {};
  // Jobs in groups that share a launch, in the order of their first job; each group in launches
  // of up to VF_CUDA_FAST_BATCH_MAX.
  if (n > VF_CUDA_FAST_BATCH_GROUPS) return (int)cudaErrorInvalidValue;
  for (int i = 0; i < n; ++i) {
    if (done[i]) continue;
    vf_fast_jobs batch;
    int count = 0;
    for (int k = i; k < n; ++k) {
      if (done[k] || !vf_fast_same_launch(jobs[i], jobs[k])) continue;
      done[k] = true;
      batch.job[count++] = jobs[k];
      if (count == VF_CUDA_FAST_BATCH_MAX) {
        const int rc = vf_fast_batch_launch(&batch, count, s);
        if (rc != 0) return rc;
        count = 0;
      }
    }
    if (count > 0) {
      const int rc = vf_fast_batch_launch(&batch, count, s);
      if (rc != 0) return rc;
    }
  }
  return 0;
}

extern "C" int vf_cuda_fast_detect(const vf_fast_job* job, void* stream) {
  // Three blocks a cell (one a level) measured no faster at 752x480 (16.6 against 16.2 us), nor
  // did splitting the first level's rows over two blocks (17.6-18.5 against 16.8-17.2 us).
  const unsigned pc = (unsigned)job->cells_per_block, pr = (unsigned)job->rows_per_block;
  const dim3 grid(((unsigned)job->cols + pc - 1) / pc, ((unsigned)job->rows + pr - 1) / pr,
                  job->levels > 1 ? 2u : 1u);
  cudaStream_t s = (cudaStream_t)stream;
  if (job->score == VF_FAST_SCORE_SAD_CIRCLE) {
    vf_fast_launch<VF_FAST_SCORE_SAD_CIRCLE>(job, grid, s);
  } else if (job->score == VF_FAST_SCORE_SAD_ARC) {
    vf_fast_launch<VF_FAST_SCORE_SAD_ARC>(job, grid, s);
  } else {
    vf_fast_launch<VF_FAST_SCORE_MAX_THRESHOLD>(job, grid, s);
  }
  return VF_CUDA_LAUNCH_STATUS();
}

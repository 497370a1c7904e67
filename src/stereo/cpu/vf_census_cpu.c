// SPDX-License-Identifier: BSD-3-Clause
/* CPU census transform 9x7, centre-symmetric (31 pairs) or full (62 neighbours); pixels outside
 * the image replicate the nearest edge. Bit order as in cuda/stereo/vf_census.cu, stored as byte
 * planes (bit i in bit i % 8 of plane i / 8) for the byte-wise Hamming distances of vf_sgm_cpu.c.
 * Pixels go in chunks of 64: the window's rows are copied with replicated edges, then each bit
 * is one comparison over the chunk shifted into its plane (loops -O2 vectorizes; where the CPU
 * has AVX2, asked at run time, a plane's 64 bytes stay in two vectors over its 8 bits instead, the
 * same bytes). */
#include <string.h>

#include "core/vf_cpu_avx2.h"
#include "core/vf_parallel.h"
#include "stereo/kernels/vf_sgm_cpu.h"

#define VF_CHUNK 64
#define VF_WIN_H (2 * VF_CENSUS_RY + 1)

/* Bit i is set where window pixel a is brighter than window pixel b (offsets from the centre). */
typedef struct vf_census_pair {
  int ay, ax, by, bx;
} vf_census_pair;

typedef struct vf_census_job {
  const uint8_t* img;
  size_t stride;
  int w, h, bits;
  int wide; /* the planes through vf_census_planes_avx2 */
  vf_census_pair pair[VF_CENSUS_FULL_BITS];
  uint8_t* out;
} vf_census_job;

static int vf_clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static int vf_census_pairs(int full, vf_census_pair* pair) {
  int n = 0;
  for (int dy = -VF_CENSUS_RY; dy <= VF_CENSUS_RY; ++dy) {
    for (int dx = -VF_CENSUS_RX; dx <= VF_CENSUS_RX; ++dx) {
      if (full && (dx != 0 || dy != 0)) {
        /* Full: set where the neighbour is darker than the centre, row-major order. */
        pair[n++] = (vf_census_pair){0, 0, dy, dx};
      } else if (!full && (dy < 0 || (dy == 0 && dx < 0))) {
        /* CS: pairs mirrored about the centre, first half of the window in row-major order. */
        pair[n++] = (vf_census_pair){dy, dx, -dy, -dx};
      }
    }
  }
  return n;
}

/* plane = plane << 1 | (a > b) over one chunk: a plane's bits enter from the highest down. Kept
 * out of line: inlined into the loop over the pairs, GCC -O3 loses the restrict qualifiers and
 * leaves this loop scalar (about 8x slower). */
__attribute__((noinline)) static void vf_shift_in(const uint8_t* restrict a,
                                                  const uint8_t* restrict b,
                                                  uint8_t* restrict plane) {
  for (int i = 0; i < VF_CHUNK; ++i) plane[i] = (uint8_t)(plane[i] << 1 | (a[i] > b[i]));
}

#ifdef VF_AVX2
/* a > b for unsigned bytes: both moved to signed by flipping the top bit. */
static inline VF_AVX2_TARGET __m256i vf_gt_u8(const uint8_t* a, const uint8_t* b) {
  const __m256i flip = _mm256_set1_epi8((char)0x80);
  return _mm256_cmpgt_epi8(_mm256_xor_si256(_mm256_loadu_si256((const __m256i*)a), flip),
                           _mm256_xor_si256(_mm256_loadu_si256((const __m256i*)b), flip));
}

/* The chunk's planes from its window rows (win[r] + RX is row r's chunk): vf_shift_in's bits
 * with the plane's 64 bytes in two vectors. */
static VF_AVX2_TARGET void vf_census_planes_avx2(const vf_census_job* j,
                                                 uint8_t (*win)[VF_CHUNK + 2 * VF_CENSUS_RX],
                                                 uint8_t* out, int m) {
  const __m256i one = _mm256_set1_epi8(1);
  int planes = (j->bits + 7) / 8;
  for (int pl = 0; pl < planes; ++pl) {
    __m256i lo = _mm256_setzero_si256(), hi = lo;
    int top = 8 * pl + 7 < j->bits ? 8 * pl + 7 : j->bits - 1;
    for (int i = top; i >= 8 * pl; --i) {
      const vf_census_pair* q = &j->pair[i];
      const uint8_t* a = win[VF_CENSUS_RY + q->ay] + VF_CENSUS_RX + q->ax;
      const uint8_t* b = win[VF_CENSUS_RY + q->by] + VF_CENSUS_RX + q->bx;
      lo = _mm256_or_si256(_mm256_add_epi8(lo, lo), _mm256_and_si256(vf_gt_u8(a, b), one));
      hi =
          _mm256_or_si256(_mm256_add_epi8(hi, hi), _mm256_and_si256(vf_gt_u8(a + 32, b + 32), one));
    }
    uint8_t plane[VF_CHUNK];
    _mm256_storeu_si256((__m256i*)plane, lo);
    _mm256_storeu_si256((__m256i*)(plane + 32), hi);
    memcpy(out + (size_t)pl * j->w, plane, (size_t)m);
  }
}
#endif

static void vf_census_chunk(const vf_census_job* j, int y, int x0) {
  uint8_t win[VF_WIN_H][VF_CHUNK + 2 * VF_CENSUS_RX];
  for (int r = 0; r < VF_WIN_H; ++r) {
    const uint8_t* src = j->img + (size_t)vf_clampi(y + r - VF_CENSUS_RY, 0, j->h - 1) * j->stride;
    int lo = x0 - VF_CENSUS_RX, n = VF_CHUNK + 2 * VF_CENSUS_RX;
    if (lo >= 0 && lo + n <= j->w) {
      memcpy(win[r], src + lo, (size_t)n);
    } else {
      for (int i = 0; i < n; ++i) win[r][i] = src[vf_clampi(lo + i, 0, j->w - 1)];
    }
  }
  int planes = (j->bits + 7) / 8, m = j->w - x0 < VF_CHUNK ? j->w - x0 : VF_CHUNK;
  uint8_t* out = j->out + (size_t)y * planes * j->w + x0;
#ifdef VF_AVX2
  if (j->wide) {
    vf_census_planes_avx2(j, win, out, m);
    return;
  }
#endif
  for (int pl = 0; pl < planes; ++pl) {
    uint8_t plane[VF_CHUNK] = {0};
    int top = 8 * pl + 7 < j->bits ? 8 * pl + 7 : j->bits - 1;
    for (int i = top; i >= 8 * pl; --i) {
      const vf_census_pair* q = &j->pair[i];
      /* win[r] + RX + dx is the neighbour (dx, r - RY) of each chunk pixel. */
      vf_shift_in(win[VF_CENSUS_RY + q->ay] + VF_CENSUS_RX + q->ax,
                  win[VF_CENSUS_RY + q->by] + VF_CENSUS_RX + q->bx, plane);
    }
    memcpy(out + (size_t)pl * j->w, plane, (size_t)m);
  }
}

static void vf_census_rows(int begin, int end, void* arg) {
  const vf_census_job* j = arg;
  for (int y = begin; y < end; ++y) {
    for (int x0 = 0; x0 < j->w; x0 += VF_CHUNK) vf_census_chunk(j, y, x0);
  }
}

void vf_cpu_census_lanes(const uint8_t* img, size_t stride, int w, int h, int full, uint8_t* out,
                         vf_pool* pool, int lanes) {
  int threads = vf_pool_threads(pool);
  vf_census_job job = {img, stride, w, h, 0, 0, {{0}}, out};
  job.bits = vf_census_pairs(full, job.pair);
#ifdef VF_AVX2
  job.wide = lanes != 16 && vf_cpu_avx2();
#else
  (void)lanes;
#endif
  int useful = w * h / 32768;
  vf_parallel_for(pool, h, useful < threads ? useful : threads, vf_census_rows, &job);
}

void vf_cpu_census(const uint8_t* img, size_t stride, int w, int h, int full, uint8_t* out,
                   vf_pool* pool) {
  vf_cpu_census_lanes(img, stride, w, h, full, out, pool, 0);
}

void vf_cpu_census_pack64(const uint8_t* planes, int w, int h, int full, uint64_t* words) {
  const int n = ((full ? VF_CENSUS_FULL_BITS : VF_CENSUS_CS_BITS) + 7) / 8;
  for (int y = 0; y < h; ++y) {
    const uint8_t* row = planes + (size_t)y * n * w;
    for (int x = 0; x < w; ++x) {
      uint64_t v = 0;
      for (int pl = 0; pl < n; ++pl) v |= (uint64_t)row[(size_t)pl * w + x] << (8 * pl);
      words[(size_t)y * w + x] = v;
    }
  }
}

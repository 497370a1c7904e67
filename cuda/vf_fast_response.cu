// CUDA FAST response maps for every searched level in one launch (Nagy et al., "Faster than
// FAST", IROS 2020, section III-A). Each thread classes the 16 circle pixels into a brighter and
// a darker bit mask; one bit of the 2^16-entry arc table per mask says whether an arc of n
// contiguous pixels exists, so no thread branches on the segment test. Scores are integer sums
// converted to float once, exactly as the CPU reference (src/cpu/vf_fast_cpu.c) does.
#include <cuda_runtime.h>
#include <stdint.h>

#include "../src/vf_cuda_fast.h"
#include "viofront/vf_detector.h"

namespace {

constexpr int kTileW = 32;        // one warp per tile row: 32 consecutive pixels
constexpr int kTileRowsPerY = 8;  // blockDim.y
constexpr int kRowsPerThread = 4;
constexpr int kTileH = kTileRowsPerY * kRowsPerThread;

// Bresenham circle of radius 3, clockwise from the top (the CPU reference's order).
__constant__ int2 c_circle[16] = {{0, -3}, {1, -3},  {2, -2},  {3, -1}, {3, 0},  {3, 1},
                                  {2, 2},  {1, 3},   {0, 3},   {-1, 3}, {-2, 2}, {-3, 1},
                                  {-3, 0}, {-3, -1}, {-2, -2}, {-1, -3}};

// Where each level's tiles start in the flattened block index.
struct vf_tiles {
  int lo;  // the computed band's margin (vf_fast_response_margin)
  int begin[VF_FAST_MAX_LEVELS + 1];
  int across[VF_FAST_MAX_LEVELS];
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
    // The corner's side: sign +1 for a bright arc, -1 for a dark one (never both for n >= 9).
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

template <int SCORE>
__global__ void vf_fast_response_kernel(vf_fast_job job, vf_tiles tiles) {
  int b = blockIdx.x, l = 0;
  while (l + 1 < job.levels && b >= tiles.begin[l + 1]) ++l;
  b -= tiles.begin[l];
  const vf_fast_level lv = job.level[l];
  const int lo = tiles.lo;
  const int x = (lo & ~31) + (b % tiles.across[l]) * kTileW + threadIdx.x;
  if (x < lo || x >= lv.width - lo) return;
  const int t = job.threshold;
  const int y_begin = lo + (b / tiles.across[l]) * kTileH + threadIdx.y;
  const int y_end = min(y_begin + kTileH, lv.height - lo);
  for (int y = y_begin; y < y_end; y += kTileRowsPerY) {
    const uint8_t* p = lv.image + (size_t)y * lv.stride + x;
    const int c = __ldg(p);
    int d[16];
    unsigned bright = 0, dark = 0;
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      d[i] = (int)__ldg(p + (ptrdiff_t)c_circle[i].y * (ptrdiff_t)lv.stride + c_circle[i].x) - c;
      bright |= (unsigned)(d[i] > t) << i;
      dark |= (unsigned)(d[i] < -t) << i;
    }
    const unsigned is_b = vf_lut_bit(job.lut, bright), is_d = vf_lut_bit(job.lut, dark);
    const int s = vf_score<SCORE>(d, t, job.arc_length, is_b);
    lv.response[(size_t)y * lv.pitch + x] = (is_b | is_d) ? (float)s : 0.0f;
  }
}

}  // namespace

extern "C" int vf_cuda_fast_response(const vf_fast_job* job, void* stream) {
  const int lo = vf_fast_response_margin(job->border);
  vf_tiles tiles = {};
  tiles.lo = lo;
  int blocks = 0;
  for (int l = 0; l < job->levels; ++l) {
    const int w = job->level[l].width - lo, h = job->level[l].height - lo;
    tiles.begin[l] = blocks;
    tiles.across[l] = w > lo ? (w - (lo & ~31) + kTileW - 1) / kTileW : 1;
    if (w > lo && h > lo) blocks += tiles.across[l] * ((h - lo + kTileH - 1) / kTileH);
  }
  tiles.begin[job->levels] = blocks;
  if (blocks == 0) return 0;  // every level is narrower than its border: nothing to compute
  const dim3 threads(kTileW, kTileRowsPerY);
  cudaStream_t s = (cudaStream_t)stream;
  if (job->score == VF_FAST_SCORE_SAD_CIRCLE) {
    vf_fast_response_kernel<VF_FAST_SCORE_SAD_CIRCLE><<<blocks, threads, 0, s>>>(*job, tiles);
  } else if (job->score == VF_FAST_SCORE_SAD_ARC) {
    vf_fast_response_kernel<VF_FAST_SCORE_SAD_ARC><<<blocks, threads, 0, s>>>(*job, tiles);
  } else {
    vf_fast_response_kernel<VF_FAST_SCORE_MAX_THRESHOLD><<<blocks, threads, 0, s>>>(*job, tiles);
  }
  return (int)cudaGetLastError();
}

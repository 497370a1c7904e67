// SPDX-License-Identifier: BSD-3-Clause
// CUDA pyramid: every level in one launch. Each block owns a TILE x TILE tile of level 0
// (TILE = 2^(levels-1) or more), so level k of the tile depends only on pixels inside it and the
// levels are computed one after another in shared memory with the same 2x2 round-half-up
// filter as the CPU reference (src/features/cpu/vf_pyramid_cpu.c), four pixels a thread in
// 32-bit words where a level's tile is at least 4 pixels wide.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "core/vf_cuda_runtime.h"
#include "features/kernels/vf_pyramid_cuda.h"

namespace {

// Four output pixels from 8 x 2 input bytes: the pairs of each row summed in 16-bit halves, the
// rows added, (sum + 2) >> 2 per half (a half's sum is at most 1022, so the shift moves nothing
// across the halves that the mask keeps), and the four bytes packed. `a0 a1` are the upper row's
// words (pixels 0-3, 4-7), `b0 b1` the lower row's.
__device__ __forceinline__ unsigned vf_box4(unsigned a0, unsigned a1, unsigned b0, unsigned b1) {
  constexpr unsigned kLow = 0x00ff00ffu;
  const unsigned s0 = (a0 & kLow) + ((a0 >> 8) & kLow) + (b0 & kLow) + ((b0 >> 8) & kLow);
  const unsigned s1 = (a1 & kLow) + ((a1 >> 8) & kLow) + (b1 & kLow) + ((b1 >> 8) & kLow);
  const unsigned o0 = ((s0 + 0x00020002u) >> 2) & kLow, o1 = ((s1 + 0x00020002u) >> 2) & kLow;
  return __byte_perm(o0, o1, 0x6420u);
}

// Bytes x .. x + 3 of a row into a word, those at or past `end` as 0; one load where the row
// is 4-byte aligned and all four are inside.
__device__ __forceinline__ unsigned vf_load4(const uint8_t* row, int x, int end, bool aligned) {
  if (aligned && x + 3 < end) return __ldg(reinterpret_cast<const unsigned*>(row + x));
  unsigned v = 0u;
#pragma unroll
  for (int j = 0; j < 4; ++j)
    if (x + j < end) v |= (unsigned)__ldg(row + x + j) << (8 * j);
  return v;
}

// Bytes of `v` to row[x ..], those at or past `end` left out; one store where it can.
__device__ __forceinline__ void vf_store4(uint8_t* row, int x, int end, bool aligned, unsigned v) {
  if (aligned && x + 3 < end) {
    *reinterpret_cast<unsigned*>(row + x) = v;
    return;
  }
#pragma unroll
  for (int j = 0; j < 4; ++j)
    if (x + j < end) row[x + j] = (uint8_t)(v >> (8 * j));
}

// A thread per word of the level-0 tile (at most 1024 threads), so that the tile is read in
// one step; levels 1, 2 and 3 of the usual 32x32 tile then take 64, 16 and 4 of its 256
// threads, four pixels each. With `quad`, a thread for four words of the tile (64 threads a
// 32x32 tile): the deeper levels' idle warps gone, about half the instructions, but beside the
// dense frame's SGM on a whole H200 the smaller blocks waited (docs/perf/pyramid.md), so the host
// picks it where the tiles are many rounds of the device (vf_pyramid.c).
__host__ __device__ constexpr int vf_pyramid_threads(int tile, bool quad) {
  return tile * tile / (quad ? 16 : 4) < 1024 ? tile * tile / (quad ? 16 : 4) : 1024;
}

// A 32x32 tile (64 threads in the quad layout, 256 in the other) with up to 4 levels, where the
// tile lies inside the image on every level and every row it touches is 4-byte aligned (all
// tiles but the right and bottom edges' on the usual sizes): the same box filter with the loops
// unrolled and every index a constant shift, words loaded and stored whole. The general loop below
// spent most of a tile's instructions on its per-level set-up and bounds tests
// (docs/perf/pyramid.md). Which tiles qualify the host works out once a launch (vf_fast_extent):
// the first fast_cols x fast_rows of the grid.
constexpr int kFastTile = 32, kFastLevels = 4;

// Level K of a fast tile from level K - 1 in `in` (rows of 2 side / 4 words) into `out` and
// the level's image: output word (ty, q) a thread.
template <int K>
__device__ __forceinline__ void vf_fast_level(const unsigned* in, unsigned* out,
                                              const vf_cuda_pyramid_levels& lv, int x0, int y0,
                                              int tid) {
  constexpr int kSide = kFastTile >> K, kOutWords = kSide / 4, kInWords = 2 * kOutWords;
  if (tid < kSide * kOutWords) {
    const int ty = tid / kOutWords, q = tid % kOutWords;
    const unsigned* r0 = in + 2 * ty * kInWords + 2 * q;
    const unsigned v = vf_box4(r0[0], r0[1], r0[kInWords], r0[kInWords + 1]);
    out[tid] = v;
    uint8_t* row = lv.data[K] + (size_t)((y0 >> K) + ty) * lv.stride[K];
    *reinterpret_cast<unsigned*>(row + (x0 >> K) + 4 * q) = v;
  }
}

template <int THREADS>
__device__ __forceinline__ void vf_fast_pyramid(const uint8_t* src, size_t src_stride,
                                                const vf_cuda_pyramid_levels& lv, int copy_level0,
                                                int x0, int y0, unsigned* s_a, unsigned* s_b,
                                                int tid) {
  // Level 0: thread t takes word t & 7 of rows t >> 3, then THREADS / 8 rows on, and so on.
  constexpr int kWords = kFastTile * kFastTile / 4 / THREADS, kRowStep = THREADS / 8;
  const int c = tid & 7, r = tid >> 3;
  const uint8_t* p = src + (size_t)(y0 + r) * src_stride + x0 + 4 * c;
  const size_t step = kRowStep * src_stride;
  unsigned v[kWords];
#pragma unroll
  for (int j = 0; j < kWords; ++j) v[j] = __ldg(reinterpret_cast<const unsigned*>(p + j * step));
#pragma unroll
  for (int j = 0; j < kWords; ++j) s_a[(r + kRowStep * j) * 8 + c] = v[j];
  if (copy_level0) {
    uint8_t* q = lv.data[0] + (size_t)(y0 + r) * lv.stride[0] + x0 + 4 * c;
    const size_t qstep = kRowStep * lv.stride[0];
#pragma unroll
    for (int j = 0; j < kWords; ++j) *reinterpret_cast<unsigned*>(q + j * qstep) = v[j];
  }
  __syncthreads();
  if (lv.levels < 2) return;
  vf_fast_level<1>(s_a, s_b, lv, x0, y0, tid);
  __syncthreads();
  if (lv.levels < 3) return;
  vf_fast_level<2>(s_b, s_a, lv, x0, y0, tid);
  __syncthreads();
  if (lv.levels < 4) return;
  vf_fast_level<3>(s_a, s_b, lv, x0, y0, tid);
}

// The tile (bx, by) of every level (a block's work).
template <int TILE, bool QUAD>
__device__ __forceinline__ void vf_pyramid_tile(const uint8_t* __restrict__ src, size_t src_stride,
                                                const vf_cuda_pyramid_levels& lv, int copy_level0,
                                                int bx, int by) {
  constexpr int kThreads = vf_pyramid_threads(TILE, QUAD);
  // Level 0 tile plus the level-1 tile; deeper levels reuse the level-0 space (ping-pong).
  __shared__ __align__(4) uint8_t s_a[TILE * TILE];
  __shared__ __align__(4) uint8_t s_b[(TILE / 2) * (TILE / 2)];
  const int x0 = bx * TILE, y0 = by * TILE;
  const int w0 = lv.width[0], h0 = lv.height[0];
  const int tid = threadIdx.x;
  if (TILE == kFastTile && bx < lv.fast_cols && by < lv.fast_rows) {
    // (Other tiles never take it: any valid count instantiates it for them.)
    vf_fast_pyramid<TILE == kFastTile ? kThreads : 64>(src, src_stride, lv, copy_level0, x0, y0,
                                                       reinterpret_cast<unsigned*>(s_a),
                                                       reinterpret_cast<unsigned*>(s_b), tid);
    return;
  }

  // The tile a word a thread; pixels outside the image read as 0 (they never feed an in-image
  // output because level sizes round down).
  const bool src_aligned = (((uintptr_t)src | src_stride) & 3u) == 0;
  const bool copy_aligned = (((uintptr_t)lv.data[0] | lv.stride[0]) & 3u) == 0;
  for (int i = tid; i < TILE * TILE / 4; i += kThreads) {
    const int row = i / (TILE / 4), x = x0 + (i % (TILE / 4)) * 4, y = y0 + row;
    unsigned v = 0u;
    if (y < h0) {
      v = vf_load4(src + (size_t)y * src_stride, x, w0, src_aligned);
      if (copy_level0) vf_store4(lv.data[0] + (size_t)y * lv.stride[0], x, w0, copy_aligned, v);
    }
    reinterpret_cast<unsigned*>(s_a)[i] = v;
  }
  __syncthreads();

  uint8_t* in = s_a;
  uint8_t* out = s_b;
  int lg = 31 - __clz(TILE);  // log2 of the input side
  for (int k = 1; k < lv.levels; ++k, --lg) {
    const int half = 1 << (lg - 1);
    const int xk = x0 >> k, yk = y0 >> k, wk = lv.width[k], hk = lv.height[k];
    uint8_t* dst = lv.data[k];
    const size_t dst_stride = lv.stride[k];
    if (half >= 4) {
      // Four outputs a thread: output word (ty, q) from words 2q and 2q + 1 of two input rows.
      const bool aligned = (((uintptr_t)dst | dst_stride) & 3u) == 0;
      const int qlg = lg - 3;  // log2 of the output words a row
      const unsigned* in32 = reinterpret_cast<const unsigned*>(in);
      for (int i = tid; i < (half * half) >> 2; i += kThreads) {
        const int ty = i >> qlg, q = i & ((1 << qlg) - 1);
        const unsigned* r0 = in32 + ((2 * ty) << (lg - 2)) + 2 * q;
        const unsigned* r1 = r0 + (1 << (lg - 2));
        const unsigned v = vf_box4(r0[0], r0[1], r1[0], r1[1]);
        reinterpret_cast<unsigned*>(out)[i] = v;
        if (yk + ty < hk)
          vf_store4(dst + (size_t)(yk + ty) * dst_stride, xk + 4 * q, wk, aligned, v);
      }
    } else {
      for (int i = tid; i < half * half; i += kThreads) {
        const int ty = i >> (lg - 1), tx = i & (half - 1);
        const uint8_t* r0 = in + ((2 * ty) << lg) + 2 * tx;
        const unsigned sum = (unsigned)r0[0] + r0[1] + r0[1 << lg] + r0[(1 << lg) + 1];
        const uint8_t v = (uint8_t)((sum + 2u) >> 2);
        out[i] = v;
        if (xk + tx < wk && yk + ty < hk) dst[(size_t)(yk + ty) * dst_stride + xk + tx] = v;
      }
    }
    __syncthreads();
    uint8_t* t = in;
    in = out;
    out = t;
  }
}

template <int TILE, bool QUAD>
__global__ void __launch_bounds__(vf_pyramid_threads(TILE, QUAD))
    vf_pyramid_kernel(const uint8_t* __restrict__ src, size_t src_stride, vf_cuda_pyramid_levels lv,
                      int copy_level0) {
  vf_pyramid_tile<TILE, QUAD>(src, src_stride, lv, copy_level0, (int)blockIdx.x, (int)blockIdx.y);
}

// Several pyramids of up to 6 levels (a 32-pixel tile) in one launch (a rig's cameras): grid.z
// picks the job; a job's tiles beyond its own image return. The same pixels as their own launches.
struct vf_pyramid_jobs {
  vf_cuda_pyramid_job job[VF_CUDA_PYRAMID_BATCH_MAX];
  int copy[VF_CUDA_PYRAMID_BATCH_MAX];
};

template <bool QUAD>
__global__ void __launch_bounds__(vf_pyramid_threads(32, QUAD))
    vf_pyramid_batch_kernel(const vf_pyramid_jobs jobs) {
  const vf_cuda_pyramid_job& j = jobs.job[blockIdx.z];
  const int bx = (int)blockIdx.x, by = (int)blockIdx.y;
  if (bx * 32 >= j.levels.width[0] || by * 32 >= j.levels.height[0]) return;
  vf_pyramid_tile<32, QUAD>(j.src, j.src_stride, j.levels, jobs.copy[blockIdx.z], bx, by);
}

// How many tile columns and rows from the origin the fast path takes (vf_fast_pyramid): every
// level's part of the tile inside the level, every row pointer and stride 4-byte aligned; 0 x 0
// when the levels are more than it unrolls.
static void vf_fast_extent(const uint8_t* src, size_t src_stride, int copy_level0,
                           vf_cuda_pyramid_levels* lv) {
  lv->fast_cols = lv->fast_rows = 0;
  if (lv->levels > kFastLevels) return;
  uintptr_t bits = (uintptr_t)src | src_stride;
  for (int k = copy_level0 ? 0 : 1; k < lv->levels; ++k)
    bits |= (uintptr_t)lv->data[k] | lv->stride[k];
  if ((bits & 3u) != 0) return;
  int cols = lv->width[0] / kFastTile, rows = lv->height[0] / kFastTile;
  for (int k = 1; k < lv->levels; ++k) {
    const int side = kFastTile >> k;  // a tile's part of level k, from (x0 >> k, y0 >> k)
    cols = cols < lv->width[k] / side ? cols : lv->width[k] / side;
    rows = rows < lv->height[k] / side ? rows : lv->height[k] / side;
  }
  lv->fast_cols = cols;
  lv->fast_rows = rows;
}

// The launch below, one fault-injection site for all its instantiations.
VF_CUDA_SITE(vf_launch_site);

template <int TILE>
int vf_launch(const uint8_t* src, size_t src_stride, const vf_cuda_pyramid_levels* lv,
              int copy_level0, cudaStream_t stream) {
  dim3 grid((lv->width[0] + TILE - 1) / TILE, (lv->height[0] + TILE - 1) / TILE);
  if (lv->quad) {
    vf_pyramid_kernel<TILE, true>
        <<<grid, vf_pyramid_threads(TILE, true), 0, stream>>>(src, src_stride, *lv, copy_level0);
  } else {
    vf_pyramid_kernel<TILE, false>
        <<<grid, vf_pyramid_threads(TILE, false), 0, stream>>>(src, src_stride, *lv, copy_level0);
  }
  return VF_CUDA_LAUNCH_STATUS_AT(vf_launch_site);
}

}  // namespace

extern "C" int vf_cuda_pyramid_build(const uint8_t* src, size_t src_stride,
                                     const vf_cuda_pyramid_levels* lv, void* stream) {
  const int copy = src != lv->data[0];
  cudaStream_t s = (cudaStream_t)stream;
  if (lv->levels <= 1) {
    return copy ? (int)cudaMemcpy2DAsync(lv->data[0], lv->stride[0], src, src_stride,
                                         (size_t)lv->width[0], (size_t)lv->height[0],
                                         cudaMemcpyDeviceToDevice, s)
                : 0;
  }
  // The smallest tile that holds 2^(levels-1) pixels per side gives the most blocks.
  if (lv->levels <= 6) {
    vf_cuda_pyramid_levels fast = *lv;
    vf_fast_extent(src, src_stride, copy, &fast);
    return vf_launch<32>(src, src_stride, &fast, copy, s);
  }
  if (lv->levels == 7) return vf_launch<64>(src, src_stride, lv, copy, s);
  return vf_launch<128>(src, src_stride, lv, copy, s);
}

// Jobs of one layout into launches of up to VF_CUDA_PYRAMID_BATCH_MAX.
VF_CUDA_SITE(vf_batch_site);

static int vf_launch_batch(vf_pyramid_jobs* b, int count, int cols, int rows, bool quad,
                           cudaStream_t stream) {
  const dim3 grid((unsigned)cols, (unsigned)rows, (unsigned)count);
  if (quad) {
    vf_pyramid_batch_kernel<true><<<grid, vf_pyramid_threads(32, true), 0, stream>>>(*b);
  } else {
    vf_pyramid_batch_kernel<false><<<grid, vf_pyramid_threads(32, false), 0, stream>>>(*b);
  }
  return VF_CUDA_LAUNCH_STATUS_AT(vf_batch_site);
}

extern "C" int vf_cuda_pyramid_build_batch(const vf_cuda_pyramid_job* jobs, int n, void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  for (int layout = 0; layout < 2; ++layout) {
    vf_pyramid_jobs b;
    int count = 0, cols = 0, rows = 0;
    for (int i = 0; i < n; ++i) {
      const vf_cuda_pyramid_job& j = jobs[i];
      const int levels = j.levels.levels;
      // One level, or more than a 32-pixel tile holds: a build of its own (in the first pass).
      if (levels <= 1 || levels > 6) {
        if (layout == 0) {
          const int rc = vf_cuda_pyramid_build(j.src, j.src_stride, &j.levels, stream);
          if (rc != 0) return rc;
        }
        continue;
      }
      if ((j.levels.quad != 0) != (layout == 1)) continue;
      b.job[count] = j;
      b.copy[count] = j.src != j.levels.data[0];
      vf_fast_extent(j.src, j.src_stride, b.copy[count], &b.job[count].levels);
      ++count;
      const int c = (j.levels.width[0] + 31) / 32, r = (j.levels.height[0] + 31) / 32;
      cols = c > cols ? c : cols;
      rows = r > rows ? r : rows;
      if (count == VF_CUDA_PYRAMID_BATCH_MAX) {
        const int rc = vf_launch_batch(&b, count, cols, rows, layout == 1, s);
        if (rc != 0) return rc;
        count = cols = rows = 0;
      }
    }
    if (count > 0) {
      const int rc = vf_launch_batch(&b, count, cols, rows, layout == 1, s);
      if (rc != 0) return rc;
    }
  }
  return 0;
}

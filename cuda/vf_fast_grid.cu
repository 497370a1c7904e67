// CUDA grid non-maxima suppression (Nagy et al., "Faster than FAST", IROS 2020, section III-B):
// one block per grid cell, all searched levels, one launch. At level k the cell is scaled by
// 2^-k; its rows are cut into 32-pixel fragments, one warp per fragment walking a stripe of
// rows with the 3x3 neighbourhood in registers (one new row of three values per step), each
// lane keeping the best of its column. A warp shuffle reduction and a shared-memory reduction
// over the warps give the cell's maximum. Candidates are compared as 64-bit keys: the score's
// float bits (positive floats order like integers) above the inverted (level, y, x), so the
// maximum key is the documented tie rule and the result does not depend on the reduction order.
#include <cuda_runtime.h>
#include <stdint.h>

#include "../src/vf_cuda_fast.h"

namespace {

constexpr int kWarps = 8;
constexpr unsigned kFull = 0xffffffffu;

__device__ __forceinline__ unsigned long long vf_key(float score, int level, int ly, int lx) {
  const unsigned where = ((unsigned)level << 28) | ((unsigned)ly << 14) | (unsigned)lx;
  return ((unsigned long long)__float_as_uint(score) << 32) | (0xffffffffu - where);
}

// Level-0 coordinate of a level-k pixel centre: the 2x2 box filter puts it at (u + 0.5) 2^k - 0.5.
__device__ __forceinline__ float vf_level0(int u, int level) {
  return __fsub_rn(__fmul_rn(__fadd_rn((float)u, 0.5f), (float)(1 << level)), 0.5f);
}

// The best survivor of one warp's fragment: lanes walk rows ya..yb-1 of column x.
__device__ __forceinline__ unsigned long long vf_walk(const vf_fast_level& lv, int x, bool active,
                                                      int ya, int yb, int level, int ox, int oy,
                                                      unsigned long long best) {
  const float* p = lv.response + (size_t)(ya - 1) * lv.pitch + x;
  float a0 = p[-1], a1 = p[0], a2 = p[1];
  p += lv.pitch;
  float m0 = p[-1], m1 = p[0], m2 = p[1];
  // Unrolled so that the loads of several rows are in flight together.
#pragma unroll 4
  for (int y = ya; y < yb; ++y) {
    p += lv.pitch;
    const float c0 = p[-1], c1 = p[0], c2 = p[1];
    // Strictly above the neighbours before it in raster order, at least equal to those after.
    const bool is_max = m1 > 0.0f && m1 > a0 && m1 > a1 && m1 > a2 && m1 > m0 && m1 >= m2 &&
                        m1 >= c0 && m1 >= c1 && m1 >= c2;
    if (active && is_max) best = max(best, vf_key(m1, level, y - oy, x - ox));
    a0 = m0;
    a1 = m1;
    a2 = m2;
    m0 = c0;
    m1 = c1;
    m2 = c2;
  }
  return best;
}

// The best candidate key one lane (of warp `warp`) finds in `cell` over all searched levels.
__device__ __forceinline__ unsigned long long vf_lane_best(const vf_fast_job& job, int cell,
                                                           int warp, int lane) {
  const int cx = cell % job.cols, cy = cell / job.cols, b = job.border;
  unsigned long long best = 0;
  for (int l = 0; l < job.levels; ++l) {
    const vf_fast_level& lv = job.level[l];
    const int k = job.first_level + l;
    const int cw = job.cell_width >> k, ch = job.cell_height >> k;
    const int ox = cx * cw, oy = cy * ch;
    const int x0 = max(ox, b), x1 = min(ox + cw, lv.width - b);
    const int y0 = max(oy, b), y1 = min(oy + ch, lv.height - b);
    if (x0 >= x1 || y0 >= y1) continue;
    // Fragments across, stripes of rows down: enough tasks to keep every warp busy.
    const int frags = (x1 - x0 + 31) >> 5, rows = y1 - y0;
    const int stripes = min(max(kWarps / frags, 1), rows);
    for (int task = warp; task < frags * stripes; task += kWarps) {
      const int f = task % frags, s = task / frags;
      const int x = x0 + f * 32 + lane;
      const bool active = x < x1;
      // Idle lanes walk the last column (a valid address) and drop what they find.
      best = vf_walk(lv, active ? x : x1 - 1, active, y0 + rows * s / stripes,
                     y0 + rows * (s + 1) / stripes, k, ox, oy, best);
    }
  }
  return best;
}

// The keypoint a cell's best key stands for (key 0: none).
__device__ __forceinline__ vf_keypoint vf_decode(const vf_fast_job& job, int cell,
                                                 unsigned long long best) {
  vf_keypoint kp = {0.0f, 0.0f, 0.0f, -1, cell};
  if (best != 0) {
    const unsigned where = 0xffffffffu - (unsigned)best;
    const int k = (int)(where >> 28), ly = (int)((where >> 14) & 0x3fffu);
    const int lx = (int)(where & 0x3fffu);
    kp.x = vf_level0((cell % job.cols) * (job.cell_width >> k) + lx, k);
    kp.y = vf_level0((cell / job.cols) * (job.cell_height >> k) + ly, k);
    kp.score = __uint_as_float((unsigned)(best >> 32));
    kp.level = k;
  }
  return kp;
}

__global__ void __launch_bounds__(kWarps * 32) vf_fast_grid_kernel(vf_fast_job job) {
  __shared__ unsigned long long s_best[kWarps];
  const int cell = blockIdx.x, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const bool skip = job.occupancy != nullptr && job.occupancy[cell] != 0;
  unsigned long long best = skip ? 0ull : vf_lane_best(job, cell, warp, lane);
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    best = max(best, __shfl_xor_sync(kFull, best, offset));
  }
  if (lane == 0) s_best[warp] = best;
  __syncthreads();
  if (threadIdx.x != 0) return;
#pragma unroll
  for (int w = 1; w < kWarps; ++w) best = max(best, s_best[w]);
  job.cells[cell] = vf_decode(job, cell, best);
}

}  // namespace

extern "C" int vf_cuda_fast_grid(const vf_fast_job* job, void* stream) {
  const int cells = job->cols * job->rows;
  vf_fast_grid_kernel<<<cells, kWarps * 32, 0, (cudaStream_t)stream>>>(*job);
  return (int)cudaGetLastError();
}

extern "C" int vf_cuda_host_alloc(void** ptr, size_t bytes) {
  return (int)cudaMallocHost(ptr, bytes);
}

extern "C" int vf_cuda_host_free(void* ptr) { return (int)cudaFreeHost(ptr); }

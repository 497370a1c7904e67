// CUDA aggregation of every path but the first (left to right, fused with the selection in
// vf_sgm_final.cu), all in one launch so that the short paths of a small image still fill
// the GPU: block ranges select the direction. One G-lane group per path line, costs computed
// on the fly from the census words (no cost volume), L_r written as bytes per pixel.
// Diagonal lines wrap around the image (one group per column, every group H steps long): a
// group restarts its path where it re-enters through the side column.
#include <cuda_runtime.h>
#include <stdint.h>

#include "../src/vf_cuda_stereo.h"
#include "vf_sgm_warp.cuh"

namespace {

constexpr int kWarps = 4;

struct path_table {
  int count;
  int dx[7], dy[7];
  int first_block[8];
};

template <int G, int NW, bool FULL>
__global__ void __launch_bounds__(kWarps * 32)
    vf_paths_kernel(vf_sgm_params p, path_table t,
                    const typename vf_sgm::census_word<FULL>::type* __restrict__ census_l,
                    const typename vf_sgm::census_word<FULL>::type* __restrict__ census_r,
                    const uint8_t* __restrict__ left, size_t left_stride, uint8_t* volumes) {
  typedef typename vf_sgm::census_word<FULL>::type CT;
  constexpr int D = 4 * G * NW;
  const int w = p.width, h = p.height;
  int i = 0;
  while (i + 1 < t.count && (int)blockIdx.x >= t.first_block[i + 1]) ++i;
  const int dx = t.dx[i], dy = t.dy[i];
  uint8_t* vol = volumes + (size_t)i * w * h * D;
  const int lane = threadIdx.x % G;
  const int line = ((blockIdx.x - t.first_block[i]) * kWarps + threadIdx.x / 32) * (32 / G) +
                   (threadIdx.x % 32) / G;
  const int lines = dy == 0 ? h : w;
  const bool active = line < lines;
  const int ln = active ? line : lines - 1;  // idle groups shadow the last line, never store
  const int steps = dy == 0 ? w : h;
  int x = dy == 0 ? (dx > 0 ? 0 : w - 1) : ln;
  int y = dy == 0 ? ln : (dy > 0 ? 0 : h - 1);
  const uint32_t p1x4 = (uint32_t)p.p1 * 0x01010101u;
  uint32_t L[NW], c[NW], min_l = 0;
#pragma unroll
  for (int k = 0; k < NW; ++k) L[k] = 0;
  for (int s = 0; s < steps; ++s) {
    bool start = s == 0;
    if (s > 0) {
      x += dx;
      y += dy;
      // A diagonal line leaving through a side re-enters through the other: a new path.
      if (x == w) x = 0, start = true;
      if (x < 0) x = w - 1, start = true;
    }
    if (start) {
#pragma unroll
      for (int k = 0; k < NW; ++k) L[k] = 0;
      min_l = 0;
    }
    uint32_t p2 = (uint32_t)p.p2;
    if (p.adaptive_p2 && !start) {
      p2 = (uint32_t)vf_sgm_p2(p.p1, p.p2, 1, left[(size_t)y * left_stride + x],
                               left[(size_t)(y - dy) * left_stride + (x - dx)]);
    }
    const size_t pix = (size_t)y * w + x;
    vf_sgm::costs<G, NW, CT>(census_r + (size_t)y * w, census_l[pix], x - p.min_disparity - lane,
                             (uint32_t)p.max_cost, c);
    vf_sgm::path_step<G, NW>(L, min_l, c, p1x4, p2, lane);
    if (active) {
      uint32_t* o = reinterpret_cast<uint32_t*>(vol + pix * D) + lane;
#pragma unroll
      for (int k = 0; k < NW; ++k) o[k * G] = L[k];
    }
  }
}

template <int G, int NW, bool FULL>
int vf_launch(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, const uint8_t* left,
              size_t left_stride, cudaStream_t stream) {
  typedef typename vf_sgm::census_word<FULL>::type CT;
  path_table t;
  t.count = p->paths - 1;
  int blocks = 0;
  const int lines_per_block = kWarps * (32 / G);
  for (int r = 1; r < p->paths; ++r) {
    vf_sgm_direction(r, &t.dx[r - 1], &t.dy[r - 1]);
    t.first_block[r - 1] = blocks;
    const int lines = t.dy[r - 1] == 0 ? p->height : p->width;
    blocks += (lines + lines_per_block - 1) / lines_per_block;
  }
  t.first_block[t.count] = blocks;
  vf_paths_kernel<G, NW, FULL><<<blocks, kWarps * 32, 0, stream>>>(
      *p, t, (const CT*)b->census_l, (const CT*)b->census_r, left, left_stride, b->volumes);
  return (int)cudaGetLastError();
}

template <bool FULL>
int vf_dispatch(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, const uint8_t* left,
                size_t left_stride, cudaStream_t s) {
  if (p->disparities == 64) return vf_launch<16, 1, FULL>(p, b, left, left_stride, s);
  if (p->disparities == 128) return vf_launch<32, 1, FULL>(p, b, left, left_stride, s);
  return vf_launch<32, 2, FULL>(p, b, left, left_stride, s);
}

}  // namespace

extern "C" int vf_cuda_sgm_paths(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b,
                                 const uint8_t* left, size_t left_stride, void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  return p->census_full ? vf_dispatch<true>(p, b, left, left_stride, s)
                        : vf_dispatch<false>(p, b, left, left_stride, s);
}

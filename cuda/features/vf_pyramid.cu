// SPDX-License-Identifier: BSD-3-Clause
// CUDA pyramid: every level in one launch. Each block owns a TILE x TILE tile of level 0
// (TILE = 2^(levels-1) or more), so level k of the tile depends only on pixels inside it and the
// levels are computed one after another in shared memory with the same 2x2 round-half-up
// filter as the CPU reference (src/features/cpu/vf_pyramid_cpu.c).
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "core/vf_cuda_runtime.h"
#include "features/kernels/vf_pyramid_cuda.h"

namespace {

constexpr int kThreads = 256;

template <int TILE>
__global__ void vf_pyramid_kernel(const uint8_t* __restrict__ src, size_t src_stride,
                                  vf_cuda_pyramid_levels lv, int copy_level0) {
  // Level 0 tile plus the level-1 tile; deeper levels reuse the level-0 space (ping-pong).
  __shared__ uint8_t s_a[TILE * TILE];
  __shared__ uint8_t s_b[(TILE / 2) * (TILE / 2)];
  const int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
  const int w0 = lv.width[0], h0 = lv.height[0];

  // Load the tile four bytes per thread and step; pixels outside the image read as 0 (they
  // never feed an in-image output because level sizes round down).
  for (int i = threadIdx.x; i < TILE * TILE / 4; i += kThreads) {
    const int ty = i / (TILE / 4), tx = (i % (TILE / 4)) * 4;
    const int y = y0 + ty, x = x0 + tx;
    uchar4 v = make_uchar4(0, 0, 0, 0);
    if (y < h0) {
      const uint8_t* row = src + (size_t)y * src_stride;
      if (x + 3 < w0) {
        v = make_uchar4(row[x], row[x + 1], row[x + 2], row[x + 3]);
      } else {
        if (x < w0) v.x = row[x];
        if (x + 1 < w0) v.y = row[x + 1];
        if (x + 2 < w0) v.z = row[x + 2];
      }
      if (copy_level0) {
        uint8_t* out = lv.data[0] + (size_t)y * lv.stride[0];
        if (x < w0) out[x] = v.x;
        if (x + 1 < w0) out[x + 1] = v.y;
        if (x + 2 < w0) out[x + 2] = v.z;
        if (x + 3 < w0) out[x + 3] = v.w;
      }
    }
    *reinterpret_cast<uchar4*>(&s_a[ty * TILE + tx]) = v;
  }
  __syncthreads();

  uint8_t* in = s_a;
  uint8_t* out = s_b;
  int side = TILE;
  for (int k = 1; k < lv.levels; ++k) {
    const int half = side / 2;
    const int xk = x0 >> k, yk = y0 >> k;
    for (int i = threadIdx.x; i < half * half; i += kThreads) {
      const int ty = i / half, tx = i % half;
      const uint8_t* r0 = in + (2 * ty) * side + 2 * tx;
      const unsigned sum = (unsigned)r0[0] + r0[1] + r0[side] + r0[side + 1];
      const uint8_t v = (uint8_t)((sum + 2u) >> 2);
      out[ty * half + tx] = v;
      if (xk + tx < lv.width[k] && yk + ty < lv.height[k]) {
        lv.data[k][(size_t)(yk + ty) * lv.stride[k] + xk + tx] = v;
      }
    }
    __syncthreads();
    uint8_t* t = in;
    in = out;
    out = t;
    side = half;
  }
}

// The launch below, one fault-injection site for all its instantiations.
VF_CUDA_SITE(vf_launch_site);

template <int TILE>
int vf_launch(const uint8_t* src, size_t src_stride, const vf_cuda_pyramid_levels* lv,
              int copy_level0, cudaStream_t stream) {
  dim3 grid((lv->width[0] + TILE - 1) / TILE, (lv->height[0] + TILE - 1) / TILE);
  vf_pyramid_kernel<TILE><<<grid, kThreads, 0, stream>>>(src, src_stride, *lv, copy_level0);
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
  if (lv->levels <= 6) return vf_launch<32>(src, src_stride, lv, copy, s);
  if (lv->levels == 7) return vf_launch<64>(src, src_stride, lv, copy, s);
  return vf_launch<128>(src, src_stride, lv, copy, s);
}

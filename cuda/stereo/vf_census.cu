// SPDX-License-Identifier: BSD-3-Clause
// CUDA census transform 9x7 of both images in one launch (blockIdx.z picks the image): each
// block stages its 128x8 output tile plus the window apron in shared memory (edges replicated;
// 32-bit words where the apron lies inside the image), then every thread builds the words of
// four neighbouring pixels at once: each comparison is made on four bytes in one 32-bit word
// (one pixel a byte), and the four pixels' bits are gathered byte by byte. Bit order equals
// src/stereo/cpu/vf_census_cpu.c: bit n of a word is the n-th pair or neighbour in row-major
// order.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "stereo/kernels/vf_sgm_cuda.h"
#include "vf_sgm_warp.cuh"

namespace {

constexpr int kThreadsX = 32, kThreadsY = 8;
constexpr int kTileW = 4 * kThreadsX, kTileH = kThreadsY;  // four pixels a thread
constexpr int kApronW = kTileW + 2 * VF_CENSUS_RX, kApronH = kTileH + 2 * VF_CENSUS_RY;
constexpr int kWindowRows = 2 * VF_CENSUS_RY + 1;
static_assert(VF_CENSUS_RX == 4, "a thread's window row is the three words around its four pixels");
static_assert(kApronW % 4 == 0, "apron rows in whole words");

// Per byte, a > b (unsigned): the byte's top bit set, the others clear. (b | 0x80) - (a & 0x7f)
// never borrows between bytes; its top bit says b's low seven bits are at least a's.
__device__ __forceinline__ uint32_t vf_greater4(uint32_t a, uint32_t b) {
  constexpr uint32_t kHigh = 0x80808080u;
  const uint32_t t = (b | kHigh) - (a & ~kHigh);
  return ((a & ~b) | (~(a ^ b) & ~t)) & kHigh;
}

// Bytes k .. k+3 of the 12-byte window row w (k = 4 + dx, 0..8): the dx-neighbours of the four
// pixels.
__device__ __forceinline__ uint32_t vf_shifted(const uint32_t (&w)[3], int k) {
  return k % 4 == 0 ? w[k / 4] : __funnelshift_r(w[k / 4], w[k / 4 + 1], 8 * (k % 4));
}

// Bit n of the four pixels' words: gathered eight at a time, one byte a pixel, in acc[n / 8].
__device__ __forceinline__ void vf_put(uint32_t (&acc)[8], int n, uint32_t greater) {
  acc[n / 8] |= greater >> (7 - n % 8);
}

// Pixel i's 32-bit word from groups g0..g0+3: byte i of each (a 4x4 byte transpose).
__device__ __forceinline__ uint32_t vf_gather(const uint32_t (&acc)[8], int g0, int i) {
  const uint32_t lo = __byte_perm(acc[g0], acc[g0 + 1], 0x0040u | (unsigned)i | (unsigned)i << 4);
  const uint32_t hi =
      __byte_perm(acc[g0 + 2], acc[g0 + 3], 0x0040u | (unsigned)i | (unsigned)i << 4);
  return __byte_perm(lo, hi, 0x5410u);
}

template <bool FULL>
__global__ void __launch_bounds__(kThreadsX* kThreadsY)
    vf_census_kernel(const uint8_t* __restrict__ left, size_t left_stride,
                     const uint8_t* __restrict__ right, size_t right_stride, int w, int h,
                     typename vf_sgm::census_word<FULL>::type* out_l,
                     typename vf_sgm::census_word<FULL>::type* out_r) {
  typedef typename vf_sgm::census_word<FULL>::type CT;
  __shared__ __align__(4) uint8_t tile[kApronH][kApronW];
  const uint8_t* img = blockIdx.z ? right : left;
  const size_t stride = blockIdx.z ? right_stride : left_stride;
  const int x0 = blockIdx.x * kTileW - VF_CENSUS_RX, y0 = blockIdx.y * kTileH - VF_CENSUS_RY;
  const int tid = threadIdx.y * kThreadsX + threadIdx.x;
  const bool words = x0 >= 0 && x0 + kApronW <= w && (((uintptr_t)img | stride) & 3u) == 0;
  if (words) {  // rows outside the image replicate the nearest one; columns are all inside
    for (int i = tid; i < kApronH * (kApronW / 4); i += kThreadsX * kThreadsY) {
      const int ty = i / (kApronW / 4), tx = i % (kApronW / 4);
      const int y = min(max(y0 + ty, 0), h - 1);
      reinterpret_cast<uint32_t*>(tile[ty])[tx] =
          __ldg(reinterpret_cast<const uint32_t*>(img + (size_t)y * stride + x0) + tx);
    }
  } else {
    for (int i = tid; i < kApronH * kApronW; i += kThreadsX * kThreadsY) {
      const int ty = i / kApronW, tx = i % kApronW;
      const int y = min(max(y0 + ty, 0), h - 1), x = min(max(x0 + tx, 0), w - 1);
      tile[ty][tx] = img[(size_t)y * stride + x];
    }
  }
  __syncthreads();
  const int x = blockIdx.x * kTileW + 4 * threadIdx.x, y = blockIdx.y * kTileH + threadIdx.y;
  if (x >= w || y >= h) return;
  // Window row r (dy = r - RY): tile bytes 4 tx .. 4 tx + 11 around the four pixels, whose
  // centres are bytes 4 .. 7.
  uint32_t win[kWindowRows][3];
#pragma unroll
  for (int r = 0; r < kWindowRows; ++r) {
#pragma unroll
    for (int j = 0; j < 3; ++j) {
      win[r][j] = reinterpret_cast<const uint32_t*>(tile[threadIdx.y + r])[threadIdx.x + j];
    }
  }
  uint32_t acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int n = 0;
  if (FULL) {  // set where the neighbour is darker than the centre
    const uint32_t c = win[VF_CENSUS_RY][1];
#pragma unroll
    for (int dy = -VF_CENSUS_RY; dy <= VF_CENSUS_RY; ++dy) {
#pragma unroll
      for (int dx = -VF_CENSUS_RX; dx <= VF_CENSUS_RX; ++dx) {
        if (dx == 0 && dy == 0) continue;
        vf_put(acc, n++, vf_greater4(c, vf_shifted(win[VF_CENSUS_RY + dy], VF_CENSUS_RX + dx)));
      }
    }
  } else {  // set where the first of a mirrored pair is the brighter
#pragma unroll
    for (int dy = -VF_CENSUS_RY; dy <= 0; ++dy) {
#pragma unroll
      for (int dx = -VF_CENSUS_RX; dx <= VF_CENSUS_RX; ++dx) {
        if (dy == 0 && dx >= 0) break;
        vf_put(acc, n++,
               vf_greater4(vf_shifted(win[VF_CENSUS_RY + dy], VF_CENSUS_RX + dx),
                           vf_shifted(win[VF_CENSUS_RY - dy], VF_CENSUS_RX - dx)));
      }
    }
  }
  CT* out = (blockIdx.z ? out_r : out_l) + (size_t)y * w + x;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if (x + i >= w) break;
    const unsigned long long word = FULL ? (unsigned long long)vf_gather(acc, 4, i) << 32 : 0ull;
    out[i] = (CT)(word | vf_gather(acc, 0, i));
  }
}

// Copy c (1..3) of the right census holds word i at index i + c (vf_cuda_sgm_buffers).
__global__ void vf_census_shift_kernel(uint32_t* census_r, int px, int stride) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= px) return;
  const uint32_t v = census_r[i];
  census_r[stride + i + 1] = v;
  census_r[2 * stride + i + 2] = v;
  census_r[3 * stride + i + 3] = v;
}

}  // namespace

VF_CUDA_SITE(vf_shift_site);

extern "C" int vf_cuda_census_shift(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b,
                                    void* stream) {
  const int px = p->width * p->height;
  vf_census_shift_kernel<<<(px + 255) / 256, 256, 0, (cudaStream_t)stream>>>(
      (uint32_t*)b->census_r, px, (int)b->shift_stride);
  return VF_CUDA_LAUNCH_STATUS_AT(vf_shift_site);
}

extern "C" int vf_cuda_census(const vf_sgm_params* p, const uint8_t* left, size_t left_stride,
                              const uint8_t* right, size_t right_stride, void* census_l,
                              void* census_r, void* stream) {
  dim3 block(kThreadsX, kThreadsY);
  dim3 grid((p->width + kTileW - 1) / kTileW, (p->height + kTileH - 1) / kTileH, 2);
  cudaStream_t s = (cudaStream_t)stream;
  if (p->census_full) {
    vf_census_kernel<true><<<grid, block, 0, s>>>(left, left_stride, right, right_stride, p->width,
                                                  p->height, (unsigned long long*)census_l,
                                                  (unsigned long long*)census_r);
  } else {
    vf_census_kernel<false><<<grid, block, 0, s>>>(left, left_stride, right, right_stride, p->width,
                                                   p->height, (uint32_t*)census_l,
                                                   (uint32_t*)census_r);
  }
  return VF_CUDA_LAUNCH_STATUS();
}

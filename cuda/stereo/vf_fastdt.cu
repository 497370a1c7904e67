// SPDX-License-Identifier: BSD-3-Clause
// CUDA FastDT aggregation and winner-takes-all (Chang et al., Sec. 4). One thread per
// disparity runs the normalized recursive filter A = (1 - W) C + W A_prev along a row (left->right
// then right->left, in one kernel) or a column (top->bottom, then bottom->top fused with the
// winner-takes-all); W comes from the Q15 table by |dI| of the left image, in shared memory.
// Costs are read and written as the volume's 8-bit or 16-bit codes, the running value stays in a
// register, so every step equals the CPU's (src/stereo/cpu/vf_fastdt_cpu.c) bit for bit.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "stereo/kernels/vf_local_cuda.h"

namespace {

__device__ __forceinline__ int absdiff(int a, int b) { return a > b ? a - b : b - a; }

constexpr int kChunk = 8;  // costs loaded ahead, so the serial filter waits once per chunk

// The filter over pixels 1..n of a line whose pixel 0 gave `acc`: pixel j's cost at volume index
// i0 + j * vstep, its left-image pixel at img[j * istep]. visit(j, acc) sees every result; it runs
// on every thread alike (it may hold a barrier), loads only where `active`.
template <bool PACK, class Visit>
__device__ __forceinline__ uint32_t dt_scan(const void* vol, long long i0, long long vstep,
                                            const uint8_t* img, long long istep, int n,
                                            uint32_t acc, bool active, const uint16_t* s_w,
                                            Visit visit) {
  int prev = __ldg(img);
  for (int j0 = 1; j0 <= n; j0 += kChunk) {
    uint32_t c[kChunk];
    int px[kChunk];
#pragma unroll
    for (int k = 0; k < kChunk; ++k) {
      const int j = j0 + k;
      c[k] = active && j <= n ? vf_cost_load(vol, PACK, (size_t)(i0 + j * vstep)) : 0u;
      px[k] = j <= n ? __ldg(img + j * istep) : 0;
    }
#pragma unroll
    for (int k = 0; k < kChunk; ++k) {
      const int j = j0 + k;
      if (j > n) break;
      acc = vf_dt_step(acc, c[k], s_w[absdiff(px[k], prev)]);
      prev = px[k];
      visit(j, acc);
    }
  }
  return acc;
}

// One block per row, one thread per disparity: left->right, then right->left from the stored
// value of the last pixel.
template <bool PACK>
__global__ void dt_rows_kernel(vf_local_pair p, const uint16_t* weights, void* vol) {
  __shared__ uint16_t s_w[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) s_w[i] = weights[i];
  __syncthreads();
  const int d = threadIdx.x, nd = p.disparities, w = p.width, y = blockIdx.x;
  if (d >= nd) return;
  const uint8_t* l = p.left + (size_t)y * p.left_stride;
  const long long first = (long long)y * w * nd + d, last = first + (long long)(w - 1) * nd;
  auto store_from = [&](long long i0, long long step) {
    return [=](int j, uint32_t a) { vf_cost_store(vol, PACK, (size_t)(i0 + j * step), a); };
  };
  dt_scan<PACK>(vol, first, nd, l, 1, w - 1, vf_cost_load(vol, PACK, (size_t)first), true, s_w,
                store_from(first, nd));
  dt_scan<PACK>(vol, last, -nd, l + w - 1, -1, w - 1, vf_cost_load(vol, PACK, (size_t)last), true,
                s_w, store_from(last, -nd));
}

// Minimum of (cost << 16 | d) and maximum of cost over the block's threads: the winner with ties
// to the smaller disparity, and whether all candidates cost the same. Two shared slots per warp,
// double-buffered by `phase` so one barrier per call suffices.
__device__ __forceinline__ uint16_t block_wta(uint32_t key, uint32_t cost_max, uint32_t* s_key,
                                              uint32_t* s_max, int phase) {
  for (int o = 16; o > 0; o >>= 1) {
    key = min(key, __shfl_xor_sync(0xffffffffu, key, o));
    cost_max = max(cost_max, __shfl_xor_sync(0xffffffffu, cost_max, o));
  }
  const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  uint32_t* k = s_key + phase * 8;
  uint32_t* m = s_max + phase * 8;
  if ((threadIdx.x & 31) == 0) {
    k[warp] = key;
    m[warp] = cost_max;
  }
  __syncthreads();
  key = k[0];
  cost_max = m[0];
  for (int i = 1; i < warps; ++i) {
    key = min(key, k[i]);
    cost_max = max(cost_max, m[i]);
  }
  return (key >> 16) == cost_max ? (uint16_t)VF_STEREO_LOCAL_INVALID : (uint16_t)(key & 0xffffu);
}

// One block per column, one thread per disparity (blockDim a multiple of 32, at most 256):
// top->bottom stored, then bottom->top with the winner-takes-all of every pixel.
template <bool PACK>
__global__ void dt_columns_kernel(vf_local_pair p, const uint16_t* weights, void* vol,
                                  uint16_t* disp, size_t disp_stride) {
  __shared__ uint16_t s_w[256];
  __shared__ uint32_t s_key[16], s_max[16];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) s_w[i] = weights[i];
  __syncthreads();
  const int d = threadIdx.x, nd = p.disparities, w = p.width, h = p.height, x = blockIdx.x;
  const bool active = d < nd;
  const bool candidate = active && d <= x;  // the match must lie inside the right image
  const long long step = (long long)w * nd, first = (long long)x * nd + d;
  const long long last = first + (long long)(h - 1) * step;
  const long long istep = (long long)p.left_stride;
  const uint8_t* top = p.left + x;
  const uint8_t* bottom = top + (h - 1) * istep;
  uint32_t acc = active ? vf_cost_load(vol, PACK, (size_t)first) : 0u;
  auto store = [&](int j, uint32_t a) {
    if (active) vf_cost_store(vol, PACK, (size_t)(first + j * step), a);
  };
  store(0, acc);
  dt_scan<PACK>(vol, first, step, top, istep, h - 1, acc, active, s_w, store);
  auto wta = [&](int j, uint32_t a) {
    const uint16_t best = block_wta(candidate ? a << 16 | (uint32_t)d : 0xffffffffu,
                                    candidate ? a : 0u, s_key, s_max, j & 1);
    if (threadIdx.x == 0) {
      *(uint16_t*)((uint8_t*)disp + (size_t)(h - 1 - j) * disp_stride + (size_t)x * 2) = best;
    }
  };
  acc = active ? vf_cost_load(vol, PACK, (size_t)last) : 0u;
  wta(0, acc);
  dt_scan<PACK>(vol, last, -step, bottom, -istep, h - 1, acc, active, s_w, wta);
}

// Winner-takes-all without aggregation: one warp per pixel.
template <bool PACK>
__global__ void wta_kernel(vf_local_pair p, const void* vol, uint16_t* disp, size_t disp_stride) {
  const int pixel = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  const int w = p.width, nd = p.disparities;
  if (pixel >= w * p.height) return;
  const int x = pixel % w, y = pixel / w;
  const int candidates = min(nd, x + 1);
  uint32_t key = 0xffffffffu, cost_max = 0;
  for (int d = lane; d < candidates; d += 32) {
    const uint32_t c = vf_cost_load(vol, PACK, (size_t)pixel * nd + d);
    key = min(key, c << 16 | (uint32_t)d);
    cost_max = max(cost_max, c);
  }
  for (int o = 16; o > 0; o >>= 1) {
    key = min(key, __shfl_xor_sync(0xffffffffu, key, o));
    cost_max = max(cost_max, __shfl_xor_sync(0xffffffffu, cost_max, o));
  }
  if (lane == 0) {
    *(uint16_t*)((uint8_t*)disp + (size_t)y * disp_stride + (size_t)x * 2) =
        (key >> 16) == cost_max ? (uint16_t)VF_STEREO_LOCAL_INVALID : (uint16_t)(key & 0xffffu);
  }
}

// The launch below, one fault-injection site for all its instantiations.
VF_CUDA_SITE(vf_launch_fastdt_site);

template <bool PACK>
int launch_fastdt(const vf_local_pair* p, const uint16_t* weights, void* vol, uint16_t* disp,
                  size_t disp_stride, cudaStream_t s) {
  const int threads = (p->disparities + 31) / 32 * 32;
  dt_rows_kernel<PACK><<<p->height, threads, 0, s>>>(*p, weights, vol);
  dt_columns_kernel<PACK><<<p->width, threads, 0, s>>>(*p, weights, vol, disp, disp_stride);
  return VF_CUDA_LAUNCH_STATUS_AT(vf_launch_fastdt_site);
}

}  // namespace

extern "C" int vf_cuda_fastdt(const vf_local_pair* p, const uint16_t* weights, void* volume,
                              int pack8, uint16_t* disparity, size_t disparity_stride,
                              void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  return pack8 ? launch_fastdt<true>(p, weights, volume, disparity, disparity_stride, s)
               : launch_fastdt<false>(p, weights, volume, disparity, disparity_stride, s);
}

extern "C" int vf_cuda_wta(const vf_local_pair* p, const void* volume, int pack8,
                           uint16_t* disparity, size_t disparity_stride, void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  const long long threads = (long long)p->width * p->height * 32;
  const int blocks = (int)((threads + 255) / 256);
  if (pack8) {
    wta_kernel<true><<<blocks, 256, 0, s>>>(*p, volume, disparity, disparity_stride);
  } else {
    wta_kernel<false><<<blocks, 256, 0, s>>>(*p, volume, disparity, disparity_stride);
  }
  return VF_CUDA_LAUNCH_STATUS();
}

// SPDX-License-Identifier: BSD-3-Clause
// CUDA ZNCC matching cost (Chang et al., "Efficient Stereo Matching on Embedded GPUs with
// Zero-Means Cross Correlation", Sec. 3). The per-image window sums of I and I^2 are made once,
// by direct summation for small windows or from integral images (summed-area tables) for large
// ones. The product sums sum L(x) R(x-d) are the Z2 zig-zag: each thread owns one disparity and a
// band of VZ rows; it keeps the row partial sums of the VZ + 2R rows its windows touch in
// registers, walks VZ pixels down the column sliding the column sum (+ new row - old row), then
// moves one pixel right, updating every row partial sum with one product in and one out. The
// images are staged in shared memory per block. Costs use the shared encoding of
// src/stereo/kernels/vf_local_rules.h, so they equal the CPU's (src/stereo/cpu/vf_zncc_cpu.c) bit
// for bit.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "stereo/kernels/vf_local_cuda.h"

namespace {

// ---- window sums ---------------------------------------------------------------------------

__device__ __forceinline__ void put_terms(uint16_t* sums, uint32_t* vars, size_t i, int r,
                                          uint32_t s1, uint32_t s2) {
  const uint32_t n = (uint32_t)((2 * r + 1) * (2 * r + 1));
  sums[i] = (uint16_t)s1;
  vars[i] = n * s2 - s1 * s1;  // true value < 2^32: wrapping arithmetic is exact
}

__device__ __forceinline__ bool interior(int x, int y, int w, int h, int r) {
  return y >= r && y < h - r && x >= r && x < w - r;
}

// blockIdx.z picks the image (0 left, 1 right).
__global__ void sums_direct_kernel(vf_local_pair p, int r, uint16_t* sums, uint32_t* vars) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  const int w = p.width, h = p.height;
  if (x >= w || y >= h) return;
  const uint8_t* img = blockIdx.z ? p.right : p.left;
  const size_t stride = blockIdx.z ? p.right_stride : p.left_stride;
  const size_t i = (size_t)blockIdx.z * w * h + (size_t)y * w + x;
  if (!interior(x, y, w, h, r)) {
    sums[i] = 0;
    vars[i] = 0;
    return;
  }
  uint32_t s1 = 0, s2 = 0;
  for (int dy = -r; dy <= r; ++dy) {
    const uint8_t* row = img + (size_t)(y + dy) * stride;
    for (int dx = -r; dx <= r; ++dx) {
      const uint32_t v = __ldg(row + x + dx);
      s1 += v;
      s2 += v * v;
    }
  }
  put_terms(sums, vars, i, r, s1, s2);
}

// Row prefix sums of I and I^2 into the tables (row y + 1, column x + 1), one warp per row:
// warp-wide inclusive scans with a carry between 32-pixel chunks. blockIdx.y picks the image.
__global__ void sat_rows_kernel(vf_local_pair p, uint32_t* sat) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  const int w = p.width, h = p.height, w1 = w + 1;
  if (warp > h) return;
  const size_t table = (size_t)w1 * (h + 1);
  uint32_t* t1 = sat + (size_t)blockIdx.y * 2 * table;
  uint32_t* t2 = t1 + table;
  if (warp == 0) {  // the zero row on top
    for (int x = lane; x <= w; x += 32) t1[x] = t2[x] = 0;
    return;
  }
  const int y = warp - 1;
  const uint8_t* row =
      (blockIdx.y ? p.right : p.left) + (size_t)y * (blockIdx.y ? p.right_stride : p.left_stride);
  uint32_t* o1 = t1 + (size_t)(y + 1) * w1;
  uint32_t* o2 = t2 + (size_t)(y + 1) * w1;
  if (lane == 0) o1[0] = o2[0] = 0;
  uint32_t carry1 = 0, carry2 = 0;
  for (int base = 0; base < w; base += 32) {
    const int x = base + lane;
    const uint32_t v = x < w ? row[x] : 0u;
    uint32_t a = v, b = v * v;
#pragma unroll
    for (int k = 1; k < 32; k <<= 1) {
      const uint32_t na = __shfl_up_sync(0xffffffffu, a, k);
      const uint32_t nb = __shfl_up_sync(0xffffffffu, b, k);
      if (lane >= k) {
        a += na;
        b += nb;
      }
    }
    a += carry1;
    b += carry2;
    if (x < w) {
      o1[x + 1] = a;
      o2[x + 1] = b;
    }
    carry1 = __shfl_sync(0xffffffffu, a, 31);
    carry2 = __shfl_sync(0xffffffffu, b, 31);
  }
}

// Column prefix sums down every table column (coalesced across threads). blockIdx.y: table.
__global__ void sat_columns_kernel(int w, int h, uint32_t* sat) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x > w) return;
  const int w1 = w + 1;
  uint32_t* t = sat + (size_t)blockIdx.y * w1 * (h + 1);
  uint32_t run = 0;
  for (int y = 1; y <= h; ++y) {
    run += t[(size_t)y * w1 + x];
    t[(size_t)y * w1 + x] = run;
  }
}

__global__ void sums_integral_kernel(vf_local_pair p, int r, const uint32_t* sat, uint16_t* sums,
                                     uint32_t* vars) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  const int w = p.width, h = p.height, w1 = w + 1;
  if (x >= w || y >= h) return;
  const size_t i = (size_t)blockIdx.z * w * h + (size_t)y * w + x;
  if (!interior(x, y, w, h, r)) {
    sums[i] = 0;
    vars[i] = 0;
    return;
  }
  const size_t table = (size_t)w1 * (h + 1);
  const uint32_t* t1 = sat + (size_t)blockIdx.z * 2 * table;
  const uint32_t* t2 = t1 + table;
  const size_t a = (size_t)(y - r) * w1 + (x - r), b = (size_t)(y - r) * w1 + (x + r + 1);
  const size_t c = (size_t)(y + r + 1) * w1 + (x - r), d = (size_t)(y + r + 1) * w1 + (x + r + 1);
  put_terms(sums, vars, i, r, t1[d] - t1[b] - t1[c] + t1[a], t2[d] - t2[b] - t2[c] + t2[a]);
}

// ---- Z2-ZNCC costs -------------------------------------------------------------------------

constexpr int kVz = 8;     // rows per thread (V_Z)
constexpr int kSeg = 32;   // columns per thread
constexpr int kDisp = 64;  // disparities per block (one per thread)

template <int R, bool PACK>
__global__ void __launch_bounds__(kDisp)
    zncc_kernel(vf_local_pair p, const uint16_t* sums, const uint32_t* vars, void* vol) {
  constexpr int kRows = kVz + 2 * R;
  constexpr int kLw = kSeg + 2 * R + 2;  // left columns xa-R-1 .. xa+kSeg+R
  constexpr int kRw = kLw + kDisp;       // right columns shifted by up to kDisp-1 more
  __shared__ uint8_t s_l[kRows][kLw];
  __shared__ uint8_t s_r[kRows][kRw];
  const int w = p.width, h = p.height, nd = p.disparities;
  const int xa = blockIdx.x * kSeg, y0 = blockIdx.y * kVz, d0 = blockIdx.z * kDisp;
  const int lx0 = xa - R - 1, rx0 = lx0 - d0 - (kDisp - 1);

  // Stage the rows; pixels outside the image read as 0, so their products vanish.
  for (int i = threadIdx.x; i < kRows * kRw; i += kDisp) {
    const int k = i / kRw, c = i % kRw, y = y0 - R + k;
    const bool row_ok = y >= 0 && y < h;
    const int xr = rx0 + c;
    s_r[k][c] = row_ok && xr >= 0 && xr < w ? p.right[(size_t)y * p.right_stride + xr] : 0;
    if (c < kLw) {
      const int xl = lx0 + c;
      s_l[k][c] = row_ok && xl >= 0 && xl < w ? p.left[(size_t)y * p.left_stride + xl] : 0;
    }
  }
  __syncthreads();
  const int d = d0 + threadIdx.x;
  if (d >= nd) return;

  // Product of column x (image coordinates) in staged row k and right column x - d.
  const int roff = d0 + (kDisp - 1) - d;  // s_r index of x - d is (x - lx0) + roff
  auto prod = [&](int k, int x) -> uint32_t {
    const int c = x - lx0;
    return (uint32_t)s_l[k][c] * s_r[k][c + roff];
  };
  uint32_t rs[kRows];
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    uint32_t s = 0;
    for (int x = xa - R; x <= xa + R; ++x) s += prod(k, x);
    rs[k] = s;
  }
  const int n = (2 * R + 1) * (2 * R + 1);
  const size_t px = (size_t)w * h;
  const int xb = min(w, xa + kSeg);
  for (int x = xa; x < xb; ++x) {
    if (x > xa) {
#pragma unroll
      for (int k = 0; k < kRows; ++k) rs[k] += prod(k, x + R) - prod(k, x - R - 1);
    }
    uint32_t col = 0;
#pragma unroll
    for (int k = 0; k <= 2 * R; ++k) col += rs[k];
    const bool x_ok = x >= R && x < w - R;
#pragma unroll
    for (int v = 0; v < kVz; ++v) {
      if (v > 0) col += rs[v + 2 * R] - rs[v - 1];
      const int y = y0 + v;
      if (y >= h) break;
      uint32_t code = VF_COST_ZERO;  // window or match outside the image: neutral
      if (x_ok && y >= R && y < h - R && x - R - d >= 0) {
        const size_t il = (size_t)y * w + x, ir = il - d;
        const int64_t num = (int64_t)n * col - (int64_t)sums[il] * sums[px + ir];
        code = vf_zncc_cost16(num, vars[il], vars[px + ir]);
      }
      vf_cost_store(vol, PACK, ((size_t)y * w + x) * nd + d, code);
    }
  }
}

// The launch below, one fault-injection site for all its instantiations.
VF_CUDA_SITE(vf_launch_zncc_site);

template <int R>
int launch_zncc(const vf_local_pair* p, const uint16_t* sums, const uint32_t* vars, void* vol,
                int pack8, cudaStream_t stream) {
  dim3 grid((p->width + kSeg - 1) / kSeg, (p->height + kVz - 1) / kVz,
            (p->disparities + kDisp - 1) / kDisp);
  if (pack8) {
    zncc_kernel<R, true><<<grid, kDisp, 0, stream>>>(*p, sums, vars, vol);
  } else {
    zncc_kernel<R, false><<<grid, kDisp, 0, stream>>>(*p, sums, vars, vol);
  }
  return VF_CUDA_LAUNCH_STATUS_AT(vf_launch_zncc_site);
}

}  // namespace

extern "C" int vf_cuda_zncc_window_sums(const vf_local_pair* p, int radius, int integral,
                                        uint32_t* sat, uint16_t* sums, uint32_t* vars,
                                        void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  const dim3 block(32, 8);
  const dim3 grid((p->width + 31) / 32, (p->height + 7) / 8, 2);
  if (!integral) {
    sums_direct_kernel<<<grid, block, 0, s>>>(*p, radius, sums, vars);
    return VF_CUDA_LAUNCH_STATUS();
  }
  const int warps = p->height + 1;
  sat_rows_kernel<<<dim3((warps * 32 + 255) / 256, 2), 256, 0, s>>>(*p, sat);
  sat_columns_kernel<<<dim3((p->width + 1 + 255) / 256, 4), 256, 0, s>>>(p->width, p->height, sat);
  sums_integral_kernel<<<grid, block, 0, s>>>(*p, radius, sat, sums, vars);
  return VF_CUDA_LAUNCH_STATUS();
}

extern "C" int vf_cuda_zncc_costs(const vf_local_pair* p, int radius, const uint16_t* sums,
                                  const uint32_t* vars, void* volume, int pack8, void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  switch (radius) {
    case 1: return launch_zncc<1>(p, sums, vars, volume, pack8, s);
    case 2: return launch_zncc<2>(p, sums, vars, volume, pack8, s);
    case 3: return launch_zncc<3>(p, sums, vars, volume, pack8, s);
    case 4: return launch_zncc<4>(p, sums, vars, volume, pack8, s);
    case 5: return launch_zncc<5>(p, sums, vars, volume, pack8, s);
    case 6: return launch_zncc<6>(p, sums, vars, volume, pack8, s);
    case 7: return launch_zncc<7>(p, sums, vars, volume, pack8, s);
    default: return (int)cudaErrorInvalidValue;
  }
}

// SPDX-License-Identifier: BSD-3-Clause
// CUDA Cyclops2 ("Real-time CUDA-based stereo matching using Cyclops2 algorithm"): every pixel
// searches its scan line over the disparity candidates with one of the weight functions MD, RMA
// or MNS (definitions in src/stereo/cpu/vf_cyclops_cpu.c, which this matches bit for bit). Two
// kernels share the search code through an image accessor:
//  - one-row: a block per image row stages the rows it needs (one, or the MNS block's h rows) of
//    both images in shared memory, then its threads sweep the row;
//  - global: a thread per pixel reads the images from global memory (through the read-only cache).
// Then an optional 3x3 median.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "stereo/kernels/vf_local_cuda.h"

namespace {

__device__ __forceinline__ int clampi(int v, int lo, int hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

__device__ __forceinline__ uint32_t absdiff(int a, int b) {
  return (uint32_t)(a > b ? a - b : b - a);
}

// Pixel (x, y + dy) of either image, from global memory (rows clamped to the image).
struct GlobalRows {
  const uint8_t* l;
  size_t l_stride;
  const uint8_t* r;
  size_t r_stride;
  int height, y;
  __device__ int left(int x, int dy) const {
    return __ldg(l + (size_t)clampi(y + dy, 0, height - 1) * l_stride + x);
  }
  __device__ int right(int x, int dy) const {
    return __ldg(r + (size_t)clampi(y + dy, 0, height - 1) * r_stride + x);
  }
};

// The same from the rows staged in shared memory (slot dy + half holds row y + dy, clamped).
struct SharedRows {
  const uint8_t* l;
  const uint8_t* r;
  int width, half;
  __device__ int left(int x, int dy) const { return l[(dy + half) * width + x]; }
  __device__ int right(int x, int dy) const { return r[(dy + half) * width + x]; }
};

template <class Rows>
__device__ uint32_t rma_cost(const Rows& im, int x, int d, int max_log2) {
  int n = 0;
  while (n < max_log2 && x - (1 << (n + 1)) - d > 0) ++n;
  uint32_t sad = 0;
  for (int i = 0; i < (1 << n); ++i) sad += absdiff(im.left(x - i, 0), im.right(x - d - i, 0));
  return sad << (max_log2 - n);
}

template <class Rows>
__device__ uint32_t mns_cost(const Rows& im, const vf_local_cyclops& c, int x, int d) {
  const int hy = c.mns_height / 2, hx = c.mns_width / 2, ks = c.kernel_step;
  int n = 0, sum_l = 0, sum_r = 0;
  for (int dy = -hy; dy <= hy; dy += ks) {
    for (int dx = -hx; dx <= hx; dx += ks) {
      sum_l += im.left(x + dx, dy);
      sum_r += im.right(x + dx - d, dy);
      ++n;
    }
  }
  const int mean_diff = sum_l - sum_r;
  uint32_t cost = 0;
  for (int dy = -hy; dy <= hy; dy += ks) {
    for (int dx = -hx; dx <= hx; dx += ks) {
      const int v = n * (im.left(x + dx, dy) - im.right(x + dx - d, dy)) - mean_diff;
      cost += (uint32_t)(v < 0 ? -v : v);
    }
  }
  return cost;
}

// The best candidate of pixel x (ties to the smaller disparity), or INVALID.
template <class Rows>
__device__ uint16_t search(const Rows& im, const vf_local_pair& p, const vf_local_cyclops& c,
                           int x) {
  const int half = c.weight == VF_CYCLOPS_WEIGHT_MNS ? c.mns_width / 2 : 0;
  uint32_t best = 0xffffffffu;
  int arg = VF_STEREO_LOCAL_INVALID;
  if (x + half >= p.width) return (uint16_t)arg;
  for (int d = 0; d < p.disparities && x - half - d >= 0; d += c.disparity_step) {
    uint32_t cost;
    if (c.weight == VF_CYCLOPS_WEIGHT_MD) {
      cost = absdiff(im.left(x, 0), im.right(x - d, 0));
    } else if (c.weight == VF_CYCLOPS_WEIGHT_RMA) {
      cost = rma_cost(im, x, d, c.rma_max_log2);
    } else {
      cost = mns_cost(im, c, x, d);
    }
    if (cost < best) {
      best = cost;
      arg = d;
    }
  }
  return (uint16_t)arg;
}

__device__ __forceinline__ void put(uint16_t* disp, size_t stride, int x, int y, uint16_t v) {
  *(uint16_t*)((uint8_t*)disp + (size_t)y * stride + (size_t)x * 2) = v;
}

constexpr int kRowThreads = 256;

__global__ void __launch_bounds__(kRowThreads)
    cyclops_row_kernel(vf_local_pair p, vf_local_cyclops c, uint16_t* disp, size_t disp_stride) {
  extern __shared__ uint8_t s_rows[];
  const int y = blockIdx.x, w = p.width;
  const int half = c.weight == VF_CYCLOPS_WEIGHT_MNS ? c.mns_height / 2 : 0;
  const int rows = 2 * half + 1;
  uint8_t* sl = s_rows;
  uint8_t* sr = s_rows + rows * w;
  for (int i = threadIdx.x; i < rows * w; i += kRowThreads) {
    const int k = i / w, x = i % w, yy = clampi(y + k - half, 0, p.height - 1);
    sl[i] = p.left[(size_t)yy * p.left_stride + x];
    sr[i] = p.right[(size_t)yy * p.right_stride + x];
  }
  __syncthreads();
  const SharedRows im = {sl, sr, w, half};
  for (int x = threadIdx.x; x < w; x += kRowThreads)
    put(disp, disp_stride, x, y, search(im, p, c, x));
}

__global__ void cyclops_global_kernel(vf_local_pair p, vf_local_cyclops c, uint16_t* disp,
                                      size_t disp_stride) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p.width || y >= p.height) return;
  const GlobalRows im = {p.left, p.left_stride, p.right, p.right_stride, p.height, y};
  put(disp, disp_stride, x, y, search(im, p, c, x));
}

__global__ void median3_kernel(const uint16_t* src, size_t src_stride, int w, int h, uint16_t* dst,
                               size_t dst_stride) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  uint16_t v[9];
  int k = 0;
  for (int dy = -1; dy <= 1; ++dy) {
    const uint16_t* row =
        (const uint16_t*)((const uint8_t*)src + (size_t)clampi(y + dy, 0, h - 1) * src_stride);
    for (int dx = -1; dx <= 1; ++dx) v[k++] = row[clampi(x + dx, 0, w - 1)];
  }
  // Partial selection: after pass i, v[i] is the i-th smallest; the median is v[4].
#pragma unroll
  for (int i = 0; i <= 4; ++i) {
#pragma unroll
    for (int j = i + 1; j < 9; ++j) {
      const uint16_t a = v[i], b = v[j];
      v[i] = a < b ? a : b;
      v[j] = a < b ? b : a;
    }
  }
  put(dst, dst_stride, x, y, v[4]);
}

}  // namespace

extern "C" int vf_cuda_cyclops(const vf_local_pair* p, const vf_local_cyclops* c, int shared_row,
                               uint16_t* disparity, size_t disparity_stride, void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  if (shared_row) {
    const int rows = c->weight == VF_CYCLOPS_WEIGHT_MNS ? c->mns_height : 1;
    const size_t bytes = (size_t)rows * p->width * 2;
    if (bytes > VF_LOCAL_SHARED_ROW_BYTES) return (int)cudaErrorInvalidValue;
    cyclops_row_kernel<<<p->height, kRowThreads, bytes, s>>>(*p, *c, disparity, disparity_stride);
  } else {
    const dim3 block(32, 4), grid((p->width + 31) / 32, (p->height + 3) / 4);
    cyclops_global_kernel<<<grid, block, 0, s>>>(*p, *c, disparity, disparity_stride);
  }
  return VF_CUDA_LAUNCH_STATUS();
}

extern "C" int vf_cuda_median3(const uint16_t* src, size_t src_stride, int w, int h, uint16_t* dst,
                               size_t dst_stride, void* stream) {
  const dim3 block(32, 4), grid((w + 31) / 32, (h + 3) / 4);
  median3_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(src, src_stride, w, h, dst, dst_stride);
  return VF_CUDA_LAUNCH_STATUS();
}

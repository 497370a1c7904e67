// SPDX-License-Identifier: BSD-3-Clause
// CUDA disparity selection for 64 disparities with one thread per pixel: the thread reads its
// pixel's 64 bytes of every path as four 16-byte loads, sums them in 16-bit pairs in registers
// and runs the winner search, the uniqueness check, the sub-pixel fit and the right-image
// winners without a warp exchange. vf_sgm_select.cu's lane groups need about 270 warp
// instructions a pixel at 64 disparities, most of them shuffles, reductions and one lane's
// division while the other lanes wait; here it is a few dozen. One block per image row, as
// there, with the same rules and the same output (vf_sgm_common.cuh's winner word and row
// output), so GPU and CPU still agree bit for bit.
#include <cuda_runtime.h>
#include <stdint.h>

#include <atomic>

#include "core/vf_cuda_fault.cuh"
#include "core/vf_device_memo.cuh"
#include "stereo/kernels/vf_sgm_cuda.h"
#include "vf_sgm_common.cuh"

namespace {

constexpr int kD = 64;
constexpr uint32_t kNone = vf_sgm::kNoWinner;

// The byte layouts of vf_sgm_paths.cu for 64 disparities. Runs of 8 a lane (RUN): byte k is
// disparity k, so lo[j] holds bytes 0 and 2 of word j (disparities 4 j, 4 j + 2) and hi[j] bytes
// 1 and 3 (4 j + 1, 4 j + 3). Interleaved (16-lane groups, four slots a lane): byte b of word j
// is disparity j + 16 b, so lo[j] holds j, j + 32 and hi[j] j + 16, j + 48. All as 16-bit sums.
template <bool RUN>
__device__ __forceinline__ int disparity_of(int j, int half, int odd) {
  return RUN ? 4 * j + 2 * half + odd : j + 16 * odd + 32 * half;
}

// Calls f(sum, k) for the 64 disparities.
template <bool RUN, typename F>
__device__ __forceinline__ void for_each_cost(const uint32_t (&lo)[16], const uint32_t (&hi)[16],
                                              F f) {
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    f(lo[j] & 0xffffu, disparity_of<RUN>(j, 0, 0));
    f(lo[j] >> 16, disparity_of<RUN>(j, 1, 0));
    f(hi[j] & 0xffffu, disparity_of<RUN>(j, 0, 1));
    f(hi[j] >> 16, disparity_of<RUN>(j, 1, 1));
  }
}

// THREADS: 128, or 96 with four blocks a multiprocessor (at 167 registers, three of 128 fit).
template <bool RUN, int PATHS, int THREADS>
__global__ void __launch_bounds__(THREADS, THREADS == 96 ? 4 : 1)
    vf_select_pixel_kernel(vf_sgm_params p, const uint8_t* __restrict__ volumes, uint16_t* out16,
                           size_t out16_stride, float* outf, size_t outf_stride) {
  extern __shared__ uint32_t s_mem[];
  const int w = p.width, y = blockIdx.x;
  // kD slots before right[0] take the costs whose right pixel is left of the image, so that
  // the atomics need no branch.
  uint32_t* right = s_mem + kD;
  uint32_t* best_left = right + w;
  for (int i = threadIdx.x - kD; i < w; i += THREADS) right[i] = kNone;
  __syncthreads();
  const size_t plane = (size_t)w * p.height * (kD / 16);  // one path's costs, in 16-byte units
  const uint4* row = reinterpret_cast<const uint4*>(volumes) + (size_t)y * w * (kD / 16);
  for (int x = threadIdx.x; x < w; x += THREADS) {
    uint32_t lo[16], hi[16];
#pragma unroll
    for (int j = 0; j < 16; ++j) lo[j] = hi[j] = 0;
#pragma unroll
    for (int v = 0; v < PATHS; ++v) {
      const uint4* cell = row + v * plane + (size_t)x * (kD / 16);
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const uint4 c = __ldg(cell + q);
        const uint32_t words[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          lo[4 * q + i] += words[i] & 0x00ff00ffu;
          hi[4 * q + i] += (words[i] >> 8) & 0x00ff00ffu;
        }
      }
    }
    uint32_t best = kNone;
    for_each_cost<RUN>(lo, hi,
                       [&](uint32_t s, int k) { best = min(best, vf_sgm_pack(s, (uint32_t)k)); });
    const int kb = (int)(best & 0xffu);
    const uint32_t s1 = best >> 8;
    uint32_t second = kNone, sa = s1, sc = s1;
    for_each_cost<RUN>(lo, hi, [&](uint32_t s, int k) {
      if (k < kb - 1 || k > kb + 1) second = min(second, s);
      if (k == kb - 1) sa = s;
      if (k == kb + 1) sc = s;
    });
    best_left[x] = vf_sgm::winner_word(p, x, kb, s1, second, kb > 0 && kb < kD - 1, sa, sc);
    if (p.lr_check) {
      const int xr0 = x - p.min_disparity;
      for_each_cost<RUN>(lo, hi, [&](uint32_t s, int k) {
        atomicMin(&right[max(xr0 - k, -1 - k)], vf_sgm_pack(s, (uint32_t)k));
      });
    }
  }
  __syncthreads();
  vf_sgm::write_row(p, y, right, best_left, out16, out16_stride, outf, outf_stride);
}

// How many blocks (image rows) of the 128- and 96-thread kernels a device holds at once; 0 when
// the query fails (then 128 threads).
struct vf_select_fit {
  int at128, at96;
};

vf_select_fit vf_select_query(int dev) {
  vf_select_fit f = {0, 0};
  int sms = 0, b128 = 0, b96 = 0;
  const bool ok =
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b128, vf_select_pixel_kernel<false, 4, 128>,
                                                    128, 0) == cudaSuccess &&
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b96, vf_select_pixel_kernel<false, 4, 96>, 96,
                                                    0) == cudaSuccess;
  if (ok) {
    f.at128 = sms * b128;
    f.at96 = sms * b96;
  } else {
    (void)cudaGetLastError();  // a failed query is no launch error
  }
  return f;
}

// The figures of the current device (the one the launch goes to), asked once a device.
vf_select_fit vf_select_capacity() {
  static std::atomic<unsigned long long> fits[vf_device_memo::kDevices];
  const unsigned long long w = vf_device_memo::get(fits, [](int dev) {
    const vf_select_fit f = vf_select_query(dev);
    return ((unsigned long long)(unsigned)f.at128 << 32) | (unsigned)f.at96;
  });
  return vf_select_fit{(int)(w >> 32), (int)(w & 0xffffffffu)};
}

template <bool RUN, int THREADS>
void vf_launch_pixel(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, uint16_t* out16,
                     size_t out16_stride, float* outf, size_t outf_stride, cudaStream_t s) {
  const size_t smem = (2 * (size_t)p->width + kD) * sizeof(uint32_t);
  const dim3 grid(p->height), block(THREADS);
  if (p->paths == 2) {
    vf_select_pixel_kernel<RUN, 2, THREADS>
        <<<grid, block, smem, s>>>(*p, b->volumes, out16, out16_stride, outf, outf_stride);
  } else if (p->paths == 4) {
    vf_select_pixel_kernel<RUN, 4, THREADS>
        <<<grid, block, smem, s>>>(*p, b->volumes, out16, out16_stride, outf, outf_stride);
  } else if (p->paths == 8) {
    vf_select_pixel_kernel<RUN, 8, THREADS>
        <<<grid, block, smem, s>>>(*p, b->volumes, out16, out16_stride, outf, outf_stride);
  } else {
    vf_select_pixel_kernel<RUN, 16, THREADS>
        <<<grid, block, smem, s>>>(*p, b->volumes, out16, out16_stride, outf, outf_stride);
  }
}

// The launch below, one fault-injection site for all its instantiations.
VF_CUDA_SITE(vf_launch_site);

}  // namespace

extern "C" int vf_cuda_sgm_select_pixel(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b,
                                        uint16_t* out16, size_t out16_stride, float* outf,
                                        size_t outf_stride, void* stream) {
  // One block a row. Where 128-thread blocks leave rows for a second wave and 96-thread ones hold
  // them all, the latter: 752x480 / 64 / 4 196.6-196.8 us against 201.2-201.8 on the H100; where
  // the rows fit either way, 128 threads stay faster (450x375: 114.4-116.5 against 118.8-119.1
  // us), docs/perf/stereo.md.
  const vf_select_fit fit = vf_select_capacity();
  cudaStream_t s = (cudaStream_t)stream;
  const bool t96 = p->height > fit.at128 && p->height <= fit.at96;
  if (b->runs) {
    if (t96)
      vf_launch_pixel<true, 96>(p, b, out16, out16_stride, outf, outf_stride, s);
    else
      vf_launch_pixel<true, 128>(p, b, out16, out16_stride, outf, outf_stride, s);
  } else {
    if (t96)
      vf_launch_pixel<false, 96>(p, b, out16, out16_stride, outf, outf_stride, s);
    else
      vf_launch_pixel<false, 128>(p, b, out16, out16_stride, outf, outf_stride, s);
  }
  return VF_CUDA_LAUNCH_STATUS_AT(vf_launch_site);
}

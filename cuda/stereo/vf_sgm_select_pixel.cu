// SPDX-License-Identifier: BSD-3-Clause
// CUDA disparity selection for 64 disparities with one thread per pixel: the thread reads its
// pixel's 64 bytes of every path as four 16-byte loads, sums them in 16-bit pairs in registers
// and runs the winner search, the uniqueness check, the sub-pixel fit and the right-image
// winners without a warp exchange. vf_sgm_select.cu's lane groups need about 270 warp
// instructions a pixel at 64 disparities, most of them shuffles, reductions and one lane's
// division while the other lanes wait; here it is about 19 (598 instructions a pixel and thread
// on sm_90 with 4 paths, in the packed form below; docs/perf/sass_counts.md). One block per image
// row, as there, with the same rules and the same output (vf_sgm_common.cuh's winner word and row
// output), so GPU and CPU still agree bit for bit.
#include <cuda_runtime.h>
#include <stdint.h>

#include <atomic>

#include "core/vf_cuda_fault.cuh"
#include "core/vf_device_memo.cuh"
#include "stereo/kernels/vf_sgm_cuda.h"
#include "vf_sgm_common.cuh"
#include "vf_sgm_packed.cuh"

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

// Word j of the 32 (lo[0..15], then hi[0..15]): its halves' disparities, low | high << 16.
template <bool RUN>
__device__ __forceinline__ uint32_t word_disparities(int j) {
  const int w = j & 15, odd = j >> 4;
  return (uint32_t)disparity_of<RUN>(w, 0, odd) | ((uint32_t)disparity_of<RUN>(w, 1, odd) << 16);
}

// Where disparity k lies among the 32 words: word index * 2 + half.
template <bool RUN>
__device__ __forceinline__ int place_of(int k) {
  return RUN ? ((k & 1) * 16 + (k >> 2)) * 2 + ((k >> 1) & 1)
             : (((k >> 4) & 1) * 16 + (k & 15)) * 2 + (k >> 5);
}

// Up to four paths: the packed words of vf_sgm_packed.cuh (sum * 64 + k). The winner is then one
// packed minimum over 32 words instead of 64 packs and minima. The best cost outside k +- 1 is the
// same minimum over a copy of the words in shared memory (mine: this thread's kCopy words) whose
// three halves at kb, kb +- 1 are overwritten, and those halves are the fit's neighbours: 64 tests
// of k against kb become three indexed accesses (indexed registers would be selects). The
// right-image winners take the halves as the upper halves of their words (the index in bits
// 16..21: write_row's mask and shift), at one base address a pixel. The same choices as the scalar
// form, bit for bit.
constexpr int kCopy = 36;  // 32 words, padded so that a quarter warp's 16-byte stores miss no bank

template <bool RUN>
__device__ __forceinline__ void select_packed(const vf_sgm_params& p, int x,
                                              const uint32_t (&lo)[16], const uint32_t (&hi)[16],
                                              uint32_t* mine, uint32_t* right,
                                              uint32_t* best_left) {
  uint32_t v[32];
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    v[j] = lo[j] * 64u + word_disparities<RUN>(j);
    v[16 + j] = hi[j] * 64u + word_disparities<RUN>(16 + j);
  }
  const uint32_t best = vf_sgm::min_of_halves(vf_sgm::packed_min<32>::of(v));
  const int kb = (int)(best & 63u);
  const uint32_t s1 = best >> 6;
  uint32_t sa, sc;
  const uint32_t m2 = vf_sgm::outside_window<32, kD>(
      v, mine, kb, s1, [](int k) { return place_of<RUN>(k); }, sa, sc);
  const uint32_t second = m2 == 0xffffu ? kNone : m2 >> 6;
  best_left[x] = vf_sgm::winner_word(p, x, kb, s1, second, kb > 0 && kb < kD - 1, sa, sc);
  if (p.lr_check) {
    // A right winner is its word's upper half (write_row's index_shift): the high half's entry
    // goes in as the whole word, the low half's shifted up, since the lower bits never decide
    // which upper half is the least (one instruction a pair instead of two).
    uint32_t* base = right + max(x - p.min_disparity, -1);
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      const uint32_t ks = word_disparities<RUN>(j);
      atomicMin(base - (int)(ks & 0xffffu), v[j] << 16);
      atomicMin(base - (int)(ks >> 16), v[j]);
    }
  }
}

// THREADS: 128, or 96 with four blocks a multiprocessor (8 and 16 paths take 167 registers, so
// three of 128 fit; up to 4 paths, the packed form, 95). PACKED (up to 4 paths): the packed words,
// where their copies fit in shared memory beside the row's winners (vf_packed_fits).
template <bool RUN, int PATHS, int THREADS, bool PACKED>
__global__ void __launch_bounds__(THREADS, THREADS == 96 ? 4 : 1)
    vf_select_pixel_kernel(vf_sgm_params p, const uint8_t* __restrict__ volumes, uint16_t* out16,
                           size_t out16_stride, float* outf, size_t outf_stride) {
  extern __shared__ uint32_t s_mem[];
  __shared__ uint4 s_copy[PACKED ? THREADS * kCopy / 4 : 1];
  const int w = p.width, y = blockIdx.x;
  uint32_t* right = vf_sgm::row_winners<kD>(s_mem, w);
  uint32_t* best_left = right + w;
  for (int x = threadIdx.x; x < w; x += THREADS) {
    uint32_t lo[16], hi[16];
    vf_sgm::sum_paths<kD, PATHS>(p, volumes, x, y, lo, hi);
    if (PACKED) {
      select_packed<RUN>(p, x, lo, hi, reinterpret_cast<uint32_t*>(s_copy) + threadIdx.x * kCopy,
                         right, best_left);
      continue;
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
  vf_sgm::write_row(p, y, right, best_left, out16, out16_stride, outf, outf_stride,
                    PACKED ? 63u : 0xffu, PACKED ? 16 : 0);
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
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &b128, vf_select_pixel_kernel<false, 4, 128, true>, 128, 0) == cudaSuccess &&
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &b96, vf_select_pixel_kernel<false, 4, 96, true>, 96, 0) == cudaSuccess;
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

// Whether the packed kernel's copies (THREADS x kCopy words) and the row's winners ((2 w + kD)
// words) fit the 48 KB a block may take without opting in: up to about 3800 pixels a row with 128
// threads. Wider rows take the scalar form, the same output.
template <int THREADS>
bool vf_packed_fits(const vf_sgm_params* p) {
  return vf_sgm::packed_fits(THREADS, kCopy, kD, p->width);
}

template <bool RUN, int THREADS, int PATHS>
void vf_launch_paths(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, uint16_t* out16,
                     size_t out16_stride, float* outf, size_t outf_stride, cudaStream_t s) {
  const size_t smem = (2 * (size_t)p->width + kD) * sizeof(uint32_t);
  const dim3 grid(p->height), block(THREADS);
  if (PATHS <= 4 && vf_packed_fits<THREADS>(p)) {
    vf_select_pixel_kernel<RUN, PATHS, THREADS, PATHS <= 4>
        <<<grid, block, smem, s>>>(*p, b->volumes, out16, out16_stride, outf, outf_stride);
  } else {
    vf_select_pixel_kernel<RUN, PATHS, THREADS, false>
        <<<grid, block, smem, s>>>(*p, b->volumes, out16, out16_stride, outf, outf_stride);
  }
}

template <bool RUN, int THREADS>
void vf_launch_pixel(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, uint16_t* out16,
                     size_t out16_stride, float* outf, size_t outf_stride, cudaStream_t s) {
  if (p->paths == 2) {
    vf_launch_paths<RUN, THREADS, 2>(p, b, out16, out16_stride, outf, outf_stride, s);
  } else if (p->paths == 4) {
    vf_launch_paths<RUN, THREADS, 4>(p, b, out16, out16_stride, outf, outf_stride, s);
  } else if (p->paths == 8) {
    vf_launch_paths<RUN, THREADS, 8>(p, b, out16, out16_stride, outf, outf_stride, s);
  } else {
    vf_launch_paths<RUN, THREADS, 16>(p, b, out16, out16_stride, outf, outf_stride, s);
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

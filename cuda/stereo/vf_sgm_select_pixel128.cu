// SPDX-License-Identifier: BSD-3-Clause
// CUDA disparity selection for 128 disparities and up to four paths, one thread a pixel (as
// vf_sgm_select_pixel.cu for 64): the thread reads its pixel's 128 bytes of every path as eight
// 16-byte loads and sums them in 16-bit pairs, then packs them as 64 words of vf_sgm_packed.cuh
// (sum * 64 + k mod 64 a half) so that the entries below disparity 64 and those above it each
// give their winner by a tree of minima; the smaller sum wins, the lower range on a tie (its
// index is the lower). The rest as for 64: the best cost outside k +- 1 from a shared-memory copy
// with three halves overwritten, the right-image winners by atomics at one base address a pixel.
// vf_sgm_select.cu's 32-lane groups need several times the instructions a pixel (shuffles,
// reductions, one lane's division while the others wait); the output is the same, bit for bit
// (vf_sgm_common.cuh's winner word and row output).
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "stereo/kernels/vf_sgm_cuda.h"
#include "vf_sgm_common.cuh"
#include "vf_sgm_packed.cuh"

namespace {

constexpr int kD = 128;
constexpr int kThreads = 128;
constexpr int kCopy = 68;  // 64 words, padded so that a quarter warp's 16-byte stores miss no bank

// The 64 packed words v[i] and their halves' disparities. Interleaved: v[i] is lo[i] (i < 32)
// or hi[i - 32], half h disparity i + 64 h, so the halves split the range at 64. Runs (byte k
// of a pixel is disparity k): v[i] is lo or hi (odd = bit 4 of i) of word 16 (i >> 5) + (i & 15),
// half h disparity 64 (i >> 5) + 4 (i & 15) + 2 h + odd, so v[0..31] hold 0..63 and v[32..63]
// hold 64..127.
template <bool RUN>
__device__ __forceinline__ int disparity_of(int i, int h) {
  return RUN ? 64 * (i >> 5) + 4 * (i & 15) + 2 * h + ((i >> 4) & 1) : i + 64 * h;
}

template <bool RUN>
__device__ __forceinline__ uint32_t word_of(const uint32_t (&lo)[32], const uint32_t (&hi)[32],
                                            int i) {
  if (RUN) return (i & 16 ? hi : lo)[16 * (i >> 5) + (i & 15)];
  return i < 32 ? lo[i] : hi[i - 32];
}

// Where disparity k lies among the 64 words: word index * 2 + half.
template <bool RUN>
__device__ __forceinline__ int place_of(int k) {
  const int r = k & 63;
  return RUN ? 2 * (32 * (k >> 6) + 16 * (r & 1) + (r >> 2)) + ((r >> 1) & 1) : 2 * r + (k >> 6);
}

// The best entries below and above disparity 64 (sum * 64 + k mod 64).
template <bool RUN>
__device__ __forceinline__ void winners(const uint32_t (&v)[64], uint32_t& below, uint32_t& above) {
  if (RUN) {
    below = vf_sgm::min_of_halves(
        vf_sgm::packed_min<32>::of(reinterpret_cast<const uint32_t(&)[32]>(v[0])));
    above = vf_sgm::min_of_halves(
        vf_sgm::packed_min<32>::of(reinterpret_cast<const uint32_t(&)[32]>(v[32])));
  } else {
    const uint32_t m = vf_sgm::packed_min<64>::of(v);
    below = m & 0xffffu;
    above = m >> 16;
  }
}

template <bool RUN>
__device__ __forceinline__ void select_pixel(const vf_sgm_params& p, int x,
                                             const uint32_t (&lo)[32], const uint32_t (&hi)[32],
                                             uint32_t* mine, uint32_t* right, uint32_t* best_left) {
  uint32_t v[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) {
    const uint32_t k0 = (uint32_t)disparity_of<RUN>(i, 0) & 63u;
    const uint32_t k1 = (uint32_t)disparity_of<RUN>(i, 1) & 63u;
    v[i] = word_of<RUN>(lo, hi, i) * 64u + (k0 | (k1 << 16));
  }
  uint32_t below, above;
  winners<RUN>(v, below, above);
  const bool up = (above >> 6) < (below >> 6);
  const uint32_t s1 = (up ? above : below) >> 6;
  const int kb = (int)((up ? above : below) & 63u) + (up ? 64 : 0);
  // At most three of the 128 entries are overwritten, so the minimum is never one of them.
  uint32_t sa, sc;
  const auto place = [](int k) { return place_of<RUN>(k); };
  const uint32_t second = vf_sgm::outside_window<64, kD>(v, mine, kb, s1, place, sa, sc) >> 6;
  best_left[x] = vf_sgm::winner_word(p, x, kb, s1, second, kb > 0 && kb < kD - 1, sa, sc);
  if (p.lr_check) {
    // vf_sgm_pack(sum, k) from a half sum * 64 + k mod 64: half * 4 + k - 4 (k mod 64).
    uint32_t* base = right + max(x - p.min_disparity, -1);
#pragma unroll
    for (int i = 0; i < 64; ++i) {
      const int k0 = disparity_of<RUN>(i, 0), k1 = disparity_of<RUN>(i, 1);
      atomicMin(base - k0, (v[i] & 0xffffu) * 4u + (uint32_t)(k0 - 4 * (k0 & 63)));
      atomicMin(base - k1, (v[i] >> 16) * 4u + (uint32_t)(k1 - 4 * (k1 & 63)));
    }
  }
}

template <bool RUN, int PATHS>
__global__ void __launch_bounds__(kThreads)
    vf_select_pixel128_kernel(vf_sgm_params p, const uint8_t* __restrict__ volumes, uint16_t* out16,
                              size_t out16_stride, float* outf, size_t outf_stride) {
  extern __shared__ uint32_t s_mem[];
  __shared__ uint4 s_copy[kThreads * kCopy / 4];
  const int w = p.width, y = blockIdx.x;
  uint32_t* right = vf_sgm::row_winners<kD>(s_mem, w);
  uint32_t* best_left = right + w;
  uint32_t* mine = reinterpret_cast<uint32_t*>(s_copy) + threadIdx.x * kCopy;
  for (int x = threadIdx.x; x < w; x += kThreads) {
    uint32_t lo[32], hi[32];
    vf_sgm::sum_paths<kD, PATHS>(p, volumes, x, y, lo, hi);
    select_pixel<RUN>(p, x, lo, hi, mine, right, best_left);
  }
  __syncthreads();
  vf_sgm::write_row(p, y, right, best_left, out16, out16_stride, outf, outf_stride);
}

// The launch below, one fault-injection site for all its instantiations.
VF_CUDA_SITE(vf_launch_site);

template <bool RUN>
void vf_launch(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, uint16_t* out16,
               size_t out16_stride, float* outf, size_t outf_stride, cudaStream_t s) {
  const size_t smem = (2 * (size_t)p->width + kD) * sizeof(uint32_t);
  const dim3 grid(p->height), block(kThreads);
  if (p->paths == 2) {
    vf_select_pixel128_kernel<RUN, 2>
        <<<grid, block, smem, s>>>(*p, b->volumes, out16, out16_stride, outf, outf_stride);
  } else {
    vf_select_pixel128_kernel<RUN, 4>
        <<<grid, block, smem, s>>>(*p, b->volumes, out16, out16_stride, outf, outf_stride);
  }
}

}  // namespace

extern "C" int vf_cuda_sgm_select_pixel128_fits(const vf_sgm_params* p) {
  return vf_sgm::packed_fits(kThreads, kCopy, kD, p->width);
}

extern "C" int vf_cuda_sgm_select_pixel128(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b,
                                           uint16_t* out16, size_t out16_stride, float* outf,
                                           size_t outf_stride, void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  if (b->runs) {
    vf_launch<true>(p, b, out16, out16_stride, outf, outf_stride, s);
  } else {
    vf_launch<false>(p, b, out16, out16_stride, outf, outf_stride, s);
  }
  return VF_CUDA_LAUNCH_STATUS_AT(vf_launch_site);
}

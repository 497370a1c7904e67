// SPDX-License-Identifier: BSD-3-Clause
// CUDA disparity selection for 128 disparities and up to four paths, one thread a pixel (as
// vf_sgm_select_pixel.cu for 64): the thread reads its pixel's 128 bytes of every path as eight
// 16-byte loads and sums them in 16-bit pairs. In the path kernel's layout for 128
// (vf_sgm_paths.cu, whole-warp groups, four slots a lane) byte b of word j is disparity j + 32 b,
// so the even bytes of word j hold j and j + 64 and the odd bytes j + 32 and j + 96: word w (0..63)
// of the 64 packed words (vf_sgm_packed.cuh) holds disparity w in its low half and w + 64 in its
// high half, both as sum * 64 + w. One tree of minima gives the winners below and above 64; the
// smaller sum wins, the lower half on a tie (its index is the lower). The rest as for 64: the best
// cost outside k +- 1 from a shared-memory copy with three halves overwritten, the right-image
// winners by atomics at one base address a pixel. vf_sgm_select.cu's 32-lane groups need several
// times the instructions a pixel (shuffles, reductions, one lane's division while the others wait);
// the output is the same, bit for bit (vf_sgm_common.cuh's winner word and row output).
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

__device__ __forceinline__ void select_pixel(const vf_sgm_params& p, int x,
                                             const uint32_t (&lo)[32], const uint32_t (&hi)[32],
                                             uint32_t* mine, uint32_t* right, uint32_t* best_left) {
  uint32_t v[64];
#pragma unroll
  for (int j = 0; j < 32; ++j) {
    v[j] = lo[j] * 64u + ((uint32_t)j | ((uint32_t)j << 16));
    v[32 + j] = hi[j] * 64u + ((uint32_t)(32 + j) | ((uint32_t)(32 + j) << 16));
  }
  const uint32_t m = vf_sgm::packed_min<64>::of(v);
  const uint32_t below = m & 0xffffu, above = m >> 16;
  const bool up = (above >> 6) < (below >> 6);
  const uint32_t s1 = (up ? above : below) >> 6;
  const int kb = (int)((up ? above : below) & 63u) + (up ? 64 : 0);
  // Disparity k: word k mod 64, half k / 64. Each half keeps at least 61 of its 64 entries, so
  // the minimum is never an overwritten one.
  uint32_t sa, sc;
  const auto place = [](int k) { return 2 * (k & 63) + (k >> 6); };
  const uint32_t second = vf_sgm::outside_window<64, kD>(v, mine, kb, s1, place, sa, sc) >> 6;
  best_left[x] = vf_sgm::winner_word(p, x, kb, s1, second, kb > 0 && kb < kD - 1, sa, sc);
  if (p.lr_check) {
    // vf_sgm_pack(sum, k) from a half sum * 64 + w (k = w + 64 h): half * 4 + (k - 4 w).
    uint32_t* base = right + max(x - p.min_disparity, -1);
#pragma unroll
    for (int w = 0; w < 64; ++w) {
      atomicMin(base - w, (v[w] & 0xffffu) * 4u - 3u * (uint32_t)w);
      atomicMin(base - (w + 64), (v[w] >> 16) * 4u + 64u - 3u * (uint32_t)w);
    }
  }
}

template <int PATHS>
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
    select_pixel(p, x, lo, hi, mine, right, best_left);
  }
  __syncthreads();
  vf_sgm::write_row(p, y, right, best_left, out16, out16_stride, outf, outf_stride);
}

// The launch below, one fault-injection site for all its instantiations.
VF_CUDA_SITE(vf_launch_site);

}  // namespace

extern "C" int vf_cuda_sgm_select_pixel128(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b,
                                           uint16_t* out16, size_t out16_stride, float* outf,
                                           size_t outf_stride, void* stream) {
  const size_t smem = (2 * (size_t)p->width + kD) * sizeof(uint32_t);
  const dim3 grid(p->height), block(kThreads);
  cudaStream_t s = (cudaStream_t)stream;
  if (p->paths == 2) {
    vf_select_pixel128_kernel<2>
        <<<grid, block, smem, s>>>(*p, b->volumes, out16, out16_stride, outf, outf_stride);
  } else {
    vf_select_pixel128_kernel<4>
        <<<grid, block, smem, s>>>(*p, b->volumes, out16, out16_stride, outf, outf_stride);
  }
  return VF_CUDA_LAUNCH_STATUS_AT(vf_launch_site);
}

// CUDA left-to-right path fused with everything after aggregation: while a G-lane group walks
// its row it adds the other paths' costs (bytes, summed in 16-bit pairs), picks the winner
// (smallest cost, then smallest index), checks uniqueness, fits the sub-pixel parabola, and
// scatters the costs into the row's right-image winners in shared memory (at one step every
// disparity lands on a different right pixel, so no atomics). After the row, the left-right
// check and the output. Rules as in src/cpu/vf_sgm_select_cpu.c and src/vf_stereo_rules.h.
#include <cuda_runtime.h>
#include <stdint.h>

#include "../src/vf_cuda_stereo.h"
#include "vf_sgm_warp.cuh"

namespace {

// Output words before the left-right check: (k << 16) | value, or kNone.
constexpr uint32_t kNone = 0xffffffffu;

// The sum of slot s (= 4 * word + byte) from the 16-bit pair sums lo (bytes 0, 2), hi (1, 3).
template <int NW>
__device__ __forceinline__ uint32_t slot_sum(const uint32_t (&lo)[NW], const uint32_t (&hi)[NW],
                                             int s) {
  const uint32_t v = (s & 1) ? hi[s >> 2] : lo[s >> 2];
  return (s & 2) ? v >> 16 : v & 0xffffu;
}

// The sum at disparity index k of this group (k >= 0 and < D), read from the owning lane.
template <int G, int NW>
__device__ __forceinline__ uint32_t sum_at(const uint32_t (&lo)[NW], const uint32_t (&hi)[NW],
                                           int k) {
  const int slot = k / G;
  uint32_t v = 0;
#pragma unroll
  for (int s = 0; s < 4 * NW; ++s) v = s == slot ? slot_sum<NW>(lo, hi, s) : v;
  return __shfl_sync(vf_sgm::kFull, v, k % G, G);
}

template <int G, int NW, bool FULL>
__global__ void __launch_bounds__(32)
    vf_final_kernel(vf_sgm_params p,
                    const typename vf_sgm::census_word<FULL>::type* __restrict__ census_l,
                    const typename vf_sgm::census_word<FULL>::type* __restrict__ census_r,
                    const uint8_t* __restrict__ left, size_t left_stride,
                    const uint8_t* __restrict__ volumes, uint32_t* left_best, uint16_t* out16,
                    size_t out16_stride, float* outf, size_t outf_stride) {
  typedef typename vf_sgm::census_word<FULL>::type CT;
  constexpr int D = 4 * G * NW;
  extern __shared__ uint32_t s_right[];
  const int w = p.width, h = p.height;
  const int lane = threadIdx.x % G;
  const int line = blockIdx.x * (32 / G) + threadIdx.x / G;
  const bool active = line < h;
  const int y = active ? line : h - 1;
  uint32_t* right = s_right + (threadIdx.x / G) * w;
  if (p.lr_check) {
    for (int i = lane; i < w; i += G) right[i] = kNone;
  }
  __syncwarp();
  const size_t plane = (size_t)w * h * D;
  const int nvol = p.paths - 1;
  const uint32_t p1x4 = (uint32_t)p.p1 * 0x01010101u;
  const CT* rrow = census_r + (size_t)y * w;
  const uint8_t* irow = left + (size_t)y * left_stride;
  uint32_t L[NW], c[NW], min_l = 0;
#pragma unroll
  for (int k = 0; k < NW; ++k) L[k] = 0;
  for (int x = 0; x < w; ++x) {
    const uint32_t p2 = x > 0 ? (uint32_t)vf_sgm_p2(p.p1, p.p2, p.adaptive_p2, irow[x], irow[x - 1])
                              : (uint32_t)p.p2;
    const size_t pix = (size_t)y * w + x;
    vf_sgm::costs<G, NW, CT>(rrow, census_l[pix], x - p.min_disparity - lane, (uint32_t)p.max_cost,
                             c);
    vf_sgm::path_step<G, NW>(L, min_l, c, p1x4, p2, lane);
    uint32_t lo[NW], hi[NW];
#pragma unroll
    for (int k = 0; k < NW; ++k) {
      lo[k] = L[k] & 0x00ff00ffu;
      hi[k] = (L[k] >> 8) & 0x00ff00ffu;
    }
    const uint32_t* cell = reinterpret_cast<const uint32_t*>(volumes + pix * D) + lane;
    for (int v = 0; v < nvol; ++v) {
#pragma unroll
      for (int k = 0; k < NW; ++k) {
        const uint32_t word = __ldg(cell + v * (plane / 4) + k * G);
        lo[k] += word & 0x00ff00ffu;
        hi[k] += (word >> 8) & 0x00ff00ffu;
      }
    }
    // Winner: smallest packed (cost, index).
    uint32_t best = kNone;
#pragma unroll
    for (int s = 0; s < 4 * NW; ++s) {
      best = min(best, vf_sgm_pack(slot_sum<NW>(lo, hi, s), (uint32_t)(lane + G * s)));
    }
    best = vf_sgm::group_min<G>(best);
    const int kb = (int)(best & 0xffu);
    const uint32_t s1 = best >> 8;
    uint32_t second = kNone;
#pragma unroll
    for (int s = 0; s < 4 * NW; ++s) {
      const int k = lane + G * s;
      if (k < kb - 1 || k > kb + 1) second = min(second, slot_sum<NW>(lo, hi, s));
    }
    second = vf_sgm::group_min<G>(second);
    // Neighbours for the parabola (every lane takes part in the shuffles).
    const uint32_t sa = sum_at<G, NW>(lo, hi, kb > 0 ? kb - 1 : kb);
    const uint32_t sc = sum_at<G, NW>(lo, hi, kb < D - 1 ? kb + 1 : kb);
    const bool valid =
        x >= p.min_disparity && (unsigned long long)s1 * VF_UNIQUENESS_ONE <=
                                    (unsigned long long)second * (unsigned)p.uniqueness_q;
    if (lane == 0 && active) {
      uint32_t value = (uint32_t)(p.min_disparity + kb);
      if (p.subpixel) {
        const int off = kb > 0 && kb < D - 1 ? vf_sgm_subpixel16((int)sa, (int)s1, (int)sc) : 0;
        value = (uint32_t)((int)value * 16 + off);
      }
      left_best[pix] = valid ? ((uint32_t)kb << 16) | value : kNone;
    }
    if (p.lr_check) {
#pragma unroll
      for (int s = 0; s < 4 * NW; ++s) {
        const int k = lane + G * s;
        const int xr = x - p.min_disparity - k;
        if (xr >= 0) right[xr] = min(right[xr], vf_sgm_pack(slot_sum<NW>(lo, hi, s), (uint32_t)k));
      }
    }
    __syncwarp();
  }
  if (!active) return;
  const float scale = p.subpixel ? 1.0f / 16.0f : 1.0f;
  for (int x = lane; x < w; x += G) {
    const uint32_t v = left_best[(size_t)y * w + x];
    uint32_t out = VF_STEREO_INVALID;
    if (v != kNone) {
      const int kb = (int)(v >> 16);
      out = v & 0xffffu;
      if (p.lr_check) {
        const int xr = x - p.min_disparity - kb;
        const uint32_t r = xr >= 0 ? right[xr] : kNone;
        const int kr = (int)(r & 0xffu);
        if (r == kNone || abs(kr - kb) > p.lr_max_diff) out = VF_STEREO_INVALID;
      }
    }
    out16[(size_t)y * (out16_stride / 2) + x] = (uint16_t)out;
    if (outf != NULL) {
      outf[(size_t)y * (outf_stride / 4) + x] =
          out == VF_STEREO_INVALID ? __int_as_float(0x7fc00000) : (float)out * scale;
    }
  }
}

template <int G, int NW, bool FULL>
int vf_launch(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, const uint8_t* left,
              size_t left_stride, uint16_t* out16, size_t out16_stride, float* outf,
              size_t outf_stride, cudaStream_t stream) {
  typedef typename vf_sgm::census_word<FULL>::type CT;
  const int lines = 32 / G;
  const int blocks = (p->height + lines - 1) / lines;
  const size_t smem = p->lr_check ? (size_t)lines * p->width * sizeof(uint32_t) : 0;
  vf_final_kernel<G, NW, FULL><<<blocks, 32, smem, stream>>>(
      *p, (const CT*)b->census_l, (const CT*)b->census_r, left, left_stride, b->volumes,
      b->left_best, out16, out16_stride, outf, outf_stride);
  return (int)cudaGetLastError();
}

template <bool FULL>
int vf_dispatch(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, const uint8_t* left,
                size_t ls, uint16_t* o16, size_t o16s, float* of, size_t ofs, cudaStream_t s) {
  if (p->disparities == 64) return vf_launch<16, 1, FULL>(p, b, left, ls, o16, o16s, of, ofs, s);
  if (p->disparities == 128) return vf_launch<32, 1, FULL>(p, b, left, ls, o16, o16s, of, ofs, s);
  return vf_launch<32, 2, FULL>(p, b, left, ls, o16, o16s, of, ofs, s);
}

}  // namespace

extern "C" int vf_cuda_sgm_final(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b,
                                 const uint8_t* left, size_t left_stride, uint16_t* out16,
                                 size_t out16_stride, float* outf, size_t outf_stride,
                                 void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  return p->census_full
             ? vf_dispatch<true>(p, b, left, left_stride, out16, out16_stride, outf, outf_stride, s)
             : vf_dispatch<false>(p, b, left, left_stride, out16, out16_stride, outf, outf_stride,
                                  s);
}

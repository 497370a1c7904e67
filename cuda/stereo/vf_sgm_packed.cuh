// SPDX-License-Identifier: BSD-3-Clause
// The thread-per-pixel selections' packed words (vf_sgm_select_pixel.cu, 64 disparities, and
// vf_sgm_select_pixel128.cu): up to four paths a pixel's cost sum is at most 4 * 255 < 1024, so
// a 16-bit half holds the sum and six bits of the disparity index as sum * 64 + (k mod 64),
// ordered as vf_sgm_pack's words (the sum, then the lower index). A winner is then a tree of
// three-way minima over the words (one DPX instruction each on sm_90, vf_sgm_warp.cuh).
#ifndef VF_SGM_PACKED_CUH
#define VF_SGM_PACKED_CUH

#include <stdint.h>

#include "vf_sgm_common.cuh"
#include "vf_sgm_warp.cuh"

namespace vf_sgm {

// The shared memory a block may take without opting in
// (cudaFuncAttributeMaxDynamicSharedMemorySize), on every target from sm_62 on: the packed
// selections' copies and the row's winners must fit it.
constexpr size_t kSharedPerBlock = 48 * 1024;

// Whether a packed selection's block fits it: `threads` copies of `copy` words each and the row's
// winners ((2 w + D) words, row_winners below).
inline bool packed_fits(int threads, int copy, int d, int width) {
  return ((size_t)threads * copy + 2 * (size_t)width + d) * sizeof(uint32_t) <= kSharedPerBlock;
}

// Per 16-bit half, the minimum of N words.
template <int N>
struct packed_min {
  static __device__ __forceinline__ uint32_t of(const uint32_t (&v)[N]) {
    constexpr int M = (N + 2) / 3;
    uint32_t a[M];
#pragma unroll
    for (int i = 0; i < N / 3; ++i) a[i] = min3_u16x2(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
    if (N % 3 == 1) a[M - 1] = v[N - 1];
    if (N % 3 == 2) a[M - 1] = __vminu2(v[N - 2], v[N - 1]);
    return packed_min<M>::of(a);
  }
};

template <>
struct packed_min<1> {
  static __device__ __forceinline__ uint32_t of(const uint32_t (&v)[1]) { return v[0]; }
};

__device__ __forceinline__ uint32_t min_of_halves(uint32_t m) { return min(m & 0xffffu, m >> 16); }

// Half h (0 or 1) of word w.
__device__ __forceinline__ uint32_t half_of(uint32_t w, int h) { return (w >> (16 * h)) & 0xffffu; }

// After the winner kb (sum s1) of D disparities in the N words v: the sums at kb - 1 and kb + 1
// (sa, sc: s1 where outside the range) and the packed minimum, in one half, of every entry
// outside kb +- 1, or 0xffff where none is. From a copy of the words in shared memory (mine,
// 16-byte aligned) whose three halves at kb, kb +- 1 are overwritten: three indexed accesses
// instead of N tests of k against kb (indexed registers would be selects). place(k): where
// disparity k lies, word index * 2 + half.
template <int N, int D, typename Place>
__device__ __forceinline__ uint32_t outside_window(const uint32_t (&v)[N], uint32_t* mine, int kb,
                                                   uint32_t s1, Place place, uint32_t& sa,
                                                   uint32_t& sc) {
  uint4* mine4 = reinterpret_cast<uint4*>(mine);
#pragma unroll
  for (int q = 0; q < N / 4; ++q)
    mine4[q] = make_uint4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]);
  sa = sc = s1;
  if (kb > 0) {
    const int pa = place(kb - 1);
    sa = half_of(mine[pa >> 1], pa & 1) >> 6;
    mine[pa >> 1] |= 0xffffu << (16 * (pa & 1));
  }
  if (kb < D - 1) {
    const int pc = place(kb + 1);
    sc = half_of(mine[pc >> 1], pc & 1) >> 6;
    mine[pc >> 1] |= 0xffffu << (16 * (pc & 1));
  }
  const int pb = place(kb);
  mine[pb >> 1] |= 0xffffu << (16 * (pb & 1));
  uint32_t rest[N];
#pragma unroll
  for (int q = 0; q < N / 4; ++q) {
    const uint4 c = mine4[q];
    rest[4 * q] = c.x;
    rest[4 * q + 1] = c.y;
    rest[4 * q + 2] = c.z;
    rest[4 * q + 3] = c.w;
  }
  return min_of_halves(packed_min<N>::of(rest));
}

// The row's right-image winners in dynamic shared memory ((2 w + D) words: D slots before
// right[0] take the costs whose right pixel is left of the image, so that the atomics need no
// branch; the left winners follow them), set up by the whole block. Returns right.
template <int D>
__device__ __forceinline__ uint32_t* row_winners(uint32_t* s_mem, int w) {
  uint32_t* right = s_mem + D;
  for (int i = (int)threadIdx.x - D; i < w; i += blockDim.x) right[i] = kNoWinner;
  __syncthreads();
  return right;
}

// Pixel (x, y)'s D costs of every path summed in 16-bit pairs: lo[j] the even bytes of the
// pixel's word j, hi[j] its odd bytes. hi by one byte permutation a path's word; lo as the whole
// words' sum less hi << 8: that sum is lo + (hi << 8) modulo 2^32, and lo (halves of at most
// 16 * 255, no carry) is what is left, in one three-input add where a mask and two adds a word took
// three.
template <int D, int PATHS>
__device__ __forceinline__ void sum_paths(const vf_sgm_params& p,
                                          const uint8_t* __restrict__ volumes, int x, int y,
                                          uint32_t (&lo)[D / 4], uint32_t (&hi)[D / 4]) {
  const size_t plane = (size_t)p.width * p.height * (D / 16);  // one path, in 16-byte units
  const uint4* cell =
      reinterpret_cast<const uint4*>(volumes) + ((size_t)y * p.width + x) * (D / 16);
  // A path's cell as one 64-bit address, its 16-byte words at constant offsets from it (built
  // apart, the compiler spent three instructions on every load's address).
  const uint4* at[PATHS];
#pragma unroll
  for (int v = 0; v < PATHS; ++v) at[v] = opaque(cell + v * plane);
#pragma unroll
  for (int q = 0; q < D / 16; ++q) {
    uint4 c[PATHS];
#pragma unroll
    for (int v = 0; v < PATHS; ++v) c[v] = __ldg(at[v] + q);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      uint32_t whole = 0, odd = 0;
#pragma unroll
      for (int v = 0; v < PATHS; ++v) {
        const uint32_t w = i == 0 ? c[v].x : i == 1 ? c[v].y : i == 2 ? c[v].z : c[v].w;
        whole += w;
        odd += __byte_perm(w, 0u, 0x4341);  // bytes 1 and 3
      }
      hi[4 * q + i] = odd;
      // Opaque: otherwise the compiler turns the difference back into a mask a word.
      lo[4 * q + i] = whole - (opaque(odd) << 8);
    }
  }
}

}  // namespace vf_sgm

#endif

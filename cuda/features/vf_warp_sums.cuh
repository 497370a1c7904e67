// SPDX-License-Identifier: BSD-3-Clause
// Warp-wide sums for the one-warp-per-feature kernels (cuda/features/vf_lk.cu,
// cuda/features/vf_affine.cu).
#ifndef VF_WARP_SUMS_CUH
#define VF_WARP_SUMS_CUH

// Sums v[0..N-1] over the 32 lanes through an xor butterfly: every lane ends with the same bits
// (each addition is commutative lane by lane), so all lanes take the same branches after it.
template <int N>
__device__ __forceinline__ void vf_warp_sums(float* v) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) {
#pragma unroll
    for (int i = 0; i < N; ++i) v[i] += __shfl_xor_sync(0xffffffffu, v[i], m);
  }
}

#endif

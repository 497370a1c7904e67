// SPDX-License-Identifier: BSD-3-Clause
// Warp-wide sums for the one-warp-per-feature kernels (cuda/features/vf_lk_warp.cuh,
// cuda/features/vf_affine.cu, cuda/features/vf_refine_warp.cuh, cuda/features/vf_stereo_match.cu).
// A butterfly (xor shuffles) costs 5 rounds x (SHFL + FADD) a value. Several values go instead
// through a reduce-scatter: each round a lane keeps half of the values it holds (by one lane
// bit) and sends the other half to its partner, so the rounds shrink (2 selects + SHFL + FADD a
// pair); once one value a lane is left, the remaining rounds are a butterfly; then every lane
// takes each total from one lane that holds it. About 5 N instructions instead of 10 N; the
// totals' rounding differs from the butterfly's (another order of the same additions).
#ifndef VF_WARP_SUMS_CUH
#define VF_WARP_SUMS_CUH

#include <stdint.h>

namespace vf_warp_sums_ns {

constexpr unsigned kAll = 0xffffffffu;

// Instructions to finish the sums of m values a lane with r rounds left, splitting while that
// is cheaper than a butterfly of the rest (odd counts padded with a zero).
__host__ __device__ constexpr int vf_sums_cost(int m, int r) {
  return r == 0   ? 0
         : m == 1 ? 2 * r
                  : (4 * ((m + 1) / 2) + vf_sums_cost((m + 1) / 2, r - 1) < 2 * m * r
                         ? 4 * ((m + 1) / 2) + vf_sums_cost((m + 1) / 2, r - 1)
                         : 2 * m * r);
}

// How many rounds split the values; 0: the plain butterfly, kept for N <= 3, where the split
// saved 2 instructions as compiled (sm_75, sm_90) and adds the gather's shuffle to the chain.
__host__ __device__ constexpr int vf_sums_splits(int n) {
  int s = 0, m = n;
  for (int r = 5; r > 0 && m > 1; --r) {
    const int h = (m + 1) / 2;
    if (4 * h + vf_sums_cost(h, r - 1) >= 2 * m * r) break;
    ++s;
    m = h;
  }
  return n >= 4 && vf_sums_cost(n, 5) + n < 10 * n ? s : 0;
}

// Where value k ends after s splits of n: the lane bits it was kept by (lane), and its slot.
__host__ __device__ constexpr int vf_sums_holder(int n, int s, int k, bool slot) {
  int lane = 0;
  for (int r = 0; r < s; ++r) {
    const int h = (n + 1) / 2;
    if (k >= h) {
      lane |= 16 >> r;
      k -= h;
    }
    n = h;
  }
  return slot ? k : lane;
}

// m ? b : a bit by bit (m: all ones or zero), as a PTX lop3: from a C select the compiler
// branched on the lane bit around copies of the shuffles (divergent: both halves run), and
// selects on predicates crowd out the kernels' own live predicates.
__device__ __forceinline__ unsigned vf_sums_pick(unsigned m, unsigned a, unsigned b) {
  unsigned r;
  asm("lop3.b32 %0, %1, %2, %3, 0xd8;" : "=r"(r) : "r"(a), "r"(b), "r"(m));
  return r;
}

__device__ __forceinline__ float vf_sums_pick(unsigned m, float a, float b) {
  return __uint_as_float(vf_sums_pick(m, __float_as_uint(a), __float_as_uint(b)));
}

__device__ __forceinline__ int32_t vf_sums_pick(unsigned m, int32_t a, int32_t b) {
  return (int32_t)vf_sums_pick(m, (unsigned)a, (unsigned)b);
}

// One split of the M values in a[]: lanes with bit B (m all ones) keep the upper half (the lower
// half with a zero pad for odd M), the others the lower, each adding the partner's copy.
template <int M, int B, typename T>
__device__ __forceinline__ void vf_sums_split(T* a, unsigned m) {
  constexpr int H = (M + 1) / 2;
#pragma unroll
  for (int i = 0; i < H; ++i) {
    const T lo_v = a[i], hi_v = i + H < M ? a[i + H] : T(0);
    const T send = vf_sums_pick(m, hi_v, lo_v);
    a[i] = vf_sums_pick(m, lo_v, hi_v) + __shfl_xor_sync(kAll, send, B);
  }
}

// S splits from lane bit B down, then the butterfly over the lower bits (both lanes of a pair
// add the same two values, commutative, so a value's holders all end with the same bits).
template <int M, int B, int S>
struct vf_sums_rounds {
  template <typename T>
  __device__ __forceinline__ static void run(T* a, unsigned lane) {
    vf_sums_split<M, B>(a, 0u - ((lane / B) & 1u));
    vf_sums_rounds<(M + 1) / 2, B / 2, S - 1>::run(a, lane);
  }
};

template <int M, int B>
struct vf_sums_rounds<M, B, 0> {
  template <typename T>
  __device__ __forceinline__ static void run(T* a, unsigned) {
#pragma unroll
    for (int b = B; b > 0; b >>= 1) {
#pragma unroll
      for (int i = 0; i < M; ++i) a[i] += __shfl_xor_sync(kAll, a[i], b);
    }
  }
};

// v[K..N) from the lanes that hold them (holder lane and slot fixed at compile time), so that
// every lane gets the same bits.
template <int N, int S, int K>
struct vf_sums_gather {
  template <typename T>
  __device__ __forceinline__ static void run(T* v, const T* a) {
    constexpr int kSlot = vf_sums_holder(N, S, K, true), kLane = vf_sums_holder(N, S, K, false);
    v[K] = __shfl_sync(kAll, a[kSlot], kLane);
    vf_sums_gather<N, S, K + 1>::run(v, a);
  }
};

template <int N, int S>
struct vf_sums_gather<N, S, N> {
  template <typename T>
  __device__ __forceinline__ static void run(T*, const T*) {}
};

template <int N, typename T>
__device__ __forceinline__ void vf_warp_sums_any(T* v) {
  constexpr int S = vf_sums_splits(N);
  if (S == 0) {
    vf_sums_rounds<N, 16, 0>::run(v, 0u);
    return;
  }
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  T a[N];
#pragma unroll
  for (int i = 0; i < N; ++i) a[i] = v[i];
  vf_sums_rounds<N, 16, S>::run(a, lane);
  vf_sums_gather<N, S, 0>::run(v, a);
}

}  // namespace vf_warp_sums_ns

// Sums v[0..N-1] over the 32 lanes; every lane ends with the same bits, so all lanes take the
// same branches after it. All lanes of the warp must call it.
template <int N>
__device__ __forceinline__ void vf_warp_sums(float* v) {
  vf_warp_sums_ns::vf_warp_sums_any<N>(v);
}

// Integer sums (any order is exact): one REDUX a value where the GPU has it.
template <int N>
__device__ __forceinline__ void vf_warp_sums(int32_t* v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#pragma unroll
  for (int i = 0; i < N; ++i) v[i] = __reduce_add_sync(vf_warp_sums_ns::kAll, v[i]);
#else
  vf_warp_sums_ns::vf_warp_sums_any<N>(v);
#endif
}

#endif

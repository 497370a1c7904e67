// SPDX-License-Identifier: BSD-3-Clause
/* vf_warp_sums (cuda/features/vf_warp_sums.cuh) for N = 1..12, float and int32, on random
 * vectors of many warps: every lane ends with the same bits for every value (the kernels branch
 * on these sums across the warp), each float total is within the rounding bound of a 5-level sum
 * of the double-precision total, and each integer total is exact. A CUDA program, built only
 * with the CUDA backend; skips without a device. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "features/vf_warp_sums.cuh"
#include "vf_test.h"

enum { kWarps = 64, kThreads = 128, kMaxN = 12 };

// Warp w's lane l holds in[(w * 32 + l) * N + i] and writes its sums at the same place.
template <int N, typename T>
__global__ void sums_kernel(const T* in, T* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  T v[N];
  for (int i = 0; i < N; ++i) v[i] = in[t * N + i];
  vf_warp_sums<N>(v);
  for (int i = 0; i < N; ++i) out[t * N + i] = v[i];
}

static uint32_t rng_state = 12345u;

static uint32_t rng(void) {
  rng_state = rng_state * 1664525u + 1013904223u;
  return rng_state >> 8;
}

// Values of several magnitudes and both signs; every fourth warp all positive (sums of squares).
static void random_value(float* x, int warp) {
  const float u = (float)(rng() & 0xffffff) / 16777216.0f;
  const float scale = ldexpf(1.0f, (int)(rng() % 21) - 10);
  *x = warp % 4 == 0 ? u * scale : (2.0f * u - 1.0f) * scale;
}

// Within +-2^20: 32 of them fit 32 bits.
static void random_value(int32_t* x, int) { *x = (int32_t)(rng() % 2097153u) - 1048576; }

// Float: 5 levels of additions, each within a rounding (2^-24) of the sum of magnitudes.
static double tolerance(float, double magnitude) { return 6.0 * ldexp(magnitude, -24); }
static double tolerance(int32_t, double) { return 0.0; }

static const char* type_name(float) { return "float"; }
static const char* type_name(int32_t) { return "int32"; }

// One N and type: the device's sums against the host's; returns 0 when a CUDA call failed.
template <int N, typename T>
static int check_n(T* d_in, T* d_out, T* in, T* out) {
  const int count = kWarps * 32 * N;
  for (int i = 0; i < count; ++i) random_value(&in[i], i / (32 * N));
  if (cudaMemcpy(d_in, in, sizeof(T) * count, cudaMemcpyHostToDevice) != cudaSuccess) return 0;
  sums_kernel<N, T><<<kWarps * 32 / kThreads, kThreads>>>(d_in, d_out);
  if (cudaDeviceSynchronize() != cudaSuccess) return 0;
  if (cudaMemcpy(out, d_out, sizeof(T) * count, cudaMemcpyDeviceToHost) != cudaSuccess) return 0;
  int same = 1, near = 1;
  for (int w = 0; w < kWarps; ++w) {
    const T* o = out + w * 32 * N;
    for (int l = 1; l < 32; ++l) same &= memcmp(o, o + l * N, sizeof(T) * N) == 0;
    for (int i = 0; i < N; ++i) {
      double sum = 0.0, mag = 0.0;
      for (int l = 0; l < 32; ++l) {
        const double x = (double)in[(w * 32 + l) * N + i];
        sum += x;
        mag += fabs(x);
      }
      near &= fabs((double)o[i] - sum) <= tolerance(o[i], mag);
    }
  }
  CHECK(same);
  CHECK(near);
  if (!same || !near)
    fprintf(stderr, "N = %d (%s): same bits %d, totals %d\n", N, type_name(T()), same, near);
  return 1;
}

template <int N>
struct check_all {
  static int run(float* df_in, float* df_out, int32_t* di_in, int32_t* di_out, float* f_in,
                 float* f_out, int32_t* i_in, int32_t* i_out) {
    return check_n<N>(df_in, df_out, f_in, f_out) && check_n<N>(di_in, di_out, i_in, i_out) &&
           check_all<N + 1>::run(df_in, df_out, di_in, di_out, f_in, f_out, i_in, i_out);
  }
};

template <>
struct check_all<kMaxN + 1> {
  static int run(float*, float*, int32_t*, int32_t*, float*, float*, int32_t*, int32_t*) {
    return 1;
  }
};

int main(void) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) VF_TEST_SKIP("no CUDA device");
  const size_t n = (size_t)kWarps * 32 * kMaxN;
  float *f_in = (float*)malloc(n * sizeof(float)), *f_out = (float*)malloc(n * sizeof(float));
  int32_t *i_in = (int32_t*)malloc(n * sizeof(int32_t)),
          *i_out = (int32_t*)malloc(n * sizeof(int32_t));
  float *df_in = NULL, *df_out = NULL;
  int32_t *di_in = NULL, *di_out = NULL;
  int ok = cudaMalloc(&df_in, n * sizeof(float)) == cudaSuccess &&
           cudaMalloc(&df_out, n * sizeof(float)) == cudaSuccess &&
           cudaMalloc(&di_in, n * sizeof(int32_t)) == cudaSuccess &&
           cudaMalloc(&di_out, n * sizeof(int32_t)) == cudaSuccess;
  ok = ok && check_all<1>::run(df_in, df_out, di_in, di_out, f_in, f_out, i_in, i_out);
  CHECK(ok);
  if (!ok) fprintf(stderr, "CUDA: %s\n", cudaGetErrorString(cudaGetLastError()));
  cudaFree(df_in);
  cudaFree(df_out);
  cudaFree(di_in);
  cudaFree(di_out);
  free(f_in);
  free(f_out);
  free(i_in);
  free(i_out);
  VF_TEST_END("test_warp_sums_gpu");
}

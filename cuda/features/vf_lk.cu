// SPDX-License-Identifier: BSD-3-Clause
// CUDA tracker: one warp per feature (the device code and how it is built for speed:
// cuda/features/vf_lk_warp.cuh), every feature of a call in one launch, one warp per block (the
// block scheduler then spreads a few hundred features over every multiprocessor).
#include <cuda_runtime.h>

#include "core/vf_cuda_fault.cuh"
#include "features/kernels/vf_lk_cuda.h"
#include "vf_lk_warp.cuh"

namespace {

using namespace vf_lk_warp;

constexpr int kMaxWarpsPerBlock = 4;

// The forward pass of feature f: its result written, in device memory too where the refinement
// reads it next. The parameter block travels with the launch (kernel parameters), so reading it
// costs no memory round trip and the call needs no upload for it.
__device__ __forceinline__ vf_track_result vf_forward(const vf_lk_params& p,
                                                      const vf_track_request& rq, int f, int lane,
                                                      vf_track_result* __restrict__ results) {
  const vf_track_result out = vf_warp_feature(p, rq, f, lane);
  if (lane == 0) {
    results[f] = out;
    if (p.result_copy != nullptr) p.result_copy[f] = out;
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // The refinement kernel behind this one may start once every warp got here, not when the
  // warps start: its blocks would otherwise wait on the multiprocessors and hold them from the
  // frame's SGM on the other stream (the frame with page-locked input measured 328-475 us that
  // way, 325-334 us this way).
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  return out;
}

__global__ void __launch_bounds__(32 * kMaxWarpsPerBlock)
    vf_lk_kernel(const vf_lk_params p, const vf_track_request* __restrict__ requests,
                 vf_track_result* __restrict__ results, int count) {
  const int lane = threadIdx.x & 31;
  const int f = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  if (f >= count) return;  // whole warps only
  vf_forward(p, vf_load_request(requests + f), f, lane, results);
}

// The forward-backward check in the same launch: each warp tracks its forward result back (the
// pyramids swapped in `back`), with no second launch and no host round trip between the two, and
// on sm_90 beside the refinement, which may start once every forward result is written.
__global__ void __launch_bounds__(32 * kMaxWarpsPerBlock)
    vf_lk_checked_kernel(const vf_lk_params p, const vf_lk_params back,
                         const vf_track_request* __restrict__ requests,
                         vf_track_result* __restrict__ results,
                         vf_track_result* __restrict__ back_results, int from_guess, int count) {
  const int lane = threadIdx.x & 31;
  const int f = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  if (f >= count) return;  // whole warps only
  const vf_track_request rq = vf_load_request(requests + f);
  const vf_track_result out = vf_forward(p, rq, f, lane, results);
  const vf_track_request b = vf_lk_back_request(&rq, &out, from_guess);
  const vf_track_result ob =
      out.status == VF_TRACK_CONVERGED ? vf_warp_feature(back, b, f, lane) : vf_lk_result_init(&b);
  if (lane == 0) back_results[f] = ob;
}

// One warp per block; 2 or 4 measured the same, an L1 prefetch of the windows and copies of the
// requests and results instead of mapped memory measured slower (docs/perf/tracker.md).
constexpr int kWarps = 1;

}  // namespace

extern "C" int vf_cuda_lk_track(const vf_lk_params* params, const vf_track_request* requests,
                                vf_track_result* results, int count, void* stream) {
  if (count <= 0) return 0;
  const int blocks = (count + kWarps - 1) / kWarps;
  vf_lk_kernel<<<blocks, 32 * kWarps, 0, (cudaStream_t)stream>>>(*params, requests, results, count);
  return VF_CUDA_LAUNCH_STATUS();
}

extern "C" int vf_cuda_lk_track_checked(const vf_lk_params* params, const vf_lk_params* back_params,
                                        const vf_track_request* requests, vf_track_result* results,
                                        vf_track_result* back_results, int from_guess, int count,
                                        void* stream) {
  if (count <= 0) return 0;
  const int blocks = (count + kWarps - 1) / kWarps;
  vf_lk_checked_kernel<<<blocks, 32 * kWarps, 0, (cudaStream_t)stream>>>(
      *params, *back_params, requests, results, back_results, from_guess, count);
  return VF_CUDA_LAUNCH_STATUS();
}

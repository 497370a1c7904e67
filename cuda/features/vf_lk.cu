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

// The parameter block travels with the launch (kernel parameters), so reading it costs no
// memory round trip and the call needs no upload for it.
__global__ void __launch_bounds__(32 * kMaxWarpsPerBlock)
    vf_lk_kernel(const vf_lk_params p, const vf_track_request* __restrict__ requests,
                 vf_track_result* __restrict__ results, int count) {
  const int lane = threadIdx.x & 31;
  const int f = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  if (f >= count) return;  // whole warps only
  const vf_track_result out = vf_warp_feature(p, vf_load_request(requests + f), lane);
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
}

}  // namespace

extern "C" int vf_cuda_lk_track(const vf_lk_params* params, const vf_track_request* requests,
                                vf_track_result* results, int count, void* stream) {
  if (count <= 0) return 0;
  // One warp per block; 2 or 4 measured the same, an L1 prefetch of the windows and copies of
  // the requests and results instead of mapped memory measured slower (docs/perf/tracker.md).
  const int warps = 1;
  const int blocks = (count + warps - 1) / warps;
  vf_lk_kernel<<<blocks, 32 * warps, 0, (cudaStream_t)stream>>>(*params, requests, results, count);
  return VF_CUDA_LAUNCH_STATUS();
}

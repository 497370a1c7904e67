// SPDX-License-Identifier: BSD-3-Clause
// CUDA disparity refinement at points: one warp per point, four points per block. The warp
// computes the smoothed pixels under the left window and the right strip into shared memory,
// each lane keeps a run of the window's samples (t, tx) in registers, and every sum goes through
// the warp's xor butterfly, so all lanes hold the same bits and take the same branches. The
// mathematics, its limits and its failure cases are those of vf_disparity_refine_point
// (src/features/kernels/vf_disparity_rules.h), the CPU reference; the sums run in another order
// and in float, so the backends agree within a small tolerance (`test_sampler --gpu`). One
// thread per point, as a first version did, kept 8 KB of arrays per thread in local memory and
// ran each point's few thousand steps one after another. The frontend's records take the
// probe-first kernel: the same warp probes the map at its point (cuda/features/vf_probe_warp.cuh)
// and matches from the probe's value, one launch for both (docs/perf/frontend.md).
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "features/kernels/vf_disparity_rules.h"
#include "features/kernels/vf_sample_cuda.h"
#include "vf_probe_warp.cuh"
#include "vf_refine_warp.cuh"

namespace {

using namespace vf_refine_warp_ns;

constexpr int kPointsPerBlock = 4;

// PROBE: the start is the map's value at the point, probed first by the same warp (its probe
// written to probes[i]), so that the point, the probe and the match take one launch and one read
// of the point; else start[i].
template <bool PROBE>
__global__ void __launch_bounds__(32 * kPointsPerBlock)
    vf_refine_kernel(const uint8_t* __restrict__ left, size_t left_stride,
                     const uint8_t* __restrict__ right, size_t right_stride, int width, int height,
                     const float2* __restrict__ xy, const float* __restrict__ start,
                     const uint16_t* __restrict__ map, size_t map_stride,
                     vf_disparity_probe_config probe, vf_disparity_probe* __restrict__ probes,
                     int count, vf_disparity_refine_config config, float* __restrict__ out) {
  __shared__ vf_refine_smem sm[kPointsPerBlock];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int i = blockIdx.x * kPointsPerBlock + warp;
  if (i >= count) return;  // the whole warp
  const float2 p = xy[i];
  float d0;
  if (PROBE) {
    const vf_disparity_probe pr =
        vf_probe_warp::vf_probe_warp(map, map_stride, width, height, p, probe, lane);
    if (lane == 0) probes[i] = pr;
    d0 = vf_disparity_from_map(pr.value, probe.invalid, (float)(1 << probe.fractional_bits));
  } else {
    d0 = start[i];
  }
  const float d = vf_refine_warp(left, left_stride, right, right_stride, width, height, p.x, p.y,
                                 d0, config, sm[warp], lane);
  if (lane == 0) out[i] = d;
}

int vf_refine_launch(bool probe_first, const uint8_t* left, size_t left_stride,
                     const uint8_t* right, size_t right_stride, int width, int height,
                     const float* xy, const float* start, const uint16_t* map, size_t map_stride,
                     const vf_disparity_probe_config* probe, vf_disparity_probe* probes, int count,
                     const vf_disparity_refine_config* config, float* out, void* stream) {
  if (count <= 0) return 0;
  const int blocks = (count + kPointsPerBlock - 1) / kPointsPerBlock;
  const vf_disparity_probe_config none = {0, 0, 0, 0};
  const vf_disparity_probe_config pc = probe != nullptr ? *probe : none;
  const auto kernel = probe_first ? vf_refine_kernel<true> : vf_refine_kernel<false>;
  kernel<<<blocks, 32 * kPointsPerBlock, 0, (cudaStream_t)stream>>>(
      left, left_stride, right, right_stride, width, height, (const float2*)xy, start, map,
      map_stride, pc, probes, count, *config, out);
  return VF_CUDA_LAUNCH_STATUS();
}

}  // namespace

extern "C" int vf_cuda_refine_disparity(const uint8_t* left, size_t left_stride,
                                        const uint8_t* right, size_t right_stride, int width,
                                        int height, const float* xy, const float* start, int count,
                                        const vf_disparity_refine_config* config, float* out,
                                        void* stream) {
  return vf_refine_launch(false, left, left_stride, right, right_stride, width, height, xy, start,
                          nullptr, 0, nullptr, nullptr, count, config, out, stream);
}

extern "C" int vf_cuda_probe_refine_disparity(
    const uint16_t* map, size_t map_stride, const uint8_t* left, size_t left_stride,
    const uint8_t* right, size_t right_stride, int width, int height, const float* xy, int count,
    const vf_disparity_probe_config* probe, const vf_disparity_refine_config* config,
    vf_disparity_probe* probes, float* out, void* stream) {
  return vf_refine_launch(true, left, left_stride, right, right_stride, width, height, xy, nullptr,
                          map, map_stride, probe, probes, count, config, out, stream);
}

// SPDX-License-Identifier: BSD-3-Clause
// CUDA census matching cost for FastDT: one thread per (pixel, disparity), disparity fastest so a
// warp writes consecutive codes; the Hamming distance of the SGM census words
// (cuda/stereo/vf_census.cu: 32-bit words for the centre-symmetric census, 64-bit for the full one)
// as the cost code of src/stereo/kernels/vf_local_rules.h, equal to
// src/stereo/cpu/vf_census_cost_cpu.c bit for bit.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "stereo/kernels/vf_local_cuda.h"
#include "stereo/kernels/vf_sgm_rules.h"

namespace {

__device__ __forceinline__ int hamming(uint32_t a, uint32_t b) { return __popc(a ^ b); }
__device__ __forceinline__ int hamming(unsigned long long a, unsigned long long b) {
  return __popcll(a ^ b);
}

// blockIdx.y: image row; threads over the row's width * disparities costs.
template <class Word, bool PACK>
__global__ void census_cost_kernel(vf_local_pair p, const Word* census_l, const Word* census_r,
                                   int bits, void* vol) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, nd = p.disparities, w = p.width;
  if (i >= w * nd) return;
  const int x = i / nd, d = i % nd, y = blockIdx.y;
  const size_t row = (size_t)y * w;
  uint32_t code = VF_COST_ZERO;  // match outside the right image: neutral
  if (x - d >= 0) code = vf_census_cost16(hamming(census_l[row + x], census_r[row + x - d]), bits);
  vf_cost_store(vol, PACK, row * nd + i, code);
}

// The launch below, one fault-injection site for all its instantiations.
VF_CUDA_SITE(vf_launch_site);

template <class Word>
int launch(const vf_local_pair* p, const void* census_l, const void* census_r, int bits, void* vol,
           int pack8, cudaStream_t s) {
  const dim3 grid((p->width * p->disparities + 255) / 256, p->height);
  const Word* cl = static_cast<const Word*>(census_l);
  const Word* cr = static_cast<const Word*>(census_r);
  if (pack8) {
    census_cost_kernel<Word, true><<<grid, 256, 0, s>>>(*p, cl, cr, bits, vol);
  } else {
    census_cost_kernel<Word, false><<<grid, 256, 0, s>>>(*p, cl, cr, bits, vol);
  }
  return VF_CUDA_LAUNCH_STATUS_AT(vf_launch_site);
}

}  // namespace

extern "C" int vf_cuda_census_costs(const vf_local_pair* p, const void* census_l,
                                    const void* census_r, int full, void* volume, int pack8,
                                    void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  return full ? launch<unsigned long long>(p, census_l, census_r, VF_CENSUS_FULL_BITS, volume,
                                           pack8, s)
              : launch<uint32_t>(p, census_l, census_r, VF_CENSUS_CS_BITS, volume, pack8, s);
}

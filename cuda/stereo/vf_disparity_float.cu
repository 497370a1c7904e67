// SPDX-License-Identifier: BSD-3-Clause
// CUDA float copy of a whole-pixel 16-bit disparity map (vf_stereo's disparity_f32 output for the
// methods of src/stereo/vf_stereo_local.h): value in pixels, NaN where VF_STEREO_INVALID, as the
// CPU's vf_write_float in src/stereo/vf_stereo.c.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "stereo/kernels/vf_local_cuda.h"
#include "viofront/vf_stereo.h"

namespace {

__global__ void disparity_float_kernel(const uint16_t* in, size_t in_stride, int w, int h,
                                       float* out, size_t out_stride) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const uint16_t v = *(const uint16_t*)((const uint8_t*)in + (size_t)y * in_stride + (size_t)x * 2);
  *(float*)((uint8_t*)out + (size_t)y * out_stride + (size_t)x * 4) =
      v == VF_STEREO_INVALID ? __int_as_float(0x7fc00000) : (float)v;
}

}  // namespace

extern "C" int vf_cuda_disparity_float(const uint16_t* in, size_t in_stride, int w, int h,
                                       float* out, size_t out_stride, void* stream) {
  const dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  disparity_float_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(in, in_stride, w, h, out,
                                                                   out_stride);
  return VF_CUDA_LAUNCH_STATUS();
}

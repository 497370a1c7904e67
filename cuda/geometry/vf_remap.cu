// SPDX-License-Identifier: BSD-3-Clause
// CUDA remap: four output pixels of a row per thread (two 16-byte map loads, one 4-byte store
// when aligned), bilinear with the integer weights of the CPU reference
// (src/geometry/cpu/vf_remap_cpu.c), so both agree bit for bit.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "geometry/kernels/vf_remap_cuda.h"

namespace {

// OFF32: the source's offsets fit 31 bits (stride * height, checked on the host), so a tap's
// offset is one multiply-add in 32 bits and the clamps one add-and-minimum each; the 64-bit
// form (a row pointer a tap pair) took about 50 instructions a pixel on sm_90.
template <bool OFF32>
__device__ __forceinline__ uint32_t vf_sample(const uint8_t* __restrict__ src, size_t stride, int w,
                                              int h, int32_t sx, int32_t sy, uint32_t fill) {
  if (sx < 0) return fill;
  const int x0 = sx >> 8, y0 = sy >> 8;
  const uint32_t fx = (uint32_t)sx & 255u, fy = (uint32_t)sy & 255u;
  const int x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1);
  uint32_t a, b, c, d;
  if (OFF32) {
    const int o0 = y0 * (int)stride, o1 = y1 * (int)stride;
    a = __ldg(src + (o0 + x0));
    b = __ldg(src + (o0 + x1));
    c = __ldg(src + (o1 + x0));
    d = __ldg(src + (o1 + x1));
  } else {
    const uint8_t* r0 = src + (size_t)y0 * stride;
    const uint8_t* r1 = src + (size_t)y1 * stride;
    a = __ldg(r0 + x0);
    b = __ldg(r0 + x1);
    c = __ldg(r1 + x0);
    d = __ldg(r1 + x1);
  }
  const uint32_t top = a * (256u - fx) + b * fx;
  const uint32_t bot = c * (256u - fx) + d * fx;
  return (top * (256u - fy) + bot * fy + 32768u) >> 16;
}

template <bool OFF32>
__global__ void vf_remap_kernel(const uint8_t* __restrict__ src, size_t src_stride, int src_w,
                                int src_h, const int4* __restrict__ map, int map_stride,
                                uint8_t* __restrict__ dst, size_t dst_stride, int dst_w, int dst_h,
                                uint32_t fill) {
  const int x = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dst_w || y >= dst_h) return;
  // Entries x..x+3 of row y: 32 bytes, 16-byte aligned (map_stride is a multiple of 4).
  const int4* m = map + ((size_t)y * map_stride + x) / 2;
  const int4 a = __ldg(m), b = __ldg(m + 1);
  uint32_t v0 = vf_sample<OFF32>(src, src_stride, src_w, src_h, a.x, a.y, fill);
  uint32_t v1 = vf_sample<OFF32>(src, src_stride, src_w, src_h, a.z, a.w, fill);
  uint32_t v2 = vf_sample<OFF32>(src, src_stride, src_w, src_h, b.x, b.y, fill);
  uint32_t v3 = vf_sample<OFF32>(src, src_stride, src_w, src_h, b.z, b.w, fill);
  uint8_t* out = dst + (size_t)y * dst_stride + x;
  if (x + 3 < dst_w && ((uintptr_t)out & 3) == 0) {
    *reinterpret_cast<uint32_t*>(out) = v0 | (v1 << 8) | (v2 << 16) | (v3 << 24);
  } else {
    out[0] = (uint8_t)v0;
    if (x + 1 < dst_w) out[1] = (uint8_t)v1;
    if (x + 2 < dst_w) out[2] = (uint8_t)v2;
    if (x + 3 < dst_w) out[3] = (uint8_t)v3;
  }
}

}  // namespace

extern "C" int vf_cuda_remap_u8(const uint8_t* src, size_t src_stride, int src_w, int src_h,
                                const int32_t* map, int map_stride, uint8_t* dst, size_t dst_stride,
                                int dst_w, int dst_h, uint8_t fill, void* stream) {
  const dim3 block(32, 8);
  const dim3 grid((unsigned)((dst_w + 4 * 32 - 1) / (4 * 32)), (unsigned)((dst_h + 7) / 8));
  const int4* m = reinterpret_cast<const int4*>(map);
  if ((unsigned long long)src_stride * (unsigned long long)src_h <= 0x7fffffffull) {
    vf_remap_kernel<true><<<grid, block, 0, (cudaStream_t)stream>>>(
        src, src_stride, src_w, src_h, m, map_stride, dst, dst_stride, dst_w, dst_h, fill);
  } else {
    vf_remap_kernel<false><<<grid, block, 0, (cudaStream_t)stream>>>(
        src, src_stride, src_w, src_h, m, map_stride, dst, dst_stride, dst_w, dst_h, fill);
  }
  return VF_CUDA_LAUNCH_STATUS();
}

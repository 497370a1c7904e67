// SPDX-License-Identifier: BSD-3-Clause
// CUDA remap: four output pixels of a row per thread (two 16-byte plan loads, one 4-byte store
// when aligned), bilinear with the integer weights of the CPU reference
// (src/geometry/cpu/vf_remap_cpu.c), so both agree bit for bit. The plan is the map unpacked on
// the host at create time (vf_remap_plan_pack, src/geometry/kernels/vf_remap_plan_cuda.h): a
// pixel's taps and weights without shifts, masks or clamps on the device.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_fault.cuh"
#include "geometry/kernels/vf_remap_cuda.h"

namespace {

// One output pixel from its plan entry (vf_remap_plan_pack: source pixel x0 | y0 << 16, weights
// fx | fy << 16, the top bit of the weights set for the fill value). The plan moved the map's last
// column and row onto the one before with weight 256 (the sample the old clamp read twice), so
// the four taps are always p, p + 1, p + stride, p + stride + 1 when the source is at least 2x2
// (UNIT); a 1-pixel-wide or -high source steps 0 instead (col, row). The pairs of taps go as
// 16-bit halves of one word, so a horizontal blend of both rows is two multiply-adds (each half
// at most 255 * 256, no carry between them). The same integers as the CPU reference.
template <bool OFF32, bool UNIT>
__device__ __forceinline__ uint32_t vf_sample(const uint8_t* __restrict__ src, size_t stride,
                                              uint32_t col, size_t row, uint32_t pos, uint32_t wts,
                                              uint32_t fill) {
  // No branch for the fill value: its entry names pixel (0, 0), read like any other, and the
  // select at the end drops what its weights make of it.
  const uint32_t x0 = pos & 0xffffu, y0 = pos >> 16;
  const uint32_t fx = wts & 0xffffu, fy = (wts >> 16) & 0x1ffu;
  // OFF32: the source's offsets fit 31 bits (stride * height, checked on the host).
  const uint8_t* p = OFF32 ? src + (y0 * (uint32_t)stride + x0) : src + ((size_t)y0 * stride + x0);
  const uint8_t* q = p + (UNIT ? stride : row);
  const uint32_t a = __ldg(p), b = __ldg(p + (UNIT ? 1u : col));
  const uint32_t c = __ldg(q), d = __ldg(q + (UNIT ? 1u : col));
  const uint32_t tb = __byte_perm(a, c, 0x5410u) * (256u - fx) + __byte_perm(b, d, 0x5410u) * fx;
  const uint32_t v = ((tb & 0xffffu) * (256u - fy) + (tb >> 16) * fy + 32768u) >> 16;
  return (int32_t)wts < 0 ? fill : v;
}

// Output pixels x .. x + 3 of row y (the caller keeps x and y inside).
template <bool OFF32, bool UNIT>
__device__ __forceinline__ void vf_remap_four(const uint8_t* __restrict__ src, size_t src_stride,
                                              uint32_t col, size_t row,
                                              const uint4* __restrict__ plan, int plan_stride,
                                              uint8_t* __restrict__ dst, size_t dst_stride,
                                              int dst_w, uint32_t fill, int x, int y) {
  // Entries x..x+3 of row y: 32 bytes, 16-byte aligned (plan_stride is a multiple of 4).
  const uint4* m = plan + ((size_t)y * plan_stride + x) / 2;
  const uint4 a = __ldg(m), b = __ldg(m + 1);
  const uint32_t v0 = vf_sample<OFF32, UNIT>(src, src_stride, col, row, a.x, a.y, fill);
  const uint32_t v1 = vf_sample<OFF32, UNIT>(src, src_stride, col, row, a.z, a.w, fill);
  const uint32_t v2 = vf_sample<OFF32, UNIT>(src, src_stride, col, row, b.x, b.y, fill);
  const uint32_t v3 = vf_sample<OFF32, UNIT>(src, src_stride, col, row, b.z, b.w, fill);
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

template <bool OFF32, bool UNIT>
__global__ void vf_remap_kernel(const uint8_t* __restrict__ src, size_t src_stride, uint32_t col,
                                size_t row, const uint4* __restrict__ plan, int plan_stride,
                                uint8_t* __restrict__ dst, size_t dst_stride, int dst_w, int dst_h,
                                uint32_t fill) {
  const int x = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= dst_w || y >= dst_h) return;
  vf_remap_four<OFF32, UNIT>(src, src_stride, col, row, plan, plan_stride, dst, dst_stride, dst_w,
                             fill, x, y);
}

// Several remaps in one launch (a rig's cameras): grid.z picks the job; a job's blocks beyond its
// own image return. Only jobs of the usual kind (a source of at least 2x2 whose offsets fit 31
// bits): the same pixels as their own launches.
struct vf_remap_jobs {
  vf_cuda_remap_job job[VF_CUDA_REMAP_BATCH_MAX];
};

__global__ void vf_remap_batch_kernel(const vf_remap_jobs jobs) {
  const vf_cuda_remap_job& j = jobs.job[blockIdx.z];
  const int x = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= j.dst_w || y >= j.dst_h) return;
  vf_remap_four<true, true>(j.src, j.src_stride, 1u, j.src_stride,
                            reinterpret_cast<const uint4*>(j.plan), j.plan_stride, j.dst,
                            j.dst_stride, j.dst_w, j.fill, x, y);
}

template <bool OFF32>
void vf_launch(const dim3& grid, const dim3& block, cudaStream_t stream, const uint8_t* src,
               size_t src_stride, int src_w, int src_h, const uint4* plan, int plan_stride,
               uint8_t* dst, size_t dst_stride, int dst_w, int dst_h, uint32_t fill) {
  if (src_w >= 2 && src_h >= 2) {
    vf_remap_kernel<OFF32, true><<<grid, block, 0, stream>>>(
        src, src_stride, 1u, src_stride, plan, plan_stride, dst, dst_stride, dst_w, dst_h, fill);
  } else {
    vf_remap_kernel<OFF32, false><<<grid, block, 0, stream>>>(
        src, src_stride, src_w >= 2 ? 1u : 0u, src_h >= 2 ? src_stride : 0, plan, plan_stride, dst,
        dst_stride, dst_w, dst_h, fill);
  }
}

}  // namespace

// Whether a job takes the batch kernel's instantiation (vf_launch's UNIT and OFF32).
static bool vf_remap_batchable(const vf_cuda_remap_job& j) {
  return j.src_w >= 2 && j.src_h >= 2 &&
         (unsigned long long)j.src_stride * (unsigned long long)j.src_h <= 0x7fffffffull;
}

extern "C" int vf_cuda_remap_u8(const uint8_t* src, size_t src_stride, int src_w, int src_h,
                                const uint32_t* plan, int plan_stride, uint8_t* dst,
                                size_t dst_stride, int dst_w, int dst_h, uint8_t fill,
                                void* stream) {
  const dim3 block(32, 8);
  const dim3 grid((unsigned)((dst_w + 4 * 32 - 1) / (4 * 32)), (unsigned)((dst_h + 7) / 8));
  const uint4* m = reinterpret_cast<const uint4*>(plan);
  cudaStream_t s = (cudaStream_t)stream;
  if ((unsigned long long)src_stride * (unsigned long long)src_h <= 0x7fffffffull) {
    vf_launch<true>(grid, block, s, src, src_stride, src_w, src_h, m, plan_stride, dst, dst_stride,
                    dst_w, dst_h, fill);
  } else {
    vf_launch<false>(grid, block, s, src, src_stride, src_w, src_h, m, plan_stride, dst, dst_stride,
                     dst_w, dst_h, fill);
  }
  return VF_CUDA_LAUNCH_STATUS();
}

extern "C" int vf_cuda_remap_u8_batch(const vf_cuda_remap_job* jobs, int n, void* stream) {
  cudaStream_t s = (cudaStream_t)stream;
  vf_remap_jobs batch;
  int count = 0, cols = 0, rows = 0;
  for (int i = 0; i < n; ++i) {
    const vf_cuda_remap_job& j = jobs[i];
    if (!vf_remap_batchable(j)) {
      const int rc = vf_cuda_remap_u8(j.src, j.src_stride, j.src_w, j.src_h, j.plan, j.plan_stride,
                                      j.dst, j.dst_stride, j.dst_w, j.dst_h, j.fill, stream);
      if (rc != 0) return rc;
      continue;
    }
    batch.job[count++] = j;
    const int c = (j.dst_w + 4 * 32 - 1) / (4 * 32), r = (j.dst_h + 7) / 8;
    cols = c > cols ? c : cols;
    rows = r > rows ? r : rows;
    if (count == VF_CUDA_REMAP_BATCH_MAX) {
      vf_remap_batch_kernel<<<dim3((unsigned)cols, (unsigned)rows, (unsigned)count), dim3(32, 8), 0,
                              s>>>(batch);
      const int rc = VF_CUDA_LAUNCH_STATUS();
      if (rc != 0) return rc;
      count = cols = rows = 0;
    }
  }
  if (count > 0) {
    vf_remap_batch_kernel<<<dim3((unsigned)cols, (unsigned)rows, (unsigned)count), dim3(32, 8), 0,
                            s>>>(batch);
    return VF_CUDA_LAUNCH_STATUS();
  }
  return 0;
}

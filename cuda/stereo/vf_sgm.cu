// SPDX-License-Identifier: BSD-3-Clause
// CUDA stereo pipeline: buffer layout and the launch sequence (census, all paths in one
// launch, selection, median), all on the context's stream.
#include <cuda_runtime.h>
#include <stdint.h>

#include "stereo/kernels/vf_sgm_cuda.h"

namespace {

size_t vf_round256(size_t v) { return (v + 255) & ~(size_t)255; }

struct vf_layout {
  size_t census, shifted, shift_pad, shift_stride, volumes, pre_median;
};

vf_layout vf_sgm_layout(const vf_sgm_params* p) {
  const size_t px = (size_t)p->width * p->height;
  vf_layout l;
  l.census = vf_round256(px * (p->census_full ? 8 : 4));
  // The right census gets shifted copies where vf_cuda_sgm_runs may ask for them.
  const bool shifts = vf_cuda_sgm_runs_possible(p);
  // Each copy with room before it for the reads left of the image (min_disparity + D - 1 words
  // and the alignment), in 256-byte units so that every copy stays 16-byte aligned.
  l.shift_pad = shifts ? vf_round256(((size_t)p->min_disparity + p->disparities + 8) * 4) : 0;
  l.shift_stride = shifts ? (vf_round256(px * 4) + l.shift_pad) / 4 : 0;
  l.shifted = shifts ? 3 * l.shift_stride * 4 + l.shift_pad : 0;
  l.volumes = vf_round256((size_t)p->paths * px * p->disparities);
  l.pre_median = vf_round256(px * 2);
  return l;
}

}  // namespace

extern "C" size_t vf_cuda_sgm_buffer_bytes(const vf_sgm_params* p) {
  const vf_layout l = vf_sgm_layout(p);
  return 2 * l.census + l.shifted + l.volumes + l.pre_median;
}

extern "C" void vf_cuda_sgm_buffers_carve(const vf_sgm_params* p, void* base,
                                          vf_cuda_sgm_buffers* b) {
  const vf_layout l = vf_sgm_layout(p);
  uint8_t* at = (uint8_t*)base;
  b->census_l = at;
  b->census_r = at + l.census + l.shift_pad;  // census_l's pad, then copy 0 (shift_pad 0: none)
  b->shift_stride = l.shift_stride;
  b->volumes = at + 2 * l.census + l.shifted;
  b->pre_median = (uint16_t*)(at + 2 * l.census + l.shifted + l.volumes);
  b->runs = vf_cuda_sgm_runs(p);
}

extern "C" int vf_cuda_sgm_compute(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b,
                                   const uint8_t* left, size_t left_stride, const uint8_t* right,
                                   size_t right_stride, uint16_t* out16, size_t out16_stride,
                                   float* outf, size_t outf_stride, void* stream) {
  int rc =
      vf_cuda_census(p, left, left_stride, right, right_stride, b->census_l, b->census_r, stream);
  if (rc == 0 && b->runs) rc = vf_cuda_census_shift(p, b, stream);
  if (rc == 0) rc = vf_cuda_sgm_paths(p, b, left, left_stride, stream);
  if (rc != 0) return rc;
  if (!p->median) return vf_cuda_sgm_select(p, b, out16, out16_stride, outf, outf_stride, stream);
  rc = vf_cuda_sgm_select(p, b, b->pre_median, (size_t)p->width * 2, NULL, 0, stream);
  if (rc == 0)
    rc = vf_cuda_sgm_median(p, b->pre_median, out16, out16_stride, outf, outf_stride, stream);
  return rc;
}

// SPDX-License-Identifier: BSD-3-Clause
// CUDA hierarchical SGM: buffer layout and the launch sequence on the context's stream: the
// pyramid of both images, then from the coarsest level to the finest census (ZNCC + SGM: the
// ZNCC cost volume of cuda/stereo/vf_zncc.cu instead, one level), per-pixel ranges
// (cuda/stereo/vf_hsgm_ranges.cu), all paths in one launch (cuda/stereo/vf_hsgm_paths.cu) and the
// selection (cuda/stereo/vf_hsgm_select.cu), whose map feeds the next level's ranges; then the 3x3
// median.
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/vf_cuda_runtime.h"
#include "features/kernels/vf_pyramid_cuda.h"
#include "stereo/kernels/vf_hsgm_cuda.h"
#include "stereo/kernels/vf_local_cuda.h"
#include "stereo/kernels/vf_sgm_cuda.h"

namespace {

size_t vf_round256(size_t v) { return (v + 255) & ~(size_t)255; }

// Walks the buffers in order; with base NULL only counts the bytes.
size_t vf_hsgm_carve(const vf_hsgm_params* hp, uint8_t* base, vf_cuda_hsgm_buffers* b) {
  const vf_sgm_params* p = &hp->sgm;
  const size_t px = (size_t)p->width * p->height;
  size_t at = 0;
  auto take = [&](size_t bytes) -> uint8_t* {
    uint8_t* ptr = base != NULL ? base + at : NULL;
    at += vf_round256(bytes);
    return ptr;
  };
  for (int l = 0; l < VF_HSGM_MAX_LEVELS; ++l) b->left[l] = b->right[l] = NULL;
  for (int l = 1; l < hp->levels; ++l) {
    const size_t lpx = (size_t)(p->width >> l) * (size_t)(p->height >> l);
    b->left[l] = take(lpx);
    b->right[l] = take(lpx);
  }
  const size_t word = p->census_full ? 8 : 4;
  b->census_l = take(px * word);
  b->census_r = take(px * word);
  b->range = reinterpret_cast<uint32_t*>(take(px * 4));
  b->offset = reinterpret_cast<uint32_t*>(take(px * 4));
  b->plane = px * (size_t)p->disparities;
  b->volumes = take(b->plane * (size_t)p->paths);
  const size_t coarse = (size_t)(p->width >> 1) * (size_t)(p->height >> 1) * 2;
  b->map[0] = reinterpret_cast<uint16_t*>(take(coarse));
  b->map[1] = reinterpret_cast<uint16_t*>(take(coarse));
  b->pre_median = reinterpret_cast<uint16_t*>(take(px * 2));
  b->zncc_sums = NULL;
  b->zncc_vars = b->zncc_sat = NULL;
  b->zncc_volume = NULL;
  if (hp->zncc) {
    const size_t sat = (size_t)(p->width + 1) * (size_t)(p->height + 1);
    b->zncc_sums = reinterpret_cast<uint16_t*>(take(2 * px * 2));
    b->zncc_vars = reinterpret_cast<uint32_t*>(take(2 * px * 4));
    if (hp->zncc_integral) b->zncc_sat = reinterpret_cast<uint32_t*>(take(4 * sat * 4));
    b->zncc_volume = reinterpret_cast<uint16_t*>(take(px * (size_t)p->disparities * 2));
  }
  return at;
}

}  // namespace

extern "C" size_t vf_cuda_hsgm_buffer_bytes(const vf_hsgm_params* hp) {
  vf_cuda_hsgm_buffers b;
  return vf_hsgm_carve(hp, NULL, &b);
}

extern "C" void vf_cuda_hsgm_buffers_carve(const vf_hsgm_params* hp, void* base,
                                           vf_cuda_hsgm_buffers* b) {
  vf_hsgm_carve(hp, static_cast<uint8_t*>(base), b);
}

extern "C" int vf_cuda_hsgm_compute(const vf_hsgm_params* hp, const vf_cuda_hsgm_buffers* b,
                                    const uint8_t* left, size_t left_stride, const uint8_t* right,
                                    size_t right_stride, uint16_t* out16, size_t out16_stride,
                                    float* outf, size_t outf_stride, void* stream) {
  const uint8_t* il[VF_HSGM_MAX_LEVELS] = {left};
  const uint8_t* ir[VF_HSGM_MAX_LEVELS] = {right};
  size_t ls[VF_HSGM_MAX_LEVELS] = {left_stride}, rs[VF_HSGM_MAX_LEVELS] = {right_stride};
  int rc = 0;
  if (hp->levels > 1) {
    vf_cuda_pyramid_levels pl, pr;
    pl.levels = pr.levels = hp->levels;
    pl.quad = pr.quad = 0;  // a word a thread (the layout was left unset)
    for (int l = 0; l < hp->levels; ++l) {
      pl.width[l] = pr.width[l] = hp->sgm.width >> l;
      pl.height[l] = pr.height[l] = hp->sgm.height >> l;
      il[l] = l == 0 ? left : b->left[l];
      ir[l] = l == 0 ? right : b->right[l];
      ls[l] = l == 0 ? left_stride : (size_t)(hp->sgm.width >> l);
      rs[l] = l == 0 ? right_stride : (size_t)(hp->sgm.width >> l);
      pl.data[l] = const_cast<uint8_t*>(il[l]);  // level 0 is the source: never written
      pr.data[l] = const_cast<uint8_t*>(ir[l]);
      pl.stride[l] = ls[l];
      pr.stride[l] = rs[l];
    }
    rc = vf_cuda_pyramid_build(left, left_stride, &pl, stream);
    if (rc == 0) rc = vf_cuda_pyramid_build(right, right_stride, &pr, stream);
  }
  const uint16_t* coarse = NULL;
  int cw = 0, ch = 0;
  for (int l = hp->levels - 1; l >= 0 && rc == 0; --l) {
    const vf_sgm_params p = vf_hsgm_level(hp, l);
    if (hp->zncc) {
      const vf_local_pair pair = {left,    left_stride, right,        right_stride,
                                  p.width, p.height,    p.disparities};
      rc = vf_cuda_zncc_window_sums(&pair, hp->zncc_radius, hp->zncc_integral, b->zncc_sat,
                                    b->zncc_sums, b->zncc_vars, stream);
      if (rc == 0) {
        rc = vf_cuda_zncc_costs(&pair, hp->zncc_radius, b->zncc_sums, b->zncc_vars, b->zncc_volume,
                                0, stream);
      }
    } else {
      rc = vf_cuda_census(&p, il[l], ls[l], ir[l], rs[l], b->census_l, b->census_r, stream);
    }
    if (rc == 0) {
      rc = vf_cuda_hsgm_ranges(&p, coarse, cw, ch, hp->radius, hp->margin, b->range, b->offset,
                               stream);
    }
    if (rc == 0) {
      rc = vf_cuda_hsgm_paths(&p, b->census_l, b->census_r, b->zncc_volume, il[l], ls[l], b->range,
                              b->offset, b->volumes, b->plane, stream);
    }
    if (rc != 0) break;
    if (l > 0) {
      uint16_t* map = b->map[l & 1];
      rc = vf_cuda_hsgm_select(&p, b->range, b->offset, b->volumes, b->plane, map,
                               (size_t)p.width * 2, NULL, 0, stream);
      coarse = map;
      cw = p.width;
      ch = p.height;
    } else if (p.median) {
      rc = vf_cuda_hsgm_select(&p, b->range, b->offset, b->volumes, b->plane, b->pre_median,
                               (size_t)p.width * 2, NULL, 0, stream);
      if (rc == 0) {
        rc = vf_cuda_sgm_median(&p, b->pre_median, out16, out16_stride, outf, outf_stride, stream);
      }
    } else {
      rc = vf_cuda_hsgm_select(&p, b->range, b->offset, b->volumes, b->plane, out16, out16_stride,
                               outf, outf_stride, stream);
    }
  }
  return rc;
}

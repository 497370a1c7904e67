// SPDX-License-Identifier: BSD-3-Clause
/* The C ABI of the CUDA hierarchical SGM (cuda/stereo/vf_hsgm*.cu), extern "C". Only compiled in
 * with VF_HAVE_CUDA. Functions return a cudaError_t as int (0 = success). */
#ifndef VF_HSGM_CUDA_H
#define VF_HSGM_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "stereo/kernels/vf_hsgm_rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device buffers of one HSGM stage, carved from one allocation made at create time. */
typedef struct vf_cuda_hsgm_buffers {
  uint8_t* left[VF_HSGM_MAX_LEVELS]; /* pyramid levels 1.. (level 0 is the input), w >> l wide */
  uint8_t* right[VF_HSGM_MAX_LEVELS];
  void* census_l; /* w*h words: uint32 (CS) or uint64 (full), reused by every level */
  void* census_r;
  uint32_t* range;  /* w*h: vf_hsgm_range_pack */
  uint32_t* offset; /* w*h: first cell of the pixel within its row of the cube */
  uint8_t* volumes; /* paths cubes of `plane` bytes: each path's aggregated costs */
  size_t plane;
  uint16_t* map[2];     /* the coarser levels' disparities (ping-pong), (w/2)*(h/2) */
  uint16_t* pre_median; /* w*h */
  /* ZNCC + SGM: window terms (left then right), summed-area tables, the cost volume */
  uint16_t* zncc_sums;
  uint32_t* zncc_vars;
  uint32_t* zncc_sat;
  uint16_t* zncc_volume; /* w*h*D 16-bit codes */
} vf_cuda_hsgm_buffers;

size_t vf_cuda_hsgm_buffer_bytes(const vf_hsgm_params* hp);
void vf_cuda_hsgm_buffers_carve(const vf_hsgm_params* hp, void* base, vf_cuda_hsgm_buffers* b);

/* Every level on `stream`: pyramid, then per level census, ranges, paths and selection, then the
 * median. Images in device memory; out16 required, outf optional (NULL). */
int vf_cuda_hsgm_compute(const vf_hsgm_params* hp, const vf_cuda_hsgm_buffers* b,
                         const uint8_t* left, size_t left_stride, const uint8_t* right,
                         size_t right_stride, uint16_t* out16, size_t out16_stride, float* outf,
                         size_t outf_stride, void* stream);

/* Stages of one level p (vf_hsgm_level), launched by vf_cuda_hsgm_compute. */
int vf_cuda_hsgm_ranges(const vf_sgm_params* p, const uint16_t* coarse, int cw, int ch, int radius,
                        int margin, uint32_t* range, uint32_t* offset, void* stream);
/* zncc: NULL for the census cost, else the ZNCC + SGM cost codes (w*h*D). */
int vf_cuda_hsgm_paths(const vf_sgm_params* p, const void* census_l, const void* census_r,
                       const uint16_t* zncc, const uint8_t* left, size_t left_stride,
                       const uint32_t* range, const uint32_t* offset, uint8_t* volumes,
                       size_t plane, void* stream);
int vf_cuda_hsgm_select(const vf_sgm_params* p, const uint32_t* range, const uint32_t* offset,
                        const uint8_t* volumes, size_t plane, uint16_t* out16, size_t out16_stride,
                        float* outf, size_t outf_stride, void* stream);

#ifdef __cplusplus
}
#endif
#endif

// SPDX-License-Identifier: BSD-3-Clause
/* The C ABI of the CUDA stereo backend (cuda/stereo/vf_census.cu, cuda/stereo/vf_sgm_*.cu), extern
 * "C". Only compiled in with VF_HAVE_CUDA. Functions return a cudaError_t as int (0 = success). */
#ifndef VF_SGM_CUDA_H
#define VF_SGM_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "stereo/kernels/vf_sgm_rules.h"
#include "viofront/vf_stereo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device buffers of one vf_stereo, carved from one allocation made at create time. */
typedef struct vf_cuda_sgm_buffers {
  void* census_l; /* w*h words: uint32 (CS) or uint64 (full) */
  void* census_r; /* right after census_l: the path kernel reads (and ignores) up to
                   * min_disparity + D words before it */
  /* Where the runs layout is possible (vf_cuda_sgm_runs_possible): 3 more copies of census_r, copy
   * c at census_r + c * shift_stride (words), holding census_r[i] at index i + c, so that any 8
   * consecutive words are two aligned 16-byte loads in one of the copies (the path kernel's runs
   * layout); 0 otherwise. */
  size_t shift_stride;
  uint8_t* volumes;     /* paths * w * h * D aggregated costs, one byte each */
  uint16_t* pre_median; /* w*h: output before the median */
  int runs;             /* vf_cuda_sgm_runs, decided once when the buffers are carved */
} vf_cuda_sgm_buffers;

/* Bytes of device memory the buffers above take for `p`. */
size_t vf_cuda_sgm_buffer_bytes(const vf_sgm_params* p);
/* Points the buffers into `base` (vf_cuda_sgm_buffer_bytes(p) bytes) and picks the layout of
 * the path volumes for the current device. */
void vf_cuda_sgm_buffers_carve(const vf_sgm_params* p, void* base, vf_cuda_sgm_buffers* b);

/* The whole pipeline on `stream`: census, aggregation, selection, median. Images in device
 * memory; out16 required, outf optional (NULL). */
int vf_cuda_sgm_compute(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, const uint8_t* left,
                        size_t left_stride, const uint8_t* right, size_t right_stride,
                        uint16_t* out16, size_t out16_stride, float* outf, size_t outf_stride,
                        void* stream);

/* Stages, launched by vf_cuda_sgm_compute (one .cu each). */
int vf_cuda_census(const vf_sgm_params* p, const uint8_t* left, size_t left_stride,
                   const uint8_t* right, size_t right_stride, void* census_l, void* census_r,
                   void* stream);
/* The shifted copies of census_r (vf_cuda_sgm_buffers.shift_stride). */
int vf_cuda_census_shift(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, void* stream);
/* Whether the path volumes of 64 disparities are laid out in runs of 8 a lane on the current
 * device (fewer instructions, half the warps: where the GPU is full of walks anyway) rather than
 * interleaved (more warps to hide a walk's latency on a GPU with few walks for its size). Asked
 * once, by vf_cuda_sgm_buffers_carve; paths and selection both read the buffers' answer. */
int vf_cuda_sgm_runs(const vf_sgm_params* p);
/* The same where `concurrent` SGMs of these parameters run at once on the device (a rig's pairs
 * on their own streams): runs once their blocks together exceed one wave. */
int vf_cuda_sgm_runs_at(const vf_sgm_params* p, int concurrent);
/* Whether the runs layout exists for these parameters: 64 disparities, or 128 with up to 4 paths
 * where the one-thread-a-pixel selection fits (the selections that read it), on the 32-bit
 * census. */
int vf_cuda_sgm_runs_possible(const vf_sgm_params* p);
int vf_cuda_sgm_paths(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, const uint8_t* left,
                      size_t left_stride, void* stream);
int vf_cuda_sgm_select(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, uint16_t* out16,
                       size_t out16_stride, float* outf, size_t outf_stride, void* stream);
/* The selection for 64 disparities, one thread a pixel (vf_cuda_sgm_select calls it). */
int vf_cuda_sgm_select_pixel(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b, uint16_t* out16,
                             size_t out16_stride, float* outf, size_t outf_stride, void* stream);
/* The selection for 128 disparities and up to 4 paths, one thread a pixel, where its shared
 * memory fits (vf_cuda_sgm_select_pixel128_fits: rows up to 1728 pixels); wider rows take the
 * lane groups of vf_cuda_sgm_select, which read the interleaved layout only. */
int vf_cuda_sgm_select_pixel128_fits(const vf_sgm_params* p);
int vf_cuda_sgm_select_pixel128(const vf_sgm_params* p, const vf_cuda_sgm_buffers* b,
                                uint16_t* out16, size_t out16_stride, float* outf,
                                size_t outf_stride, void* stream);
int vf_cuda_sgm_median(const vf_sgm_params* p, const uint16_t* in, uint16_t* out16,
                       size_t out16_stride, float* outf, size_t outf_stride, void* stream);

#ifdef __cplusplus
}
#endif
#endif

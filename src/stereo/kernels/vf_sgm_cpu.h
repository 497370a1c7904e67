// SPDX-License-Identifier: BSD-3-Clause
/* The CPU backend of vf_stereo (the reference): census, aggregation, disparity selection. */
#ifndef VF_SGM_CPU_H
#define VF_SGM_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/vf_parallel.h"
#include "stereo/kernels/vf_sgm_rules.h"

/* Census transform of an 8-bit image (CS or full 9x7, edges replicated) as byte planes: row y
 * holds planes 0..n-1 (n = 4 CS, 8 full) of w bytes each, census bit i in bit i % 8 of plane
 * i / 8. `out` has room for VF_CPU_CENSUS_BYTES per pixel. */
#define VF_CPU_CENSUS_BYTES 8
void vf_cpu_census(const uint8_t* img, size_t stride, int w, int h, int full, uint8_t* out,
                   vf_pool* pool);
/* vf_cpu_census with its vectors chosen as vf_cpu_sgm_lanes' (16: what every CPU runs; 0: AVX2
 * where the CPU has it); the same bytes either way. */
void vf_cpu_census_lanes(const uint8_t* img, size_t stride, int w, int h, int full, uint8_t* out,
                         vf_pool* pool, int lanes);

/* The byte planes of vf_cpu_census as one 64-bit word per pixel (census bit i in bit i), for
 * code that takes whole words (the HSGM reference). */
void vf_cpu_census_pack64(const uint8_t* planes, int w, int h, int full, uint64_t* words);

/* Bytes of scratch vf_cpu_sgm needs for this configuration and thread count (64-byte aligned). */
size_t vf_cpu_sgm_scratch_bytes(const vf_sgm_params* p, int threads);

/* Aggregation over the configured paths and disparity selection: winner takes all with
 * uniqueness, left-right check and sub-pixel, the 16-bit output before the median (w*h values).
 * `left` is the left image (adaptive P2 reads its gradient); sum: w*h*D words of storage,
 * 32-byte aligned (streaming stores of 16 or 32 bytes); scratch: vf_cpu_sgm_scratch_bytes(p,
 * threads) bytes, 64-byte aligned, threads = vf_pool_threads(pool). */
void vf_cpu_sgm(const vf_sgm_params* p, const uint8_t* left, size_t left_stride,
                const uint8_t* census_l, const uint8_t* census_r, uint16_t* sum, void* scratch,
                uint16_t* out, vf_pool* pool);
/* vf_cpu_sgm with the vectors chosen: lanes 16 (the aggregation 16 disparities a vector and the
 * selection as the vectorizer built it, what every CPU runs) or 0 (the widest this CPU has:
 * AVX2's 32 disparities, and the selection in its intrinsics); the same results either way
 * (test_sgm_lanes). */
void vf_cpu_sgm_lanes(const vf_sgm_params* p, const uint8_t* left, size_t left_stride,
                      const uint8_t* census_l, const uint8_t* census_r, uint16_t* sum,
                      void* scratch, uint16_t* out, vf_pool* pool, int lanes);

/* thr[s] for the sums s = 0 .. max_sum: the uniqueness rule fails at a pixel whose smallest
 * sum is s exactly when a sum at |k - k_best| > 1 is below thr[s] (0 when the rule is off). */
void vf_cpu_sgm_unique_thresholds(const vf_sgm_params* p, int16_t* thr, int max_sum);

/* The selection for one row from its summed costs S[x*D + k] and their minima best[x], with
 * vf_cpu_sgm_unique_thresholds' table thr: `out` gets w values. right_val, right_k:
 * w + min_disparity + D entries of scratch (the right image's winners). wide: 16 sums a vector
 * with AVX2 (only where vf_cpu_avx2() says so), else the vectorizer's loops; the same values. */
void vf_cpu_sgm_select_row(const vf_sgm_params* p, const int16_t* sum_row, const int16_t* best,
                           const int16_t* thr, int16_t* right_val, int16_t* right_k, uint16_t* out,
                           int wide);

/* 3x3 median with replicated edges (VF_STEREO_INVALID sorts as the largest value). */
void vf_cpu_median3(const uint16_t* in, int w, int h, uint16_t* out, size_t out_stride,
                    vf_pool* pool);

#endif

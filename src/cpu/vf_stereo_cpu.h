/* The CPU backend of vf_stereo (the reference): census, aggregation, disparity selection. */
#ifndef VF_STEREO_CPU_H
#define VF_STEREO_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "../vf_stereo_rules.h"

/* Census transform of an 8-bit image (CS or full 9x7, edges replicated) into w*h words. */
void vf_cpu_census(const uint8_t* img, size_t stride, int w, int h, int full, uint64_t* out,
                   int threads);

/* Sum over the configured paths of the aggregated costs L_r(p, k): S[(y*w + x)*D + k]. `left`
 * is the left image (adaptive P2 reads its gradient). */
void vf_cpu_sgm_aggregate(const vf_sgm_params* p, const uint8_t* left, size_t left_stride,
                          const uint64_t* census_l, const uint64_t* census_r, uint16_t* sum,
                          int threads);

/* Winner takes all with uniqueness, right-image disparities for the left-right check, sub-pixel:
 * the 16-bit output before the median, w*h values. right_k: w*h scratch. */
void vf_cpu_sgm_select(const vf_sgm_params* p, const uint16_t* sum, int16_t* right_k, uint16_t* out,
                       int threads);

/* 3x3 median with replicated edges (VF_STEREO_INVALID sorts as the largest value). */
void vf_cpu_median3(const uint16_t* in, int w, int h, uint16_t* out, size_t out_stride,
                    int threads);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* What the CPU and CUDA backends of the local stereo methods share: the argument structs
 * and the integer encodings of the ZNCC + FastDT costs, written once so that both compute the
 * same bits (Chang et al., "Efficient Stereo Matching on Embedded GPUs with Zero-Means Cross
 * Correlation", Sec. 4: 16-bit costs, 8-bit storage, fixed-point DT weights).
 * Included by C (static inline) and by CUDA (__host__ __device__). */
#ifndef VF_LOCAL_RULES_H
#define VF_LOCAL_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "viofront/vf_stereo.h"

#define VF_STEREO_LOCAL_INVALID VF_STEREO_INVALID
#define VF_STEREO_LOCAL_MAX_DISPARITY 256 /* cost volume depth; Cyclops2 searches up to width */

/* A rectified pair (host memory for the CPU backend, device memory for CUDA) and the range. */
typedef struct vf_local_pair {
  const uint8_t* left;
  size_t left_stride;
  const uint8_t* right;
  size_t right_stride;
  int width;
  int height;
  int disparities;
} vf_local_pair;

/* Cyclops2 search parameters (validated by vf_stereo_local_create). weight: vf_cyclops_weight. */
typedef struct vf_local_cyclops {
  int weight;
  int rma_max_log2;
  int mns_height;
  int mns_width;
  int kernel_step;
  int disparity_step;
} vf_local_cyclops;

/* Shared memory a Cyclops2 one-row block may stage (both images' rows): what every CUDA device
 * down to sm_62 offers without opting in. */
#define VF_LOCAL_SHARED_ROW_BYTES 49152

#define VF_CYCLOPS_WEIGHT_MD 0
#define VF_CYCLOPS_WEIGHT_RMA 1
#define VF_CYCLOPS_WEIGHT_MNS 2

#if defined(__CUDACC__)
#define VF_LOCAL_HD static inline __host__ __device__
#else
#define VF_LOCAL_HD static inline
#endif

/* Costs are 16-bit codes u = 32768 + s with s = round(-ZNCC * 2^14): a good match is negative,
 * an uninformative one (a flat window, a window or match leaving the image) is 0, so costs sit
 * near zero mean and the DT's weighted averages stay small (the paper's normalization). */
#define VF_COST_ZERO 32768u
#define VF_COST_SCALE_LOG2 14

/* DT weights are Q15 fixed point: W = round(2^15 K exp(-|dI| / sigma_r)) < 2^15. */
#define VF_DT_WEIGHT_LOG2 15

/* IEEE round-to-nearest float operations with no contraction into FMA, so host and device round
 * the same way at every step. */
VF_LOCAL_HD float vf_fmul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

VF_LOCAL_HD float vf_fdiv_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}

VF_LOCAL_HD float vf_fsqrt_rn(float a) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(a);
#else
  return __builtin_sqrtf(a);
#endif
}

/* ZNCC cost code from the integer window terms: num = n*sum(LR) - sum(L)*sum(R) and the variance
 * terms var = n*sum(I^2) - sum(I)^2 (both exact). A flat window carries no information: 0. */
VF_LOCAL_HD uint16_t vf_zncc_cost16(int64_t num, uint32_t var_l, uint32_t var_r) {
  if (var_l == 0u || var_r == 0u) return (uint16_t)VF_COST_ZERO;
  float den = vf_fsqrt_rn(vf_fmul_rn((float)var_l, (float)var_r));
  float z = vf_fdiv_rn((float)num, den);
  if (z > 1.0f) z = 1.0f;
  if (z < -1.0f) z = -1.0f;
  /* The scale is a power of two, so the product is exact and an FMA would round the same. */
  float s = vf_fmul_rn(-z, (float)(1 << VF_COST_SCALE_LOG2));
  int q = s >= 0.0f ? (int)(s + 0.5f) : -(int)(0.5f - s);
  return (uint16_t)((int)VF_COST_ZERO + q);
}

/* Census cost code: the Hamming distance h of `bits`-bit census words placed around zero like
 * the ZNCC costs, s = (2h - bits) * floor(2^14 / bits): identical words -2^14 or so, half the
 * bits differing 0 (as uninformative as a flat ZNCC window). */
VF_LOCAL_HD uint32_t vf_census_cost16(int h, int bits) {
  return (uint32_t)((int)VF_COST_ZERO + (2 * h - bits) * ((1 << VF_COST_SCALE_LOG2) / bits));
}

/* 8-bit storage of a 16-bit cost (the paper's data-width reduction): a 2-bit position flag f says
 * where the 6 kept bits sit, the 6-bit value m is two's complement, s ~= m << shift[f]. Small
 * costs (near zero mean) keep every bit, large ones their leading bits. */
#define VF_PACK_SHIFT(f) ((f) == 0 ? 0 : (f) == 1 ? 3 : (f) == 2 ? 6 : 9)

VF_LOCAL_HD uint8_t vf_cost_pack8(uint32_t u) {
  int s = (int)u - (int)VF_COST_ZERO;
  int f = 0, m = s;
  while (f < 3 && (m < -32 || m > 31)) {
    ++f;
    int sh = VF_PACK_SHIFT(f);
    /* round half away from zero, then saturate in the last band */
    m = s >= 0 ? (s + (1 << (sh - 1))) >> sh : -((-s + (1 << (sh - 1))) >> sh);
  }
  if (m > 31) m = 31;
  if (m < -32) m = -32;
  return (uint8_t)((f << 6) | (m & 63));
}

VF_LOCAL_HD uint32_t vf_cost_unpack8(uint8_t code) {
  int f = code >> 6;
  int m = (int)(code & 63) - ((code & 32) ? 64 : 0);
  int s = m * (1 << VF_PACK_SHIFT(f));
  return (uint32_t)((int)VF_COST_ZERO + s);
}

/* A cost of a volume of 8-bit (pack8) or 16-bit codes, as a 16-bit code. */
VF_LOCAL_HD uint32_t vf_cost_load(const void* volume, int pack8, size_t i) {
  return pack8 ? vf_cost_unpack8(((const uint8_t*)volume)[i]) : ((const uint16_t*)volume)[i];
}

VF_LOCAL_HD void vf_cost_store(void* volume, int pack8, size_t i, uint32_t code) {
  if (pack8) {
    ((uint8_t*)volume)[i] = vf_cost_pack8(code);
  } else {
    ((uint16_t*)volume)[i] = (uint16_t)code;
  }
}

/* One step of the normalized recursive DT filter A = (1 - W) C + W A_prev in Q15, with all
 * operands unsigned 16-bit so the sum fits 32 bits exactly. */
VF_LOCAL_HD uint32_t vf_dt_step(uint32_t prev, uint32_t cost, uint32_t w) {
  return (w * prev + ((1u << VF_DT_WEIGHT_LOG2) - w) * cost + (1u << (VF_DT_WEIGHT_LOG2 - 1))) >>
         VF_DT_WEIGHT_LOG2;
}

#endif

/* The alternative stereo methods of issue 8, as one internal stage:
 *  - ZNCC matching cost with zig-zag scanning, then FastDT domain-transform aggregation (or none)
 *    and winner-takes-all (Chang et al., "Efficient Stereo Matching on Embedded GPUs with
 *    Zero-Means Cross Correlation");
 *  - Cyclops2 scan-line search with the MD, RMA or MNS weight function, shared-memory one-row or
 *    global-memory kernels, optional 3x3 median ("Real-time CUDA-based stereo matching using
 *    Cyclops2 algorithm").
 * Internal until vf_stereo (issue 5) offers these methods; its functions are exported (VF_API) so
 * that the tests and vf_bench can call them. Buffers are allocated at create time, none per frame.
 * Disparities are integers in 16-bit maps, VF_STEREO_ALT_INVALID where no candidate exists. */
#ifndef VF_STEREO_ALT_H
#define VF_STEREO_ALT_H

#include <stddef.h>

#include "viofront/vf_context.h"
#include "viofront/vf_image.h"

#define VF_STEREO_ALT_INVALID 0xFFFF
#define VF_STEREO_ALT_MAX_DISPARITY                            \
  256 /* ZNCC cost volume depth; Cyclops2 searches up to width \
       */

typedef enum vf_stereo_alt_method {
  VF_STEREO_ALT_ZNCC = 0, /* Z2-ZNCC cost, FastDT aggregation (optional), winner-takes-all */
  VF_STEREO_ALT_CYCLOPS2
} vf_stereo_alt_method;

typedef enum vf_zncc_sums {
  VF_ZNCC_SUMS_AUTO = 0, /* direct summation up to a 7x7 window, integral images above */
  VF_ZNCC_SUMS_DIRECT,   /* window sums added up directly */
  VF_ZNCC_SUMS_INTEGRAL  /* window sums from integral images (summed-area tables) */
} vf_zncc_sums;

typedef struct vf_zncc_config {
  int window;        /* odd side, 3..15 */
  vf_zncc_sums sums; /* how the per-image window sums of I and I^2 are made */
} vf_zncc_config;

typedef struct vf_fastdt_config {
  int enabled;   /* 0: winner-takes-all on the ZNCC costs alone */
  float sigma_s; /* spatial sigma in pixels: K = exp(-1 / sigma_s), 0.5..1000 */
  float sigma_r; /* range sigma in grey levels: W = K exp(-|dI| / sigma_r), 0.5..1000 */
  int pack8;     /* 1: costs stored as 8-bit codes between passes, 0: as 16 bits */
} vf_fastdt_config;

typedef enum vf_cyclops_weight {
  VF_CYCLOPS_MD = 0, /* |L - R| of one pixel */
  VF_CYCLOPS_RMA,    /* mean |L - R| over 2^N pixels of the row */
  VF_CYCLOPS_MNS     /* mean-normalized SAD over an h x w (sparse) block */
} vf_cyclops_weight;

typedef enum vf_cyclops_memory {
  VF_CYCLOPS_SHARED_ROW = 0, /* a CUDA block stages its image rows in shared memory */
  VF_CYCLOPS_GLOBAL          /* every thread reads the images from global memory */
} vf_cyclops_memory;

typedef struct vf_cyclops_config {
  vf_cyclops_weight weight;
  vf_cyclops_memory memory; /* CUDA kernel variant; the CPU backend gives the same result */
  int rma_max_log2;         /* RMA: at most 2^rma_max_log2 pixels averaged, 0..8 */
  int mns_height;           /* MNS block, odd, 1..31 */
  int mns_width;            /* odd, 1..31 */
  int kernel_step;          /* MNS: every kernel_step-th row and column; divides h-1 and w-1 */
  int disparity_step;       /* candidates 0, step, 2 step, ... below max_disparity */
  int median;               /* 1: 3x3 median filter on the disparity map */
} vf_cyclops_config;

typedef struct vf_stereo_alt_config {
  int width; /* rectified image size */
  int height;
  int max_disparity; /* candidates 0..max_disparity-1 */
  vf_stereo_alt_method method;
  vf_zncc_config zncc;
  vf_fastdt_config fastdt;
  vf_cyclops_config cyclops;
} vf_stereo_alt_config;

typedef struct vf_stereo_alt vf_stereo_alt;

#ifdef __cplusplus
extern "C" {
#endif

/* 752x480, 64 disparities, ZNCC 5x5 + FastDT (sigma_s 20, sigma_r 15, 8-bit storage); Cyclops2
 * fields: MNS 5x5, kernel step 1, RMA up to 16 pixels, disparity step 1, shared-row, median on. */
VF_API vf_stereo_alt_config vf_stereo_alt_config_default(void);

VF_API vf_status vf_stereo_alt_create(vf_context* ctx, const vf_stereo_alt_config* config,
                                      vf_stereo_alt** out);
VF_API void vf_stereo_alt_destroy(vf_stereo_alt* stereo);

/* left, right: rectified 8-bit images of the configured size, host memory or (CUDA backend)
 * device memory, any stride. disparity: VF_PIXEL_U16 of the same size, host or device. On CUDA the
 * work is queued on the context's stream; a host disparity map is complete when the call returns.
 */
VF_API vf_status vf_stereo_alt_compute(vf_stereo_alt* stereo, const vf_image* left,
                                       const vf_image* right, vf_image* disparity);

/* The ZNCC cost volume the last compute left behind, in the context's memory: the ZNCC costs, or
 * with FastDT the costs after its third pass (the fourth is fused with winner-takes-all).
 * width * height * max_disparity codes, disparity fastest, 1 byte each (pack8) or 2 bytes.
 * VF_ERR_UNSUPPORTED for Cyclops2, which keeps no volume. */
VF_API vf_status vf_stereo_alt_cost_volume(const vf_stereo_alt* stereo, const void** data,
                                           size_t* bytes_per_cost);

VF_API const char* vf_stereo_alt_last_error(const vf_stereo_alt* stereo);

#ifdef __cplusplus
}
#endif
#endif

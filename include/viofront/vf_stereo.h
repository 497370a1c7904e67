// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * Dense stereo: disparity of the left image of a rectified 8-bit pair. Method SGM: census
 * transform, Hamming matching cost, semi-global aggregation along 2/4/8 paths, winner takes
 * all, uniqueness ratio, left-right check, parabola sub-pixel, 3x3 median (Hirschmueller 2008;
 * Hernandez-Juarez et al., ICCS 2016). Other methods: hierarchical SGM with per-pixel disparity
 * ranges (Fu, Stuttgart), ZNCC or census cost with FastDT aggregation (Chang et al.), Cyclops2
 * scan-line search; see vf_stereo_config. The CPU and CUDA backends agree bit for bit.
 *
 * Output: 16-bit disparity, 4 fractional bits when sub-pixel is on (value / 16 = pixels), whole
 * pixels otherwise; VF_STEREO_INVALID where no disparity passed the checks. Optionally also
 * float pixels (NaN where invalid). All memory is allocated at create time. */
#ifndef VF_STEREO_H
#define VF_STEREO_H

#include <viofront/vf_context.h>
#include <viofront/vf_image.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The 16-bit output value of a pixel without a disparity. */
#define VF_STEREO_INVALID 0xFFFF
/** Sub-pixel output has this many fractional bits. */
#define VF_STEREO_SUBPIXEL_BITS 4

/** The stereo method (vf_stereo_config.method). */
typedef enum vf_stereo_method {
  VF_STEREO_SGM = 0,       /**< semi-global matching */
  VF_STEREO_ZNCC_FASTDT,   /**< ZNCC cost (zig-zag), FastDT aggregation, winner takes all */
  VF_STEREO_CYCLOPS2,      /**< Cyclops2 scan-line search (MD, RMA or MNS weight function) */
  VF_STEREO_HSGM,          /**< hierarchical SGM over a pyramid, per-pixel disparity ranges */
  VF_STEREO_CENSUS_FASTDT, /**< census 9x7 Hamming cost, FastDT aggregation, winner takes all */
  VF_STEREO_ZNCC_SGM       /**< ZNCC cost (as ZNCC_FASTDT), semi-global aggregation as SGM */
} vf_stereo_method;

/** The census transform of SGM, HSGM and CENSUS_FASTDT. */
typedef enum vf_census_type {
  VF_CENSUS_CS_9X7 = 0, /**< center-symmetric 9x7: 31 pairs, cost 0..31 */
  VF_CENSUS_FULL_9X7    /**< every pixel of the 9x7 window against the centre: cost 0..62 */
} vf_census_type;

/** ZNCC matching cost (Chang et al., "Efficient Stereo Matching on Embedded GPUs with Zero-Means
 * Cross Correlation"). */
typedef enum vf_zncc_sums {
  VF_ZNCC_SUMS_AUTO = 0, /**< direct summation up to a 7x7 window, integral images above */
  VF_ZNCC_SUMS_DIRECT,   /**< window sums added up directly */
  VF_ZNCC_SUMS_INTEGRAL  /**< window sums from integral images (summed-area tables) */
} vf_zncc_sums;

/** ZNCC matching cost parameters. */
typedef struct vf_zncc_config {
  int window;        /**< odd side, 3..15 */
  vf_zncc_sums sums; /**< how the per-image window sums of I and I^2 are made */
} vf_zncc_config;

/** FastDT domain-transform aggregation (same paper), for ZNCC and census costs. */
typedef struct vf_fastdt_config {
  int enabled;   /**< 0: winner takes all on the matching costs alone */
  float sigma_s; /**< spatial sigma in pixels: K = exp(-1 / sigma_s), 0.5..1000 */
  float sigma_r; /**< range sigma in grey levels: W = K exp(-|dI| / sigma_r), 0.5..1000 */
  int pack8;     /**< 1: costs stored as 8-bit codes between passes, 0: as 16 bits */
} vf_fastdt_config;

/** Cyclops2 ("Real-time CUDA-based stereo matching using Cyclops2 algorithm"). */
typedef enum vf_cyclops_weight {
  VF_CYCLOPS_MD = 0, /**< |L - R| of one pixel */
  VF_CYCLOPS_RMA,    /**< mean |L - R| over 2^N pixels of the row */
  VF_CYCLOPS_MNS     /**< mean-normalized SAD over an h x w (sparse) block */
} vf_cyclops_weight;

/** How the Cyclops2 CUDA kernel reads the images. */
typedef enum vf_cyclops_memory {
  VF_CYCLOPS_SHARED_ROW = 0, /**< a CUDA block stages its image rows in shared memory */
  VF_CYCLOPS_GLOBAL          /**< every thread reads the images from global memory */
} vf_cyclops_memory;

/** Cyclops2 parameters. */
typedef struct vf_cyclops_config {
  vf_cyclops_weight weight; /**< the weight function */
  vf_cyclops_memory memory; /**< CUDA kernel variant; the CPU backend gives the same result */
  int rma_max_log2;         /**< RMA: at most 2^rma_max_log2 pixels averaged, 0..8 */
  int mns_height;           /**< MNS block, odd, 1..31 */
  int mns_width;            /**< odd, 1..31 */
  int kernel_step;          /**< MNS: every kernel_step-th row and column; divides h-1 and w-1 */
  int disparity_step;       /**< candidates 0, step, 2 step, ... below disparities */
} vf_cyclops_config;

/** Hierarchical SGM (Fu, "Dense matching GPU implementation", Stuttgart; after tSGM): SGM over the
 * full range on the coarsest level of a 2x2 pyramid; on each finer level every pixel searches
 * only the range [2 min - margin, 2 max + 1 + margin] of the valid disparities of the coarser
 * result in a window x window neighbourhood of its position there (the full range where that
 * window has none), with a cost cube that holds each pixel's range only. Every level has the
 * uniqueness ratio and the left-right check; sub-pixel and median apply to the finest. */
typedef struct vf_hsgm_config {
  int levels; /**< pyramid levels, 1..4 (1 = plain SGM); the coarsest level has disparities >>
               * (levels - 1) candidates, min_disparity must be a multiple of 2^(levels - 1) */
  int window; /**< odd side of the neighbourhood on the coarser level, 1..15 */
  int margin; /**< disparities added on each side of the upscaled range, 0..64 */
} vf_hsgm_config;

/** Fields by method. SGM: all but hsgm, zncc, fastdt, cyclops; HSGM: the same and hsgm; ZNCC_SGM:
 * SGM's but census, and zncc (one level; min_disparity 0; its cost spans 0..63, so p1, p2 <= 192).
 * ZNCC_FASTDT: zncc, fastdt; CENSUS_FASTDT: census, fastdt; CYCLOPS2: cyclops. These three give
 * whole-pixel disparities from min_disparity 0 and have no left-right or uniqueness check: they
 * need subpixel 0, lr_check 0 and uniqueness 1 (vf_stereo_config_default_for sets them), and take
 * any number of disparities, 1..256 (Cyclops2: up to the width, a full scan line). median applies
 * to all. */
typedef struct vf_stereo_config {
  vf_stereo_method method; /**< the method; the fields it uses are listed above */
  int width;               /**< image size, up to 4096x4096; width >= min_disparity + disparities */
  int height;              /**< image height */
  int min_disparity;       /**< smallest disparity searched, 0..3839 */
  int disparities;         /**< number searched: 64, 128 or 256 */
  vf_census_type census;   /**< the census transform (SGM, HSGM, CENSUS_FASTDT) */
  int p1;                  /**< penalty for a disparity change of 1, >= 0 */
  int p2;                  /**< penalty for larger changes, p1..255 - max cost (224 CS, 193 full) */
  int adaptive_p2;  /**< 1: P2 / |I(p) - I(p-r)| along each path (at least P1, Hirschmueller) */
  int paths;        /**< 2 (horizontal), 4 (+ vertical), 8 (+ diagonal), 16 (+ (2,1) moves) */
  float uniqueness; /**< best cost <= uniqueness * best cost at |d - best| > 1; 1 = off; (0, 1] */
  int lr_check;     /**< 1: invalidate where the right image's disparity differs */
  int lr_max_diff;  /**< allowed difference in whole pixels, 0..255 */
  int subpixel;     /**< 1: parabola fit, 4 fractional bits */
  int median;       /**< 1: 3x3 median of the output (edges replicated) */
  vf_hsgm_config hsgm;       /**< HSGM only */
  vf_zncc_config zncc;       /**< ZNCC_FASTDT and ZNCC_SGM */
  vf_fastdt_config fastdt;   /**< ZNCC_FASTDT and CENSUS_FASTDT */
  vf_cyclops_config cyclops; /**< CYCLOPS2 only */
} vf_stereo_config;

/** A stereo matcher (opaque) for one image size and method. */
typedef struct vf_stereo vf_stereo;

/** 752x480 (EuRoC), SGM, min 0, 64 disparities, CS census, P1 10, P2 120, 4 paths,
 * uniqueness 0.95, LR check 1 px, sub-pixel and median on. */
VF_API vf_stereo_config vf_stereo_config_default(void);
/** The defaults of one method: SGM as above; HSGM: the same with 8 paths and hsgm levels 3, window
 * 7, margin 2 (vf_stereo_config_default has these hsgm fields too); ZNCC_SGM: SGM's with the ZNCC
 * 3x3 window, P1 7, P2 60; ZNCC_FASTDT: 5x5 window, FastDT sigma_s 20, sigma_r 15, 8-bit storage,
 * no median; CENSUS_FASTDT: CS census, the same FastDT; CYCLOPS2: MNS 5x5, kernel and disparity
 * step 1, shared-memory rows, median on. Sub-pixel, LR check, uniqueness off for the last three. */
VF_API vf_stereo_config vf_stereo_config_default_for(vf_stereo_method method);
/** Validates the configuration (messages name the bad field) and allocates everything. */
VF_API vf_status vf_stereo_create(vf_context* ctx, const vf_stereo_config* config, vf_stereo** out);
/** Frees everything; safe on NULL. */
VF_API void vf_stereo_destroy(vf_stereo* stereo);

/** Disparity of `left`. left/right: 8-bit, the configured size, host or device memory (host
 * only on the CPU backend). disparity: U16 of the same size, host or device; disparity_f32:
 * optional (NULL) F32 image in pixels. On CUDA the call queues the work on the context's stream
 * and returns; results in device memory are ready after vf_context_synchronize, those written
 * to host memory when the call returns. */
VF_API vf_status vf_stereo_compute(vf_stereo* stereo, const vf_image* left, const vf_image* right,
                                   vf_image* disparity, vf_image* disparity_f32);

/** The message of this matcher's last failure; "" when none. */
VF_API const char* vf_stereo_last_error(const vf_stereo* stereo);

#ifdef __cplusplus
}
#endif
#endif

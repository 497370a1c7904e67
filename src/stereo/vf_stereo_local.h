// SPDX-License-Identifier: BSD-3-Clause
/* The local stereo methods (window costs and winner-takes-all rather than SGM's paths), as one
 * internal stage:
 *  - ZNCC matching cost with zig-zag scanning, then FastDT domain-transform aggregation (or none)
 *    and winner-takes-all (Chang et al., "Efficient Stereo Matching on Embedded GPUs with
 *    Zero-Means Cross Correlation");
 *  - census 9x7 Hamming cost (the SGM census) with the same aggregation;
 *  - Cyclops2 scan-line search with the MD, RMA or MNS weight function, shared-memory one-row or
 *    global-memory kernels ("Real-time CUDA-based stereo matching using Cyclops2 algorithm");
 *  - an optional 3x3 median for all.
 * vf_stereo runs these methods through this stage; its functions are exported (VF_API) so that
 * the tests can reach the cost volume. Buffers are allocated at create time, none per frame.
 * Disparities are integers in 16-bit maps, VF_STEREO_LOCAL_INVALID where no candidate exists. */
#ifndef VF_STEREO_LOCAL_H
#define VF_STEREO_LOCAL_H

#include <stddef.h>

#include "stereo/kernels/vf_local_rules.h"
#include "viofront/vf_context.h"
#include "viofront/vf_image.h"
#include "viofront/vf_stereo.h"

typedef enum vf_stereo_local_method {
  VF_STEREO_LOCAL_ZNCC = 0, /* Z2-ZNCC cost, FastDT aggregation (optional), winner-takes-all */
  VF_STEREO_LOCAL_CYCLOPS2,
  VF_STEREO_LOCAL_CENSUS /* census 9x7 Hamming cost, FastDT (optional), winner-takes-all */
} vf_stereo_local_method;

/* The sub-configurations are those of vf_stereo_config (viofront/vf_stereo.h). */
typedef struct vf_stereo_local_config {
  int width; /* rectified image size */
  int height;
  int disparities; /* candidates 0..disparities-1 */
  vf_stereo_local_method method;
  int census_full; /* CENSUS: 0 centre-symmetric 9x7 (31 bits), 1 full 9x7 (62 bits) */
  vf_zncc_config zncc;
  vf_fastdt_config fastdt;
  vf_cyclops_config cyclops;
  int median; /* 1: 3x3 median filter on the disparity map */
} vf_stereo_local_config;

typedef struct vf_stereo_local vf_stereo_local;

#ifdef __cplusplus
extern "C" {
#endif

/* 752x480, 64 disparities, ZNCC 5x5 + FastDT (sigma_s 20, sigma_r 15, 8-bit storage), no median;
 * census field CS; Cyclops2 fields: MNS 5x5, kernel step 1, RMA up to 16 pixels, disparity step 1,
 * shared-row. */
VF_API vf_stereo_local_config vf_stereo_local_config_default(void);

/* The local-method part of a vf_stereo configuration (checks the fields vf_stereo shares
 * with SGM; messages start with `what`). VF_ERR_INVALID_ARG for a method that is not one of
 * ZNCC_FASTDT, CENSUS_FASTDT, CYCLOPS2. */
VF_API vf_status vf_stereo_local_config_from_stereo(const vf_stereo_config* c,
                                                    vf_stereo_local_config* out, const char* what);

/* Fills the sub-configurations with the defaults above. */
VF_API void vf_stereo_local_defaults(vf_zncc_config* zncc, vf_fastdt_config* fastdt,
                                     vf_cyclops_config* cyclops);

VF_API vf_status vf_stereo_local_create(vf_context* ctx, const vf_stereo_local_config* config,
                                        vf_stereo_local** out);
VF_API void vf_stereo_local_destroy(vf_stereo_local* stereo);

/* left, right: rectified 8-bit images of the configured size, host memory or (CUDA backend)
 * device memory, any stride. disparity: VF_PIXEL_U16 of the same size, host or device. On CUDA the
 * work is queued on the context's stream; a host disparity map is complete when the call returns.
 */
VF_API vf_status vf_stereo_local_compute(vf_stereo_local* stereo, const vf_image* left,
                                         const vf_image* right, vf_image* disparity);

/* The ZNCC cost volume the last compute left behind, in the context's memory: the ZNCC costs, or
 * with FastDT the costs after its third pass (the fourth is fused with winner-takes-all).
 * width * height * disparities codes, disparity fastest, 1 byte each (pack8) or 2 bytes.
 * VF_ERR_UNSUPPORTED for Cyclops2, which keeps no volume. */
VF_API vf_status vf_stereo_local_cost_volume(const vf_stereo_local* stereo, const void** data,
                                             size_t* bytes_per_cost);

VF_API const char* vf_stereo_local_last_error(const vf_stereo_local* stereo);

#ifdef __cplusplus
}
#endif
#endif

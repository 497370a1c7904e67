/* Dense stereo: disparity of the left image of a rectified 8-bit pair. Method SGM: census
 * transform, Hamming matching cost, semi-global aggregation along 2/4/8 paths, winner takes
 * all, uniqueness ratio, left-right check, parabola sub-pixel, 3x3 median (Hirschmueller 2008;
 * Hernandez-Juarez et al., ICCS 2016). The CPU and CUDA backends agree bit for bit.
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

/* The 16-bit output value of a pixel without a disparity. */
#define VF_STEREO_INVALID 0xFFFF
/* Sub-pixel output has this many fractional bits. */
#define VF_STEREO_SUBPIXEL_BITS 4

typedef enum vf_stereo_method {
  VF_STEREO_SGM = 0,     /* semi-global matching (implemented) */
  VF_STEREO_ZNCC_FASTDT, /* reserved: ZNCC cost + domain-transform aggregation */
  VF_STEREO_CYCLOPS2,    /* reserved: Cyclops2 block matching */
  VF_STEREO_HSGM         /* reserved: hierarchical SGM over a pyramid */
} vf_stereo_method;

typedef enum vf_census_type {
  VF_CENSUS_CS_9X7 = 0, /* center-symmetric 9x7: 31 pairs, cost 0..31 */
  VF_CENSUS_FULL_9X7    /* every pixel of the 9x7 window against the centre: cost 0..62 */
} vf_census_type;

typedef struct vf_stereo_config {
  vf_stereo_method method;
  int width; /* image size, up to 4096x4096; width >= min_disparity + disparities */
  int height;
  int min_disparity; /* smallest disparity searched, 0..3839 */
  int disparities;   /* number searched: 64, 128 or 256 */
  vf_census_type census;
  int p1;           /* penalty for a disparity change of 1, >= 0 */
  int p2;           /* penalty for larger changes, p1..255 - max cost (224 CS, 193 full) */
  int adaptive_p2;  /* 1: P2 / |I(p) - I(p-r)| along each path (at least P1, Hirschmueller) */
  int paths;        /* 2 (horizontal), 4 (+ vertical) or 8 (+ diagonal) */
  float uniqueness; /* best cost <= uniqueness * best cost at |d - best| > 1; 1 = off; (0, 1] */
  int lr_check;     /* 1: invalidate where the right image's disparity differs */
  int lr_max_diff;  /* allowed difference in whole pixels, 0..255 */
  int subpixel;     /* 1: parabola fit, 4 fractional bits */
  int median;       /* 1: 3x3 median of the output (edges replicated) */
} vf_stereo_config;

typedef struct vf_stereo vf_stereo;

/* 752x480 (EuRoC), SGM, min 0, 64 disparities, CS census, P1 10, P2 120, 4 paths,
 * uniqueness 0.95, LR check 1 px, sub-pixel and median on. */
VF_API vf_stereo_config vf_stereo_config_default(void);
VF_API vf_status vf_stereo_create(vf_context* ctx, const vf_stereo_config* config, vf_stereo** out);
VF_API void vf_stereo_destroy(vf_stereo* stereo);

/* Disparity of `left`. left/right: 8-bit, the configured size, host or device memory (host
 * only on the CPU backend). disparity: U16 of the same size, host or device; disparity_f32:
 * optional (NULL) F32 image in pixels. On CUDA the call queues the work on the context's stream
 * and returns; results in device memory are ready after vf_context_synchronize, those written
 * to host memory when the call returns. */
VF_API vf_status vf_stereo_compute(vf_stereo* stereo, const vf_image* left, const vf_image* right,
                                   vf_image* disparity, vf_image* disparity_f32);

VF_API const char* vf_stereo_last_error(const vf_stereo* stereo);

#ifdef __cplusplus
}
#endif
#endif

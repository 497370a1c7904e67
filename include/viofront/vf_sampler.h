// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * Reads the values of a 16-bit image (a disparity map) at a list of points, on the image's
 * backend: the frontend uses it to attach disparities to features without copying the whole
 * map to the host. Nearest pixel: (x, y) reads pixel (floor(x + 0.5), floor(y + 0.5)); points
 * outside the image or not finite read `outside`. The disparity probe also looks around each
 * point: the largest step between neighbouring pixels and the holes in a window (a depth edge
 * under a feature), and whether a nearer surface to its right hides its stereo match (a
 * left-right check computed from the left map alone). */
#ifndef VF_SAMPLER_H
#define VF_SAMPLER_H

#include <stdint.h>

#include <viofront/vf_context.h>
#include <viofront/vf_image.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Reads a 16-bit image at a list of points (opaque). */
typedef struct vf_sampler vf_sampler;

/** What vf_sampler_probe_disparity() looks at. */
typedef struct vf_disparity_probe_config {
  int radius;          /**< window (2 radius + 1)^2 around the point's pixel, 0..15 */
  int reach;           /**< pixels right of it searched for an occluder, 0..4096 (the largest
                          disparity searched, in whole pixels, is enough) */
  int fractional_bits; /**< of the map's values, 0..8 */
  uint16_t invalid;    /**< the value of pixels without a disparity */
} vf_disparity_probe_config;

/** What the map shows around a point at pixel (x, y) (nearest pixel, as gather). Values are the
 * map's units. */
typedef struct vf_disparity_probe {
  uint16_t value;    /**< at (x, y); `invalid` there or outside the image */
  uint16_t jump;     /**< largest |difference| of two valid pixels that follow each other along a
                        row or a column of the window, invalid pixels between them skipped */
  uint16_t holes;    /**< pixels of the window that are invalid or outside the image */
  uint16_t occluder; /**< the largest valid v at (x + k, y), k = 1..reach, whose match x + k - v
                        lies left of, or within half a pixel right of, this point's match
                        x - value: it hides this point from the other camera (a left-right
                        check fails by v - value); 0 when there is none or value is invalid */
} vf_disparity_probe;

/** What vf_sampler_refine_disparity() does at each point. */
typedef struct vf_disparity_refine_config {
  int radius;         /**< matched window (2 radius + 1)^2, 1..10 */
  int max_iterations; /**< per point, 1..50 */
  float max_change;   /**< px, (0, 2]: a match farther than this from its start is refused */
} vf_disparity_refine_config;

/** max_points: the most points one call reads, 1..1048576; device buffers for them are
 * allocated here (CUDA backend), so sampling allocates nothing. */
VF_API vf_status vf_sampler_create(vf_context* ctx, int max_points, vf_sampler** out);
/** Frees everything; safe on NULL. */
VF_API void vf_sampler_destroy(vf_sampler* sampler);

/** values[i] = image(round(xy[2i]), round(xy[2i+1])) or `outside`. image: U16, host memory on
 * the CPU backend, host or device memory on CUDA. xy and values are host arrays; synchronous. */
VF_API vf_status vf_sampler_gather_u16(vf_sampler* sampler, const vf_image* image, const float* xy,
                                       int count, uint16_t outside, uint16_t* values);

/** out[i] = the probe of xy[i]. image: U16 as for gather; xy and out are host arrays;
 * synchronous. */
VF_API vf_status vf_sampler_probe_disparity(vf_sampler* sampler, const vf_image* image,
                                            const float* xy, int count,
                                            const vf_disparity_probe_config* config,
                                            vf_disparity_probe* out);

/** Sub-pixel disparities at points of a rectified pair by direct matching: the left window
 * around (xy[2i], xy[2i+1]) (its own sub-pixel position) is matched in the right image along the
 * row from disparity start[i], as a 1-D shift with gain and bias, both images seen through a
 * [1 2 1] binomial. out[i] = the disparity found (left x less right x, px), or NAN where start[i]
 * is not finite, the window leaves an image, it has no texture along the row, the match does not
 * converge or ends farther than max_change from start[i]. It removes what SGM's disparity at a
 * point owes to the cost volume's whole-pixel grid and to the smoothness penalties. left, right:
 * U8 images of one size, host memory on the CPU backend, device memory on CUDA; xy, start and
 * out are host arrays; synchronous. */
VF_API vf_status vf_sampler_refine_disparity(vf_sampler* sampler, const vf_image* left,
                                             const vf_image* right, const float* xy,
                                             const float* start, int count,
                                             const vf_disparity_refine_config* config, float* out);

/** Both of the above in one pass: probes[i] = the probe of xy[i] in `map` (as
 * vf_sampler_probe_disparity; the map of the images' size), then out[i] = the disparity matched
 * in the rectified pair from the probe's value (value / 2^fractional_bits px; NAN where it is
 * `invalid` or the match fails, as vf_sampler_refine_disparity). On CUDA with map, left and
 * right in device memory one launch does both, each point on one warp, and the call waits for
 * the device once. xy, probes and out are host arrays; synchronous. */
VF_API vf_status vf_sampler_probe_and_refine_disparity(
    vf_sampler* sampler, const vf_image* map, const vf_image* left, const vf_image* right,
    const float* xy, int count, const vf_disparity_probe_config* probe_config,
    const vf_disparity_refine_config* refine_config, vf_disparity_probe* probes, float* out);

/** Limits of vf_stereo_match_config (vf_stereo_match_config_check). */
#define VF_STEREO_MATCH_PRIOR_MAX 64 /**< prior_range */
#define VF_STEREO_MATCH_RADIUS_MAX 7 /**< search_radius */
#define VF_STEREO_MATCH_STEP_MAX 15  /**< step_radius */

/** The outcome of vf_sampler_match_stereo() at a point. */
typedef enum vf_stereo_match_result {
  VF_STEREO_MATCH_OK = 0,      /**< matched: disparity holds the sub-pixel match */
  VF_STEREO_MATCH_NONE,        /**< no match: the window leaves an image or the search range,
                                  has no texture, or the sub-pixel matching failed */
  VF_STEREO_MATCH_AMBIGUOUS,   /**< another disparity, not next to the best, costs nearly as
                                  little (the uniqueness test: repeated texture) */
  VF_STEREO_MATCH_LEFT_RIGHT,  /**< the right window's best match in the left image is another
                                  point (an occlusion: a nearer surface hides the match) */
  VF_STEREO_MATCH_CORRELATION, /**< the matched windows correlate less than min_zncc */
  VF_STEREO_MATCH_RESULTS      /**< number of results (not a result) */
} vf_stereo_match_result;

/** What vf_sampler_match_stereo() does at each point of a rectified pair. */
typedef struct vf_stereo_match_config {
  int min_disparity, max_disparity; /**< whole px, the range searched (0 <= min < max <= 1024) */
  int prior_range;   /**< 1..64 px: with a prior disparity p only round(p) -+ prior_range is
                        searched (within the range); a minimum at an end of that window (the
                        disparity may have moved farther), or one that fails a check or
                        correlates less than 0.9, searches the whole range */
  int search_radius; /**< the whole-pixel search's window (2 r + 1)^2, 1..7 */
  int uniqueness;    /**< percent 0..99, whole-range searches: the match is ambiguous when a
                        local minimum more than one pixel from the best costs at most
                        best * 100 / (100 - uniqueness); 0 = no test */
  int max_lr_diff;   /**< whole px 0..8: the right window's own best match in the left image must
                        lie within this of the match; -1 = no left-right check */
  float min_zncc;    /**< -1..1: the least zero-mean normalized correlation of the two windows at
                        the whole-pixel match */
  int step_radius;   /**< 0 or 3..15: the window (2 step_radius + 1)^2 around the point is split
                          into 3 x 3 cells matched alone near the match; their disparities' step
                          (`spread`) says whether the point lies on a depth edge; 0 = not done */
  vf_disparity_refine_config refine; /**< the sub-pixel matching from the whole-pixel match (as
                                        vf_sampler_refine_disparity) */
} vf_stereo_match_config;

/** One point's match. */
typedef struct vf_stereo_match {
  float disparity; /**< px (left x less right x), NAN unless result is VF_STEREO_MATCH_OK */
  float zncc;      /**< correlation at the whole-pixel match, NAN where none was found */
  float spread;    /**< px: the depth step under the point: the largest second difference of the
                      cells' disparities along a row or column of the 3 x 3 cells (0 on a plane,
                      the step on a depth edge), NAN when not measured */
  int result;      /**< vf_stereo_match_result */
} vf_stereo_match;

/** Sparse stereo: the right-image match of each point of a rectified pair, with no disparity
 * map. Per point: a whole-pixel search along the row (zero-mean sum of absolute differences over
 * the window, from prior[i] when finite, else over the whole range), the uniqueness test, the
 * left-right check (the right window searched in the left image), the correlation check, the
 * sub-pixel matching of vf_sampler_refine_disparity from the whole-pixel minimum, and the cells'
 * depth step. prior may be NULL (no priors). left, right: U8 images of one size, host memory
 * on the CPU backend, device memory on CUDA; xy, prior and out are host arrays; synchronous. The
 * whole-pixel steps are integer arithmetic and agree bit for bit between the backends; the
 * sub-pixel disparity and the spread within the refinement's tolerance. */
VF_API vf_status vf_sampler_match_stereo(vf_sampler* sampler, const vf_image* left,
                                         const vf_image* right, const float* xy, const float* prior,
                                         int count, const vf_stereo_match_config* config,
                                         vf_stereo_match* out);

/** VF_OK when every field is in range, else VF_ERR_INVALID_ARG with a message naming the field
 * (vf_last_error_message). */
VF_API vf_status vf_stereo_match_config_check(const vf_stereo_match_config* config);

/** Defaults: range 0..63, prior_range 3, search_radius 7, uniqueness 10, max_lr_diff 1,
 * min_zncc 0.7, step_radius 4, refine radius 7, 6 iterations, max_change 1 px. */
VF_API vf_stereo_match_config vf_stereo_match_config_default(void);

/** The message of this sampler's last failure; "" when none. */
VF_API const char* vf_sampler_last_error(const vf_sampler* sampler);

#ifdef __cplusplus
}
#endif
#endif

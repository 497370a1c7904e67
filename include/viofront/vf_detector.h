// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * FAST corner detector with one keypoint per grid cell, over several pyramid levels.
 *
 * Segment test: the 16 pixels of the radius-3 Bresenham circle around c are classed brighter
 * (I(p) > I(c) + threshold), darker (I(p) < I(c) - threshold) or similar; c is a corner when
 * at least arc_length contiguous circle pixels are all brighter or all darker. The response of a
 * corner is its score (> 0), of any other pixel 0. A corner survives non-maxima suppression when
 * its response beats its 8 neighbours: strictly those above and to the left, or equal for those
 * to the right and below (so exactly one of two equal neighbours stays). Per grid cell the
 * detector keeps the best survivor over the searched levels: higher score, then lower level,
 * then lower y, then lower x. Both backends give identical results (Nagy et al., "Faster than
 * FAST", IROS 2020, for the CUDA design: one-bit lookup table, warp-level cell maxima). */
#ifndef VF_DETECTOR_H
#define VF_DETECTOR_H

#include <stdint.h>

#include <viofront/vf_context.h>
#include <viofront/vf_image.h>
#include <viofront/vf_keypoint.h>
#include <viofront/vf_pyramid.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The response (score) of a FAST corner. */
typedef enum vf_fast_score {
  VF_FAST_SCORE_SAD_CIRCLE = 0, /**< sum of |I(p) - I(c)| over the 16 circle pixels */
  VF_FAST_SCORE_SAD_ARC,        /**< sum of |I(p) - I(c)| - threshold over the circle pixels on
                                   the corner's side (brighter or darker) */
  VF_FAST_SCORE_MAX_THRESHOLD   /**< largest threshold at which c is still a corner */
} vf_fast_score;

/** Detector parameters (vf_detector_config_default()). */
typedef struct vf_detector_config {
  int width, height;        /**< level-0 size of the pyramids to search */
  int threshold;            /**< eps, 1..254 */
  int arc_length;           /**< n, 9..12 */
  vf_fast_score score;      /**< response of a corner */
  int border;               /**< >= 3: no corner within this many pixels (of its own level) of
                               the level's edge */
  int min_level, max_level; /**< levels searched, 0 <= min_level <= max_level < pyramid levels */
  int cell_width;           /**< level-0 pixels: a multiple of 32 and of 2^max_level, <= 8192 */
  int cell_height;          /**< level-0 pixels: a multiple of 2^max_level, <= 8192 */
  int host_results;         /**< 1: detect waits and fills the host list; 0: on CUDA, detect only
                               queues the work and the results stay in device memory
                               (vf_detector_cells); the CPU backend always fills the list */
} vf_detector_config;

/** A FAST detector (opaque), made for one pyramid size. */
typedef struct vf_detector vf_detector;

/** 752x480, threshold 10, n 10, SAD over the arc, border 8, levels 0..2, 32x32 cells, host
 * results. */
VF_API vf_detector_config vf_detector_config_default(void);

/** Validates the configuration (messages name the bad field) and allocates everything. */
VF_API vf_status vf_detector_create(vf_context* ctx, const vf_detector_config* config,
                                    vf_detector** out);
/** Frees everything; safe on NULL. */
VF_API void vf_detector_destroy(vf_detector* detector);

/** Detects on a pyramid built from the same context, of the configured size, with more than
 * max_level levels. occupancy: NULL, or one byte per grid cell (row-major, nonzero = skip the
 * cell), in host memory or, on the CUDA backend, device memory (occupancy_location). */
VF_API vf_status vf_detector_detect(vf_detector* detector, const vf_pyramid* pyramid,
                                    const uint8_t* occupancy, vf_memory occupancy_location);

/** The first half of vf_detector_detect, so that the host can work while the GPU detects:
 * queues the detection (CUDA: launches the kernel; CPU: detects). Same arguments and checks as
 * vf_detector_detect; the pyramid and a host occupancy mask may change once it returns. */
VF_API vf_status vf_detector_submit(vf_detector* detector, const vf_pyramid* pyramid,
                                    const uint8_t* occupancy, vf_memory occupancy_location);
/** The second half: waits for the submitted detection and lists its keypoints
 * (vf_detector_keypoints). VF_ERR_STATE without a pending vf_detector_submit. */
VF_API vf_status vf_detector_collect(vf_detector* detector);

/** The last detection's keypoints in increasing cell order (x, y in level-0 pixels: a level-k
 * pixel (u, v) maps to ((u + 0.5) * 2^k - 0.5, (v + 0.5) * 2^k - 0.5)). Valid until the next
 * detect or destroy. VF_ERR_STATE before a successful detect, or after one on CUDA with
 * host_results = 0. */
VF_API vf_status vf_detector_keypoints(const vf_detector* detector, const vf_keypoint** keypoints,
                                       int* count);

/** The last detection per cell, in the context's memory (device memory on CUDA): grid.cols *
 * grid.rows entries indexed by cell; a cell without a keypoint has score 0 and level -1.
 * VF_ERR_STATE before a successful detect, or on CUDA with host_results = 1 (the kernel then
 * writes the host list only: vf_detector_keypoints). */
VF_API vf_status vf_detector_cells(const vf_detector* detector, const vf_keypoint** cells);

/** The cell grid over level 0 (cell size, columns and rows). */
VF_API vf_status vf_detector_grid(const vf_detector* detector, vf_grid* grid);
/** The message of this detector's last failure; "" when none. */
VF_API const char* vf_detector_last_error(const vf_detector* detector);

#ifdef __cplusplus
}
#endif
#endif

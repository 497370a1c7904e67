// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * Keypoints and the feature grid: what the detector hands to the tracker and the feature
 * manager. The image is cut into cells of cell_width x cell_height level-0 pixels; the
 * detector keeps at most one keypoint per cell, and an occupancy mask (one byte per cell,
 * row-major, nonzero = the cell already holds a live track) tells it which cells to skip. */
#ifndef VF_KEYPOINT_H
#define VF_KEYPOINT_H

#ifdef __cplusplus
extern "C" {
#endif

/** A detected corner. */
typedef struct vf_keypoint {
  float x, y;  /**< level-0 pixel coordinates (pixel centres at integers) */
  float score; /**< detector response; larger is stronger */
  int level;   /**< pyramid level the corner was found on */
  int cell;    /**< grid cell index: row * cols + col */
} vf_keypoint;

/** The feature grid over level 0. */
typedef struct vf_grid {
  int cell_width, cell_height; /**< level-0 pixels */
  int cols, rows;              /**< cells across and down: ceil(image size / cell size) */
} vf_grid;

#ifdef __cplusplus
}
#endif
#endif

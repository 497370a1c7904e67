// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * Feature management: the live tracks of one camera. Each feature has a uint64 id (from 1,
 * never reused) and an age; tracking drops the lost ones (tracker status, forward-backward
 * check, image border); new keypoints from the detector are taken only in grid cells without a
 * live track and at a minimum distance from every live track, up to a cap; detection is due
 * every detect_every frames and whenever fewer than min_features are alive. Host-side
 * bookkeeping: all memory is allocated at create time. */
#ifndef VF_FEATURE_SET_H
#define VF_FEATURE_SET_H

#include <stdint.h>
#include <viofront/vf_keypoint.h>
#include <viofront/vf_tracker.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One live feature. */
typedef struct vf_track {
  uint64_t id;      /**< unique, never reused, the first is 1 */
  float x, y;       /**< level-0 position in the latest image */
  float gain, bias; /**< photometric parameters of the last track (1, 0 when new) */
  float residual;   /**< RMS residual of the last track (0 when new) */
  float score;      /**< detector score at birth */
  int level;        /**< pyramid level the corner was detected on */
  int age;          /**< frames tracked since detection (0 when new) */
  int slot;         /**< the tracker's template slot (first-observation templates) */
} vf_track;

/** Track policy (vf_feature_set_config_default()). */
typedef struct vf_feature_set_config {
  int width, height;      /**< image size */
  vf_grid grid;           /**< replenishment grid: cols = ceil(width / cell_width), same for rows */
  int max_features;       /**< cap, 1..1048576 and at most the tracker's max_features */
  int min_features;       /**< fewer live tracks than this: detection is due */
  int detect_every;       /**< detection is also due every this many frames (1 = every frame, which
                             keeps the count steady); 0 = only below min_features. When > 0, a
                             cell whose new feature is gone by the next detection is skipped by
                             the next 8 (its corners do not track), unless it was refused
                             (vf_feature_set_refuse) */
  float min_distance;     /**< px between a new feature and any live track; 0 = no limit */
  float border;           /**< px: tracks and keypoints closer to the image edge are dropped */
  float fb_threshold;     /**< px: a track tracked back that lands farther than this from where it
                             started is dropped; 0 = no forward-backward check */
  int fb_from_prediction; /**< 0: the backward track starts at the forward result (a check that does
                             not trust the prediction); 1: at the forward result moved back by the
                             predicted motion (for motions beyond the pyramid's reach) */
  float start_radius;     /**< px, >= 0: in a frame whose guesses are the gyroscope's, as the
                             previous frame's were, a track whose guess last missed its result by
                             at most this starts on level 1 (two levels), with a level more each
                             time the miss doubles (a track that does not converge so is tracked
                             again from the coarsest level); 0 = every track on all levels */
} vf_feature_set_config;

/** What one vf_feature_set_track call did. */
typedef struct vf_track_stats {
  int tracked;      /**< kept */
  int out_of_image; /**< lost, by tracker status */
  int diverged;     /**< lost, by tracker status */
  int residual;     /**< lost, by tracker status (residual too large) */
  int invalid;      /**< lost, by tracker status (invalid input) */
  int inconsistent; /**< lost: unlike its reference patch (tracker refinement) */
  int backward;     /**< lost in the forward-backward check */
  int border;       /**< lost at the image border */
} vf_track_stats;

/** The live tracks of one camera (opaque). */
typedef struct vf_feature_set vf_feature_set;

/** 752x480, 32x32 cells (24x15), 400 features, detection every 4 frames and below 150, min
 * distance 15 px,
 * border 8 px, forward-backward threshold 0.5 px from the forward result. */
VF_API vf_feature_set_config vf_feature_set_config_default(void);
/** Validates the policy and allocates everything. */
VF_API vf_status vf_feature_set_create(const vf_feature_set_config* config, vf_feature_set** out);
/** Frees everything; safe on NULL. */
VF_API void vf_feature_set_destroy(vf_feature_set* set);

/** Tracks every live feature from `prev` to `cur` with `tracker` (its template mode decides
 * whether the set keeps first-observation templates), then applies the forward-backward and
 * border checks. predicted_xy: NULL (start from the previous positions) or one (x, y) per
 * feature in vf_feature_set_features order; a NaN pair falls back to the previous position.
 * stats may be NULL. Features keep their order; lost ones leave (vf_feature_set_lost). */
VF_API vf_status vf_feature_set_track(vf_feature_set* set, vf_tracker* tracker,
                                      const vf_pyramid* prev, const vf_pyramid* cur,
                                      const float* predicted_xy, vf_track_stats* stats);

/** Adds keypoints of the current image (best score first): at most one per grid cell without a
 * live track, min_distance from every live and newly added feature, inside the border, up to
 * max_features. Keypoints with NaN or out-of-image positions are skipped. added may be NULL. */
VF_API vf_status vf_feature_set_add(vf_feature_set* set, const vf_keypoint* keypoints, int count,
                                    int* added);

/** The detector's occupancy mask: one byte per grid cell, row-major, 1 where a live track is,
 * else 0. cells must be grid.cols * grid.rows. */
VF_API vf_status vf_feature_set_occupancy(const vf_feature_set* set, uint8_t* mask, int cells);

/** Drops the features with these ids (a backend's rejection); unknown ids are ignored.
 * removed may be NULL. */
VF_API vf_status vf_feature_set_remove(vf_feature_set* set, const uint64_t* ids, int count,
                                       int* removed);
/** As vf_feature_set_remove, for new features the caller will not track (age 0, e.g. born on a
 * depth edge): their cells are not backed off (see detect_every) and may be refilled at the next
 * detection, since the corner was refused, not found untrackable. Older features are removed as
 * by vf_feature_set_remove. */
VF_API vf_status vf_feature_set_refuse(vf_feature_set* set, const uint64_t* ids, int count,
                                       int* removed);

/** Nonzero when fewer than min_features are alive. */
VF_API int vf_feature_set_needs_detection(const vf_feature_set* set);
/** Nonzero when detection is due on frame number `frame` (0 = the first): fewer than
 * min_features alive, or detect_every > 0 and frame a multiple of it. */
VF_API int vf_feature_set_detection_due(const vf_feature_set* set, uint64_t frame);
/** Number of live features. */
VF_API int vf_feature_set_count(const vf_feature_set* set);
/** The live features (vf_feature_set_count of them), valid until the next call that changes the
 * set. */
VF_API const vf_track* vf_feature_set_features(const vf_feature_set* set);
/** The ids dropped by the last vf_feature_set_track, vf_feature_set_remove or
 * vf_feature_set_refuse call. */
VF_API const uint64_t* vf_feature_set_lost(const vf_feature_set* set, int* count);
/** The message of this set's last failure; "" when none. */
VF_API const char* vf_feature_set_last_error(const vf_feature_set* set);

#ifdef __cplusplus
}
#endif
#endif

// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * The frontend: stereo frames and IMU samples in, tracked features and a dense disparity map
 * out through callbacks. Per frame: rectify both images, build the left pyramid, track the live
 * features from the previous frame (seeded by the gyroscope when IMU samples cover the frame
 * interval, or by the backend's predictions), drop those failing the forward-backward or border
 * check, detect new corners in grid cells without a live track, run stereo matching on the
 * rectified pair, and attach to every feature its disparity and depth. Then the callbacks run,
 * before vf_frontend_process returns.
 *
 * Tracking happens in the rectified left image (a pinhole image: the gyroscope's rotation maps
 * points exactly, and disparities are read at the tracked position); every feature record also
 * carries the raw (distorted) pixel and the undistorted normalized coordinates of the original
 * camera, which is what VIO backends (VINS-Fusion, OpenVINS, Kimera, Basalt) consume.
 *
 * Threads: a frontend is used by one thread at a time; callbacks run on that thread. */
#ifndef VF_FRONTEND_H
#define VF_FRONTEND_H

#include <stdint.h>

#include <viofront/vf_camera.h>
#include <viofront/vf_context.h>
#include <viofront/vf_detector.h>
#include <viofront/vf_feature_set.h>
#include <viofront/vf_image.h>
#include <viofront/vf_rectify.h>
#include <viofront/vf_sampler.h>
#include <viofront/vf_stereo.h>
#include <viofront/vf_tracker.h>

#ifdef __cplusplus
extern "C" {
#endif

/** vf_feature.flags: what the disparity map shows around a feature (both cameras' records of a
 * track carry the left feature's flags). Depth edge: the map steps by more than edge_max_jump
 * between neighbouring pixels under the feature, likely a junction of two surfaces rather than
 * one 3-D point. Depth holes: pixels under the feature have no disparity (an occlusion beside a
 * depth edge, or too little texture). Right occluded: the camera-1 record was withheld because a
 * nearer surface hides the stereo match (the left-right check at the feature). */
#define VF_FEATURE_DEPTH_EDGE                                                                      \
  0x1u                                 /**< the map steps by more than edge_max_jump (sparse mode: \
                                            the cells' step by more than sparse_edge_max_step) */
#define VF_FEATURE_DEPTH_HOLES 0x2u    /**< pixels under the feature have no disparity */
#define VF_FEATURE_RIGHT_OCCLUDED 0x4u /**< the camera-1 record was withheld (occluded) */

/** Why a left feature has no camera-1 record (vf_feature_frame.right_missing). */
typedef enum vf_right_missing {
  VF_RIGHT_NO_DISPARITY = 0, /**< the map has no disparity at the feature */
  VF_RIGHT_OCCLUDED,         /**< withheld: its match fails the left-right check */
  VF_RIGHT_OUTSIDE,          /**< withheld: its match falls outside the right camera's image */
  VF_RIGHT_AMBIGUOUS,        /**< sparse stereo: another disparity matches nearly as well */
  VF_RIGHT_LOW_CORRELATION,  /**< sparse stereo: the matched windows correlate too little */
  VF_RIGHT_NO_IMAGE,         /**< sparse stereo: this frame's right image was missing or unusable
                                  (vf_frontend_process logged why) */
  VF_RIGHT_MISSING_REASONS   /**< number of reasons (not a reason) */
} vf_right_missing;

/** One observation of a track in one camera. Float fields are NaN when unknown. */
typedef struct vf_feature {
  uint64_t id;          /**< track id, unique for the frontend's lifetime, never reused */
  int camera;           /**< 0 = left (tracked), 1 = right (the left feature's stereo match) */
  int age;              /**< frames this track has been observed in, 1 for a new feature */
  int level;            /**< pyramid level it was detected on */
  float score;          /**< detector score at detection */
  float u, v;           /**< raw (distorted) pixel of this camera */
  float x, y;           /**< undistorted normalized coordinates of this camera (X/Z, Y/Z) */
  float vx, vy;         /**< normalized velocity (1/s); 0 for a new feature */
  float u_rect, v_rect; /**< pixel in the rectified image of this camera */
  float disparity;      /**< rectified disparity in pixels (left u_rect - right u_rect) */
  float depth_m;    /**< depth along the rectified left camera's axis: f * baseline / disparity */
  float gain, bias; /**< photometric change to the track's template: I = gain * T + bias */
  uint32_t flags;   /**< VF_FEATURE_* bits */
} vf_feature;

/** How the frontend finds each feature's stereo match (vf_frontend_config.stereo_mode). */
typedef enum vf_frontend_stereo_mode {
  /** A dense disparity map (SGM or another vf_stereo method) every frame; features read their
   * disparity from it and refine it; the map goes to on_disparity. */
  VF_FRONTEND_STEREO_DENSE = 0,
  /** No dense map: each feature is matched alone along its rectified row
   * (vf_sampler_match_stereo), from its previous disparity where it has one; the depth-edge flag
   * and the birth check come from the depth step of the match's cells. A map is still computed
   * every dense_every-th frame when asked for (for on_disparity only). */
  VF_FRONTEND_STEREO_SPARSE
} vf_frontend_stereo_mode;

/** Wall or GPU time of each stage of the frame, milliseconds. On CUDA the stages are timed with
 * events on the frontend's streams: with stereo on, the right image's rectification and the
 * stereo stage run on a second stream of the frontend's own, overlapping the pyramid, tracking
 * and detection, so the stages add up to more than the frame; the features stage, the frame's
 * last and the host's work, is host time from its start to the records built (reading the
 * times then waits for no event); total_ms is the host time of vf_frontend_process. */
typedef struct vf_stage_times {
  double rectify_ms;                      /**< upload of host images included */
  double pyramid_ms, track_ms, detect_ms; /**< the stages */
  double stereo_ms;   /**< SGM (dense) or the features' matching (sparse; on CUDA the tracked
                         tracks' matching runs behind the tracking and counts in track_ms) */
  double features_ms; /**< the birth check and the feature records */
  double total_ms;    /**< host time of vf_frontend_process */
} vf_stage_times;

/** The features of one frame (the on_features callback). */
typedef struct vf_feature_frame {
  int64_t t_ns;                /**< the frame's time, ns */
  uint64_t sequence;           /**< 0 for the first processed frame */
  int count;                   /**< records in `features` */
  const vf_feature* features;  /**< camera 0 records first, then camera 1 (when enabled) */
  int tracked, detected, lost; /**< this frame: tracks continued, new tracks, tracks dropped */
  int right_missing[VF_RIGHT_MISSING_REASONS]; /**< left features without a camera-1 record, by
                                                  reason (0 when right_features is off) */
  /** rectified stereo geometry: a point at depth z has disparity f * baseline_m / z */
  double f, cx, cy, baseline_m; /**< rectified focal length and principal point (px), baseline */
  double R1[9], R2[9];          /**< row-major rotations raw camera k -> rectified camera k */
  vf_stage_times times;         /**< per-stage times of this frame */
} vf_feature_frame;

/** The disparity map of one frame (the on_disparity callback). */
typedef struct vf_disparity_frame {
  int64_t t_ns;            /**< the frame's time, ns */
  uint64_t sequence;       /**< as vf_feature_frame.sequence */
  vf_image disparity;      /**< U16 of the rectified size: value / 2^VF_STEREO_SUBPIXEL_BITS pixels
                              with sub-pixel on, whole pixels otherwise; VF_STEREO_INVALID where
                              unknown. Host or device memory (vf_frontend_config.disparity_location);
                              valid during the callback only. */
  vf_image rectified_left; /**< the 8-bit rectified left image the map belongs to, in the same
                              memory as the map; valid during the callback only */
  int fractional_bits;     /**< 4 with sub-pixel on, else 0 */
  int min_disparity, max_disparity; /**< the searched range, pixels */
  double f, cx, cy, baseline_m; /**< rectified focal length and principal point (px), baseline */
} vf_disparity_frame;

/** Receives each frame's features, before vf_frontend_process returns. */
typedef void (*vf_on_features_fn)(const vf_feature_frame* frame, void* user);
/** Receives each frame's disparity map, before vf_frontend_process returns. */
typedef void (*vf_on_disparity_fn)(const vf_disparity_frame* frame, void* user);

/** Where the frontend hands its results. */
typedef struct vf_frontend_callbacks {
  vf_on_features_fn on_features;   /**< may be NULL */
  vf_on_disparity_fn on_disparity; /**< may be NULL: then no stereo map is handed out */
  void* user;                      /**< passed to both callbacks */
} vf_frontend_callbacks;

/** Every stage's settings (vf_frontend_config_default(), vf_frontend_config_load()). */
typedef struct vf_frontend_config {
  vf_camera cam0, cam1;           /**< raw cameras; cam0 is the left, tracked one */
  vf_rectify_config rectify;      /**< stereo rectification */
  int pyramid_levels;             /**< 1..8; at least the tracker's and detector's levels */
  vf_detector_config detector;    /**< width/height are set from the rectified size */
  vf_tracker_config tracker;      /**< the feature tracker */
  vf_feature_set_config features; /**< track policy; width, height and grid are set from the
                                     rectified size and the detector's grid */
  vf_stereo_config stereo;        /**< width/height are set from the rectified size */
  int stereo_enabled;             /**< 0: no disparity, features get NaN disparity/depth */
  int right_features;      /**< 1: also emit a camera-1 record for features with a disparity that
                              passes the left-right check and falls inside the right image */
  float right_max_lr_diff; /**< px: a camera-1 record is withheld when a nearer surface right of the
                              feature maps onto its match (left-right check from the map, see
                              vf_disparity_probe.occluder) with a disparity larger by more than
                              this; 0 = no check */
  int edge_radius;         /**< the window (2 r + 1)^2 under a feature that the depth flags look at,
                              0..15 */
  float edge_max_jump;     /**< px: a larger step between neighbouring pixels of that window sets
                              VF_FEATURE_DEPTH_EDGE */
  int birth_edge_radius;   /**< a new track is not kept when its first frame's disparity map shows
                              a depth edge in the window (2 r + 1)^2 around it: a step between
                              neighbouring pixels over max(birth_max_jump, birth_max_jump_ratio
                              x the disparity at the track), or more than birth_max_holes pixels
                              without disparity. Such a corner is a junction of two surfaces that
                              slides over both (docs/perf/drift_tail.md); 0..15, 0 = off;
                              default 10 (the refinement's reference patch) */
  float birth_max_jump;    /**< px, 0..4096: the smallest step that is an edge; default 0.5 (dense
                              mode; sparse mode takes sparse_edge_max_step) */
  float birth_max_jump_ratio;  /**< 0..1: a step is an edge only when also larger than this
                                  fraction of the track's disparity (a relative change of depth, so
                                  that surfaces seen close and slanted are not edges); 0 = the
                                  absolute threshold alone; default 0.03 */
  int birth_max_holes;         /**< -1..961: a window with more pixels without disparity than
                                  this is an edge (occlusions border depth edges); -1 = holes are
                                  not counted (the default: on real maps they are mostly
                                  unmatched texture, not occlusions) */
  int birth_candidates;        /**< 1..8: while fewer than features.min_features tracks are alive
                                  (the first frames), the birth check may try this many corners a
                                  cell, the best of each band of cell_height / birth_candidates
                                  rows, and the best that passes becomes the cell's new track; 1 =
                                  the cell's best corner only. detector.cell_height must be a
                                  multiple of birth_candidates x 2^detector.max_level. Default 4 */
  int disparity_refine_radius; /**< r > 0: each feature's disparity is matched to sub-pixel
                                  accuracy in the rectified pair from the map's value, window
                                  (2 r + 1)^2 (vf_sampler_refine_disparity), where the map's
                                  sub-pixel fit and smoothness bias it; the map's value is kept
                                  where the match fails; 0..10, 0 = the map's value; default 7
                                  (docs/estimator.md) */
  float slide_max;  /**< px, 0..4096: a track whose image motion, summed over its life, departs from
                       the rigid motion that the frame's tracks share by more than this is ended
                       (a corner on the junction of two surfaces that slides over both, something
                       moving). The motion is fitted each frame to the tracks with a disparity in
                       the previous frame (rotation from the gyroscope, then six degrees of
                       freedom, robust weights: vf_rigid_motion_residuals); 0 = off; default 0.7
                       (docs/estimator.md) */
  int gyro_seeding; /**< 1: seed tracking with the gyroscope rotation when available */
  int imu_capacity; /**< IMU samples kept */
  int64_t imu_max_gap_ns; /**< a larger gap between IMU samples disables seeding for the frame */
  double imu_timeshift_s; /**< s, -1..1: the IMU clock's time of a frame minus the frame's time
                             (Kalibr's timeshift_cam_imu: t_imu = t_cam + shift). The gyroscope
                             is integrated between the frames' times plus this, rounded to the ns;
                             records and callbacks keep the frames' times. With a positive shift,
                             push IMU samples up to a frame's time plus the shift before the frame,
                             or it is not seeded. Default 0; the rig frontend sets it per unit from
                             vf_rig.timeshift_s */
  vf_memory disparity_location; /**< where the disparity frame's map lives (device only on CUDA) */
  vf_frontend_stereo_mode stereo_mode; /**< dense (default) or sparse stereo, with stereo_enabled */
  int dense_every; /**< sparse mode: a dense map also every this many frames (the first frame
                      included), handed to on_disparity; 0 = never (default) */
  float sparse_edge_max_step;    /**< px, sparse mode: a feature's records get VF_FEATURE_DEPTH_EDGE
                                    when the depth step of its match's cells
                                    (vf_stereo_match.spread) is larger; default 4 (a step between
                                    cells several pixels apart, not the map's neighbour jump that
                                    edge_max_jump bounds; docs/perf/sparse_stereo.md). The birth
                                    check's floor too, in place of birth_max_jump */
  float sparse_birth_max_loss;   /**< sparse mode with the birth check (birth_edge_radius > 0): a
                                    new track is not kept when its match's correlation loss
                                    (1 - vf_stereo_match.zncc) is over this many times the median
                                    loss of the last 128 births with a match (once there are 32):
                                    a window across a depth step matches worse than the images'
                                    noise lets a corner on one surface match. 0 = off, else
                                    1..1000; default 2 (docs/perf/sparse_stereo.md) */
  vf_stereo_match_config sparse; /**< sparse mode's matcher; its disparity range is set from
                                    stereo's (min_disparity .. min_disparity + disparities - 1),
                                    its step_radius from max(edge_radius, birth_edge_radius,
                                    9), its refine.radius from disparity_refine_radius when
                                    that is > 0 */
} vf_frontend_config;

/** The whole frontend (opaque): stages, feature set, IMU buffer and callbacks. */
typedef struct vf_frontend vf_frontend;

/** Default stage settings (4 levels, FAST n 10 in 32x32 cells on levels 0-2, 16/16/8/8 patches
 * with previous-frame templates and reference refinement (21x21), 4-path SGM with 64 disparities
 * and sub-pixel), the feature set's defaults (400-track cap, detection every 4 frames and below
 * 150, 15 px apart, forward-backward check at 0.5 px), gyro seeding on, camera-1 records with the
 * left-right check at 1 px, depth flags over 9x9 pixels at a 1 px step, disparity in the context's
 * memory. The cameras are vf_camera_default(): set cam0 and cam1 (e.g. from vf_euroc_camera or a
 * config file) before vf_frontend_create. */
VF_API vf_frontend_config vf_frontend_config_default(void);

/** Reads a viofront YAML file (see config/euroc.yaml and vf_config.h) over the defaults; errors
 * name the file, line and key. Unknown sections and keys are skipped with a warning
 * ("<file>:<line>: unknown key 'features.max_featurs' ignored") through the log callback of
 * `log` (may be NULL: not reported). The cameras in `config` are kept unless the file gives
 * both; has_cameras (may be NULL) tells which (0: take them from the dataset, e.g.
 * vf_euroc_camera). */
VF_API vf_status vf_frontend_config_load(const char* path, const vf_context* log,
                                         vf_frontend_config* config, int* has_cameras);

/** Validates everything (messages name the field), rectifies, and allocates every buffer. */
VF_API vf_status vf_frontend_create(vf_context* ctx, const vf_frontend_config* config,
                                    const vf_frontend_callbacks* callbacks, vf_frontend** out);
/** Safe on NULL and after a failed create. */
VF_API void vf_frontend_destroy(vf_frontend* frontend);

/** Appends one IMU sample (gyro rad/s, acc m/s^2, body frame). Timestamps must increase
 * strictly: VF_ERR_TIMESTAMP otherwise, the sample dropped and the frontend unchanged. */
VF_API vf_status vf_frontend_push_imu(vf_frontend* frontend, int64_t t_ns, const double gyro[3],
                                      const double acc[3]);

/** Processes one stereo frame (8-bit raw images of the cameras' size, host or, on CUDA, device
 * memory) and runs the callbacks. Frame timestamps must increase strictly (VF_ERR_TIMESTAMP,
 * the frame skipped, the state unchanged). A missing or unusable right image (NULL, another
 * size or format) refuses the frame in dense mode; in sparse mode the left tracks go on without
 * camera-1 records (each counted as VF_RIGHT_NO_IMAGE, no disparity map that frame, new tracks
 * kept without the depth-edge check) and a warning says why. */
VF_API vf_status vf_frontend_process(vf_frontend* frontend, int64_t t_ns, const vf_image* left,
                                     const vf_image* right);

/** Back channel, for the next frame: predicted raw left pixels of tracks (e.g. from the
 * backend's pose prediction), used as their initial guess instead of the gyroscope's. Unknown
 * ids are ignored; returns VF_OK. */
VF_API vf_status vf_frontend_predict(vf_frontend* frontend, const uint64_t* ids, const float* uv,
                                     int count);

/** Back channel: the backend rejects these tracks (outliers); they are dropped now and their
 * cells become free for new features. Unknown ids are ignored. */
VF_API vf_status vf_frontend_reject(vf_frontend* frontend, const uint64_t* ids, int count);

/** The rectification in use (f, cx, cy, baseline, R1, R2, P1, P2, Q). */
VF_API vf_status vf_frontend_rectification(const vf_frontend* frontend,
                                           vf_stereo_rectification* out);
/** How far past a frame's time (ns) the IMU samples must reach before vf_frontend_process for
 * the frame's gyroscope seed: imu_timeshift_s rounded to the ns when positive, else 0 (0 for
 * NULL). A frame whose interval the samples do not cover yet is tracked without the seed and
 * warned about. */
VF_API int64_t vf_frontend_imu_lead_ns(const vf_frontend* frontend);
/** The message of this frontend's last failure; "" when none. */
VF_API const char* vf_frontend_last_error(const vf_frontend* frontend);

#ifdef __cplusplus
}
#endif
#endif

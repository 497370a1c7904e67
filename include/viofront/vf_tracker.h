// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * Feature tracker: pyramidal inverse-compositional Lucas-Kanade with a translation and an
 * affine photometric model, current(p + x) = gain * template(x) + bias. The template's
 * Jacobian and Hessian are fixed (Bartoli 2008, "Groupwise geometric and photometric direct
 * image registration", inverse-compositional photometric update), so each iteration costs one
 * pass over the patch. Coarse-to-fine over the pyramid; on CUDA one warp tracks one feature
 * and all features of a call go in one kernel launch. */
#ifndef VF_TRACKER_H
#define VF_TRACKER_H

#include <stdint.h>
#include <viofront/vf_context.h>
#include <viofront/vf_imu.h>
#include <viofront/vf_pyramid.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VF_TRACKER_MIN_PATCH 3  /**< smallest patch side */
#define VF_TRACKER_MAX_PATCH 16 /**< largest patch side */

/** Where a track's template comes from. */
typedef enum vf_template_mode {
  VF_TEMPLATE_PREVIOUS_FRAME = 0, /**< template taken from the previous image every call */
  VF_TEMPLATE_FIRST_OBSERVATION   /**< template kept from the track's first image (per slot) */
} vf_template_mode;

/** What became of one tracked feature (vf_track_result.status). */
typedef enum vf_track_status {
  VF_TRACK_CONVERGED = 0,      /**< tracked */
  VF_TRACK_OUT_OF_IMAGE,       /**< the level-0 patch left the image (or started outside it) */
  VF_TRACK_DIVERGED,           /**< no convergence in max_iterations, flat template, gain out of
                                  range, or wandered farther than the pyramid reaches */
  VF_TRACK_RESIDUAL_TOO_LARGE, /**< converged, but the RMS residual exceeds max_residual */
  VF_TRACK_INVALID,            /**< NaN/infinite input or a slot outside 0..max_features-1 */
  VF_TRACK_INCONSISTENT        /**< refined, but no longer like its reference patch (correlation
                                  below refine_min_ncc): occluded or on something else now */
} vf_track_status;

/** vf_track_result.flags */
#define VF_TRACK_REFINED 1u /**< the position was refined against the track's reference patch */
#define VF_TRACK_REANCHOR                                                    \
  2u /**< the patch deformed past refine_max_scale since its reference: take \
        a new one (request new_template) on the next call */

#define VF_TRACKER_MIN_REF_PATCH 7  /**< smallest reference patch side (refine_patch) */
#define VF_TRACKER_MAX_REF_PATCH 31 /**< largest reference patch side (refine_patch) */

/** Tracker parameters (vf_tracker_config_default()). */
typedef struct vf_tracker_config {
  int levels;                            /**< pyramid levels used, 1..VF_PYRAMID_MAX_LEVELS */
  int patch_size[VF_PYRAMID_MAX_LEVELS]; /**< patch side per level, 3..16 (levels used only) */
  int max_features;                      /**< features per call and template slots, 1..1048576 */
  int max_iterations;                    /**< level 0, 1..100 */
  int coarse_iterations;    /**< each coarser level, 1..100: they only have to land level 0 in its
                               basin (docs/perf/tracker.md) */
  float min_update;         /**< stop a level when the translation step is below this (level px) */
  float max_residual;       /**< RMS residual limit in grey levels; 0 = no limit */
  float min_gain, max_gain; /**< a gain outside [min_gain, max_gain] means diverged */
  int estimate_gain;        /**< 0: gain stays at the request's value */
  int estimate_bias;        /**< 0: bias stays at the request's value */
  vf_template_mode template_mode; /**< previous-frame or first-observation templates */
  /** Reference refinement: every track with a slot keeps a reference patch taken where its
   * template is taken (new_template), and each converged result is refined against it with an
   * affine warp plus gain and bias, so that the track stays on the point it started on instead
   * of sliding as the view changes (src/vf_tracker_affine.h). */
  int refine;             /**< nonzero: on (needs slots: requests with slot >= 0) */
  int refine_patch;       /**< reference side in level-0 pixels, odd, 7..31 */
  int refine_iterations;  /**< 1..100 */
  float refine_min_ncc;   /**< end tracks whose correlation with the reference falls below; 0 off */
  float refine_max_scale; /**< > 1: set VF_TRACK_REANCHOR past this stretch or shrink */
  float refine_max_shift; /**< px the refinement may move the frame-to-frame result, > 0: with
                             previous-frame templates that step is unbiased, so a larger
                             correction means the two disagree (occlusion, a slide) */
  float refine_shape_prior; /**< >= 0: how strongly a frame's shape change is held back, relative
                               to the data (blur changes otherwise pass for stretch) */
  int refine_one_launch;    /**< CUDA: nonzero (the default) = a call the GPU holds at once
                               tracks and refines in one launch, faster when the tracker has the
                               GPU to itself; 0 = two kernels, which hold less of the GPU while
                               tracking, so other work beside them (the frontend's SGM on its
                               second stream) runs faster. Same results either way. */
} vf_tracker_config;

/** One feature to track from the previous image to the current one. */
typedef struct vf_track_request {
  float x, y; /**< position in the previous image (level-0 pixels, centres at integers) */
  float guess_x, guess_y; /**< initial position in the current image: x, y, a prediction from the
                             backend, or vf_tracker_predict_rotation's */
  float gain, bias;       /**< starting photometric parameters (1, 0 for a new track) */
  int slot;               /**< first-observation mode or refinement: the track's slot (template and
                             reference), or -1 for a track that keeps none (backward checks); else
                             ignored */
  int new_template;       /**< with a slot: nonzero = (re)take the slot's template and reference
                             from the previous image at (x, y) before tracking */
} vf_track_request;

/** The outcome of one request. */
typedef struct vf_track_result {
  float x, y;       /**< position in the current image (level-0 pixels) */
  float gain, bias; /**< current = gain * template + bias */
  float residual;   /**< RMS of the photometrically normalised residual at level 0, grey levels */
  int iterations;   /**< summed over the levels (and the refinement's) */
  vf_track_status status; /**< converged, or why not */
  unsigned flags;         /**< VF_TRACK_REFINED, VF_TRACK_REANCHOR */
  float ncc;              /**< refined: correlation with the reference patch, else 0 */
  float shape[4]; /**< refined: the affine map reference -> current (row-major), else identity */
  float frame_x, frame_y; /**< refined: the frame-to-frame result before refinement (x, y above are
                             refined), for checks of the frame-to-frame step alone */
} vf_track_result;

/** A Lucas-Kanade tracker (opaque) with its buffers and template slots. */
typedef struct vf_tracker vf_tracker;

/** 4 levels, patches 16/16/8/8, 1024 features, 16 iterations on level 0 and 3 on each coarser
 * level, min_update 0.01 px, max_residual 30, gain in [0.3, 3], gain and bias estimated,
 * previous-frame templates; refinement off (when on: 21x21 reference, 3 iterations, correlation >=
 * 0.9, re-anchor past 1.25x, at most 0.4 px of correction, no shape prior). */
VF_API vf_tracker_config vf_tracker_config_default(void);

/** Every buffer (device buffers and pinned staging on CUDA, template slots in first-observation
 * mode) is allocated here, sized by max_features; tracking allocates nothing. */
VF_API vf_status vf_tracker_create(vf_context* ctx, const vf_tracker_config* config,
                                   vf_tracker** out);
/** Frees everything; safe on NULL. */
VF_API void vf_tracker_destroy(vf_tracker* tracker);
/** The configuration the tracker was made with. */
VF_API vf_status vf_tracker_get_config(const vf_tracker* tracker, vf_tracker_config* out);

/** Tracks `count` features (0..max_features) from `prev` to `cur`: two pyramids of this
 * tracker's context, the same size, at least `levels` levels. Per-feature trouble (outside the
 * image, NaN, lost) is reported in results[i].status, never as an error. Synchronous: the
 * results are in `results` on return (on CUDA: one upload, one launch, one download). */
VF_API vf_status vf_tracker_track(vf_tracker* tracker, const vf_pyramid* prev,
                                  const vf_pyramid* cur, const vf_track_request* requests,
                                  int count, vf_track_result* results);

/** vf_tracker_track with the forward-backward check in the same pass: each request whose result
 * converged is also tracked back from `cur` to `prev`, from the frame-to-frame step's position
 * (results[i].frame_x/y when refined, else x/y), with a template taken from `cur` and no slot,
 * starting there or, with `from_guess`, moved back by the offset between the request's guess and
 * its position. back[i] is that result; where results[i] did not converge it echoes the backward
 * request with status VF_TRACK_INVALID. The same results as vf_tracker_track followed by a
 * second call on those backward requests with the pyramids swapped; on CUDA one launch tracks
 * both ways (the refinement runs beside the backward pass) and the call waits once. */
VF_API vf_status vf_tracker_track_checked(vf_tracker* tracker, const vf_pyramid* prev,
                                          const vf_pyramid* cur, const vf_track_request* requests,
                                          int count, int from_guess, vf_track_result* results,
                                          vf_track_result* back);

/** vf_tracker_track in two halves, so that the GPU work overlaps the caller's: submit checks
 * everything and queues it (on CUDA one upload, one launch and one download on the context's
 * stream; the CPU backend tracks at once); collect waits for the latest submission and copies
 * its `count` results. A new submission replaces the results not yet collected. */
VF_API vf_status vf_tracker_submit(vf_tracker* tracker, const vf_pyramid* prev,
                                   const vf_pyramid* cur, const vf_track_request* requests,
                                   int count);
/** The second half of vf_tracker_track: waits for the latest submission, copies its results. */
VF_API vf_status vf_tracker_collect(vf_tracker* tracker, vf_track_result* results);

/** The tracker's own request array, room for max_features requests. Requests written there and
 * passed as `requests` to vf_tracker_submit, vf_tracker_track or vf_tracker_track_checked are
 * used where they lie, not copied: on CUDA the array is the page-locked memory the kernel reads,
 * and the copy it saves lies on the call's critical path (8.5 us at 4000 features on the H100's
 * host, docs/perf/tracker.md). Waits first, where needed, until the previous submission has read
 * its requests: ask again before each rewrite. The array lives as long as the tracker. */
VF_API vf_status vf_tracker_request_buffer(vf_tracker* tracker, vf_track_request** out);

/** vf_tracker_collect without the copy: waits for the latest submission, then points *results at
 * its *count results where the tracker keeps them (page-locked memory on CUDA). They stay valid
 * until the next submission or vf_tracker_destroy. */
VF_API vf_status vf_tracker_collect_in_place(vf_tracker* tracker, const vf_track_result** results,
                                             int* count);

/** A request for a fresh track at (x, y): guess (x, y), gain 1, bias 0, slot `slot`, new
 * template. */
VF_API vf_track_request vf_track_request_make(float x, float y, int slot);

/** The camera rotation R_c0_c1 between the previous and the current image of the next
 * submissions (conventions of vf_tracker_predict_rotation), with K = (fx, fy, cx, cy) of an
 * undistorted image: the reference refinement then starts each track's shape from the local
 * linear map of the rotation's homography at the track times its kept shape, instead of the kept
 * shape alone (the IMU's prior of the shape: a roll turns every patch). R_c0_c1 NULL clears it
 * (K may then be NULL too). Stays in force until the next call. */
VF_API vf_status vf_tracker_set_rotation(vf_tracker* tracker, const double K[4],
                                         const double R_c0_c1[9]);

/** Rotation-only prediction p1 = K R^T K^-1 p0 with R = R_c0_c1 (the camera at the current
 * frame relative to the previous one: a vector in c1 times R gives it in c0) and
 * K = (fx, fy, cx, cy) of an undistorted image. Points that would land behind the camera keep
 * their position. xy_in and xy_out hold count (x, y) pairs and may be the same array. */
VF_API vf_status vf_tracker_predict_rotation(const double K[4], const double R_c0_c1[9],
                                             const float* xy_in, int count, float* xy_out);

/** The rotation R_c0_c1 of a camera over [t0_ns, t1_ns] from the gyroscope:
 * R_b_c^T R_b0_b1 R_b_c with R_b0_b1 integrated by vf_imu_buffer_rotation and R_b_c the
 * camera-to-body rotation (row-major), in the convention of vf_tracker_predict_rotation and
 * vf_tracker_set_rotation. Fails like vf_imu_buffer_rotation when the IMU does not cover the
 * interval. */
VF_API vf_status vf_tracker_gyro_rotation(const vf_imu_buffer* imu, int64_t t0_ns, int64_t t1_ns,
                                          const double R_b_c[9], double R_c0_c1[9]);

/** The same from the gyroscope: R_c0_c1 = R_b_c^T R_b0_b1 R_b_c with R_b0_b1 integrated by
 * vf_imu_buffer_rotation over [t0_ns, t1_ns] and R_b_c the camera-to-body rotation (the
 * rotation part of EuRoC's T_BS). Fails like vf_imu_buffer_rotation when the IMU does not
 * cover the interval. */
VF_API vf_status vf_tracker_predict_gyro(const vf_imu_buffer* imu, int64_t t0_ns, int64_t t1_ns,
                                         const double R_b_c[9], const double K[4],
                                         const float* xy_in, int count, float* xy_out);

/** A short constant name of a track status; never NULL. */
VF_API const char* vf_track_status_str(vf_track_status status);
/** The message of this tracker's last failure; "" when none. */
VF_API const char* vf_tracker_last_error(const vf_tracker* tracker);

#ifdef __cplusplus
}
#endif
#endif

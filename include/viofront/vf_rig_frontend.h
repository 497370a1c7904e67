// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * One frontend over a camera rig (vf_rig.h, issue 37): one process call per synchronized image
 * set. Inside, one unit per stereo pair of the rig (a vf_frontend over the pair's two cameras)
 * and one per camera in no pair (a vf_frontend with stereo off), each with the per-unit
 * configuration given at create time and its rig cameras' calibration, so the gyroscope's seed of
 * each unit turns with its own tracked camera's extrinsic rotation (T_BS). Units are numbered
 * pairs first, in the rig's pair order, then the cameras in no pair, in camera order.
 *
 * Records carry rig camera indices: a unit's tracked camera (a pair's left one, or the mono
 * camera) in vf_feature.camera of its records, the pair's right camera in its camera-1 records.
 * Track ids are unique across the rig: a unit's own ids (1, 2, ...) with the unit's index in the
 * bits from VF_RIG_FRONTEND_ID_SHIFT up (vf_rig_frontend_id_unit() gives it back).
 *
 * IMU samples are given once (vf_rig_frontend_add_imu) and every unit gets them. Each unit reads
 * them on its tracked camera's clock: with Kalibr's shift of that camera (vf_rig.timeshift_s,
 * t_imu = t_cam + shift) a frame at t_ns is seeded by the gyroscope over the IMU's times
 * t_ns + shift (rounded to the ns); records and callbacks keep the set's time t_ns.
 *
 * Threads: the rig frontend is used by one thread at a time, and its callbacks run on that thread,
 * in unit order, after every unit has run. On the CPU backend, with two or more units to run and a
 * context of two or more CPU threads, the units of a frame run at once on the context's worker
 * threads, one unit per thread (each unit's stages then run on that one thread); the records are
 * the same either way. On CUDA the units run one after another on the context's stream. */
#ifndef VF_RIG_FRONTEND_H
#define VF_RIG_FRONTEND_H

#include <stdint.h>

#include <viofront/vf_context.h>
#include <viofront/vf_frontend.h>
#include <viofront/vf_image.h>
#include <viofront/vf_rig.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The lowest bit of a record's id that holds its unit's index (units hold ids below 2^56). */
#define VF_RIG_FRONTEND_ID_SHIFT 56

/** Seconds by which the time shifts (vf_rig.timeshift_s) of a stereo pair's two cameras may
 * differ: a pair's images are matched as taken at one instant. */
#define VF_RIG_FRONTEND_MAX_PAIR_SKEW_S 1e-3

/** The unit whose track a rig record's id names. */
static inline int vf_rig_frontend_id_unit(uint64_t id) {
  return (int)(id >> VF_RIG_FRONTEND_ID_SHIFT);
}

/** What one unit of a rig frontend runs over (vf_rig_frontend_unit()). */
typedef struct vf_rig_unit {
  int camera;       /**< rig index of the tracked camera: a pair's left camera, or a mono camera */
  int right_camera; /**< rig index of the pair's right camera; -1 for a mono unit */
  int pair;         /**< index into vf_rig.pairs; -1 for a mono unit */
} vf_rig_unit;

/** Receives one unit's features of a frame, records with rig camera indices and rig-wide ids.
 * For a mono unit the frame's baseline_m is 0 and R2 equals R1. */
typedef void (*vf_rig_on_features_fn)(int unit, const vf_feature_frame* frame, void* user);
/** Receives the disparity map of one stereo pair (its index in vf_rig.pairs) of a frame. */
typedef void (*vf_rig_on_disparity_fn)(int pair, const vf_disparity_frame* frame, void* user);

/** Where a rig frontend hands its results; the pointers in the frames are valid during the
 * callback only. */
typedef struct vf_rig_frontend_callbacks {
  vf_rig_on_features_fn on_features;   /**< may be NULL */
  vf_rig_on_disparity_fn on_disparity; /**< may be NULL: then no disparity map is handed out */
  void* user;                          /**< passed to both callbacks */
} vf_rig_frontend_callbacks;

/** The rig frontend (opaque): its units, their callbacks and the last frame's time. */
typedef struct vf_rig_frontend vf_rig_frontend;

/** Checks the rig (vf_rig_check) and makes one unit per pair and per camera in no pair from
 * `config` (its cam0 and cam1 are replaced by the rig's cameras, its imu_timeshift_s by the tracked
 * camera's vf_rig.timeshift_s, with a warning when it was not 0; a mono unit has stereo and
 * camera-1 records off). A pair whose two cameras' shifts differ by more than
 * VF_RIG_FRONTEND_MAX_PAIR_SKEW_S, or a shift outside -1..1 s, gives VF_ERR_INVALID_ARG. Messages
 * name the failing pair or unit and its cameras. On failure *out is NULL and nothing is left
 * allocated. */
VF_API vf_status vf_rig_frontend_create(vf_context* ctx, const vf_rig* rig,
                                        const vf_frontend_config* config, vf_rig_frontend** out);
/** Frees every unit; safe on NULL. */
VF_API void vf_rig_frontend_destroy(vf_rig_frontend* fe);

/** Sets the callbacks (NULL: none). VF_ERR_STATE from inside a callback. */
VF_API vf_status vf_rig_frontend_set_callbacks(vf_rig_frontend* fe,
                                               const vf_rig_frontend_callbacks* callbacks);

/** Number of units (0 for NULL). */
VF_API int vf_rig_frontend_unit_count(const vf_rig_frontend* fe);
/** The cameras and pair of unit `unit`. */
VF_API vf_status vf_rig_frontend_unit(const vf_rig_frontend* fe, int unit, vf_rig_unit* out);

/** Appends one IMU sample (gyro rad/s, acc m/s^2, body frame) for every unit. Timestamps must
 * increase strictly: VF_ERR_TIMESTAMP otherwise, the sample dropped and no unit changed. */
VF_API vf_status vf_rig_frontend_add_imu(vf_rig_frontend* fe, int64_t t_ns, const double gyro[3],
                                         const double acc[3]);

/** How far past a set's time (ns) the IMU samples must reach before vf_rig_frontend_process for
 * every unit's gyroscope seed: the largest unit's shift, rounded to the ns, 0 when none is
 * positive (0 for NULL). A unit whose window the samples do not cover yet is tracked without the
 * seed and warned about, as vf_frontend does. */
VF_API int64_t vf_rig_frontend_imu_lead_ns(const vf_rig_frontend* fe);

/** Processes one synchronized image set: `images` holds rig.camera_count entries, 8-bit images
 * of each camera's size (host memory, or device memory on CUDA), NULL for a camera that has no
 * image this time. A unit with a camera missing is skipped with a warning through the context's
 * log, and its tracks go on at its next frame; when every unit is skipped the call fails
 * (VF_ERR_INVALID_ARG). A wrong image (VF_ERR_INVALID_ARG naming the camera) or a time not after
 * the last one (VF_ERR_TIMESTAMP) is found before any unit runs: then nothing changes. Should a
 * unit fail while running, the others' results are still handed out and the first failure is
 * returned, naming its unit. */
VF_API vf_status vf_rig_frontend_process(vf_rig_frontend* fe, int64_t t_ns,
                                         const vf_image* const* images);

/** Back channel, for the next frame: predicted raw pixels (u, v pairs) of the tracked camera of
 * tracks named by rig ids, handed to each track's unit (vf_frontend_predict). Every id must name
 * an existing unit: else VF_ERR_INVALID_ARG and nothing is applied. May be called from inside a
 * callback. */
VF_API vf_status vf_rig_frontend_predict(vf_rig_frontend* fe, const uint64_t* ids, const float* uv,
                                         int count);
/** Ends the tracks named by rig ids in their units (vf_frontend_reject); the same checks as
 * vf_rig_frontend_predict. */
VF_API vf_status vf_rig_frontend_reject(vf_rig_frontend* fe, const uint64_t* ids, int count);

/** The message of this rig frontend's last failure; "" when none. */
VF_API const char* vf_rig_frontend_last_error(const vf_rig_frontend* fe);

#ifdef __cplusplus
}
#endif
#endif

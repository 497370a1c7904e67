// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * EuRoC MAV dataset reader (ASL folder layout): mav0/cam0 and mav0/cam1 (data.csv
 * "#timestamp [ns],filename" plus PNGs and sensor.yaml), mav0/imu0 (data.csv: int64 ns, gyro
 * x y z in rad/s, then accel x y z in m/s^2; sensor.yaml with noise densities) and, when present,
 * mav0/state_groundtruth_estimate0/data.csv (position, quaternion w x y z, velocity, biases).
 *
 * Stereo pairs are matched by timestamp within a tolerance; rows naming missing image files
 * are dropped and reported (counted in vf_euroc_info, each warned through the context log).
 * Replay is a time-ordered stream of IMU and stereo events over the image span (IMU samples
 * outside it are skipped); images are decoded ahead on a pool of threads into a bounded queue
 * and handed out in time order. */
#ifndef VF_EUROC_H
#define VF_EUROC_H

#include <stdint.h>
#include <viofront/vf_camera.h>
#include <viofront/vf_context.h>
#include <viofront/vf_image.h>
#include <viofront/vf_imu.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Reader options (vf_euroc_config_default()). */
typedef struct vf_euroc_config {
  int64_t stereo_tolerance_ns; /**< |t0 - t1| at most this pairs two images; default 1 ms */
  int prefetch;                /**< stereo pairs decoded ahead (the queue's depth, which bounds
                                  the memory: two images a pair), 0..64; 0 = in vf_euroc_next
                                  itself, no thread; default 8 */
  int decode_threads;          /**< threads decoding the queued pairs in parallel, 0..64 (0 and 1:
                                  one thread); at most `prefetch` are used; default min(cores, 8) */
  int pinned; /**< 1: the queued pairs are decoded into page-locked buffers (vf_image_alloc_pinned),
                 which a CUDA frontend uploads asynchronously instead of staging them while its
                 thread waits; where such memory cannot be had (a build without CUDA, no device),
                 ordinary buffers, with a warning. 0 (default): ordinary buffers */
} vf_euroc_config;

/** IMU calibration from imu0/sensor.yaml (continuous-time noise densities, Kalibr's convention). */
typedef struct vf_imu_calib {
  double T_BS[16];           /**< row-major 4x4: IMU frame to body frame */
  double rate_hz;            /**< sample rate */
  double gyro_noise_density; /**< rad / s / sqrt(Hz) */
  double gyro_random_walk;   /**< rad / s^2 / sqrt(Hz) */
  double acc_noise_density;  /**< m / s^2 / sqrt(Hz) */
  double acc_random_walk;    /**< m / s^3 / sqrt(Hz) */
} vf_imu_calib;

/** One ground-truth state (EuRoC's state_groundtruth_estimate0 row): the body in the world. */
typedef struct vf_euroc_state {
  int64_t t_ns; /**< time, ns */
  double p[3];  /**< position, m */
  double q[4];  /**< orientation body -> world, w x y z */
  double v[3];  /**< velocity in the world frame, m/s (0 when the file has only pose columns) */
  double bg[3]; /**< gyroscope bias, rad/s */
  double ba[3]; /**< accelerometer bias, m/s^2 */
} vf_euroc_state;

/** What the reader found. */
typedef struct vf_euroc_info {
  int stereo_pairs;              /**< matched pairs with both images present */
  int cam_rows[2];               /**< rows of cam0 and cam1 data.csv */
  int cam_missing[2];            /**< rows naming an image file that does not exist */
  int cam_unpaired[2];           /**< rows with an image but no partner in the other camera */
  int imu_rows;                  /**< rows of imu0/data.csv */
  int imu_replayed;              /**< samples inside the image span (plus one on each side) */
  int imu_skipped;               /**< samples outside it */
  int groundtruth_rows;          /**< 0 when there is no ground-truth file */
  int64_t t_first_ns, t_last_ns; /**< first and last stereo pair */
} vf_euroc_info;

/** What a replay event carries. */
typedef enum vf_euroc_event_type {
  VF_EUROC_END = 0, /**< the stream is over */
  VF_EUROC_IMU,     /**< an IMU sample (vf_euroc_event.imu) */
  VF_EUROC_STEREO   /**< a stereo pair (vf_euroc_event.left, right) */
} vf_euroc_event_type;

/** One event of the replay (vf_euroc_next()). */
typedef struct vf_euroc_event {
  vf_euroc_event_type type; /**< which of the fields below are set */
  int64_t t_ns;             /**< time of the sample or the pair, ns */
  vf_imu_sample imu;        /**< VF_EUROC_IMU */
  int pair;                 /**< VF_EUROC_STEREO: index of the pair, 0..stereo_pairs-1 */
  vf_image left;            /**< VF_EUROC_STEREO: host 8-bit views owned by the reader, valid until
                               the next call of vf_euroc_next, vf_euroc_rewind or vf_euroc_close */
  vf_image right;           /**< VF_EUROC_STEREO: the right image, valid as long as left */
} vf_euroc_event;

/** An open EuRoC sequence (opaque). */
typedef struct vf_euroc vf_euroc;

/** 1 ms tolerance, 8 pairs of prefetch, min(cores the process may run on, 8) decoding threads. */
VF_API vf_euroc_config vf_euroc_config_default(void);

/** Opens a sequence: `path` is the folder holding mav0 (or mav0 itself). Reads and validates
 * every CSV and sensor.yaml, pairs the images, checks each listed image file exists, and starts
 * the decoding threads. `log` (may be NULL) receives warnings: missing files, unknown YAML keys.
 * Fails on missing folders or files, malformed rows (naming file and line), timestamps that do
 * not increase, no stereo pair at all, or bad calibration. */
VF_API vf_status vf_euroc_open(const char* path, const vf_euroc_config* config,
                               const vf_context* log, vf_euroc** out);
/** Stops the decoding threads (waiting for the pairs they are decoding) and frees everything;
 * safe on NULL. */
VF_API void vf_euroc_close(vf_euroc* reader);

/** What the reader found (counts, span). */
VF_API vf_status vf_euroc_get_info(const vf_euroc* reader, vf_euroc_info* out);
/** Calibration of camera 0 or 1 and of the IMU, from the sensor.yaml files. */
VF_API vf_status vf_euroc_camera(const vf_euroc* reader, int which, vf_camera* out);
/** Calibration of the IMU, from imu0/sensor.yaml. */
VF_API vf_status vf_euroc_imu_calib(const vf_euroc* reader, vf_imu_calib* out);

/** The next event in time order (at equal times IMU first). On VF_EUROC_END the stream is over.
 * An image that fails to load (truncated, not 8-bit grey, not the calibrated size) gives its
 * error here once, naming the file; the next call continues with the following event. */
VF_API vf_status vf_euroc_next(vf_euroc* reader, vf_euroc_event* event);
/** Back to the first event: the decoding threads are stopped, the queue emptied, and decoding
 * starts again from the first pair (its buffers are kept). */
VF_API vf_status vf_euroc_rewind(vf_euroc* reader);

/** Stereo pair `pair` loaded synchronously into new host images (free with vf_image_free). */
VF_API vf_status vf_euroc_load_pair(const vf_euroc* reader, int pair, int64_t* t_ns, vf_image* left,
                                    vf_image* right);

/** The timestamp of stereo pair `pair` (camera 0's), 0..stereo_pairs-1, without loading it: for
 * callers that prepare per-frame files of their own ahead of the replay. */
VF_API vf_status vf_euroc_pair_time(const vf_euroc* reader, int pair, int64_t* t_ns);

/** IMU sample `index` of the replayed span, 0..vf_euroc_info.imu_replayed - 1, in time order:
 * the samples vf_euroc_next hands out, for callers that read images of their own (the cameras of
 * a multi-camera rig beyond cam0 and cam1). */
VF_API vf_status vf_euroc_imu_sample(const vf_euroc* reader, int index, vf_imu_sample* out);

/** Ground truth: the number of states (0 without a file). */
VF_API int vf_euroc_groundtruth_count(const vf_euroc* reader);
/** Ground-truth state `index`, 0..vf_euroc_groundtruth_count() - 1. */
VF_API vf_status vf_euroc_groundtruth(const vf_euroc* reader, int index, vf_euroc_state* out);
/** The ground-truth state at any time inside the file's span (position linear, orientation slerp
 * between neighbouring rows). */
VF_API vf_status vf_euroc_groundtruth_at(const vf_euroc* reader, int64_t t_ns, vf_euroc_state* out);

/** The message of this reader's last failure; "" when none. */
VF_API const char* vf_euroc_last_error(const vf_euroc* reader);

/** The official calibration of EuRoC's VI-Sensor (the cam0, cam1 and imu0 sensor.yaml of the
 * MAV datasets: 752x480 at 20 Hz, radial-tangential; IMU at 200 Hz), for tools and tests that
 * have no dataset at hand. Either pointer may be NULL. */
VF_API void vf_euroc_vi_sensor(vf_camera cams[2], vf_imu_calib* imu);

#ifdef __cplusplus
}
#endif
#endif

// SPDX-License-Identifier: BSD-3-Clause
/** @file
 * IMU samples for the frontend: a fixed-capacity buffer of gyroscope and accelerometer samples
 * in time order, and the rotation the gyroscope measured between two timestamps (used to seed
 * feature tracking with K R K^-1 p). */
#ifndef VF_IMU_H
#define VF_IMU_H

#include <stdint.h>
#include <viofront/vf_export.h>
#include <viofront/vf_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One IMU measurement. */
typedef struct vf_imu_sample {
  int64_t t_ns;   /**< time, ns */
  double gyro[3]; /**< rad/s, body (IMU) frame */
  double acc[3];  /**< m/s^2, body frame, gravity included */
} vf_imu_sample;

/** A fixed-capacity buffer of IMU samples in time order (opaque). */
typedef struct vf_imu_buffer vf_imu_buffer;

/** capacity: samples kept (the oldest are dropped when full), 2..1000000. max_gap_ns: two
 * consecutive samples further apart than this make an integration over them fail (an IMU
 * dropout), > 0. */
VF_API vf_status vf_imu_buffer_create(int capacity, int64_t max_gap_ns, vf_imu_buffer** out);
/** Frees the buffer; safe on NULL. */
VF_API void vf_imu_buffer_destroy(vf_imu_buffer* buffer);

/** Appends a sample. Timestamps must increase strictly (VF_ERR_TIMESTAMP otherwise, the buffer
 * unchanged); NaN or infinite values give VF_ERR_INVALID_ARG. */
VF_API vf_status vf_imu_buffer_push(vf_imu_buffer* buffer, const vf_imu_sample* sample);

/** Number of samples held (0 for NULL). */
VF_API int vf_imu_buffer_size(const vf_imu_buffer* buffer);

/** Drops the samples older than t_ns, keeping the last one at or before it (still needed to
 * integrate from t_ns). */
VF_API void vf_imu_buffer_drop_before(vf_imu_buffer* buffer, int64_t t_ns);

/** The rotation of the body at t1 relative to the body at t0, R_b0_b1 (row-major 3x3: a vector
 * in frame b1 times R gives it in frame b0), from the gyroscope, with the rate taken linear
 * between samples. VF_ERR_STATE when the samples do not cover [t0, t1] or have a gap;
 * VF_ERR_INVALID_ARG when t1 < t0. */
VF_API vf_status vf_imu_buffer_rotation(const vf_imu_buffer* buffer, int64_t t0_ns, int64_t t1_ns,
                                        double R_b0_b1[9]);

/** The message of this buffer's last failure; "" when none. */
VF_API const char* vf_imu_buffer_last_error(const vf_imu_buffer* buffer);

#ifdef __cplusplus
}
#endif
#endif

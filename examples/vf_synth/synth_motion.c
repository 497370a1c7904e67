// SPDX-License-Identifier: BSD-3-Clause
/* The body's trajectory: sums of sinusoids in position (a Lissajous path around the middle of
 * the room) and in yaw, pitch and roll (a slow turn with oscillations), with analytic first and
 * second derivatives, so the IMU is exact: gyro = body rate, accelerometer = R^T (a - g).
 * Noise follows Kalibr's discrete model of continuous densities: white noise sigma / sqrt(dt)
 * per sample, bias random walk sigma_b sqrt(dt) per step. */
#include <math.h>

#include "synth.h"

#define SYNTH_GRAVITY 9.81

/* Body axes in the level frame E (x forward, y left, z up): body x up, y right, z forward, as
 * on EuRoC's VI-Sensor, whose cameras look along body z with image rows along -body x. */
static const double synth_R0[9] = {0, 0, 1, 0, -1, 0, 1, 0, 0};

void synth_motion_eval(double t, double speed, synth_state* out) {
  static const double c[3] = {0.0, 0.0, 1.4}, A[3] = {1.4, 1.0, 0.25};
  static const double w[3] = {0.37, 0.29, 0.53}, ph[3] = {0.0, 1.1, 0.4};
  double tau = t * speed;
  for (int i = 0; i < 3; ++i) {
    double arg = w[i] * tau + ph[i];
    out->p[i] = c[i] + A[i] * sin(arg);
    out->v[i] = A[i] * w[i] * speed * cos(arg);
    out->a[i] = -A[i] * w[i] * w[i] * speed * speed * sin(arg);
  }
  /* yaw psi, pitch th, roll ph and their rates (d/dt = speed d/dtau). */
  double psi = 0.28 * tau + 0.5 * sin(0.21 * tau + 0.3);
  double dpsi = speed * (0.28 + 0.5 * 0.21 * cos(0.21 * tau + 0.3));
  double th = 0.12 * sin(0.43 * tau + 0.7), dth = speed * 0.12 * 0.43 * cos(0.43 * tau + 0.7);
  double phi = 0.08 * sin(0.61 * tau + 1.9), dphi = speed * 0.08 * 0.61 * cos(0.61 * tau + 1.9);
  double cy = cos(psi), sy = sin(psi), cp = cos(th), sp = sin(th), cr = cos(phi), sr = sin(phi);
  /* E = Rz(psi) Ry(th) Rx(phi), row-major. */
  double E[9] = {cy * cp,
                 cy * sp * sr - sy * cr,
                 cy * sp * cr + sy * sr,
                 sy * cp,
                 sy * sp * sr + cy * cr,
                 sy * sp * cr - cy * sr,
                 -sp,
                 cp * sr,
                 cp * cr};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      out->R[3 * i + j] =
          E[3 * i] * synth_R0[j] + E[3 * i + 1] * synth_R0[3 + j] + E[3 * i + 2] * synth_R0[6 + j];
    }
  }
  /* Body rates of E (the ZYX Euler kinematics), then into the body frame: R0^T w_E. */
  double wE[3] = {dphi - dpsi * sp, dth * cr + dpsi * cp * sr, -dth * sr + dpsi * cp * cr};
  for (int i = 0; i < 3; ++i) {
    out->w[i] = synth_R0[i] * wE[0] + synth_R0[3 + i] * wE[1] + synth_R0[6 + i] * wE[2];
  }
}

void synth_quat_from_matrix(const double R[9], double q[4]) {
  double tr = R[0] + R[4] + R[8];
  if (tr > 0) {
    double s = sqrt(tr + 1.0) * 2;
    q[0] = 0.25 * s;
    q[1] = (R[7] - R[5]) / s;
    q[2] = (R[2] - R[6]) / s;
    q[3] = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    double s = sqrt(1.0 + R[0] - R[4] - R[8]) * 2;
    q[0] = (R[7] - R[5]) / s;
    q[1] = 0.25 * s;
    q[2] = (R[1] + R[3]) / s;
    q[3] = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    double s = sqrt(1.0 + R[4] - R[0] - R[8]) * 2;
    q[0] = (R[2] - R[6]) / s;
    q[1] = (R[1] + R[3]) / s;
    q[2] = 0.25 * s;
    q[3] = (R[5] + R[7]) / s;
  } else {
    double s = sqrt(1.0 + R[8] - R[0] - R[4]) * 2;
    q[0] = (R[3] - R[1]) / s;
    q[1] = (R[2] + R[6]) / s;
    q[2] = (R[5] + R[7]) / s;
    q[3] = 0.25 * s;
  }
  if (q[0] < 0) {
    for (int i = 0; i < 4; ++i) q[i] = -q[i]; /* w >= 0, as EuRoC's files have it */
  }
}

void synth_imu_generate(const synth_options* o, const vf_imu_calib* calib, int64_t t0_ns, int count,
                        synth_imu_sample* out) {
  uint64_t rng = o->seed * 0x2545f4914f6cdd1dull + 77;
  double dt = 1.0 / calib->rate_hz, bg[3] = {0, 0, 0}, ba[3] = {0, 0, 0};
  double sg = calib->gyro_noise_density / sqrt(dt), sa = calib->acc_noise_density / sqrt(dt);
  double sbg = calib->gyro_random_walk * sqrt(dt), sba = calib->acc_random_walk * sqrt(dt);
  if (o->noise) {
    /* Turn-on biases of the size EuRoC's estimates show. */
    for (int i = 0; i < 3; ++i) {
      bg[i] = 0.005 * synth_gauss(&rng);
      ba[i] = 0.05 * synth_gauss(&rng);
    }
  }
  for (int k = 0; k < count; ++k) {
    synth_imu_sample* s = &out[k];
    s->t_ns = t0_ns + (int64_t)llround(k * dt * 1e9);
    synth_state st;
    synth_motion_eval((double)(s->t_ns - t0_ns) * 1e-9, o->speed, &st);
    double f[3] = {st.a[0], st.a[1], st.a[2] + SYNTH_GRAVITY};
    for (int i = 0; i < 3; ++i) {
      double fb = st.R[i] * f[0] + st.R[3 + i] * f[1] + st.R[6 + i] * f[2];
      s->gyro[i] = st.w[i] + bg[i] + (o->noise ? sg * synth_gauss(&rng) : 0.0);
      s->acc[i] = fb + ba[i] + (o->noise ? sa * synth_gauss(&rng) : 0.0);
      s->bg[i] = bg[i];
      s->ba[i] = ba[i];
    }
    if (o->noise) {
      for (int i = 0; i < 3; ++i) {
        bg[i] += sbg * synth_gauss(&rng);
        ba[i] += sba * synth_gauss(&rng);
      }
    }
  }
}

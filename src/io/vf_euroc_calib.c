// SPDX-License-Identifier: BSD-3-Clause
/* The official calibration of EuRoC's VI-Sensor: mav0/cam0, cam1 and imu0 sensor.yaml of the
 * MAV datasets (ASL, ETH Zurich), for tools and tests without a dataset at hand. */
#include <string.h>

#include "viofront/vf_euroc.h"

void vf_euroc_vi_sensor(vf_camera cams[2], vf_imu_calib* imu) {
  static const double T[2][16] = {
      {0.0148655429818, -0.999880929698, 0.00414029679422, -0.0216401454975, 0.999557249008,
       0.0149672133247, 0.025715529948, -0.064676986768, -0.0257744366974, 0.00375618835797,
       0.999660727178, 0.00981073058949, 0.0, 0.0, 0.0, 1.0},
      {0.0125552670891, -0.999755099723, 0.0182237714554, -0.0198435579556, 0.999598781151,
       0.0130119051815, 0.0251588363115, 0.0453689425024, -0.0253898008918, 0.0179005838253,
       0.999517347078, 0.00786212447038, 0.0, 0.0, 0.0, 1.0}};
  static const double K[2][4] = {{458.654, 457.296, 367.215, 248.375},
                                 {457.587, 456.134, 379.999, 255.238}};
  static const double D[2][4] = {{-0.28340811, 0.07395907, 0.00019359, 1.76187114e-05},
                                 {-0.28368365, 0.07451284, -0.00010473, -3.55590700e-05}};
  for (int k = 0; cams != NULL && k < 2; ++k) {
    vf_camera c = vf_camera_default();
    c.fx = K[k][0];
    c.fy = K[k][1];
    c.cx = K[k][2];
    c.cy = K[k][3];
    c.distortion = VF_DISTORTION_RADTAN;
    memcpy(c.k, D[k], sizeof D[k]);
    memcpy(c.T_BS, T[k], sizeof T[k]);
    cams[k] = c;
  }
  if (imu != NULL) {
    memset(imu, 0, sizeof *imu);
    for (int i = 0; i < 4; ++i) imu->T_BS[5 * i] = 1.0;
    imu->rate_hz = 200;
    imu->gyro_noise_density = 1.6968e-04;
    imu->gyro_random_walk = 1.9393e-05;
    imu->acc_noise_density = 2.0000e-3;
    imu->acc_random_walk = 3.0000e-3;
  }
}

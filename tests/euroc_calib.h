/* EuRoC MAV VI-Sensor calibration (official mav0/cam0 and cam1 sensor.yaml of V1_01_easy):
 * test input shared by the camera, rectification and remap tests. */
#ifndef EUROC_CALIB_H
#define EUROC_CALIB_H

#include <string.h>
#include <viofront/vf_camera.h>

static inline vf_camera euroc_camera(int which) {
  static const double T0[16] = {0.0148655429818,
                                -0.999880929698,
                                0.00414029679422,
                                -0.0216401454975,
                                0.999557249008,
                                0.0149672133247,
                                0.025715529948,
                                -0.064676986768,
                                -0.0257744366974,
                                0.00375618835797,
                                0.999660727178,
                                0.00981073058949,
                                0.0,
                                0.0,
                                0.0,
                                1.0};
  static const double T1[16] = {0.0125552670891,
                                -0.999755099723,
                                0.0182237714554,
                                -0.0198435579556,
                                0.999598781151,
                                0.0130119051815,
                                0.0251588363115,
                                0.0453689425024,
                                -0.0253898008918,
                                0.0179005838253,
                                0.999517347078,
                                0.00786212447038,
                                0.0,
                                0.0,
                                0.0,
                                1.0};
  vf_camera c = vf_camera_default();
  c.width = 752;
  c.height = 480;
  c.rate_hz = 20;
  c.distortion = VF_DISTORTION_RADTAN;
  if (which == 0) {
    c.fx = 458.654, c.fy = 457.296, c.cx = 367.215, c.cy = 248.375;
    c.k[0] = -0.28340811, c.k[1] = 0.07395907, c.k[2] = 0.00019359, c.k[3] = 1.76187114e-05;
    memcpy(c.T_BS, T0, sizeof T0);
  } else {
    c.fx = 457.587, c.fy = 456.134, c.cx = 379.999, c.cy = 255.238;
    c.k[0] = -0.28368365, c.k[1] = 0.07451284, c.k[2] = -0.00010473, c.k[3] = -3.55590700e-05;
    memcpy(c.T_BS, T1, sizeof T1);
  }
  return c;
}

/* Field by field (a struct may hold padding bytes that memcmp would see). */
static inline int camera_equal(const vf_camera* a, const vf_camera* b) {
  return a->width == b->width && a->height == b->height && a->fx == b->fx && a->fy == b->fy &&
         a->cx == b->cx && a->cy == b->cy && a->distortion == b->distortion &&
         memcmp(a->k, b->k, sizeof a->k) == 0 && memcmp(a->T_BS, b->T_BS, sizeof a->T_BS) == 0 &&
         a->rate_hz == b->rate_hz;
}

#endif

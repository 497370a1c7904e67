// SPDX-License-Identifier: BSD-3-Clause
/* IMU buffer: ordering, capacity, gaps, coverage, and gyroscope integration against rotations
 * known in closed form. */
#include <math.h>
#include <viofront/viofront.h>

#include "vf_test.h"

/* Row-major rotation about axis 0 (x), 1 (y) or 2 (z). */
static void axis_rotation(int axis, double a, double R[9]) {
  double c = cos(a), s = sin(a);
  memset(R, 0, 9 * sizeof *R);
  int i = (axis + 1) % 3, j = (axis + 2) % 3;
  R[4 * axis] = 1.0;
  R[3 * i + i] = c;
  R[3 * i + j] = -s;
  R[3 * j + i] = s;
  R[3 * j + j] = c;
}

static double max_diff(const double* a, const double* b, int n) {
  double m = 0.0;
  for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

static vf_imu_sample sample(int64_t t, double wx, double wy, double wz) {
  vf_imu_sample s = {t, {wx, wy, wz}, {0.0, 0.0, 9.81}};
  return s;
}

int main(void) {
  vf_imu_buffer* b = NULL;
  const int64_t ms = 1000000;
  CHECK_OK(vf_imu_buffer_create(1000, 20 * ms, &b));

  /* 1 rad/s about z for 50 ms at 200 Hz: R = Rz(0.05), also between sample times. */
  for (int i = 0; i <= 40; ++i)
    CHECK_OK(vf_imu_buffer_push(b, &(vf_imu_sample){i * 5 * ms, {0, 0, 1.0}, {0, 0, 9.81}}));
  double R[9], E[9];
  CHECK_OK(vf_imu_buffer_rotation(b, 2 * ms, 52 * ms, R));
  axis_rotation(2, 0.05, E);
  CHECK(max_diff(R, E, 9) < 1e-6);
  CHECK_OK(vf_imu_buffer_rotation(b, 10 * ms, 10 * ms, R)); /* empty interval: identity */
  axis_rotation(2, 0.0, E);
  CHECK(max_diff(R, E, 9) < 1e-7);

  /* Errors leave the buffer usable. */
  vf_imu_sample late = sample(100 * ms, 0, 0, 1);
  CHECK_FAILS(vf_imu_buffer_push(b, &late), VF_ERR_TIMESTAMP); /* goes back */
  late.t_ns = 200 * ms;
  CHECK_FAILS(vf_imu_buffer_push(b, &late), VF_ERR_TIMESTAMP); /* equal to the last */
  vf_imu_sample nan_sample = sample(201 * ms, NAN, 0, 0);
  CHECK_FAILS(vf_imu_buffer_push(b, &nan_sample), VF_ERR_INVALID_ARG);
  CHECK(vf_imu_buffer_size(b) == 41);
  CHECK_FAILS(vf_imu_buffer_rotation(b, 50 * ms, 250 * ms, R), VF_ERR_STATE); /* not covered */
  CHECK_FAILS(vf_imu_buffer_rotation(b, 50 * ms, 40 * ms, R), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_imu_buffer_rotation(NULL, 0, 1, R), VF_ERR_INVALID_ARG);

  /* A dropout longer than max_gap fails integration across it, not before it. */
  late = sample(300 * ms, 0, 0, 1);
  CHECK_OK(vf_imu_buffer_push(b, &late));
  CHECK_FAILS(vf_imu_buffer_rotation(b, 150 * ms, 250 * ms, R), VF_ERR_STATE);
  CHECK(strstr(vf_imu_buffer_last_error(b), "gap") != NULL);
  CHECK_OK(vf_imu_buffer_rotation(b, 100 * ms, 150 * ms, R));

  /* drop_before keeps the sample at or before t so integration from t still works. */
  vf_imu_buffer_drop_before(b, 102 * ms);
  CHECK(vf_imu_buffer_size(b) == 22); /* 100..200 ms every 5 ms, and 300 ms */
  CHECK_OK(vf_imu_buffer_rotation(b, 102 * ms, 150 * ms, R));
  vf_imu_buffer_destroy(b);

  /* Body rates compose in the body frame: 0.5 s about x then 0.5 s about y gives Rx Ry. */
  CHECK_OK(vf_imu_buffer_create(400, 20 * ms, &b));
  for (int i = 0; i <= 100; ++i) {
    /* Rates switch between samples 50 and 51: keep the switch inside a 1 us interval. */
    int64_t t = i <= 50 ? i * 10 * ms : 500 * ms + 1000 + (i - 51) * 10 * ms;
    vf_imu_sample s = i <= 50 ? sample(t, 0.6, 0, 0) : sample(t, 0, -0.4, 0);
    CHECK_OK(vf_imu_buffer_push(b, &s));
  }
  double Rx[9], Ry[9], P[9];
  CHECK_OK(vf_imu_buffer_rotation(b, 0, 500 * ms + 1000 + 490 * ms, R));
  axis_rotation(0, 0.3, Rx);
  axis_rotation(1, -0.4 * 0.49, Ry);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      P[3 * r + c] = Rx[3 * r] * Ry[c] + Rx[3 * r + 1] * Ry[3 + c] + Rx[3 * r + 2] * Ry[6 + c];
    }
  }
  CHECK(max_diff(R, P, 9) < 1e-4);
  vf_imu_buffer_destroy(b);

  /* Capacity: the oldest samples are dropped. */
  CHECK_OK(vf_imu_buffer_create(4, 20 * ms, &b));
  for (int i = 0; i < 10; ++i) {
    vf_imu_sample s = sample(i * ms, 0, 0, 0);
    CHECK_OK(vf_imu_buffer_push(b, &s));
  }
  CHECK(vf_imu_buffer_size(b) == 4);
  CHECK_FAILS(vf_imu_buffer_rotation(b, 2 * ms, 8 * ms, R), VF_ERR_STATE);
  CHECK_OK(vf_imu_buffer_rotation(b, 6 * ms, 9 * ms, R));
  vf_imu_buffer_destroy(b);
  vf_imu_buffer_destroy(NULL);

  CHECK_FAILS(vf_imu_buffer_create(1, 1, &b), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_imu_buffer_create(10, 0, &b), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_imu_buffer_create(10, 1, NULL), VF_ERR_INVALID_ARG);
  VF_TEST_END("test_imu");
}

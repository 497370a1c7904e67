// SPDX-License-Identifier: BSD-3-Clause
/* vf_synth's IMU against its ground truth: the gyroscope integrates (vf_imu_buffer) to the
 * ground-truth rotations, the accelerometer equals R^T (dv/dt - g) with dv/dt from the
 * ground-truth velocities, positions and velocities agree; with noise on, the white noise and
 * the bias random walk have EuRoC's densities. Reads the CSVs directly (test_synth covers the
 * reader) and replays one sequence through vf_euroc for the frame-to-frame rotations. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "synth_util.h"
#include "vf_test.h"

#define MAX_ROWS 400

typedef struct rows {
  int n;
  int64_t t[MAX_ROWS];
  double v[MAX_ROWS][16];
} rows;

/* A CSV of a timestamp and `cols` numbers per row. */
static void read_rows(const char* path, int cols, rows* r) {
  FILE* f = fopen(path, "r");
  char line[1024];
  r->n = 0;
  while (f != NULL && r->n < MAX_ROWS && fgets(line, sizeof line, f) != NULL) {
    if (line[0] == '#') continue;
    char* p = line;
    r->t[r->n] = strtoll(p, &p, 10);
    int k = 0;
    for (; k < cols && *p == ','; ++k) r->v[r->n][k] = strtod(p + 1, &p);
    if (k == cols) r->n++;
  }
  if (f != NULL) fclose(f);
  CHECK(r->n > 0);
}

/* Angle of R_a^T R_b R^T (the residual rotation), radians. */
static double rotation_error(const double Ra[9], const double Rb[9], const double R[9]) {
  double rel[9], res[9];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j)
      rel[3 * i + j] = Ra[i] * Rb[j] + Ra[3 + i] * Rb[3 + j] + Ra[6 + i] * Rb[6 + j];
  }
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j)
      res[3 * i + j] =
          rel[3 * i] * R[3 * j] + rel[3 * i + 1] * R[3 * j + 1] + rel[3 * i + 2] * R[3 * j + 2];
  }
  /* atan2(sin, cos) from the antisymmetric part and the trace: acos of the trace alone turns
   * float-level round-off (vf_imu integrates in float) into 1e-4 rad. */
  double vx = res[7] - res[5], vy = res[2] - res[6], vz = res[3] - res[1];
  return atan2(sqrt(vx * vx + vy * vy + vz * vz) / 2, (res[0] + res[4] + res[8] - 1) / 2);
}

static double rotation_angle(const double Ra[9], const double Rb[9]) {
  static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  return rotation_error(Ra, Rb, I);
}

static void check_noise_free(const rows* imu, const rows* gt) {
  CHECK(imu->n == gt->n && imu->t[0] == gt->t[0]);
  /* Gyroscope over the whole file and over each 50 ms. */
  vf_imu_buffer* b = NULL;
  CHECK_OK(vf_imu_buffer_create(MAX_ROWS, 10000000, &b));
  for (int k = 0; k < imu->n; ++k) {
    vf_imu_sample s = {imu->t[k],
                       {imu->v[k][0], imu->v[k][1], imu->v[k][2]},
                       {imu->v[k][3], imu->v[k][4], imu->v[k][5]}};
    CHECK_OK(vf_imu_buffer_push(b, &s));
  }
  /* Each 50 ms, then the whole file. */
  double worst = 0, turned = 0;
  for (int a = 0; a < gt->n - 1; a += 10) {
    int whole = a + 10 >= gt->n - 1;
    int from = whole ? 0 : a, to = whole ? gt->n - 1 : a + 10;
    double R[9], Ra[9], Rb[9];
    CHECK_OK(vf_imu_buffer_rotation(b, gt->t[from], gt->t[to], R));
    quat_to_matrix(&gt->v[from][3], Ra);
    quat_to_matrix(&gt->v[to][3], Rb);
    worst = fmax(worst, rotation_error(Ra, Rb, R));
    if (whole) turned = rotation_angle(Ra, Rb);
  }
  vf_imu_buffer_destroy(b);
  printf("gyro: turned %.3f rad over %.2f s, worst integration error %.2g rad\n", turned,
         (gt->t[gt->n - 1] - gt->t[0]) * 1e-9, worst);
  CHECK(turned > 0.2 && worst < 1e-5);

  /* Accelerometer = R^T (a + g z) with a from central differences of the velocity; velocity =
   * central differences of the position; no biases. */
  double acc_err = 0, vel_err = 0, bias = 0, peak = 0;
  for (int k = 1; k + 1 < gt->n; ++k) {
    double dt = (gt->t[k + 1] - gt->t[k - 1]) * 1e-9, R[9], a[3], f[3];
    quat_to_matrix(&gt->v[k][3], R);
    for (int i = 0; i < 3; ++i) {
      a[i] = (gt->v[k + 1][7 + i] - gt->v[k - 1][7 + i]) / dt + (i == 2 ? 9.81 : 0.0);
      vel_err = fmax(vel_err, fabs((gt->v[k + 1][i] - gt->v[k - 1][i]) / dt - gt->v[k][7 + i]));
    }
    for (int i = 0; i < 3; ++i) {
      f[i] = R[i] * a[0] + R[3 + i] * a[1] + R[6 + i] * a[2];
      acc_err = fmax(acc_err, fabs(f[i] - imu->v[k][3 + i]));
      peak = fmax(peak, fabs(imu->v[k][3 + i]));
    }
    for (int i = 10; i < 16; ++i) bias = fmax(bias, fabs(gt->v[k][i]));
  }
  printf("accelerometer: worst |R^T (dv/dt - g) - acc| %.2g m/s^2 (peak %.2f), velocity %.2g m/s\n",
         acc_err, peak, vel_err);
  CHECK(acc_err < 1e-3 && peak > 9 && vel_err < 1e-4 && bias == 0);
}

static double stddev(const double* x, int n) {
  double m = 0, s = 0;
  for (int i = 0; i < n; ++i) m += x[i] / n;
  for (int i = 0; i < n; ++i) s += (x[i] - m) * (x[i] - m);
  return sqrt(s / (n - 1));
}

/* Noisy minus clean minus the true bias: white noise of density * sqrt(rate). */
static void check_noise(const rows* clean, const rows* noisy, const rows* gt_noisy) {
  static double g[3 * MAX_ROWS], a[3 * MAX_ROWS], dbg[3 * MAX_ROWS], dba[3 * MAX_ROWS];
  int n = 0, m = 0;
  CHECK(clean->n == noisy->n && noisy->n == gt_noisy->n);
  for (int k = 0; k < noisy->n && k < clean->n; ++k) {
    for (int i = 0; i < 3; ++i, ++n) {
      g[n] = noisy->v[k][i] - clean->v[k][i] - gt_noisy->v[k][10 + i];
      a[n] = noisy->v[k][3 + i] - clean->v[k][3 + i] - gt_noisy->v[k][13 + i];
      if (k + 1 < gt_noisy->n) {
        dbg[m] = gt_noisy->v[k + 1][10 + i] - gt_noisy->v[k][10 + i];
        dba[m++] = gt_noisy->v[k + 1][13 + i] - gt_noisy->v[k][13 + i];
      }
    }
  }
  double sg = stddev(g, n) / (1.6968e-04 * sqrt(200.0)), sa = stddev(a, n) / (2.0e-3 * sqrt(200.0));
  double wg = stddev(dbg, m) / (1.9393e-05 / sqrt(200.0)),
         wa = stddev(dba, m) / (3.0e-3 / sqrt(200.0));
  printf(
      "noise over %d samples, measured / EuRoC density: gyro %.3f, acc %.3f, gyro bias walk "
      "%.3f, acc bias walk %.3f\n",
      n, sg, sa, wg, wa);
  CHECK(sg > 0.85 && sg < 1.15 && sa > 0.85 && sa < 1.15);
  CHECK(wg > 0.85 && wg < 1.15 && wa > 0.85 && wa < 1.15);
  CHECK(fabs(gt_noisy->v[0][10]) + fabs(gt_noisy->v[0][13]) > 0); /* turn-on biases */
}

/* Through the reader: integrate the replayed IMU between stereo frames. */
static void check_replay(const char* root) {
  vf_euroc* e = NULL;
  CHECK_OK(vf_euroc_open(root, NULL, NULL, &e));
  if (e == NULL) return;
  vf_imu_buffer* b = NULL;
  CHECK_OK(vf_imu_buffer_create(100, 10000000, &b));
  int64_t frames[8];
  int nf = 0;
  for (;;) {
    vf_euroc_event ev;
    CHECK_OK(vf_euroc_next(e, &ev));
    if (ev.type == VF_EUROC_END) break;
    if (ev.type == VF_EUROC_IMU) CHECK_OK(vf_imu_buffer_push(b, &ev.imu));
    if (ev.type == VF_EUROC_STEREO && nf < 8) frames[nf++] = ev.t_ns;
  }
  CHECK(nf == 3);
  double R[9], Ra[9], Rb[9], worst = 0;
  for (int i = 0; i + 1 < nf; ++i) {
    vf_euroc_state sa, sb;
    CHECK_OK(vf_euroc_groundtruth_at(e, frames[i], &sa));
    CHECK_OK(vf_euroc_groundtruth_at(e, frames[i + 1], &sb));
    CHECK_OK(vf_imu_buffer_rotation(b, frames[i], frames[i + 1], R));
    quat_to_matrix(sa.q, Ra);
    quat_to_matrix(sb.q, Rb);
    worst = fmax(worst, rotation_error(Ra, Rb, R));
  }
  printf("replay: frame-to-frame gyro rotation error %.2g rad\n", worst);
  CHECK(worst < 1e-5);
  vf_imu_buffer_destroy(b);
  vf_euroc_close(e);
}

int main(void) {
  run_synth("--out test_synth_imu_off --frames 3 --noise off --depth off --landmarks 0 --seed 9");
  run_synth("--out test_synth_imu_on --frames 3 --noise on --depth off --landmarks 0 --seed 9");
  static rows imu_off, gt_off, imu_on, gt_on;
  read_rows("test_synth_imu_off/mav0/imu0/data.csv", 6, &imu_off);
  read_rows("test_synth_imu_off/mav0/state_groundtruth_estimate0/data.csv", 16, &gt_off);
  read_rows("test_synth_imu_on/mav0/imu0/data.csv", 6, &imu_on);
  read_rows("test_synth_imu_on/mav0/state_groundtruth_estimate0/data.csv", 16, &gt_on);
  check_noise_free(&imu_off, &gt_off);
  check_noise(&imu_off, &imu_on, &gt_on);
  check_replay("test_synth_imu_off");
  VF_TEST_END("test_synth_imu");
}

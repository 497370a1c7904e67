// SPDX-License-Identifier: BSD-3-Clause
/* The CSV and text outputs: EuRoC's data.csv files (cameras, IMU, ground-truth state) and the
 * extra ground truth under groundtruth/ (landmarks and their per-frame pixels per camera,
 * photometric gains, the rectification each stereo pair's disparity images use). */
#include <stdio.h>

#include "synth.h"

FILE* synth_open(const char* root, const char* rel) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  FILE* f = fopen(path, "w");
  if (f == NULL) fprintf(stderr, "vf_synth: cannot write %s\n", path);
  return f;
}

int synth_close(FILE* f) {
  if (f == NULL) return -1;
  int bad = ferror(f);
  return (fclose(f) != 0 || bad) ? -1 : 0;
}

int synth_write_camera_csv(const char* root, int k, const int64_t* t, int n) {
  char rel[64];
  snprintf(rel, sizeof rel, "mav0/cam%d/data.csv", k);
  FILE* f = synth_open(root, rel);
  if (f == NULL) return -1;
  fprintf(f, "#timestamp [ns],filename\n");
  for (int i = 0; i < n; ++i) fprintf(f, "%lld,%lld.png\n", (long long)t[i], (long long)t[i]);
  return synth_close(f);
}

int synth_write_imu_csv(const char* root, const synth_imu_sample* s, int n) {
  FILE* f = synth_open(root, "mav0/imu0/data.csv");
  if (f == NULL) return -1;
  fprintf(f,
          "#timestamp [ns],w_RS_S_x [rad s^-1],w_RS_S_y [rad s^-1],w_RS_S_z [rad s^-1],"
          "a_RS_S_x [m s^-2],a_RS_S_y [m s^-2],a_RS_S_z [m s^-2]\n");
  for (int i = 0; i < n; ++i) {
    fprintf(f, "%lld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", (long long)s[i].t_ns, s[i].gyro[0],
            s[i].gyro[1], s[i].gyro[2], s[i].acc[0], s[i].acc[1], s[i].acc[2]);
  }
  return synth_close(f);
}

/* The true state at every IMU time: pose, velocity and the biases the IMU carried. */
int synth_write_state_csv(const char* root, const synth_imu_sample* s, int n, int64_t t0_ns,
                          double speed) {
  FILE* f = synth_open(root, "mav0/state_groundtruth_estimate0/data.csv");
  if (f == NULL) return -1;
  fprintf(f,
          "#timestamp, p_RS_R_x [m], p_RS_R_y [m], p_RS_R_z [m], q_RS_w [], q_RS_x [], "
          "q_RS_y [], q_RS_z [], v_RS_R_x [m s^-1], v_RS_R_y [m s^-1], v_RS_R_z [m s^-1], "
          "b_w_RS_S_x [rad s^-1], b_w_RS_S_y [rad s^-1], b_w_RS_S_z [rad s^-1], "
          "b_a_RS_S_x [m s^-2], b_a_RS_S_y [m s^-2], b_a_RS_S_z [m s^-2]\n");
  for (int i = 0; i < n; ++i) {
    synth_state st;
    double q[4];
    synth_motion_eval((double)(s[i].t_ns - t0_ns) * 1e-9, speed, &st);
    synth_quat_from_matrix(st.R, q);
    fprintf(f, "%lld", (long long)s[i].t_ns);
    const double* v[5] = {st.p, q, st.v, s[i].bg, s[i].ba};
    const int len[5] = {3, 4, 3, 3, 3};
    for (int g = 0; g < 5; ++g) {
      for (int j = 0; j < len[g]; ++j) fprintf(f, ",%.17g", v[g][j]);
    }
    fprintf(f, "\n");
  }
  return synth_close(f);
}

int synth_write_landmarks(const char* root, const double* X, int n) {
  FILE* f = synth_open(root, "groundtruth/landmarks.csv");
  if (f == NULL) return -1;
  fprintf(f, "#id,x [m],y [m],z [m]\n");
  for (int i = 0; i < n; ++i)
    fprintf(f, "%d,%.9f,%.9f,%.9f\n", i, X[3 * i], X[3 * i + 1], X[3 * i + 2]);
  return synth_close(f);
}

/* Per frame and camera, the pixel of every landmark in view and not hidden. */
int synth_write_tracks(const char* root, const synth_scene* s, const vf_camera* cams, int ncams,
                       const double* X, int nx, const int64_t* t, const synth_state* states,
                       int frames) {
  for (int k = 0; k < ncams; ++k) {
    char rel[64];
    snprintf(rel, sizeof rel, "groundtruth/tracks%d.csv", k);
    FILE* f = synth_open(root, rel);
    if (f == NULL) return -1;
    fprintf(f, "#timestamp [ns],id,u [px],v [px]\n");
    for (int i = 0; i < frames; ++i) {
      double R_WC[9], c[3], uv[2];
      synth_camera_pose(&cams[k], &states[i], R_WC, c);
      unsigned boxes = synth_scene_boxes_in_front(s, R_WC, c);
      for (int j = 0; j < nx; ++j) {
        if (synth_point_visible(s, &cams[k], R_WC, c, boxes, &X[3 * j], uv)) {
          fprintf(f, "%lld,%d,%.6f,%.6f\n", (long long)t[i], j, uv[0], uv[1]);
        }
      }
    }
    if (synth_close(f) != 0) return -1;
  }
  return 0;
}

int synth_write_photometric(const char* root, int ncams, const int64_t* t, const float* gain,
                            const float* bias, int frames) {
  FILE* f = synth_open(root, "groundtruth/photometric.csv");
  if (f == NULL) return -1;
  fprintf(f, "#timestamp [ns]");
  for (int k = 0; k < ncams; ++k) fprintf(f, ",gain%d,bias%d", k, k);
  for (int i = 0; i < frames; ++i) {
    fprintf(f, "\n%lld", (long long)t[i]);
    for (int k = 0; k < ncams; ++k)
      fprintf(f, ",%.6f,%.6f", gain[ncams * i + k], bias[ncams * i + k]);
  }
  fprintf(f, "\n");
  return synth_close(f);
}

int synth_write_rectification(const char* root, const int pair[2], const vf_stereo_rectification* r,
                              double alpha) {
  char suffix[16], rel[64], left[32] = "the two", right[64] = "sensor.yaml cameras";
  synth_pair_suffix(pair[0], suffix);
  snprintf(rel, sizeof rel, "groundtruth/rectification%s.yaml", suffix);
  if (pair[0] != 0 || pair[1] != 1) {
    snprintf(left, sizeof left, "cam%d (left) and", pair[0]);
    snprintf(right, sizeof right, "cam%d (right) of sensor.yaml", pair[1]);
  }
  FILE* f = synth_open(root, rel);
  if (f == NULL) return -1;
  fprintf(f,
          "# The rectification of groundtruth/disparity%s: vf_stereo_rectify of %s\n"
          "# %s (OpenCV stereoRectify, CALIB_ZERO_DISPARITY).\n"
          "alpha: %.17g\nwidth: %d\nheight: %d\nf: %.17g\ncx: %.17g\ncy: %.17g\n"
          "baseline_m: %.17g\n",
          suffix, left, right, alpha, r->width, r->height, r->f, r->cx, r->cy, r->baseline_m);
  const double* m[2] = {r->R1, r->R2};
  for (int k = 0; k < 2; ++k) {
    fprintf(f, "R%d: [", k + 1);
    for (int i = 0; i < 9; ++i) fprintf(f, "%.17g%s", m[k][i], i < 8 ? ", " : "]\n");
  }
  return synth_close(f);
}

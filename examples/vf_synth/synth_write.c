// SPDX-License-Identifier: BSD-3-Clause
/* Output in the EuRoC ASL layout: folders, sensor.yaml files in EuRoC's own style (OpenCV's
 * "%YAML:1.0" header, T_BS as {cols, rows, data}), body.yaml. Numbers are printed with 15
 * significant digits, which gives back the same doubles for the calibration's short decimals. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "synth.h"

int synth_write_text(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  if (f == NULL) {
    fprintf(stderr, "vf_synth: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  int bad = fputs(text, f) < 0;
  bad |= fclose(f) != 0;
  if (bad) fprintf(stderr, "vf_synth: error writing %s\n", path);
  return bad ? -1 : 0;
}

static int synth_mkdir(const char* path) {
  if (mkdir(path, 0755) == 0 || errno == EEXIST) return 0;
  fprintf(stderr, "vf_synth: cannot create %s: %s\n", path, strerror(errno));
  return -1;
}

/* The folders: EuRoC's per sensor, the ground truth's per camera and per stereo pair. */
int synth_mkdirs(const char* root, const synth_rig* rig, int depth) {
  char rel[5 + 3 * SYNTH_MAX_CAMS + SYNTH_MAX_PAIRS][64], suffix[16];
  int n = 0;
  static const char* fixed[] = {"", "/mav0", "/mav0/imu0", "/mav0/state_groundtruth_estimate0",
                                "/groundtruth"};
  for (int i = 0; i < 5; ++i) snprintf(rel[n++], sizeof rel[0], "%s", fixed[i]);
  for (int k = 0; k < rig->ncams; ++k) {
    snprintf(rel[n++], sizeof rel[0], "/mav0/cam%d", k);
    snprintf(rel[n++], sizeof rel[0], "/mav0/cam%d/data", k);
    if (depth) snprintf(rel[n++], sizeof rel[0], "/groundtruth/depth%d", k);
  }
  for (int p = 0; depth && p < rig->npairs; ++p) {
    snprintf(rel[n++], sizeof rel[0], "/groundtruth/disparity%s",
             synth_pair_suffix(rig->pairs[p][0], suffix));
  }
  for (int i = 0; i < n; ++i) {
    char path[1100];
    snprintf(path, sizeof path, "%s%.63s", root, rel[i]);
    if (synth_mkdir(path) != 0) return -1;
  }
  return 0;
}

static void synth_append(char* buf, size_t size, const char* fmt, double v, int last) {
  size_t used = strlen(buf);
  snprintf(buf + used, size - used, fmt, v);
  used = strlen(buf);
  snprintf(buf + used, size - used, "%s", last ? "" : ", ");
}

/* T_BS as EuRoC writes it: a row of the matrix per line. */
static void synth_format_T(char* buf, size_t size, const double T[16]) {
  snprintf(buf, size, "T_BS:\n  cols: 4\n  rows: 4\n  data: [");
  for (int i = 0; i < 16; ++i) {
    size_t used = strlen(buf);
    snprintf(buf + used, size - used, "%.15g%s", T[i],
             i == 15      ? "]\n"
             : i % 4 == 3 ? ",\n         "
                          : ", ");
  }
}

static int synth_write_camera_yaml(const char* root, const synth_rig* rig, int k) {
  const vf_camera* c = &rig->cams[k];
  char T[1024], path[1100], text[4096], origin[128] = "EuRoC VI-Sensor calibration";
  if (rig->source[k] != k || rig->quarter[k] != 0) {
    snprintf(origin, sizeof origin, "EuRoC VI-Sensor cam%d turned %d deg about body x",
             rig->source[k], 90 * rig->quarter[k]);
  }
  synth_format_T(T, sizeof T, c->T_BS);
  int nk = c->k[4] != 0.0 ? 5 : 4;
  char coeffs[256] = "";
  for (int i = 0; i < nk; ++i) synth_append(coeffs, sizeof coeffs, "%.15g", c->k[i], i == nk - 1);
  snprintf(text, sizeof text,
           "%%YAML:1.0\n# General sensor definitions.\nsensor_type: camera\n"
           "comment: vf_synth cam%d (%s)\n\n"
           "# Sensor extrinsics wrt. the body-frame.\n%s\n# Camera specific definitions.\n"
           "rate_hz: %.15g\nresolution: [%d, %d]\ncamera_model: pinhole\n"
           "intrinsics: [%.15g, %.15g, %.15g, %.15g] #fu, fv, cu, cv\n"
           "distortion_model: radial-tangential\ndistortion_coefficients: [%s]\n",
           k, origin, T, c->rate_hz, c->width, c->height, c->fx, c->fy, c->cx, c->cy, coeffs);
  snprintf(path, sizeof path, "%s/mav0/cam%d/sensor.yaml", root, k);
  return synth_write_text(path, text);
}

int synth_write_calibration(const char* root, const synth_rig* rig, const vf_imu_calib* imu) {
  for (int k = 0; k < rig->ncams; ++k) {
    if (synth_write_camera_yaml(root, rig, k) != 0) return -1;
  }
  char T[1024], path[1100], text[4096];
  synth_format_T(T, sizeof T, imu->T_BS);
  snprintf(text, sizeof text,
           "%%YAML:1.0\n#Default imu sensor yaml file\nsensor_type: imu\n"
           "comment: vf_synth IMU (EuRoC ADIS16448 noise model)\n\n"
           "# Sensor extrinsics wrt. the body-frame.\n%srate_hz: %.15g\n\n"
           "# inertial sensor noise model parameters (static)\n"
           "gyroscope_noise_density: %.15g     # [ rad / s / sqrt(Hz) ]\n"
           "gyroscope_random_walk: %.15g       # [ rad / s^2 / sqrt(Hz) ]\n"
           "accelerometer_noise_density: %.15g  # [ m / s^2 / sqrt(Hz) ]\n"
           "accelerometer_random_walk: %.15g    # [ m / s^3 / sqrt(Hz) ]\n",
           T, imu->rate_hz, imu->gyro_noise_density, imu->gyro_random_walk, imu->acc_noise_density,
           imu->acc_random_walk);
  snprintf(path, sizeof path, "%s/mav0/imu0/sensor.yaml", root);
  if (synth_write_text(path, text) != 0) return -1;
  static const double I[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  synth_format_T(T, sizeof T, I);
  snprintf(text, sizeof text,
           "%%YAML:1.0\n# General sensor definitions.\nsensor_type: visual-inertial\n"
           "comment: vf_synth ground truth: the exact simulated state.\n\n%s",
           T);
  snprintf(path, sizeof path, "%s/mav0/state_groundtruth_estimate0/sensor.yaml", root);
  if (synth_write_text(path, text) != 0) return -1;
  snprintf(text, sizeof text, "%%YAML:1.0\n# The body frame is the IMU frame.\n%s", T);
  snprintf(path, sizeof path, "%s/mav0/body.yaml", root);
  return synth_write_text(path, text);
}

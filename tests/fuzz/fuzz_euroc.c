// SPDX-License-Identifier: BSD-3-Clause
/* libFuzzer target: the EuRoC reader on a sequence folder whose CSV files come from the input
 * (cam0, cam1, imu0 and ground-truth data.csv, separated by lines "@@"); sensor.yaml files and
 * two 8x6 stereo pairs (t = 1000 and 2000 ns) are fixed. Opening, replaying every event and
 * interpolating the ground truth must never crash or leak, and failures must say why. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <viofront/viofront.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static char root[256];

static void put(const char* rel, const void* bytes, size_t n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  FILE* f = fopen(path, "wb");
  if (f == NULL) abort();
  if (n > 0 && fwrite(bytes, 1, n, f) != n) abort();
  fclose(f);
}

/* The fixed part of the folder, once per process. */
static void setup(void) {
  const char* tmp = getenv("TMPDIR");
  snprintf(root, sizeof root, "%s/vf_fuzz_euroc_XXXXXX", tmp != NULL ? tmp : "/tmp");
  if (mkdtemp(root) == NULL) abort();
  static const char* dirs[] = {"mav0",
                               "mav0/cam0",
                               "mav0/cam0/data",
                               "mav0/cam1",
                               "mav0/cam1/data",
                               "mav0/imu0",
                               "mav0/state_groundtruth_estimate0"};
  for (int i = 0; i < 7; ++i) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
    mkdir(path, 0700);
  }
  static const char cam[] =
      "T_BS: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]\nresolution: [8, 6]\n"
      "camera_model: pinhole\nintrinsics: [5, 5, 3.5, 2.5]\ndistortion_model: radtan\n"
      "distortion_coefficients: [0, 0, 0, 0]\n";
  static const char cam1[] =
      "T_BS: [1, 0, 0, 0.1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]\nresolution: [8, 6]\n"
      "camera_model: pinhole\nintrinsics: [5, 5, 3.5, 2.5]\ndistortion_model: radtan\n"
      "distortion_coefficients: [0, 0, 0, 0]\n";
  static const char imu[] =
      "T_BS: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]\nrate_hz: 200\n"
      "gyroscope_noise_density: 1e-4\ngyroscope_random_walk: 1e-5\n"
      "accelerometer_noise_density: 2e-3\naccelerometer_random_walk: 3e-3\n";
  put("mav0/cam0/sensor.yaml", cam, sizeof cam - 1);
  put("mav0/cam1/sensor.yaml", cam1, sizeof cam1 - 1);
  put("mav0/imu0/sensor.yaml", imu, sizeof imu - 1);
  vf_image img;
  if (vf_image_alloc(&img, 8, 6, VF_PIXEL_U8, VF_MEMORY_HOST) != VF_OK) abort();
  memset(img.data, 99, img.stride_bytes * 6);
  for (int k = 0; k < 2; ++k) {
    for (int t = 1000; t <= 2000; t += 1000) {
      char path[512];
      snprintf(path, sizeof path, "%s/mav0/cam%d/data/%d.png", root, k, t);
      if (vf_png_write(path, &img) != VF_OK) abort();
    }
  }
  vf_image_free(&img);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (root[0] == '\0') setup();
  static const char* files[4] = {"mav0/cam0/data.csv", "mav0/cam1/data.csv", "mav0/imu0/data.csv",
                                 "mav0/state_groundtruth_estimate0/data.csv"};
  const uint8_t* p = data;
  const uint8_t* end = data + size;
  for (int i = 0; i < 4; ++i) {
    const uint8_t* cut = p;
    while (cut + 4 <= end && memcmp(cut, "\n@@\n", 4) != 0) ++cut;
    const uint8_t* stop = cut + 4 <= end ? cut : end;
    put(files[i], p, (size_t)(stop - p));
    p = stop + 4 <= end ? stop + 4 : end;
  }
  vf_euroc_config cfg = vf_euroc_config_default();
  cfg.prefetch = size % 3; /* synchronous, or a prefetch thread with 1 or 2 slots */
  vf_euroc* e = NULL;
  vf_status s = vf_euroc_open(root, &cfg, NULL, &e);
  if (s != VF_OK) {
    if (e != NULL || vf_last_error_message()[0] == '\0') __builtin_trap();
    return 0;
  }
  for (int guard = 0; guard < 100000; ++guard) {
    vf_euroc_event ev;
    s = vf_euroc_next(e, &ev);
    if (s != VF_OK && vf_euroc_last_error(e)[0] == '\0') __builtin_trap();
    if (s == VF_OK && ev.type == VF_EUROC_END) break;
    if (s == VF_OK && ev.type == VF_EUROC_STEREO) {
      vf_euroc_state st;
      vf_euroc_groundtruth_at(e, ev.t_ns, &st);
    }
  }
  vf_euroc_close(e);
  return 0;
}

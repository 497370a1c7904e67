// SPDX-License-Identifier: BSD-3-Clause
/* libFuzzer target: the YAML readers (viofront config, camera and IMU sensor.yaml, Kalibr
 * camchain) must never crash, leak or read out of bounds; each input either parses to a valid
 * result or fails with a message. The first byte picks the reader, the rest is the text. */
#include <stddef.h>
#include <stdint.h>
#include <viofront/viofront.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const char* text = (const char*)data + 1;
  size_t n = size - 1;
  vf_status s;
  switch (data[0] % 4) {
    case 0: {
      vf_config cfg;
      /* Relative sensor_yaml paths resolve under a folder that does not exist. */
      s = vf_config_parse(text, n, "fuzz.yaml", "/nonexistent-viofront-fuzz", NULL, &cfg);
      if (s == VF_OK) {
        for (int k = 0; k < cfg.camera_count; ++k) {
          if (vf_camera_check(&cfg.cameras[k]) != VF_OK) __builtin_trap();
        }
      }
      break;
    }
    case 1: {
      vf_camera cam;
      s = vf_sensor_yaml_parse_camera(text, n, "fuzz.yaml", NULL, &cam);
      if (s == VF_OK && vf_camera_check(&cam) != VF_OK) __builtin_trap();
      break;
    }
    case 3: {
      vf_rig rig;
      s = vf_rig_parse_camchain(text, n, "fuzz.yaml", NULL, &rig);
      if (s == VF_OK && vf_rig_check(&rig) != VF_OK) __builtin_trap();
      break;
    }
    default: {
      vf_imu_calib imu;
      s = vf_sensor_yaml_parse_imu(text, n, "fuzz.yaml", NULL, &imu);
      if (s == VF_OK && !(imu.rate_hz > 0)) __builtin_trap();
      break;
    }
  }
  if (s != VF_OK && vf_last_error_message()[0] == '\0')
    __builtin_trap(); /* every failure says why */
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/* libFuzzer target: the PNG decoder must never crash, leak or read out of bounds, and must
 * return either a valid 8-bit image or an error status with a message. */
#include <stddef.h>
#include <stdint.h>
#include <viofront/viofront.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vf_image img;
  vf_status s = vf_png_decode_gray8(data, size, &img);
  if (s == VF_OK) {
    /* Touch every pixel so that a short allocation shows up under ASan. */
    unsigned sum = 0;
    for (int y = 0; y < img.height; ++y) {
      const uint8_t* row = (const uint8_t*)img.data + (size_t)y * img.stride_bytes;
      for (int x = 0; x < img.width; ++x) sum += row[x];
    }
    (void)sum;
    vf_image_free(&img);
  } else if (vf_last_error_message()[0] == '\0') {
    __builtin_trap(); /* every failure must say why */
  }
  return 0;
}

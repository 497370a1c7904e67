// SPDX-License-Identifier: BSD-3-Clause
/* libFuzzer target: the disparity readers (vf_disparity_io.h), PFM and 16-bit grey PNG, which
 * read files: the input goes to a scratch file. The first byte picks the reader (even: PFM,
 * odd: PNG), the rest is the file. Each input gives either a valid image, every pixel readable,
 * or an error with a message; never a crash, a leak or a large allocation for a small file. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <viofront/viofront.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static char path[256];

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  if (path[0] == '\0') {
    const char* tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/vf_fuzz_disparity_XXXXXX", tmp != NULL ? tmp : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) abort();
    close(fd);
  }
  FILE* f = fopen(path, "wb");
  if (f == NULL) abort();
  if (size > 1 && fwrite(data + 1, 1, size - 1, f) != size - 1) abort();
  fclose(f);
  vf_image img;
  vf_pixel_format want = data[0] % 2 == 0 ? VF_PIXEL_F32 : VF_PIXEL_U16;
  vf_status s = want == VF_PIXEL_F32 ? vf_pfm_read(path, &img) : vf_png_read_gray16(path, &img);
  if (s == VF_OK) {
    if (img.format != want || vf_image_check(&img, "fuzz") != VF_OK) __builtin_trap();
    /* Touch every pixel so that a short allocation shows up under ASan. */
    size_t row = (size_t)img.width * vf_pixel_size(img.format);
    unsigned sum = 0;
    for (int y = 0; y < img.height; ++y) {
      const uint8_t* p = (const uint8_t*)img.data + (size_t)y * img.stride_bytes;
      for (size_t x = 0; x < row; ++x) sum += p[x];
    }
    (void)sum;
    vf_image_free(&img);
  } else if (vf_last_error_message()[0] == '\0' || img.data != NULL) {
    __builtin_trap(); /* every failure says why and leaves no image */
  }
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/* PNG reading and writing: round trips, and missing, truncated, corrupt and non-grey files. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "vf_test.h"

static void write_bytes(const char* path, const void* data, size_t n) {
  FILE* f = fopen(path, "wb");
  if (f == NULL) return;
  fwrite(data, 1, n, f);
  fclose(f);
}

static long read_all(const char* path, unsigned char* buf, size_t cap) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return -1;
  long n = (long)fread(buf, 1, cap, f);
  fclose(f);
  return n;
}

int main(void) {
  const char* gray = "test_png_gray.png";
  vf_image img, back;
  CHECK_OK(vf_image_alloc(&img, 37, 21, VF_PIXEL_U8, VF_MEMORY_HOST));
  unsigned seed = 5;
  for (int y = 0; y < 21; ++y) {
    for (int x = 0; x < 37; ++x)
      ((uint8_t*)img.data)[y * img.stride_bytes + x] = (uint8_t)vf_test_rand(&seed);
  }
  CHECK_OK(vf_png_write(gray, &img));
  CHECK_OK(vf_png_read_gray8(gray, &back));
  CHECK(back.width == 37 && back.height == 21 && back.format == VF_PIXEL_U8);
  int same = 1;
  for (int y = 0; y < 21; ++y) {
    same &= memcmp((uint8_t*)img.data + y * img.stride_bytes,
                   (uint8_t*)back.data + y * back.stride_bytes, 37) == 0;
  }
  CHECK(same);
  vf_image_free(&back);

  /* Truncated copies of a valid file, at several lengths: a clean error every time. */
  static unsigned char bytes[1 << 16];
  long n = read_all(gray, bytes, sizeof bytes);
  CHECK(n > 60);
  const char* cut = "test_png_cut.png";
  for (long len = 0; len < n; len += 7) {
    write_bytes(cut, bytes, (size_t)len);
    vf_status s = vf_png_read_gray8(cut, &back);
    CHECK(s == VF_ERR_FORMAT);
    CHECK(back.data == NULL);
  }
  /* Flipped bytes inside the image data: the CRC or zlib check fails. */
  bytes[n / 2] ^= 0x5a;
  write_bytes(cut, bytes, (size_t)n);
  CHECK_FAILS(vf_png_read_gray8(cut, &back), VF_ERR_FORMAT);

  CHECK_FAILS(vf_png_read_gray8("no/such/file.png", &back), VF_ERR_IO);
  CHECK_FAILS(vf_png_read_gray8(NULL, &back), VF_ERR_INVALID_ARG);

  /* 16-bit grey and RGB files are refused by the 8-bit grey reader. */
  vf_image wide;
  CHECK_OK(vf_image_alloc(&wide, 8, 4, VF_PIXEL_U16, VF_MEMORY_HOST));
  memset(wide.data, 0x12, wide.stride_bytes * 4);
  CHECK_OK(vf_png_write("test_png_16.png", &wide));
  CHECK_FAILS(vf_png_read_gray8("test_png_16.png", &back), VF_ERR_FORMAT);
  vf_image_free(&wide);
  vf_image rgb;
  CHECK_OK(vf_image_alloc(&rgb, 8, 4, VF_PIXEL_RGB8, VF_MEMORY_HOST));
  memset(rgb.data, 0x40, rgb.stride_bytes * 4);
  CHECK_OK(vf_png_write("test_png_rgb.png", &rgb));
  CHECK_FAILS(vf_png_read_gray8("test_png_rgb.png", &back), VF_ERR_FORMAT);
  vf_image_free(&rgb);

  /* Reading into a reused buffer: the same pixels in place when the size and format match, a
   * new buffer when they do not, the buffer kept (still the caller's) when a read fails. */
  vf_image reuse = {0};
  CHECK_OK(vf_png_read_gray_into(gray, 8, &reuse));
  void* first = reuse.data;
  CHECK(reuse.width == 37 && reuse.height == 21 && reuse.format == VF_PIXEL_U8);
  memset(reuse.data, 0, reuse.stride_bytes * 21);
  CHECK_OK(vf_png_read_gray_into(gray, 8, &reuse));
  same = reuse.data == first;
  for (int y = 0; y < 21; ++y) {
    same &= memcmp((uint8_t*)img.data + y * img.stride_bytes,
                   (uint8_t*)reuse.data + y * reuse.stride_bytes, 37) == 0;
  }
  CHECK(same);
  CHECK_FAILS(vf_png_read_gray_into(cut, 8, &reuse), VF_ERR_FORMAT);
  CHECK(reuse.data == first);
  CHECK_FAILS(vf_png_read_gray_into("no/such/file.png", 8, &reuse), VF_ERR_IO);
  CHECK_FAILS(vf_png_read_gray_into("test_png_16.png", 8, &reuse), VF_ERR_FORMAT);
  CHECK(reuse.data == first && reuse.width == 37);
  CHECK_OK(vf_png_read_gray_into("test_png_16.png", 16, &reuse));
  CHECK(reuse.width == 8 && reuse.height == 4 && reuse.format == VF_PIXEL_U16 &&
        ((uint16_t*)reuse.data)[3] == 0x1212);
  CHECK_FAILS(vf_png_read_gray_into(gray, 12, &reuse), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_png_read_gray_into(NULL, 8, &reuse), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_png_read_gray_into(gray, 8, NULL), VF_ERR_INVALID_ARG);
  vf_image device = reuse;
  device.location = VF_MEMORY_DEVICE;
  CHECK_FAILS(vf_png_read_gray_into(gray, 8, &device), VF_ERR_INVALID_ARG);
  vf_image_free(&reuse);

  CHECK_FAILS(vf_png_write("no/such/dir/x.png", &img), VF_ERR_IO);
  vf_image_free(&img);

  char path[1024];
  if (vf_test_data_path("images/birds_752x480.png", path, sizeof path) != NULL) {
    CHECK_OK(vf_png_read_gray8(path, &back));
    CHECK(back.width == 752 && back.height == 480);
    vf_image_free(&back);
  } else {
    printf("real images absent: skipped reading birds_752x480.png\n");
  }
  VF_TEST_END("test_png");
}

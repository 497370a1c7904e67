// SPDX-License-Identifier: BSD-3-Clause
/* Image views: validation, allocation and copies. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "vf_test.h"

int main(void) {
  uint8_t buf[64 * 8];
  vf_image v = vf_image_view(buf, 60, 8, 64, VF_MEMORY_HOST, VF_PIXEL_U8);
  CHECK_OK(vf_image_check(&v, "v"));
  CHECK_FAILS(vf_image_check(NULL, "v"), VF_ERR_INVALID_ARG);

  vf_image bad = v;
  bad.stride_bytes = 59; /* smaller than the width */
  CHECK_FAILS(vf_image_check(&bad, "bad"), VF_ERR_INVALID_ARG);
  CHECK(strstr(vf_last_error_message(), "stride") != NULL);
  bad = v;
  bad.width = 0;
  CHECK_FAILS(vf_image_check(&bad, "bad"), VF_ERR_INVALID_ARG);
  bad = v;
  bad.height = -3;
  CHECK_FAILS(vf_image_check(&bad, "bad"), VF_ERR_INVALID_ARG);
  bad = v;
  bad.width = 1 << 20;
  bad.stride_bytes = (size_t)1 << 20;
  CHECK_FAILS(vf_image_check(&bad, "bad"), VF_ERR_INVALID_ARG);
  bad = v;
  bad.data = NULL;
  CHECK_FAILS(vf_image_check(&bad, "bad"), VF_ERR_INVALID_ARG);
  bad = v;
  bad.format = (vf_pixel_format)99;
  CHECK_FAILS(vf_image_check(&bad, "bad"), VF_ERR_INVALID_ARG);
  bad = v;
  bad.location = (vf_memory)5;
  CHECK_FAILS(vf_image_check(&bad, "bad"), VF_ERR_INVALID_ARG);
  bad = vf_image_view(buf, 20, 8, 39, VF_MEMORY_HOST, VF_PIXEL_U16); /* 2 bytes per pixel */
  CHECK_FAILS(vf_image_check(&bad, "bad"), VF_ERR_INVALID_ARG);

  CHECK(vf_pixel_size(VF_PIXEL_U8) == 1 && vf_pixel_size(VF_PIXEL_U16) == 2);
  CHECK(vf_pixel_size(VF_PIXEL_F32) == 4 && vf_pixel_size(VF_PIXEL_RGB8) == 3);

  /* Allocation pads rows to 128 bytes; copies respect both strides. */
  vf_image a, b;
  CHECK_OK(vf_image_alloc(&a, 33, 5, VF_PIXEL_U16, VF_MEMORY_HOST));
  CHECK(a.stride_bytes == 128 && a.data != NULL);
  CHECK_OK(vf_image_alloc(&b, 33, 5, VF_PIXEL_U16, VF_MEMORY_HOST));
  for (int y = 0; y < 5; ++y) {
    for (int x = 0; x < 33; ++x)
      ((uint16_t*)((uint8_t*)a.data + y * a.stride_bytes))[x] = (uint16_t)(y * 1000 + x);
  }
  CHECK_OK(vf_image_copy(&a, &b));
  CHECK(((uint16_t*)((uint8_t*)b.data + 4 * b.stride_bytes))[32] == 4032);
  vf_image wrong;
  CHECK_OK(vf_image_alloc(&wrong, 32, 5, VF_PIXEL_U16, VF_MEMORY_HOST));
  CHECK_FAILS(vf_image_copy(&a, &wrong), VF_ERR_INVALID_ARG);
  vf_image_free(&wrong);
  vf_image_free(&a);
  vf_image_free(&b);
  vf_image_free(&a); /* a freed view is cleared: freeing again is safe */
  CHECK(a.data == NULL);

  CHECK_FAILS(vf_image_alloc(&a, 0, 5, VF_PIXEL_U8, VF_MEMORY_HOST), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_image_alloc(NULL, 4, 5, VF_PIXEL_U8, VF_MEMORY_HOST), VF_ERR_INVALID_ARG);
  if (vf_cuda_device_count() == 0) {
    CHECK_FAILS(vf_image_alloc(&a, 4, 5, VF_PIXEL_U8, VF_MEMORY_DEVICE), VF_ERR_NO_DEVICE);
  }

  /* Page-locked host images: refused without a device, else host views like any other, each
   * released by vf_image_free whatever the order. */
  CHECK_FAILS(vf_image_alloc_pinned(NULL, 4, 5, VF_PIXEL_U8), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_image_alloc_pinned(&a, 0, 5, VF_PIXEL_U8), VF_ERR_INVALID_ARG);
  CHECK(a.data == NULL);
  if (vf_cuda_device_count() == 0) {
    CHECK_FAILS(vf_image_alloc_pinned(&a, 4, 5, VF_PIXEL_U8), VF_ERR_NO_DEVICE);
    CHECK(a.data == NULL);
  } else {
    vf_image pin[3], plain;
    for (int k = 0; k < 3; ++k) {
      CHECK_OK(vf_image_alloc_pinned(&pin[k], 33, 5, VF_PIXEL_U16));
      CHECK(pin[k].location == VF_MEMORY_HOST && pin[k].stride_bytes == 128);
    }
    CHECK_OK(vf_image_alloc(&plain, 33, 5, VF_PIXEL_U16, VF_MEMORY_HOST));
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 33; ++x)
        ((uint16_t*)((uint8_t*)pin[1].data + (size_t)y * pin[1].stride_bytes))[x] =
            (uint16_t)(y * 1000 + x);
    CHECK_OK(vf_image_copy(&pin[1], &plain));
    CHECK(((uint16_t*)((uint8_t*)plain.data + 4 * plain.stride_bytes))[32] == 4032);
    vf_image_free(&pin[1]);
    vf_image_free(&plain);
    vf_image_free(&pin[0]);
    vf_image_free(&pin[2]);
    CHECK(pin[0].data == NULL && pin[2].data == NULL);
  }
  VF_TEST_END("test_image");
}

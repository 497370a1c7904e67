// SPDX-License-Identifier: BSD-3-Clause
/* Point reads of a 16-bit image: nearest-pixel rounding at cell edges, outside and non-finite
 * points, argument checks; with VF_TEST_GPU the CUDA backend must read exactly what the CPU
 * backend reads (device image) on random points. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "vf_test.h"

enum { W = 37, H = 23, N = 4000 };

static void fill(vf_image* img) {
  for (int y = 0; y < H; ++y) {
    uint16_t* row = (uint16_t*)((uint8_t*)img->data + (size_t)y * img->stride_bytes);
    for (int x = 0; x < W; ++x) row[x] = (uint16_t)(y * 1000 + x);
  }
}

static vf_context* make_ctx(vf_backend backend) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = backend;
  vf_context* ctx = NULL;
  return vf_context_create(&cc, &ctx) == VF_OK ? ctx : NULL;
}

static void known_answers(void) {
  vf_context* ctx = make_ctx(VF_BACKEND_CPU);
  vf_sampler* s = NULL;
  CHECK_OK(vf_sampler_create(ctx, 16, &s));
  vf_image img;
  CHECK_OK(vf_image_alloc(&img, W, H, VF_PIXEL_U16, VF_MEMORY_HOST));
  fill(&img);
  const float xy[] = {0.f, 0.f, 2.49f, 3.5f, 36.4f, 22.4f, -0.5f,    0.f,    36.5f,
                      0.f, 0.f, 22.5f, NAN,  1.f,   1.f,   INFINITY, -0.49f, -0.49f};
  uint16_t v[9];
  CHECK_OK(vf_sampler_gather_u16(s, &img, xy, 9, 0xFFFF, v));
  CHECK(v[0] == 0);
  CHECK(v[1] == 4 * 1000 + 2); /* 3.5 rounds up to row 4 */
  CHECK(v[2] == 22 * 1000 + 36);
  CHECK(v[3] == 0xFFFF && v[4] == 0xFFFF && v[5] == 0xFFFF); /* edges of the image */
  CHECK(v[6] == 0xFFFF && v[7] == 0xFFFF);                   /* NaN, inf */
  CHECK(v[8] == 0);
  /* Bad arguments: clear errors, the sampler stays usable. */
  CHECK_FAILS(vf_sampler_gather_u16(s, &img, xy, 17, 0, v), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_sampler_gather_u16(s, &img, xy, -1, 0, v), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_sampler_gather_u16(s, &img, NULL, 2, 0, v), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_sampler_gather_u16(s, NULL, xy, 2, 0, v), VF_ERR_INVALID_ARG);
  vf_image u8 = vf_image_view(img.data, W, H, img.stride_bytes, VF_MEMORY_HOST, VF_PIXEL_U8);
  CHECK_FAILS(vf_sampler_gather_u16(s, &u8, xy, 2, 0, v), VF_ERR_INVALID_ARG);
  CHECK_OK(vf_sampler_gather_u16(s, &img, xy, 1, 0, v));
  vf_sampler_destroy(s);
  CHECK_FAILS(vf_sampler_create(ctx, 0, &s), VF_ERR_INVALID_ARG);
  CHECK(s == NULL);
  CHECK_FAILS(vf_sampler_create(NULL, 4, &s), VF_ERR_INVALID_ARG);
  vf_sampler_destroy(NULL);
  vf_image_free(&img);
  vf_context_destroy(ctx);
}

static void gpu_parity(void) {
  if (vf_cuda_device_count() == 0) VF_TEST_SKIP("no CUDA device");
  vf_context *cpu = make_ctx(VF_BACKEND_CPU), *gpu = make_ctx(VF_BACKEND_CUDA);
  vf_sampler *sc = NULL, *sg = NULL;
  CHECK_OK(vf_sampler_create(cpu, N, &sc));
  CHECK_OK(vf_sampler_create(gpu, N, &sg));
  vf_image host, dev;
  CHECK_OK(vf_image_alloc(&host, W, H, VF_PIXEL_U16, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&dev, W, H, VF_PIXEL_U16, VF_MEMORY_DEVICE));
  fill(&host);
  CHECK_OK(vf_image_copy(&host, &dev));
  static float xy[2 * N];
  static uint16_t a[N], b[N];
  unsigned seed = 7;
  for (int i = 0; i < 2 * N; ++i) {
    float span = (i & 1) ? H + 2.f : W + 2.f;
    xy[i] = (float)(vf_test_rand(&seed) % 100000) / 100000.f * span - 1.f;
  }
  memset(b, 0xA5, sizeof b);
  CHECK_OK(vf_sampler_gather_u16(sc, &host, xy, N, 0xFFFF, a));
  CHECK_OK(vf_sampler_gather_u16(sg, &dev, xy, N, 0xFFFF, b));
  CHECK(memcmp(a, b, sizeof a) == 0);
  vf_sampler_destroy(sc);
  vf_sampler_destroy(sg);
  vf_image_free(&host);
  vf_image_free(&dev);
  vf_context_destroy(cpu);
  vf_context_destroy(gpu);
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--gpu") == 0) {
    gpu_parity();
    VF_TEST_END("test_sampler --gpu");
  }
  known_answers();
  VF_TEST_END("test_sampler");
}

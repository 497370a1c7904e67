// SPDX-License-Identifier: BSD-3-Clause
/* Point reads of a 16-bit image: nearest-pixel rounding at cell edges, outside and non-finite
 * points, argument checks; the disparity probe on a constructed map (a step, a hole band, an
 * occluding surface); with --gpu the CUDA backend must read and probe exactly what the CPU
 * backend does (device image) on random points and a random map with holes. */
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

/* A map of 1/16 px disparities: background 10 px, a nearer box at 30 px over columns 40..59,
 * and a hole (invalid) column at 20. */
static void fill_steps(vf_image* img) {
  for (int y = 0; y < img->height; ++y) {
    uint16_t* row = (uint16_t*)((uint8_t*)img->data + (size_t)y * img->stride_bytes);
    for (int x = 0; x < img->width; ++x)
      row[x] = x == 20 ? 0xFFFF : (x >= 40 && x < 60) ? 30 * 16 : 10 * 16;
  }
}

static void probe_answers(void) {
  vf_context* ctx = make_ctx(VF_BACKEND_CPU);
  vf_sampler* s = NULL;
  CHECK_OK(vf_sampler_create(ctx, 16, &s));
  vf_image img;
  CHECK_OK(vf_image_alloc(&img, 80, 20, VF_PIXEL_U16, VF_MEMORY_HOST));
  fill_steps(&img);
  vf_disparity_probe_config pc = {2, 64, 4, 0xFFFF};
  /* flat; a hole in the window (the step across it is 0; the box hides the match 21 - 10 = 11,
   * its edge 40 matching 40 - 30 = 10); the box edge in the window; background hidden by the
   * box (match 25); background whose match 12 - 10 = 2 stays left of every box match; on the
   * box; at the image corner. */
  const float xy[] = {5.f,  10.f, 21.f, 10.f, 39.f, 10.f, 35.f,
                      10.f, 12.f, 10.f, 50.f, 10.f, 0.f,  0.f};
  vf_disparity_probe p[7];
  CHECK_OK(vf_sampler_probe_disparity(s, &img, xy, 7, &pc, p));
  CHECK(p[0].value == 160 && p[0].jump == 0 && p[0].holes == 0 && p[0].occluder == 0);
  CHECK(p[1].value == 160 && p[1].jump == 0 && p[1].holes == 5 && p[1].occluder == 480);
  CHECK(p[2].value == 160 && p[2].jump == 320 && p[2].holes == 0 && p[2].occluder == 480);
  CHECK(p[3].value == 160 && p[3].jump == 0 && p[3].occluder == 480);
  CHECK(p[4].value == 160 && p[4].occluder == 0);
  CHECK(p[5].value == 480 && p[5].jump == 0 && p[5].occluder == 0);
  CHECK(p[6].value == 160 && p[6].holes == 16); /* 25 - 9 inside the image */
  /* The nearest pixel only: x = 19.4 reads column 19, 19.6 the hole (no occluder then). */
  const float hole[] = {19.6f, 3.f};
  CHECK_OK(vf_sampler_probe_disparity(s, &img, hole, 1, &pc, p));
  CHECK(p[0].value == 0xFFFF && p[0].occluder == 0 && p[0].holes == 5);
  vf_disparity_probe_config bad = pc;
  bad.radius = 16;
  CHECK_FAILS(vf_sampler_probe_disparity(s, &img, xy, 1, &bad, p), VF_ERR_INVALID_ARG);
  bad = pc;
  bad.fractional_bits = 9;
  CHECK_FAILS(vf_sampler_probe_disparity(s, &img, xy, 1, &bad, p), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_sampler_probe_disparity(s, &img, xy, 1, NULL, p), VF_ERR_INVALID_ARG);
  CHECK_FAILS(vf_sampler_probe_disparity(s, &img, xy, 17, &pc, p), VF_ERR_INVALID_ARG);
  vf_sampler_destroy(s);
  vf_image_free(&img);
  vf_context_destroy(ctx);
}

static void gpu_probe_parity(vf_sampler* sc, vf_sampler* sg, const float* xy) {
  enum { PW = 211, PH = 97 };
  vf_image host, dev;
  CHECK_OK(vf_image_alloc(&host, PW, PH, VF_PIXEL_U16, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&dev, PW, PH, VF_PIXEL_U16, VF_MEMORY_DEVICE));
  unsigned seed = 11;
  /* Piecewise-flat rows with steps and 10% holes: every branch of the probe is taken. */
  for (int y = 0; y < PH; ++y) {
    uint16_t* row = (uint16_t*)((uint8_t*)host.data + (size_t)y * host.stride_bytes);
    int level = 0;
    for (int x = 0; x < PW; ++x) {
      if (vf_test_rand(&seed) % 8 == 0) level = (int)(vf_test_rand(&seed) % 1024);
      row[x] = vf_test_rand(&seed) % 10 == 0 ? 0xFFFF : (uint16_t)level;
    }
  }
  CHECK_OK(vf_image_copy(&host, &dev));
  static vf_disparity_probe a[N], b[N];
  const vf_disparity_probe_config pcs[2] = {{4, 64, 4, 0xFFFF}, {0, 3, 0, 0xFFFF}};
  for (int k = 0; k < 2; ++k) {
    memset(b, 0xA5, sizeof b);
    CHECK_OK(vf_sampler_probe_disparity(sc, &host, xy, N, &pcs[k], a));
    CHECK_OK(vf_sampler_probe_disparity(sg, &dev, xy, N, &pcs[k], b));
    CHECK(memcmp(a, b, sizeof a) == 0);
  }
  vf_image_free(&host);
  vf_image_free(&dev);
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
  /* The probe over a larger map: the points scaled onto it. */
  for (int i = 0; i < 2 * N; ++i) xy[i] *= (i & 1) ? 97.f / H : 211.f / W;
  gpu_probe_parity(sc, sg, xy);
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
  probe_answers();
  VF_TEST_END("test_sampler");
}

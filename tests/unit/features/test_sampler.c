// SPDX-License-Identifier: BSD-3-Clause
/* Point reads of a 16-bit image: nearest-pixel rounding at cell edges, outside and non-finite
 * points, argument checks; the disparity probe on a constructed map (a step, a hole band, an
 * occluding surface); the disparity refinement on a textured pair with known sub-pixel
 * disparities and another gain and bias on the right (no pull towards whole pixels), its
 * refusals and argument checks; with --gpu the CUDA backend must read and probe exactly what the
 * CPU backend does (device image) on random points and a random map with holes, and refine the
 * pair's disparities as the CPU does (within 1e-3 px). */
#include <stdint.h>
#include <viofront/viofront.h>

#include "test_tracker_util.h"
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
  /* The largest window (31 rows: every lane of the GPU's warp but one) and scans longer than a
   * warp's 32 pixels are in the set. */
  const vf_disparity_probe_config pcs[4] = {
      {4, 64, 4, 0xFFFF}, {0, 3, 0, 0xFFFF}, {15, 200, 4, 0xFFFF}, {7, 40, 2, 0xFFFF}};
  for (int k = 0; k < 4; ++k) {
    memset(b, 0xA5, sizeof b);
    CHECK_OK(vf_sampler_probe_disparity(sc, &host, xy, N, &pcs[k], a));
    CHECK_OK(vf_sampler_probe_disparity(sg, &dev, xy, N, &pcs[k], b));
    CHECK(memcmp(a, b, sizeof a) == 0);
  }
  vf_image_free(&host);
  vf_image_free(&dev);
}

/* The refinement's pair: the texture, and on the right the same seen `d` px to the right (left x
 * matches right x - d), with gain 1.1 and bias -6. */
enum { RW = 320, RH = 120, RN = 96 };

static void refine_pair(double d, vf_image* left, vf_image* right) {
  const tt_texture tex = tt_texture_make(4242u);
  const double none[2] = {0.0, 0.0}, shift[2] = {-d, 0.0};
  tt_render(&tex, RW, RH, tt_map_shift, none, 1.0, 0.0, left);
  tt_render(&tex, RW, RH, tt_map_shift, shift, 1.1, -6.0, right);
}

/* RN points at sub-pixel positions inside the pair, starts up to 0.45 px off d. */
static void refine_points(double d, float* xy, float* start) {
  unsigned seed = 99;
  for (int i = 0; i < RN; ++i) {
    xy[2 * i] = 40.0f + (float)(vf_test_rand(&seed) % 24000) / 100.0f;
    xy[2 * i + 1] = 15.0f + (float)(vf_test_rand(&seed) % 9000) / 100.0f;
    start[i] = (float)d + ((float)(vf_test_rand(&seed) % 91) - 45.0f) / 100.0f;
  }
}

/* A 1/16-px disparity map of the pair (d everywhere, a band of holes at rows 60..69) and the
 * probe configuration that reads it. */
static const vf_disparity_probe_config combined_probe = {2, 40, 4, 0xFFFF};

static void combined_map(double d, vf_image* map) {
  CHECK_OK(vf_image_alloc(map, RW, RH, VF_PIXEL_U16, VF_MEMORY_HOST));
  for (int y = 0; y < RH; ++y) {
    uint16_t* row = (uint16_t*)((uint8_t*)map->data + (size_t)y * map->stride_bytes);
    for (int x = 0; x < RW; ++x) row[x] = y >= 60 && y < 70 ? 0xFFFF : (uint16_t)lround(d * 16.0);
  }
}

/* vf_sampler_probe_and_refine_disparity gives exactly the probes of vf_sampler_probe_disparity
 * and the matches of vf_sampler_refine_disparity from the probes' values. */
static void combined_answers(vf_sampler* s, const vf_image* left, const vf_image* right,
                             const float* xy) {
  vf_image map;
  combined_map(12.25, &map);
  const vf_disparity_refine_config c = {7, 20, 1.0f};
  static vf_disparity_probe pa[RN], pb[RN];
  static float start[RN], a[RN], b[RN];
  CHECK_OK(vf_sampler_probe_disparity(s, &map, xy, RN, &combined_probe, pa));
  int holes = 0;
  for (int i = 0; i < RN; ++i) {
    holes += pa[i].value == 0xFFFF;
    start[i] = pa[i].value == 0xFFFF ? NAN : (float)pa[i].value / 16.0f;
  }
  CHECK_OK(vf_sampler_refine_disparity(s, left, right, xy, start, RN, &c, a));
  CHECK_OK(vf_sampler_probe_and_refine_disparity(s, &map, left, right, xy, RN, &combined_probe, &c,
                                                 pb, b));
  CHECK(memcmp(pa, pb, sizeof pa) == 0);
  int same = 1;
  for (int i = 0; i < RN; ++i) same &= isnan(a[i]) ? isnan(b[i]) : a[i] == b[i];
  CHECK(same);
  CHECK(holes > 0 && holes < RN);
  CHECK(vf_sampler_probe_and_refine_disparity(s, &map, left, right, xy, RN, NULL, &c, pb, b) ==
        VF_ERR_INVALID_ARG);
  CHECK(vf_sampler_probe_and_refine_disparity(s, &map, left, right, xy, RN, &combined_probe, NULL,
                                              pb, b) == VF_ERR_INVALID_ARG);
  CHECK(vf_sampler_probe_and_refine_disparity(s, &map, left, right, xy, RN, &combined_probe, &c,
                                              NULL, b) == VF_ERR_INVALID_ARG);
  CHECK(vf_sampler_probe_and_refine_disparity(s, left, left, right, xy, RN, &combined_probe, &c, pb,
                                              b) == VF_ERR_INVALID_ARG);
  vf_image narrow = map;
  narrow.width -= 1; /* a map of another size than the images */
  CHECK(vf_sampler_probe_and_refine_disparity(s, &narrow, left, right, xy, RN, &combined_probe, &c,
                                              pb, b) == VF_ERR_INVALID_ARG);
  printf("probe and refine in one call: %d probes and %d matches as the two calls give\n", RN,
         RN - holes);
  vf_image_free(&map);
}

static void refine_answers(void) {
  vf_context* ctx = make_ctx(VF_BACKEND_CPU);
  vf_sampler* s = NULL;
  CHECK_OK(vf_sampler_create(ctx, RN, &s));
  const vf_disparity_refine_config c = {7, 20, 1.0f};
  static float xy[2 * RN], start[RN], out[RN];
  /* Whole, quarter, half and three-quarter pixels: SGM's parabola pulled these apart unevenly. */
  const double ds[4] = {12.0, 12.25, 12.5, 17.75};
  for (int k = 0; k < 4; ++k) {
    vf_image left, right;
    refine_pair(ds[k], &left, &right);
    refine_points(ds[k], xy, start);
    CHECK_OK(vf_sampler_refine_disparity(s, &left, &right, xy, start, RN, &c, out));
    double sum = 0.0, worst = 0.0;
    int found = 0;
    for (int i = 0; i < RN; ++i) {
      if (isnan(out[i])) continue;
      ++found;
      sum += out[i] - ds[k];
      worst = fmax(worst, fabs(out[i] - ds[k]));
    }
    printf("refined disparity %.2f px: %d of %d found, mean error %+.4f px, worst %.4f px\n", ds[k],
           found, RN, found ? sum / found : 0.0, worst);
    CHECK(found >= RN * 9 / 10);
    CHECK(found > 0 && fabs(sum / found) < 0.005 && worst < 0.03);
    if (k == 1) combined_answers(s, &left, &right, xy);
    if (k == 0) {
      /* Refusals: no start, a start beyond max_change of the match, a window off the image. */
      float bad_xy[6] = {100.0f, 50.0f, 100.0f, 50.0f, 3.0f, 50.0f};
      float bad_start[3] = {NAN, (float)ds[k] + 2.5f, (float)ds[k]};
      CHECK_OK(vf_sampler_refine_disparity(s, &left, &right, bad_xy, bad_start, 3, &c, out));
      CHECK(isnan(out[0]));
      CHECK(isnan(out[1]) || fabsf(out[1] - bad_start[1]) <= c.max_change);
      CHECK(isnan(out[2]));
      /* A flat pair has no disparity to find. */
      vf_image flat;
      CHECK_OK(vf_image_alloc(&flat, RW, RH, VF_PIXEL_U8, VF_MEMORY_HOST));
      for (int y = 0; y < RH; ++y)
        memset((uint8_t*)flat.data + (size_t)y * flat.stride_bytes, 90, RW);
      CHECK_OK(vf_sampler_refine_disparity(s, &flat, &flat, xy, start, 1, &c, out));
      CHECK(isnan(out[0]));
      /* Arguments. */
      /* Radius 0 and 11, no iterations, no change, and 2.5 px (the right strip holds shifts up
       * to 2 px). */
      vf_disparity_refine_config bad[5] = {c, c, c, c, c};
      bad[0].radius = 0;
      bad[1].radius = 11;
      bad[2].max_iterations = 0;
      bad[3].max_change = 0.0f;
      bad[4].max_change = 2.5f;
      for (int i = 0; i < 5; ++i) {
        CHECK(vf_sampler_refine_disparity(s, &left, &right, xy, start, RN, &bad[i], out) ==
              VF_ERR_INVALID_ARG);
      }
      CHECK(vf_sampler_refine_disparity(s, &left, &right, xy, start, RN, NULL, out) ==
            VF_ERR_INVALID_ARG);
      CHECK(vf_sampler_refine_disparity(s, &left, &right, xy, start, RN + 1, &c, out) ==
            VF_ERR_INVALID_ARG);
      CHECK(vf_sampler_refine_disparity(s, &left, &right, NULL, start, RN, &c, out) ==
            VF_ERR_INVALID_ARG);
      CHECK(vf_sampler_refine_disparity(NULL, &left, &right, xy, start, RN, &c, out) ==
            VF_ERR_INVALID_ARG);
      vf_image small;
      CHECK_OK(vf_image_alloc(&small, RW - 1, RH, VF_PIXEL_U8, VF_MEMORY_HOST));
      CHECK(vf_sampler_refine_disparity(s, &left, &small, xy, start, RN, &c, out) ==
            VF_ERR_INVALID_ARG);
      CHECK(strstr(vf_sampler_last_error(s), "one size") != NULL);
      vf_image_free(&small);
      vf_image_free(&flat);
    }
    vf_image_free(&left);
    vf_image_free(&right);
  }
  vf_sampler_destroy(s);
  vf_context_destroy(ctx);
}

static void gpu_refine_parity(vf_sampler* sc, vf_sampler* sg) {
  vf_image left, right, dl, dr;
  refine_pair(14.3, &left, &right);
  CHECK_OK(vf_image_alloc(&dl, RW, RH, VF_PIXEL_U8, VF_MEMORY_DEVICE));
  CHECK_OK(vf_image_alloc(&dr, RW, RH, VF_PIXEL_U8, VF_MEMORY_DEVICE));
  CHECK_OK(vf_image_copy(&left, &dl));
  CHECK_OK(vf_image_copy(&right, &dr));
  static float xy[2 * RN], start[RN], a[RN], b[RN];
  refine_points(14.3, xy, start);
  start[0] = NAN;
  const vf_disparity_refine_config c = {7, 20, 1.0f};
  CHECK_OK(vf_sampler_refine_disparity(sc, &left, &right, xy, start, RN, &c, a));
  CHECK_OK(vf_sampler_refine_disparity(sg, &dl, &dr, xy, start, RN, &c, b));
  int same = 1;
  for (int i = 0; i < RN; ++i)
    same &= isnan(a[i]) ? isnan(b[i]) : !isnan(b[i]) && fabsf(a[i] - b[i]) <= 1e-3f;
  CHECK(same);
  /* Probes and matches in one call: the map on the device, the probes never leave it. */
  vf_image map, dmap;
  combined_map(14.3, &map);
  CHECK_OK(vf_image_alloc(&dmap, RW, RH, VF_PIXEL_U16, VF_MEMORY_DEVICE));
  CHECK_OK(vf_image_copy(&map, &dmap));
  static vf_disparity_probe pa[RN], pb[RN];
  CHECK_OK(vf_sampler_probe_and_refine_disparity(sc, &map, &left, &right, xy, RN, &combined_probe,
                                                 &c, pa, a));
  CHECK_OK(vf_sampler_probe_and_refine_disparity(sg, &dmap, &dl, &dr, xy, RN, &combined_probe, &c,
                                                 pb, b));
  CHECK(memcmp(pa, pb, sizeof pa) == 0);
  same = 1;
  for (int i = 0; i < RN; ++i)
    same &= isnan(a[i]) ? isnan(b[i]) : !isnan(b[i]) && fabsf(a[i] - b[i]) <= 1e-3f;
  CHECK(same);
  vf_image_free(&map);
  vf_image_free(&dmap);
  vf_image_free(&left);
  vf_image_free(&right);
  vf_image_free(&dl);
  vf_image_free(&dr);
}

static void gpu_parity(void) {
  VF_TEST_REQUIRE_CUDA();
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
  gpu_refine_parity(sc, sg);
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
  refine_answers();
  VF_TEST_END("test_sampler");
}

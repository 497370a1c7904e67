/* GPU stereo equals the CPU reference bit for bit: every path count, census type and disparity
 * count, sub-pixel, left-right check, median, adaptive P2, uniqueness and min_disparity in
 * varied combinations, odd image sizes, host and device images with padded strides, and the
 * real pairs of ../shared/data. Skips without a device. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "stereo_fixtures.h"
#include "vf_test.h"

static vf_context* cpu_ctx;
static vf_context* gpu_ctx;

static uint16_t at16(const vf_image* im, int x, int y) {
  return ((const uint16_t*)((const uint8_t*)im->data + (size_t)y * im->stride_bytes))[x];
}

static float atf(const vf_image* im, int x, int y) {
  return ((const float*)((const uint8_t*)im->data + (size_t)y * im->stride_bytes))[x];
}

/* Runs both backends on host images l, r and compares the 16-bit and float outputs. */
static void compare(const vf_stereo_config* c, const vf_image* l, const vf_image* r, int device_io,
                    const char* what) {
  vf_stereo *sc = NULL, *sg = NULL;
  CHECK_OK(vf_stereo_create(cpu_ctx, c, &sc));
  CHECK_OK(vf_stereo_create(gpu_ctx, c, &sg));
  if (sc == NULL || sg == NULL) {
    fprintf(stderr, "%s: create failed: %s\n", what, vf_last_error_message());
    vf_stereo_destroy(sc);
    vf_stereo_destroy(sg);
    return;
  }
  int w = c->width, h = c->height;
  vf_image a16, af, b16, bf, dl = {0}, dr = {0}, d16 = {0}, df = {0};
  CHECK_OK(vf_image_alloc(&a16, w, h, VF_PIXEL_U16, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&af, w, h, VF_PIXEL_F32, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&b16, w, h, VF_PIXEL_U16, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&bf, w, h, VF_PIXEL_F32, VF_MEMORY_HOST));
  /* Poison the GPU outputs: every pixel must be written. */
  memset(b16.data, 0x5A, b16.stride_bytes * (size_t)h);
  memset(bf.data, 0x5A, bf.stride_bytes * (size_t)h);
  CHECK_OK(vf_stereo_compute(sc, l, r, &a16, &af));
  if (device_io) {
    CHECK_OK(vf_image_alloc(&dl, w, h, VF_PIXEL_U8, VF_MEMORY_DEVICE));
    CHECK_OK(vf_image_alloc(&dr, w, h, VF_PIXEL_U8, VF_MEMORY_DEVICE));
    CHECK_OK(vf_image_alloc(&d16, w, h, VF_PIXEL_U16, VF_MEMORY_DEVICE));
    CHECK_OK(vf_image_alloc(&df, w, h, VF_PIXEL_F32, VF_MEMORY_DEVICE));
    CHECK_OK(vf_image_copy(l, &dl));
    CHECK_OK(vf_image_copy(r, &dr));
    CHECK_OK(vf_image_copy(&b16, &d16));
    CHECK_OK(vf_image_copy(&bf, &df));
    CHECK_OK(vf_stereo_compute(sg, &dl, &dr, &d16, &df));
    CHECK_OK(vf_context_synchronize(gpu_ctx));
    CHECK_OK(vf_image_copy(&d16, &b16));
    CHECK_OK(vf_image_copy(&df, &bf));
  } else {
    CHECK_OK(vf_stereo_compute(sg, l, r, &b16, &bf));
  }
  long diff = 0, fdiff = 0, valid = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      uint16_t u = at16(&a16, x, y), v = at16(&b16, x, y);
      valid += u != VF_STEREO_INVALID;
      if (u != v && diff++ < 5) {
        fprintf(stderr, "  %s: (%d,%d) cpu %u gpu %u\n", what, x, y, u, v);
      }
      float fa = atf(&af, x, y), fb = atf(&bf, x, y);
      fdiff += !((isnan(fa) && isnan(fb)) || fa == fb);
    }
  }
  printf("%-58s %s: %ld of %d pixels differ (float %ld), %.1f%% valid\n", what,
         diff || fdiff ? "FAIL" : "ok", diff, w * h, fdiff, 100.0 * valid / (w * h));
  CHECK(diff == 0);
  CHECK(fdiff == 0);
  CHECK(valid > 0);
  vf_image_free(&a16);
  vf_image_free(&af);
  vf_image_free(&b16);
  vf_image_free(&bf);
  vf_image_free(&dl);
  vf_image_free(&dr);
  vf_image_free(&d16);
  vf_image_free(&df);
  vf_stereo_destroy(sc);
  vf_stereo_destroy(sg);
}

static void synthetic_matrix(void) {
  static const int paths[] = {2, 4, 8};
  static const int disp[] = {64, 128, 256};
  static const float uniq[] = {0.95f, 1.0f, 0.8f};
  int i = 0;
  for (int pi = 0; pi < 3; ++pi) {
    for (int ci = 0; ci < 2; ++ci) {
      for (int di = 0; di < 3; ++di, ++i) {
        vf_stereo_config c = vf_stereo_config_default();
        c.paths = paths[pi];
        c.census = ci ? VF_CENSUS_FULL_9X7 : VF_CENSUS_CS_9X7;
        c.disparities = disp[di];
        c.subpixel = i & 1;
        c.lr_check = (i >> 1) & 1;
        c.median = (i >> 2) & 1;
        c.adaptive_p2 = i % 3 == 0;
        c.min_disparity = (i % 4) * 3;
        c.uniqueness = uniq[i % 3];
        c.lr_max_diff = i % 2;
        c.p1 = 7 + i % 5;
        c.p2 = ci ? 150 : 200;
        /* Odd sizes; widths just above the disparity range. */
        c.width = c.min_disparity + c.disparities + 37 + 2 * i;
        c.height = 23 + i;
        vf_image l, r;
        fx_random_pair(c.width, c.height, 5 + i, 100u + (unsigned)i, &l, &r);
        char what[160];
        snprintf(what, sizeof what,
                 "%dx%d paths %d %s D%d min %d sub %d lr %d med %d adapt %d uniq %.2f", c.width,
                 c.height, c.paths, ci ? "full" : "CS", c.disparities, c.min_disparity, c.subpixel,
                 c.lr_check, c.median, c.adaptive_p2, (double)c.uniqueness);
        compare(&c, &l, &r, i % 2, what);
        vf_image_free(&l);
        vf_image_free(&r);
      }
    }
  }
  /* Every flag both ways on one configuration, on the slanted plane (sub-pixel matters). */
  for (int f = 0; f < 16; ++f) {
    vf_stereo_config c = vf_stereo_config_default();
    c.width = 211;
    c.height = 45;
    c.subpixel = f & 1;
    c.lr_check = (f >> 1) & 1;
    c.median = (f >> 2) & 1;
    c.paths = f & 8 ? 8 : 4;
    vf_image l, r;
    fx_slanted_plane(c.width, c.height, &l, &r);
    char what[160];
    snprintf(what, sizeof what, "plane 211x45 paths %d sub %d lr %d med %d", c.paths, c.subpixel,
             c.lr_check, c.median);
    compare(&c, &l, &r, f & 1, what);
    vf_image_free(&l);
    vf_image_free(&r);
  }
}

static void real_pairs(void) {
  static const char* pairs[][2] = {
      {"middlebury/cones/im2.png", "middlebury/cones/im6.png"},
      {"euroc/V1_01_easy_micro/mav0/cam0/data/1403715273262142976.png",
       "euroc/V1_01_easy_micro/mav0/cam1/data/1403715273262142976.png"}};
  for (int i = 0; i < 2; ++i) {
    char pl[1024], pr[1024];
    if (vf_test_data_path(pairs[i][0], pl, sizeof pl) == NULL ||
        vf_test_data_path(pairs[i][1], pr, sizeof pr) == NULL) {
      printf("real pair %s absent: skipped\n", pairs[i][0]);
      continue;
    }
    vf_image l, r;
    CHECK_OK(vf_png_read_gray8(pl, &l));
    CHECK_OK(vf_png_read_gray8(pr, &r));
    for (int k = 0; k < 4; ++k) {
      vf_stereo_config c = vf_stereo_config_default();
      c.width = l.width;
      c.height = l.height;
      c.paths = k & 1 ? 8 : 4;
      c.disparities = k & 2 ? 128 : 64;
      c.census = k == 3 ? VF_CENSUS_FULL_9X7 : VF_CENSUS_CS_9X7;
      char what[160];
      snprintf(what, sizeof what, "%s paths %d D%d", pairs[i][0], c.paths, c.disparities);
      compare(&c, &l, &r, k & 1, what);
    }
    vf_image_free(&l);
    vf_image_free(&r);
  }
}

int main(void) {
  if (!vf_built_with_cuda()) VF_TEST_SKIP("built without CUDA");
  if (vf_cuda_device_count() == 0) VF_TEST_SKIP("no CUDA device");
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&cc, &cpu_ctx));
  cc.backend = VF_BACKEND_CUDA;
  CHECK_OK(vf_context_create(&cc, &gpu_ctx));
  synthetic_matrix();
  real_pairs();
  vf_context_destroy(gpu_ctx);
  vf_context_destroy(cpu_ctx);
  VF_TEST_END("test_stereo_gpu");
}

// SPDX-License-Identifier: BSD-3-Clause
/* GPU remap equals the CPU remap bit for bit: EuRoC rectify maps of both cameras (alpha -1, 0,
 * 1), undistort maps of odd sizes, host and device input and output, a caller's host image
 * page-locked in place (vf_image_pin), ordinary host frames queued back to back, and a real
 * EuRoC frame. Skips without a device. */
#include <stdint.h>
#include <viofront/viofront.h>

#include "badinput.h"
#include "euroc_calib.h"
#include "vf_test.h"

static vf_context* cpu_ctx;
static vf_context* gpu_ctx;

/* How many pixels of two host U8 images of one size differ. */
static long pixels_differ(const vf_image* ref, const vf_image* got) {
  long diff = 0;
  for (int y = 0; y < ref->height; ++y) {
    const uint8_t* a = (const uint8_t*)ref->data + y * ref->stride_bytes;
    const uint8_t* b = (const uint8_t*)got->data + y * got->stride_bytes;
    for (int x = 0; x < ref->width; ++x) diff += a[x] != b[x];
  }
  return diff;
}

static void compare(const vf_remap_config* mc, const vf_image* src, const char* what) {
  vf_remap *mc_cpu = NULL, *mc_gpu = NULL;
  CHECK_OK(vf_remap_create(cpu_ctx, mc, &mc_cpu));
  CHECK_OK(vf_remap_create(gpu_ctx, mc, &mc_gpu));
  if (mc_cpu == NULL || mc_gpu == NULL) return;
  vf_image ref, got, dsrc, ddst;
  CHECK_OK(vf_image_alloc(&ref, mc->out_width, mc->out_height, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&got, mc->out_width, mc->out_height, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&dsrc, src->width, src->height, VF_PIXEL_U8, VF_MEMORY_DEVICE));
  CHECK_OK(vf_image_alloc(&ddst, mc->out_width, mc->out_height, VF_PIXEL_U8, VF_MEMORY_DEVICE));
  CHECK_OK(vf_image_copy(src, &dsrc));
  CHECK_OK(vf_remap_apply(mc_cpu, src, &ref));
  for (int mode = 0; mode < 4; ++mode) {
    memset(got.data, 0xA5, got.stride_bytes * (size_t)got.height); /* poison */
    const vf_image* in = (mode & 1) ? &dsrc : src;
    if (mode & 2) {
      CHECK_OK(vf_remap_apply(mc_gpu, in, &ddst));
      CHECK_OK(vf_image_copy(&ddst, &got));
    } else {
      CHECK_OK(vf_remap_apply(mc_gpu, in, &got));
    }
    const long diff = pixels_differ(&ref, &got);
    if (diff) fprintf(stderr, "%s mode %d: %ld pixels differ\n", what, mode, diff);
    CHECK(diff == 0);
  }
  printf("%s: %dx%d -> %dx%d identical on CPU and GPU\n", what, src->width, src->height,
         mc->out_width, mc->out_height);
  vf_image_free(&ref);
  vf_image_free(&got);
  vf_image_free(&dsrc);
  vf_image_free(&ddst);
  vf_remap_destroy(mc_cpu);
  vf_remap_destroy(mc_gpu);
}

/* Random pixels over a host U8 image, row by row. */
static void fill_random(vf_image* img, unsigned* seed) {
  for (int y = 0; y < img->height; ++y) {
    uint8_t* row = (uint8_t*)img->data + y * img->stride_bytes;
    for (int x = 0; x < img->width; ++x) row[x] = (uint8_t)vf_test_rand(seed);
  }
}

static void random_image(vf_image* img, int w, int h, unsigned seed) {
  CHECK_OK(vf_image_alloc(img, w, h, VF_PIXEL_U8, VF_MEMORY_HOST));
  if (img->data != NULL) fill_random(img, &seed);
}

/* A caller's host frame page-locked in place: its uploads run asynchronously, and frame after
 * frame, as the caller rewrites the buffer between calls, the GPU must see each frame's pixels
 * (the CPU remap of the same frame). Then the lock's states: twice, undone, undone twice. */
static void pinned_input(const vf_remap_config* mc) {
  vf_remap *m_cpu = NULL, *m_gpu = NULL;
  CHECK_OK(vf_remap_create(cpu_ctx, mc, &m_cpu));
  CHECK_OK(vf_remap_create(gpu_ctx, mc, &m_gpu));
  vf_image frame, ref, got;
  random_image(&frame, 752, 480, 5);
  CHECK_OK(vf_image_alloc(&ref, mc->out_width, mc->out_height, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&got, mc->out_width, mc->out_height, VF_PIXEL_U8, VF_MEMORY_HOST));
  if (m_cpu == NULL || m_gpu == NULL || frame.data == NULL) return;
  CHECK_OK(vf_image_pin(&frame));
  CHECK_BAD(vf_image_pin(&frame), VF_ERR_STATE, "page-locked already");
  long diff = 0;
  unsigned seed = 77;
  for (int k = 0; k < 8; ++k) {
    fill_random(&frame, &seed); /* the caller's next frame, in the same buffer */
    CHECK_OK(vf_remap_apply(m_gpu, &frame, &got));
    CHECK_OK(vf_remap_apply(m_cpu, &frame, &ref));
    diff += pixels_differ(&ref, &got);
  }
  if (diff) fprintf(stderr, "page-locked input: %ld pixels differ\n", diff);
  CHECK(diff == 0);
  CHECK_OK(vf_image_unpin(&frame));
  CHECK_BAD(vf_image_unpin(&frame), VF_ERR_STATE, "not locked");
  printf("page-locked input (vf_image_pin): 8 frames identical on CPU and GPU\n");
  vf_image_free(&frame);
  vf_image_free(&ref);
  vf_image_free(&got);
  vf_remap_destroy(m_cpu);
  vf_remap_destroy(m_gpu);
}

/* Ordinary (pageable) host frames, whose upload the driver stages. Eight frames in one caller
 * buffer, each rewritten as soon as the call returns, remapped into device images with no wait
 * between the calls: each result must hold its own frame's pixels, so the call must have taken
 * the pixels before returning, whatever stages them on the way to the device. */
#define QUEUED_FRAMES 8
static void pageable_input_queued(const vf_remap_config* mc) {
  vf_remap *m_cpu = NULL, *m_gpu = NULL;
  CHECK_OK(vf_remap_create(cpu_ctx, mc, &m_cpu));
  CHECK_OK(vf_remap_create(gpu_ctx, mc, &m_gpu));
  vf_image frame, ref[QUEUED_FRAMES], dev[QUEUED_FRAMES], got;
  random_image(&frame, 752, 480, 9);
  CHECK_OK(vf_image_alloc(&got, mc->out_width, mc->out_height, VF_PIXEL_U8, VF_MEMORY_HOST));
  for (int k = 0; k < QUEUED_FRAMES; ++k) {
    CHECK_OK(vf_image_alloc(&ref[k], mc->out_width, mc->out_height, VF_PIXEL_U8, VF_MEMORY_HOST));
    CHECK_OK(vf_image_alloc(&dev[k], mc->out_width, mc->out_height, VF_PIXEL_U8, VF_MEMORY_DEVICE));
  }
  if (m_cpu == NULL || m_gpu == NULL || frame.data == NULL || got.data == NULL) return;
  unsigned seed = 91;
  for (int k = 0; k < QUEUED_FRAMES; ++k) {
    fill_random(&frame, &seed);
    CHECK_OK(vf_remap_apply(m_gpu, &frame, &dev[k]));
    CHECK_OK(vf_remap_apply(m_cpu, &frame, &ref[k]));
  }
  long diff = 0;
  for (int k = 0; k < QUEUED_FRAMES; ++k) {
    CHECK_OK(vf_image_copy(&dev[k], &got));
    diff += pixels_differ(&ref[k], &got);
  }
  if (diff) fprintf(stderr, "pageable input queued: %ld pixels differ\n", diff);
  CHECK(diff == 0);
  printf("pageable input: %d frames queued back to back identical on CPU and GPU\n", QUEUED_FRAMES);
  for (int k = 0; k < QUEUED_FRAMES; ++k) {
    vf_image_free(&ref[k]);
    vf_image_free(&dev[k]);
  }
  vf_image_free(&frame);
  vf_image_free(&got);
  vf_remap_destroy(m_cpu);
  vf_remap_destroy(m_gpu);
}

int main(void) {
  VF_TEST_GPU_CONTEXTS(cpu_ctx, gpu_ctx);

  vf_camera c0 = euroc_camera(0), c1 = euroc_camera(1);
  vf_image img;
  random_image(&img, 752, 480, 11);
  static const double alphas[3] = {-1, 0, 1};
  for (int a = 0; a < 3; ++a) {
    vf_rectify_config rc = vf_rectify_config_default();
    rc.alpha = alphas[a];
    vf_stereo_rectification rect;
    CHECK_OK(vf_stereo_rectify(&c0, &c1, &rc, &rect));
    for (int which = 0; which < 2; ++which) {
      vf_remap_config mc;
      CHECK_OK(vf_remap_config_rectify(which ? &c1 : &c0, &rect, which, &mc));
      mc.fill = (uint8_t)(40 * a);
      char what[64];
      snprintf(what, sizeof what, "rectify cam%d alpha %g", which, alphas[a]);
      compare(&mc, &img, what);
      if (a == 1 && which == 0) pinned_input(&mc);
      if (a == 1 && which == 1) pageable_input_queued(&mc);
    }
  }
  /* Odd output sizes: the last group of four pixels of a row is partial. */
  static const int sizes[][2] = {{751, 479}, {33, 17}, {5, 3}, {1, 1}};
  for (int i = 0; i < 4; ++i) {
    vf_remap_config mc;
    CHECK_OK(vf_remap_config_undistort(&c0, &mc));
    mc.out_width = sizes[i][0];
    mc.out_height = sizes[i][1];
    compare(&mc, &img, "undistort, odd size");
  }
  vf_image_free(&img);

  char path[1024];
  if (vf_test_data_path("euroc/V1_01_easy_micro/mav0/cam0/data/1403715273262142976.png", path,
                        sizeof path) != NULL) {
    CHECK_OK(vf_png_read_gray8(path, &img));
    vf_stereo_rectification rect;
    CHECK_OK(vf_stereo_rectify(&c0, &c1, NULL, &rect));
    vf_remap_config mc;
    CHECK_OK(vf_remap_config_rectify(&c0, &rect, 0, &mc));
    compare(&mc, &img, "EuRoC frame");
    vf_image_free(&img);
  } else {
    printf("EuRoC frame absent: skipped\n");
  }
  vf_context_destroy(gpu_ctx);
  vf_context_destroy(cpu_ctx);
  VF_TEST_END("test_remap_gpu");
}

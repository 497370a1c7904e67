// SPDX-License-Identifier: BSD-3-Clause
/* vf_remap_apply_batch (a rig's rectifications in one launch) gives each job the pixels of the
 * CPU remap: EuRoC rectifications of both cameras, undistortions of odd sizes, host and device
 * sources mixed, more jobs than one launch takes. Its checks refuse a bad job before anything is
 * queued. CPU backend by default; the CUDA one with --gpu (skips without a device). */
#include <stdint.h>
#include <string.h>
#include <viofront/viofront.h>

#include "badinput.h"
#include "euroc_calib.h"
#include "geometry/vf_remap_batch.h"
#include "vf_test.h"

#define JOBS 40 /* more than one CUDA launch takes (VF_CUDA_REMAP_BATCH_MAX) */

static vf_context* cpu_ctx;
static vf_context* ctx; /* the backend under test */

static void random_image(vf_image* img, int w, int h, unsigned seed) {
  CHECK_OK(vf_image_alloc(img, w, h, VF_PIXEL_U8, VF_MEMORY_HOST));
  for (int y = 0; y < h; ++y) {
    uint8_t* row = (uint8_t*)img->data + (size_t)y * img->stride_bytes;
    for (int x = 0; x < w; ++x) row[x] = (uint8_t)vf_test_rand(&seed);
  }
}

static long pixels_differ(const vf_image* a, const vf_image* b) {
  long diff = 0;
  for (int y = 0; y < a->height; ++y) {
    const uint8_t* ra = (const uint8_t*)a->data + (size_t)y * a->stride_bytes;
    const uint8_t* rb = (const uint8_t*)b->data + (size_t)y * b->stride_bytes;
    for (int x = 0; x < a->width; ++x) diff += ra[x] != rb[x];
  }
  return diff;
}

/* Job k's map: the rectifications of both EuRoC cameras (alpha 0 and -1), then undistortions of
 * odd output sizes. */
static void job_config(int k, vf_remap_config* mc) {
  const vf_camera c0 = euroc_camera(0), c1 = euroc_camera(1);
  if (k < 4) {
    vf_rectify_config rc = vf_rectify_config_default();
    rc.alpha = k < 2 ? 0.0 : -1.0;
    vf_stereo_rectification rect;
    CHECK_OK(vf_stereo_rectify(&c0, &c1, &rc, &rect));
    CHECK_OK(vf_remap_config_rectify(k % 2 ? &c1 : &c0, &rect, k % 2, mc));
    return;
  }
  static const int sizes[][2] = {{751, 479}, {33, 17}, {5, 3}, {64, 48}};
  CHECK_OK(vf_remap_config_undistort(&c0, mc));
  mc->out_width = sizes[k % 4][0];
  mc->out_height = sizes[k % 4][1];
  mc->fill = (uint8_t)(3 * k);
}

int main(int argc, char** argv) {
  int gpu = 0;
  VF_TEST_BACKEND_CONTEXT(argc, argv, ctx, gpu);
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  CHECK_OK(vf_context_create(&cc, &cpu_ctx));
  const vf_memory where = gpu ? VF_MEMORY_DEVICE : VF_MEMORY_HOST;

  vf_remap *ref_map[JOBS], *map[JOBS];
  vf_image src[JOBS], dev_src[JOBS], ref[JOBS], out[JOBS], got;
  const vf_image* in[JOBS];
  vf_image* dst[JOBS];
  for (int k = 0; k < JOBS; ++k) {
    vf_remap_config mc;
    job_config(k, &mc);
    CHECK_OK(vf_remap_create(cpu_ctx, &mc, &ref_map[k]));
    CHECK_OK(vf_remap_create(ctx, &mc, &map[k]));
    random_image(&src[k], 752, 480, 100u + (unsigned)k);
    CHECK_OK(vf_image_alloc(&ref[k], mc.out_width, mc.out_height, VF_PIXEL_U8, VF_MEMORY_HOST));
    CHECK_OK(vf_image_alloc(&out[k], mc.out_width, mc.out_height, VF_PIXEL_U8, where));
    CHECK_OK(vf_remap_apply(ref_map[k], &src[k], &ref[k]));
    in[k] = &src[k];
    /* Every third job's source on the device (CUDA). */
    if (gpu && k % 3 == 1) {
      CHECK_OK(vf_image_alloc(&dev_src[k], 752, 480, VF_PIXEL_U8, VF_MEMORY_DEVICE));
      CHECK_OK(vf_image_copy(&src[k], &dev_src[k]));
      in[k] = &dev_src[k];
    }
    dst[k] = &out[k];
  }

  /* Bad jobs: nothing queued, the message names the fault. */
  CHECK_BAD(vf_remap_apply_batch(NULL, map, in, dst, 2), VF_ERR_INVALID_ARG, "NULL");
  CHECK_BAD(vf_remap_apply_batch(ctx, map, in, dst, -1), VF_ERR_INVALID_ARG, "remaps");
  CHECK_BAD(vf_remap_apply_batch(ctx, map, in, dst, VF_REMAP_BATCH_MAX + 1), VF_ERR_INVALID_ARG,
            "remaps");
  vf_remap* twice[2] = {map[0], map[0]};
  CHECK_BAD(vf_remap_apply_batch(ctx, twice, in, dst, 2), VF_ERR_INVALID_ARG, "twice");
  const vf_image* wrong[2] = {in[0], &src[4]};
  vf_image small;
  random_image(&small, 40, 30, 7);
  wrong[1] = &small;
  CHECK_BAD(vf_remap_apply_batch(ctx, map, wrong, dst, 2), VF_ERR_INVALID_ARG, "job 1");
  vf_image_free(&small);
  if (gpu) {
    vf_image* host_dst[1] = {&ref[0]};
    CHECK_BAD(vf_remap_apply_batch(ctx, map, in, host_dst, 1), VF_ERR_UNSUPPORTED, "device");
    vf_remap* cpu_map[1] = {ref_map[0]};
    CHECK_BAD(vf_remap_apply_batch(ctx, cpu_map, in, dst, 1), VF_ERR_INVALID_ARG, "backend");
  }
  CHECK_OK(vf_remap_apply_batch(ctx, map, in, dst, 0));

  /* Every job at once, the destinations poisoned first. */
  for (int k = 0; k < JOBS; ++k) {
    CHECK_OK(vf_image_alloc(&got, out[k].width, out[k].height, VF_PIXEL_U8, VF_MEMORY_HOST));
    memset(got.data, 0xA5, got.stride_bytes * (size_t)got.height);
    CHECK_OK(vf_image_copy(&got, &out[k]));
    vf_image_free(&got);
  }
  CHECK_OK(vf_remap_apply_batch(ctx, map, in, dst, JOBS));
  CHECK_OK(vf_context_synchronize(ctx));
  long diff = 0;
  for (int k = 0; k < JOBS; ++k) {
    CHECK_OK(vf_image_alloc(&got, out[k].width, out[k].height, VF_PIXEL_U8, VF_MEMORY_HOST));
    CHECK_OK(vf_image_copy(&out[k], &got));
    const long d = pixels_differ(&ref[k], &got);
    if (d) fprintf(stderr, "job %d (%dx%d): %ld pixels differ\n", k, got.width, got.height, d);
    diff += d;
    vf_image_free(&got);
  }
  CHECK(diff == 0);
  printf("%s: %d remaps in one call, each identical to the CPU's\n", gpu ? "CUDA" : "CPU", JOBS);

  for (int k = 0; k < JOBS; ++k) {
    vf_remap_destroy(ref_map[k]);
    vf_remap_destroy(map[k]);
    vf_image_free(&src[k]);
    if (gpu && k % 3 == 1) vf_image_free(&dev_src[k]);
    vf_image_free(&ref[k]);
    vf_image_free(&out[k]);
  }
  vf_context_destroy(ctx);
  vf_context_destroy(cpu_ctx);
  VF_TEST_END("test_remap_batch");
}

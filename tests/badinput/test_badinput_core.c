// SPDX-License-Identifier: BSD-3-Clause
/* Bad input to the core calls: status strings, image views, contexts, timers, the point
 * sampler (and its sparse stereo matching), camera math and rectification, remap maps, camera
 * rigs and their camchain files, and the image and disparity files. Every bad call gives its
 * specific status and its own message; handles keep working afterwards. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "badinput.h"
#include "euroc_calib.h"

static vf_context* cpu_context(void) {
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  cc.cpu_threads = 2;
  vf_context* ctx = NULL;
  CHECK_OK(vf_context_create(&cc, &ctx));
  return ctx;
}

static void test_status(void) {
  for (int s = 0; s < VF_STATUS_COUNT; ++s) {
    CHECK(vf_status_str((vf_status)s)[0] != '\0');
    CHECK(strcmp(vf_status_str((vf_status)s), "unknown status") != 0);
  }
  CHECK(strcmp(vf_status_str((vf_status)-1), "unknown status") == 0);
  CHECK(strcmp(vf_status_str(VF_STATUS_COUNT), "unknown status") == 0);
  CHECK(strcmp(vf_backend_name((vf_backend)42), "unknown") == 0);
  CHECK(vf_pixel_size((vf_pixel_format)99) == 0);
}

static void test_image(void) {
  uint8_t pixels[64];
  vf_image good = vf_image_view(pixels, 8, 8, 8, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image v = good;
  CHECK_BAD(vf_image_check(NULL, "probe"), VF_ERR_INVALID_ARG, "probe");
  v.format = (vf_pixel_format)99;
  CHECK_BAD(vf_image_check(&v, "probe"), VF_ERR_INVALID_ARG, "format");
  v = good;
  v.location = (vf_memory)7;
  CHECK_BAD(vf_image_check(&v, "probe"), VF_ERR_INVALID_ARG, "location");
  v = good;
  v.width = 0;
  CHECK_BAD(vf_image_check(&v, "probe"), VF_ERR_INVALID_ARG, "size");
  v = good;
  v.height = -3;
  CHECK_BAD(vf_image_check(&v, "probe"), VF_ERR_INVALID_ARG, "size");
  v = good;
  v.width = 1 << 20;
  CHECK_BAD(vf_image_check(&v, "probe"), VF_ERR_INVALID_ARG, "size");
  v = good;
  v.stride_bytes = 7; /* smaller than the width */
  CHECK_BAD(vf_image_check(&v, "probe"), VF_ERR_INVALID_ARG, "stride");
  v = good;
  v.format = VF_PIXEL_U16; /* 8 pixels of 2 bytes in a stride of 8 */
  CHECK_BAD(vf_image_check(&v, "probe"), VF_ERR_INVALID_ARG, "stride");
  v = good;
  v.data = NULL;
  CHECK_BAD(vf_image_check(&v, "probe"), VF_ERR_INVALID_ARG, "data");
  CHECK_OK(vf_image_check(&good, NULL));

  vf_image a;
  CHECK_BAD(vf_image_alloc(NULL, 4, 4, VF_PIXEL_U8, VF_MEMORY_HOST), VF_ERR_INVALID_ARG,
            "vf_image_alloc");
  CHECK_BAD(vf_image_alloc(&a, 0, 4, VF_PIXEL_U8, VF_MEMORY_HOST), VF_ERR_INVALID_ARG,
            "vf_image_alloc");
  CHECK(a.data == NULL);
  CHECK_BAD(vf_image_alloc(&a, -4, 4, VF_PIXEL_U8, VF_MEMORY_HOST), VF_ERR_INVALID_ARG, "size");
  CHECK_BAD(vf_image_alloc(&a, 40000, 40000, VF_PIXEL_F32, VF_MEMORY_HOST), VF_ERR_INVALID_ARG,
            "size");
  CHECK_BAD(vf_image_alloc(&a, 4, 4, (vf_pixel_format)-1, VF_MEMORY_HOST), VF_ERR_INVALID_ARG,
            "format");
  CHECK_BAD(vf_image_alloc(&a, 4, 4, VF_PIXEL_U8, (vf_memory)5), VF_ERR_INVALID_ARG, "location");
  if (vf_cuda_device_count() == 0) {
    CHECK_BAD(vf_image_alloc(&a, 4, 4, VF_PIXEL_U8, VF_MEMORY_DEVICE), VF_ERR_NO_DEVICE,
              "vf_image_alloc");
    CHECK(a.data == NULL);
  }
  vf_image_free(NULL);
  vf_image_free(&a); /* a cleared view */

  CHECK_BAD(vf_image_pin(NULL), VF_ERR_INVALID_ARG, "vf_image_pin");
  CHECK_BAD(vf_image_unpin(NULL), VF_ERR_INVALID_ARG, "vf_image_unpin");
  v = good;
  v.location = VF_MEMORY_DEVICE;
  CHECK_BAD(vf_image_pin(&v), VF_ERR_INVALID_ARG, "device memory");
  CHECK_BAD(vf_image_unpin(&v), VF_ERR_INVALID_ARG, "device memory");
  v = good;
  v.data = NULL;
  CHECK_BAD(vf_image_pin(&v), VF_ERR_INVALID_ARG, "data");
  v = good;
  v.stride_bytes = 4;
  CHECK_BAD(vf_image_pin(&v), VF_ERR_INVALID_ARG, "stride");
  if (vf_cuda_device_count() == 0) {
    CHECK_BAD(vf_image_pin(&good), VF_ERR_NO_DEVICE, "vf_image_pin");
    CHECK_BAD(vf_image_unpin(&good), VF_ERR_NO_DEVICE, "vf_image_unpin");
  }

  vf_image src, dst;
  CHECK_OK(vf_image_alloc(&src, 8, 8, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&dst, 8, 4, VF_PIXEL_U8, VF_MEMORY_HOST));
  memset(src.data, 5, src.stride_bytes * 8);
  CHECK_BAD(vf_image_copy(NULL, &dst), VF_ERR_INVALID_ARG, "vf_image_copy src");
  CHECK_BAD(vf_image_copy(&src, NULL), VF_ERR_INVALID_ARG, "vf_image_copy dst");
  CHECK_BAD(vf_image_copy(&src, &dst), VF_ERR_INVALID_ARG, "differs");
  vf_image u16 = vf_image_view(dst.data, 4, 4, dst.stride_bytes, VF_MEMORY_HOST, VF_PIXEL_U16);
  vf_image u8 = vf_image_view(src.data, 4, 4, src.stride_bytes, VF_MEMORY_HOST, VF_PIXEL_U8);
  CHECK_BAD(vf_image_copy(&u8, &u16), VF_ERR_INVALID_ARG, "differs");
  vf_image top = vf_image_view(src.data, 8, 4, src.stride_bytes, VF_MEMORY_HOST, VF_PIXEL_U8);
  CHECK_OK(vf_image_copy(&top, &dst));
  CHECK(((uint8_t*)dst.data)[3 * dst.stride_bytes + 7] == 5);
  vf_image_free(&src);
  vf_image_free(&dst);
  vf_image_free(&dst); /* twice: the view was cleared */
}

static void test_context(void) {
  vf_context* ctx = (vf_context*)&ctx; /* must be overwritten with NULL on failure */
  vf_context_config cc = vf_context_config_default();
  CHECK_BAD(vf_context_create(&cc, NULL), VF_ERR_INVALID_ARG, "out");
  cc.backend = (vf_backend)7;
  CHECK_BAD(vf_context_create(&cc, &ctx), VF_ERR_INVALID_ARG, "backend");
  CHECK(ctx == NULL);
  cc = vf_context_config_default();
  cc.backend = (vf_backend)-1;
  CHECK_BAD(vf_context_create(&cc, &ctx), VF_ERR_INVALID_ARG, "backend");
  cc = vf_context_config_default();
  cc.cuda_device = -1;
  CHECK_BAD(vf_context_create(&cc, &ctx), VF_ERR_INVALID_ARG, "cuda_device");
  cc = vf_context_config_default();
  cc.cpu_threads = -2;
  CHECK_BAD(vf_context_create(&cc, &ctx), VF_ERR_INVALID_ARG, "cpu_threads");
  cc.cpu_threads = 1 << 30;
  CHECK_BAD(vf_context_create(&cc, &ctx), VF_ERR_INVALID_ARG, "cpu_threads");
  cc = vf_context_config_default();
  cc.log_level = (vf_log_level)9;
  CHECK_BAD(vf_context_create(&cc, &ctx), VF_ERR_INVALID_ARG, "log_level");
  cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CUDA;
  cc.cuda_device = 4096; /* no machine has this many devices */
  CHECK_BAD(vf_context_create(&cc, &ctx), VF_ERR_NO_DEVICE, "vf_context_create");
  CHECK(ctx == NULL);
  vf_context_destroy(NULL);

  vf_device_info info;
  CHECK_BAD(vf_context_device_info(NULL, &info), VF_ERR_INVALID_ARG, "ctx");
  CHECK_BAD(vf_context_synchronize(NULL), VF_ERR_INVALID_ARG, "ctx");
  CHECK(vf_context_last_error(NULL)[0] != '\0');
  CHECK(vf_context_cuda_stream(NULL) == NULL);
  ctx = cpu_context();
  CHECK_BAD(vf_context_device_info(ctx, NULL), VF_ERR_INVALID_ARG, "out");
  CHECK_OK(vf_context_device_info(ctx, &info));
  CHECK(info.multiprocessors == 2);

  vf_timer* timer = NULL;
  double ms = -1.0;
  CHECK_BAD(vf_timer_create(NULL, &timer), VF_ERR_INVALID_ARG, "ctx");
  CHECK_BAD(vf_timer_create(ctx, NULL), VF_ERR_INVALID_ARG, "out");
  CHECK_OK(vf_timer_create(ctx, &timer));
  CHECK_BAD(vf_timer_stop(timer, &ms), VF_ERR_STATE, "vf_timer_start");
  CHECK_BAD(vf_timer_start(NULL), VF_ERR_INVALID_ARG, "timer");
  CHECK_OK(vf_timer_start(timer));
  CHECK_BAD(vf_timer_stop(timer, NULL), VF_ERR_INVALID_ARG, "elapsed_ms");
  CHECK_BAD(vf_timer_stop(NULL, &ms), VF_ERR_INVALID_ARG, "timer");
  CHECK_OK(vf_timer_stop(timer, &ms));
  CHECK(ms >= 0.0);
  vf_timer_destroy(timer);
  vf_timer_destroy(NULL);
  vf_context_destroy(ctx);
}

static void test_sampler(void) {
  vf_context* ctx = cpu_context();
  vf_sampler* sp = (vf_sampler*)&sp;
  CHECK_BAD(vf_sampler_create(ctx, 0, &sp), VF_ERR_INVALID_ARG, "max_points");
  CHECK(sp == NULL);
  CHECK_BAD(vf_sampler_create(ctx, (1 << 20) + 1, &sp), VF_ERR_INVALID_ARG, "max_points");
  CHECK_BAD(vf_sampler_create(NULL, 4, &sp), VF_ERR_INVALID_ARG, "ctx");
  CHECK_BAD(vf_sampler_create(ctx, 4, NULL), VF_ERR_INVALID_ARG, "out");
  CHECK_OK(vf_sampler_create(ctx, 4, &sp));
  uint16_t map[4 * 4];
  for (int i = 0; i < 16; ++i) map[i] = (uint16_t)(100 + i);
  vf_image img = vf_image_view(map, 4, 4, 8, VF_MEMORY_HOST, VF_PIXEL_U16);
  vf_image u8 = vf_image_view(map, 4, 4, 8, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image dev = vf_image_view(map, 4, 4, 8, VF_MEMORY_DEVICE, VF_PIXEL_U16);
  vf_image narrow = vf_image_view(map, 4, 4, 6, VF_MEMORY_HOST, VF_PIXEL_U16);
  float xy[8] = {1, 1, NAN, 2, -INFINITY, 0, 2.6f, 3.4f};
  uint16_t values[5] = {0, 0, 0, 0, 7};
  const char* msg = vf_sampler_last_error(sp);
  CHECK_BAD(vf_sampler_gather_u16(NULL, &img, xy, 4, 9, values), VF_ERR_INVALID_ARG,
            "vf_sampler_gather_u16");
  CHECK_BAD_ON(vf_sampler_gather_u16(sp, NULL, xy, 4, 9, values), VF_ERR_INVALID_ARG,
               "vf_sampler_gather_u16", msg);
  CHECK_BAD_ON(vf_sampler_gather_u16(sp, &u8, xy, 4, 9, values), VF_ERR_INVALID_ARG, "U16", msg);
  CHECK_BAD_ON(vf_sampler_gather_u16(sp, &narrow, xy, 4, 9, values), VF_ERR_INVALID_ARG, "stride",
               msg);
  CHECK_BAD_ON(vf_sampler_gather_u16(sp, &img, xy, -1, 9, values), VF_ERR_INVALID_ARG, "count",
               msg);
  CHECK_BAD_ON(vf_sampler_gather_u16(sp, &img, xy, 5, 9, values), VF_ERR_INVALID_ARG, "count", msg);
  CHECK_BAD_ON(vf_sampler_gather_u16(sp, &img, NULL, 4, 9, values), VF_ERR_INVALID_ARG, "xy", msg);
  CHECK_BAD_ON(vf_sampler_gather_u16(sp, &img, xy, 4, 9, NULL), VF_ERR_INVALID_ARG, "values", msg);
  if (vf_context_backend(ctx) == VF_BACKEND_CPU) {
    CHECK_BAD_ON(vf_sampler_gather_u16(sp, &dev, xy, 4, 9, values), VF_ERR_UNSUPPORTED,
                 "CUDA backend", msg);
  }
  /* Not-finite points read `outside`; the handle still works after every failure. */
  CHECK_OK(vf_sampler_gather_u16(sp, &img, xy, 4, 9, values));
  CHECK(values[0] == 105 && values[1] == 9 && values[2] == 9 && values[3] == 115);
  CHECK(values[4] == 7);
  /* The disparity refinement: U8 pairs of one size in the backend's memory, a valid config. */
  uint8_t pix[16 * 16] = {0};
  vf_image l8 = vf_image_view(pix, 16, 16, 16, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image r8 = vf_image_view(pix, 15, 16, 16, VF_MEMORY_HOST, VF_PIXEL_U8);
  vf_image d8 = vf_image_view(pix, 16, 16, 16, VF_MEMORY_DEVICE, VF_PIXEL_U8);
  const vf_disparity_refine_config rc = {3, 10, 1.0f}, bad_rc = {3, 10, NAN};
  float start[4] = {1, 1, 1, 1}, out[4];
  CHECK_BAD(vf_sampler_refine_disparity(NULL, &l8, &l8, xy, start, 4, &rc, out), VF_ERR_INVALID_ARG,
            "sampler");
  CHECK_BAD_ON(vf_sampler_refine_disparity(sp, &l8, &l8, xy, start, 4, NULL, out),
               VF_ERR_INVALID_ARG, "config", msg);
  CHECK_BAD_ON(vf_sampler_refine_disparity(sp, &l8, &l8, xy, start, 4, &bad_rc, out),
               VF_ERR_INVALID_ARG, "max_change", msg);
  CHECK_BAD_ON(vf_sampler_refine_disparity(sp, &l8, &r8, xy, start, 4, &rc, out),
               VF_ERR_INVALID_ARG, "one size", msg);
  CHECK_BAD_ON(vf_sampler_refine_disparity(sp, &img, &img, xy, start, 4, &rc, out),
               VF_ERR_INVALID_ARG, "U8", msg);
  CHECK_BAD_ON(vf_sampler_refine_disparity(sp, &l8, &l8, xy, start, 5, &rc, out),
               VF_ERR_INVALID_ARG, "count", msg);
  CHECK_BAD_ON(vf_sampler_refine_disparity(sp, &l8, &l8, xy, NULL, 4, &rc, out), VF_ERR_INVALID_ARG,
               "start", msg);
  if (vf_context_backend(ctx) == VF_BACKEND_CPU) {
    CHECK_BAD_ON(vf_sampler_refine_disparity(sp, &d8, &d8, xy, start, 4, &rc, out),
                 VF_ERR_INVALID_ARG, "host", msg);
  }
  /* Points whose windows leave the 16 x 16 image, or without a start, give NaN. */
  CHECK_OK(vf_sampler_refine_disparity(sp, &l8, &l8, xy, start, 4, &rc, out));
  CHECK(isnan(out[0]) && isnan(out[1]) && isnan(out[2]) && isnan(out[3]));
  /* Sparse stereo: the refinement's image and point checks, its own configuration's fields and
   * the refinement's; priors may be NULL. */
  const vf_stereo_match_config mc = vf_stereo_match_config_default();
  vf_stereo_match_config bad_window = mc, bad_range = mc, bad_refine = mc;
  bad_window.search_radius = 8;
  bad_range.max_disparity = bad_range.min_disparity;
  bad_refine.refine.max_change = NAN;
  vf_stereo_match matches[4];
  CHECK_BAD(vf_sampler_match_stereo(NULL, &l8, &l8, xy, NULL, 4, &mc, matches), VF_ERR_INVALID_ARG,
            "vf_sampler_match_stereo");
  CHECK_BAD_ON(vf_sampler_match_stereo(sp, &l8, &l8, xy, NULL, 4, NULL, matches),
               VF_ERR_INVALID_ARG, "config", msg);
  CHECK_BAD_ON(vf_sampler_match_stereo(sp, &l8, &l8, xy, NULL, 4, &bad_window, matches),
               VF_ERR_INVALID_ARG, "search_radius", msg);
  CHECK_BAD_ON(vf_sampler_match_stereo(sp, &l8, &l8, xy, NULL, 4, &bad_range, matches),
               VF_ERR_INVALID_ARG, "disparities", msg);
  CHECK_BAD_ON(vf_sampler_match_stereo(sp, &l8, &l8, xy, NULL, 4, &bad_refine, matches),
               VF_ERR_INVALID_ARG, "max_change", msg);
  CHECK_BAD_ON(vf_sampler_match_stereo(sp, NULL, &l8, xy, NULL, 4, &mc, matches),
               VF_ERR_INVALID_ARG, "vf_sampler_match_stereo", msg);
  CHECK_BAD_ON(vf_sampler_match_stereo(sp, &l8, &r8, xy, NULL, 4, &mc, matches), VF_ERR_INVALID_ARG,
               "one size", msg);
  CHECK_BAD_ON(vf_sampler_match_stereo(sp, &img, &img, xy, NULL, 4, &mc, matches),
               VF_ERR_INVALID_ARG, "U8", msg);
  CHECK_BAD_ON(vf_sampler_match_stereo(sp, &l8, &l8, xy, NULL, 5, &mc, matches), VF_ERR_INVALID_ARG,
               "count", msg);
  CHECK_BAD_ON(vf_sampler_match_stereo(sp, &l8, &l8, NULL, NULL, 4, &mc, matches),
               VF_ERR_INVALID_ARG, "xy", msg);
  CHECK_BAD_ON(vf_sampler_match_stereo(sp, &l8, &l8, xy, NULL, 4, &mc, NULL), VF_ERR_INVALID_ARG,
               "out", msg);
  if (vf_context_backend(ctx) == VF_BACKEND_CPU) {
    CHECK_BAD_ON(vf_sampler_match_stereo(sp, &d8, &d8, xy, NULL, 4, &mc, matches),
                 VF_ERR_INVALID_ARG, "host", msg);
  }
  CHECK_BAD(vf_stereo_match_config_check(NULL), VF_ERR_INVALID_ARG, "config");
  CHECK_BAD(vf_stereo_match_config_check(&bad_window), VF_ERR_INVALID_ARG, "search_radius");
  CHECK_OK(vf_stereo_match_config_check(&mc));
  /* A flat 16 x 16 pair: no point has a window inside or texture; count 0 does nothing. */
  CHECK_OK(vf_sampler_match_stereo(sp, &l8, &l8, xy, NULL, 4, &mc, matches));
  for (int i = 0; i < 4; ++i)
    CHECK(matches[i].result == VF_STEREO_MATCH_NONE && isnan(matches[i].disparity));
  CHECK_OK(vf_sampler_match_stereo(sp, &l8, &l8, NULL, NULL, 0, &mc, NULL));
  vf_sampler_destroy(sp);
  vf_sampler_destroy(NULL);
  vf_context_destroy(ctx);
}

static void test_camera(void) {
  const vf_camera good = euroc_camera(0);
  vf_camera c = good;
  CHECK_BAD(vf_camera_check(NULL), VF_ERR_INVALID_ARG, "vf_camera_check");
  c.width = 0;
  CHECK_BAD(vf_camera_check(&c), VF_ERR_INVALID_ARG, "resolution");
  c = good;
  c.fx = NAN;
  CHECK_BAD(vf_camera_check(&c), VF_ERR_INVALID_ARG, "focal");
  c = good;
  c.fy = -1.0;
  CHECK_BAD(vf_camera_check(&c), VF_ERR_INVALID_ARG, "focal");
  c = good;
  c.cy = INFINITY;
  CHECK_BAD(vf_camera_check(&c), VF_ERR_INVALID_ARG, "principal");
  c = good;
  c.distortion = (vf_distortion_model)9;
  CHECK_BAD(vf_camera_check(&c), VF_ERR_INVALID_ARG, "distortion");
  c = good;
  c.k[1] = NAN;
  CHECK_BAD(vf_camera_check(&c), VF_ERR_INVALID_ARG, "coefficients");
  c = good;
  c.rate_hz = -20.0;
  CHECK_BAD(vf_camera_check(&c), VF_ERR_INVALID_ARG, "rate_hz");
  c = good;
  c.T_BS[0] = 2.0; /* not a rotation */
  CHECK_BAD(vf_camera_check(&c), VF_ERR_INVALID_ARG, "T_BS");
  c = good;
  c.T_BS[3] = NAN;
  CHECK_BAD(vf_camera_check(&c), VF_ERR_INVALID_ARG, "T_BS");
  CHECK_OK(vf_camera_check(&good));

  double xy[2] = {0.1, 0.1}, out[2], ray[3], p[3] = {0, 0, -1}, R[9], T[3];
  double nan_xy[2] = {NAN, 0.0};
  CHECK_BAD(vf_camera_distort(&good, NULL, out), VF_ERR_INVALID_ARG, "vf_camera_distort");
  CHECK_BAD(vf_camera_distort(&good, nan_xy, out), VF_ERR_INVALID_ARG, "vf_camera_distort");
  CHECK_BAD(vf_camera_undistort(NULL, xy, out), VF_ERR_INVALID_ARG, "vf_camera_undistort");
  CHECK_BAD(vf_camera_undistort(&good, nan_xy, out), VF_ERR_INVALID_ARG, "vf_camera_undistort");
  CHECK_BAD(vf_camera_project(&good, p, out), VF_ERR_INVALID_ARG, "vf_camera_project");
  CHECK_BAD(vf_camera_project(&good, NULL, out), VF_ERR_INVALID_ARG, "vf_camera_project");
  CHECK_BAD(vf_camera_unproject(&good, xy, NULL), VF_ERR_INVALID_ARG, "vf_camera_unproject");
  CHECK_BAD(vf_camera_unproject(&good, nan_xy, ray), VF_ERR_INVALID_ARG, "vf_camera_unproject");
  CHECK_BAD(vf_camera_relative_pose(&good, NULL, R, T), VF_ERR_INVALID_ARG,
            "vf_camera_relative_pose");
  CHECK_OK(vf_camera_unproject(&good, xy, ray));
}

static void test_rig(void) {
  const vf_camera c0 = euroc_camera(0), c1 = euroc_camera(1);
  vf_camera bad_cam = c1;
  bad_cam.fx = NAN;
  vf_rig rig = vf_rig_default(), bad;
  CHECK_BAD(vf_rig_add_camera(NULL, NULL, &c0), VF_ERR_INVALID_ARG, "rig");
  CHECK_BAD(vf_rig_add_camera(&rig, NULL, NULL), VF_ERR_INVALID_ARG, "camera");
  CHECK_BAD(vf_rig_add_camera(&rig, NULL, &bad_cam), VF_ERR_INVALID_ARG, "focal");
  CHECK_BAD(vf_rig_add_camera(&rig, "", &c0), VF_ERR_INVALID_ARG, "name");
  CHECK_BAD(vf_rig_add_camera(&rig, "a_name_of_sixteen", &c0), VF_ERR_INVALID_ARG, "name");
  CHECK(rig.camera_count == 0);
  CHECK_OK(vf_rig_add_camera(&rig, NULL, &c0));
  CHECK_BAD(vf_rig_add_camera(&rig, "cam0", &c1), VF_ERR_INVALID_ARG, "cam0");
  CHECK_OK(vf_rig_add_camera(&rig, NULL, &c1));
  bad = rig;
  bad.camera_count = -1;
  CHECK_BAD(vf_rig_add_camera(&bad, NULL, &c0), VF_ERR_INVALID_ARG, "camera_count");
  CHECK_BAD(vf_rig_add_pair(&bad, 0, 1), VF_ERR_INVALID_ARG, "camera_count");
  CHECK_BAD(vf_rig_add_pair(NULL, 0, 1), VF_ERR_INVALID_ARG, "rig");
  CHECK_BAD(vf_rig_add_pair(&rig, 0, 2), VF_ERR_INVALID_ARG, "camera 2");
  CHECK_BAD(vf_rig_add_pair(&rig, -1, 1), VF_ERR_INVALID_ARG, "camera -1");
  CHECK_BAD(vf_rig_add_pair(&rig, 1, 1), VF_ERR_INVALID_ARG, "itself");
  CHECK(rig.pair_count == 0);
  CHECK_OK(vf_rig_add_pair(&rig, 0, 1));
  CHECK_BAD(vf_rig_add_pair(&rig, 1, 0), VF_ERR_INVALID_ARG, "already");
  CHECK_OK(vf_rig_check(&rig));

  /* vf_rig_check names the camera or pair and the field. */
  CHECK_BAD(vf_rig_check(NULL), VF_ERR_INVALID_ARG, "vf_rig_check");
  bad = vf_rig_default();
  CHECK_BAD(vf_rig_check(&bad), VF_ERR_INVALID_ARG, "camera_count");
  bad = rig;
  bad.cameras[1].fx = -1.0;
  CHECK_BAD(vf_rig_check(&bad), VF_ERR_INVALID_ARG, "camera 1 (cam1)");
  bad = rig;
  strcpy(bad.names[1], "cam0");
  CHECK_BAD(vf_rig_check(&bad), VF_ERR_INVALID_ARG, "name");
  bad = rig;
  memset(bad.names[0], 'x', sizeof bad.names[0]); /* no NUL */
  CHECK_BAD(vf_rig_check(&bad), VF_ERR_INVALID_ARG, "name");
  bad = rig;
  bad.timeshift_s[0] = NAN;
  CHECK_BAD(vf_rig_check(&bad), VF_ERR_INVALID_ARG, "timeshift_s");
  bad = rig;
  bad.overlaps[1] = 1u << 1; /* itself */
  CHECK_BAD(vf_rig_check(&bad), VF_ERR_INVALID_ARG, "overlaps");
  bad = rig;
  bad.overlaps[0] = 1u << 5; /* outside */
  CHECK_BAD(vf_rig_check(&bad), VF_ERR_INVALID_ARG, "overlaps");
  bad = rig;
  bad.imu_extrinsics = 2;
  CHECK_BAD(vf_rig_check(&bad), VF_ERR_INVALID_ARG, "imu_extrinsics");
  bad = rig;
  bad.pair_count = VF_RIG_MAX_PAIRS + 1;
  CHECK_BAD(vf_rig_check(&bad), VF_ERR_INVALID_ARG, "pair_count");
  bad = rig;
  bad.pairs[0].right = 0;
  CHECK_BAD(vf_rig_check(&bad), VF_ERR_INVALID_ARG, "pair 0");

  /* The readers' arguments. */
  CHECK_BAD(vf_rig_load_camchain(NULL, NULL, &bad), VF_ERR_INVALID_ARG, "path");
  CHECK_BAD(vf_rig_load_camchain("no/such/camchain.yaml", NULL, NULL), VF_ERR_INVALID_ARG, "out");
  CHECK_BAD(vf_rig_load_camchain("no/such/camchain.yaml", NULL, &bad), VF_ERR_IO,
            "no/such/camchain.yaml");
  CHECK_BAD(vf_rig_parse_camchain(NULL, 4, "text.yaml", NULL, &bad), VF_ERR_INVALID_ARG, "text");
  CHECK_BAD(vf_rig_parse_camchain("cam0", 4, "text.yaml", NULL, NULL), VF_ERR_INVALID_ARG, "out");
  CHECK_BAD(vf_rig_parse_camchain("cam0", 4, "text.yaml", NULL, &bad), VF_ERR_FORMAT,
            "text.yaml:1");
  CHECK_BAD(vf_rig_from_euroc(NULL, &bad), VF_ERR_INVALID_ARG, "reader");
}

static void test_rectify(void) {
  const vf_camera c0 = euroc_camera(0), c1 = euroc_camera(1);
  vf_rectify_config rc = vf_rectify_config_default();
  vf_stereo_rectification rect;
  CHECK_BAD(vf_stereo_rectify(NULL, &c1, &rc, &rect), VF_ERR_INVALID_ARG, "vf_stereo_rectify");
  CHECK_BAD(vf_stereo_rectify(&c0, &c1, &rc, NULL), VF_ERR_INVALID_ARG, "vf_stereo_rectify");
  CHECK_BAD(vf_stereo_rectify(&c0, &c0, &rc, &rect), VF_ERR_INVALID_ARG, "baseline");
  vf_camera small = c1;
  small.width = 640;
  CHECK_BAD(vf_stereo_rectify(&c0, &small, &rc, &rect), VF_ERR_INVALID_ARG, "vf_stereo_rectify");
  vf_camera bad = c1;
  bad.fx = NAN;
  CHECK_BAD(vf_stereo_rectify(&c0, &bad, &rc, &rect), VF_ERR_INVALID_ARG, "focal");
  rc.alpha = NAN;
  CHECK_BAD(vf_stereo_rectify(&c0, &c1, &rc, &rect), VF_ERR_INVALID_ARG, "alpha");
  rc = vf_rectify_config_default();
  rc.focal_rule = (vf_rectify_focal_rule)5;
  CHECK_BAD(vf_stereo_rectify(&c0, &c1, &rc, &rect), VF_ERR_INVALID_ARG, "focal_rule");
  rc = vf_rectify_config_default();
  rc.out_width = -8;
  CHECK_BAD(vf_stereo_rectify(&c0, &c1, &rc, &rect), VF_ERR_INVALID_ARG, "vf_stereo_rectify");
  rc = vf_rectify_config_default();
  double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, T[3] = {-0.1, 0, 0};
  double Rnan[9] = {1, 0, 0, 0, NAN, 0, 0, 0, 1}, Rscaled[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2};
  CHECK_BAD(vf_stereo_rectify_pose(&c0, &c1, Rnan, T, &rc, &rect), VF_ERR_INVALID_ARG,
            "not finite");
  CHECK_BAD(vf_stereo_rectify_pose(&c0, &c1, Rscaled, T, &rc, &rect), VF_ERR_INVALID_ARG,
            "rotation");
  CHECK_BAD(vf_stereo_rectify_pose(&c0, &c1, R, NULL, &rc, &rect), VF_ERR_INVALID_ARG,
            "vf_stereo_rectify");
  CHECK_OK(vf_stereo_rectify(&c0, &c1, &rc, &rect));
  double uv[2] = {300, 200}, uv_rect[2], Rback[9] = {-1, 0, 0, 0, 1, 0, 0, 0, -1};
  CHECK_BAD(vf_rectify_point(&c0, rect.R1, NULL, uv, uv_rect), VF_ERR_INVALID_ARG,
            "vf_rectify_point");
  CHECK_BAD(vf_rectify_point(&c0, Rback, rect.P1, uv, uv_rect), VF_ERR_INVALID_ARG, "behind");

  vf_remap_config mc;
  CHECK_BAD(vf_remap_config_rectify(&c0, &rect, 2, &mc), VF_ERR_INVALID_ARG, "camera 2");
  CHECK_BAD(vf_remap_config_rectify(&c0, NULL, 0, &mc), VF_ERR_INVALID_ARG,
            "vf_remap_config_rectify");
  CHECK_BAD(vf_remap_config_undistort(NULL, &mc), VF_ERR_INVALID_ARG, "vf_remap_config_undistort");
}

static void test_remap(void) {
  vf_context* ctx = cpu_context();
  vf_camera cam = vf_camera_default();
  cam.width = 32;
  cam.height = 24;
  cam.fx = cam.fy = 30.0;
  cam.cx = 15.5;
  cam.cy = 11.5;
  vf_remap_config good, mc;
  CHECK_OK(vf_remap_config_undistort(&cam, &good));
  vf_remap* r = (vf_remap*)&r;
  CHECK_BAD(vf_remap_create(ctx, &good, NULL), VF_ERR_INVALID_ARG, "out");
  CHECK_BAD(vf_remap_create(NULL, &good, &r), VF_ERR_INVALID_ARG, "vf_remap_create");
  CHECK(r == NULL);
  mc = good;
  mc.R[4] = NAN;
  CHECK_BAD(vf_remap_create(ctx, &mc, &r), VF_ERR_INVALID_ARG, "not finite");
  mc = good;
  mc.R[0] = 3.0;
  CHECK_BAD(vf_remap_create(ctx, &mc, &r), VF_ERR_INVALID_ARG, "rotation");
  mc = good;
  memset(mc.P, 0, sizeof mc.P);
  CHECK_BAD(vf_remap_create(ctx, &mc, &r), VF_ERR_INVALID_ARG, "singular");
  mc = good;
  mc.out_width = 0;
  CHECK_BAD(vf_remap_create(ctx, &mc, &r), VF_ERR_INVALID_ARG, "vf_remap_create");
  mc = good;
  mc.camera.fx = -1.0;
  CHECK_BAD(vf_remap_create(ctx, &mc, &r), VF_ERR_INVALID_ARG, "focal");
  CHECK_OK(vf_remap_create(ctx, &good, &r));

  vf_image src, dst, wrong;
  CHECK_OK(vf_image_alloc(&src, 32, 24, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&dst, 32, 24, VF_PIXEL_U8, VF_MEMORY_HOST));
  CHECK_OK(vf_image_alloc(&wrong, 31, 24, VF_PIXEL_U8, VF_MEMORY_HOST));
  memset(src.data, 77, src.stride_bytes * 24);
  vf_image u16 = vf_image_view(dst.data, 16, 24, dst.stride_bytes, VF_MEMORY_HOST, VF_PIXEL_U16);
  vf_image dev = src;
  dev.location = VF_MEMORY_DEVICE;
  const char* msg = vf_remap_last_error(r);
  CHECK_BAD(vf_remap_apply(NULL, &src, &dst), VF_ERR_INVALID_ARG, "vf_remap_apply");
  CHECK_BAD_ON(vf_remap_apply(r, NULL, &dst), VF_ERR_INVALID_ARG, "vf_remap_apply", msg);
  CHECK_BAD_ON(vf_remap_apply(r, &src, NULL), VF_ERR_INVALID_ARG, "vf_remap_apply", msg);
  CHECK_BAD_ON(vf_remap_apply(r, &wrong, &dst), VF_ERR_INVALID_ARG, "vf_remap_apply", msg);
  CHECK_BAD_ON(vf_remap_apply(r, &src, &u16), VF_ERR_INVALID_ARG, "8-bit", msg);
  CHECK_BAD_ON(vf_remap_apply(r, &src, &src), VF_ERR_INVALID_ARG, "same pixels", msg);
  CHECK_BAD_ON(vf_remap_apply(r, &dev, &dst), VF_ERR_UNSUPPORTED, "vf_remap_apply", msg);
  int32_t sx, sy;
  CHECK_BAD(vf_remap_lookup(r, 32, 0, &sx, &sy), VF_ERR_INVALID_ARG, "outside");
  CHECK_BAD(vf_remap_lookup(r, 0, -1, &sx, &sy), VF_ERR_INVALID_ARG, "outside");
  CHECK_BAD(vf_remap_lookup(r, 0, 0, NULL, &sy), VF_ERR_INVALID_ARG, "vf_remap_lookup");
  CHECK_OK(vf_remap_apply(r, &src, &dst));
  CHECK(((uint8_t*)dst.data)[12 * dst.stride_bytes + 16] == 77);
  CHECK(vf_remap_last_error(NULL)[0] != '\0');
  vf_image_free(&src);
  vf_image_free(&dst);
  vf_image_free(&wrong);
  vf_remap_destroy(r);
  vf_remap_destroy(NULL);
  vf_context_destroy(ctx);
}

static void write_bytes(const char* path, const void* bytes, size_t n) {
  FILE* f = fopen(path, "wb");
  CHECK(f != NULL);
  if (f == NULL) return;
  CHECK(fwrite(bytes, 1, n, f) == n);
  fclose(f);
}

/* PNG's chunk checksum (CRC-32, ISO 3309), to forge a header that libpng accepts. */
static uint32_t png_crc(const uint8_t* p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return c ^ 0xffffffffu;
}

static void put_be32(uint8_t* p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

/* A PNG whose header promises 32768 x 32768 pixels at `depth` bits, with one byte of data:
 * the readers must refuse it before allocating (1 or 2 GiB), naming the size. */
static void test_forged_size(const char* path, int depth) {
  uint8_t png[8 + 25 + 13 + 12];
  static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  memcpy(png, sig, 8);
  uint8_t* ihdr = png + 8;
  put_be32(ihdr, 13);
  memcpy(ihdr + 4, "IHDR", 4);
  put_be32(ihdr + 8, 32768);
  put_be32(ihdr + 12, 32768);
  ihdr[16] = (uint8_t)depth;
  ihdr[17] = ihdr[18] = ihdr[19] = ihdr[20] = 0; /* grey, deflate, filter 0, no interlace */
  put_be32(ihdr + 21, png_crc(ihdr + 4, 17));
  uint8_t* idat = ihdr + 25;
  put_be32(idat, 1);
  memcpy(idat + 4, "IDAT", 4);
  idat[8] = 0x78;
  put_be32(idat + 9, png_crc(idat + 4, 5));
  uint8_t* iend = idat + 13;
  put_be32(iend, 0);
  memcpy(iend + 4, "IEND", 4);
  put_be32(iend + 8, png_crc(iend + 4, 4));
  write_bytes(path, png, sizeof png);
  vf_image img;
  if (depth == 8) {
    CHECK_BAD(vf_png_read_gray8(path, &img), VF_ERR_FORMAT, "size");
    CHECK_BAD(vf_png_decode_gray8(png, sizeof png, &img), VF_ERR_FORMAT, "size");
  } else {
    CHECK_BAD(vf_png_read_gray16(path, &img), VF_ERR_FORMAT, "size");
  }
  CHECK(img.data == NULL);
}

static void test_files(const char* dir) {
  char path[512], missing[512], text[512], png16[512], pfm[512], rgb[512];
  snprintf(missing, sizeof missing, "%s/none/x.png", dir);
  snprintf(text, sizeof text, "%s/text.png", dir);
  snprintf(png16, sizeof png16, "%s/d16.png", dir);
  snprintf(rgb, sizeof rgb, "%s/rgb.png", dir);
  snprintf(pfm, sizeof pfm, "%s/d.pfm", dir);
  write_bytes(text, "hello, not a png\n", 17);
  vf_image img, big;
  CHECK_BAD(vf_png_read_gray8(NULL, &img), VF_ERR_INVALID_ARG, "path");
  CHECK_BAD(vf_png_read_gray8(text, NULL), VF_ERR_INVALID_ARG, "out");
  CHECK_BAD(vf_png_read_gray8(missing, &img), VF_ERR_IO, "x.png");
  CHECK_BAD(vf_png_read_gray8(dir, &img), VF_ERR_FORMAT, "vf_png_read_gray8");
  CHECK_BAD(vf_png_read_gray8(text, &img), VF_ERR_FORMAT, "text.png");
  CHECK_BAD(vf_png_decode_gray8(NULL, 8, &img), VF_ERR_INVALID_ARG, "data");
  CHECK_BAD(vf_png_decode_gray8("", 0, &img), VF_ERR_FORMAT, "vf_png_decode_gray8");
  CHECK(img.data == NULL);

  /* Writing: formats PNG cannot hold, views that are not images, folders that do not exist. */
  CHECK_OK(vf_image_alloc(&img, 6, 4, VF_PIXEL_U16, VF_MEMORY_HOST));
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 6; ++x)
      ((uint16_t*)((uint8_t*)img.data + (size_t)y * img.stride_bytes))[x] =
          (uint16_t)(1000 * y + x);
  CHECK_BAD(vf_png_write(NULL, &img), VF_ERR_INVALID_ARG, "path");
  CHECK_BAD(vf_png_write(png16, NULL), VF_ERR_INVALID_ARG, "vf_png_write");
  CHECK_BAD(vf_png_write(missing, &img), VF_ERR_IO, "x.png");
  vf_image f32 = vf_image_view(img.data, 3, 4, img.stride_bytes, VF_MEMORY_HOST, VF_PIXEL_F32);
  CHECK_BAD(vf_png_write(png16, &f32), VF_ERR_INVALID_ARG, "vf_png_write");
  vf_image thin = img;
  thin.stride_bytes = 11;
  CHECK_BAD(vf_png_write(png16, &thin), VF_ERR_INVALID_ARG, "stride");
  CHECK_OK(vf_png_write(png16, &img));
  CHECK_BAD(vf_png_read_gray8(png16, &big), VF_ERR_FORMAT, "8-bit grey");
  vf_image_free(&img);
  CHECK_OK(vf_image_alloc(&img, 2, 2, VF_PIXEL_RGB8, VF_MEMORY_HOST));
  memset(img.data, 9, img.stride_bytes * 2);
  CHECK_OK(vf_png_write(rgb, &img));
  vf_image_free(&img);
  CHECK_BAD(vf_png_read_gray8(rgb, &img), VF_ERR_FORMAT, "8-bit grey");
  CHECK_BAD(vf_png_read_gray16(rgb, &img), VF_ERR_FORMAT, "16-bit grey");
  CHECK_BAD(vf_png_read_gray16(NULL, &img), VF_ERR_INVALID_ARG, "path");
  CHECK_BAD(vf_png_read_gray16(missing, &img), VF_ERR_IO, "x.png");
  CHECK_BAD(vf_png_read_gray16(text, &img), VF_ERR_FORMAT, "text.png");
  CHECK_OK(vf_png_read_gray16(png16, &img));
  CHECK(img.width == 6 && ((uint16_t*)((uint8_t*)img.data + 3 * img.stride_bytes))[5] == 3005);
  vf_image_free(&img);
  test_forged_size(png16, 8);
  test_forged_size(png16, 16);

  /* PFM: malformed headers, short data, a forged size, the wrong image to write. */
  static const struct {
    const char* bytes;
    size_t n;
    const char* word;
  } bad_pfm[] = {
      {"", 0, "header"},
      {"PF\n2 2\n-1\n", 10, "header"},                   /* three channels */
      {"Pf\n0 2\n-1\n", 10, "header"},                   /* empty */
      {"Pf\n-2 2\n-1\n", 11, "header"},                  /* negative */
      {"Pf\n1 1\n0\n\0\0\0\0", 13, "header"},            /* scale 0 */
      {"Pf\n1 1\nnan\n\0\0\0\0", 15, "header"},          /* scale NaN */
      {"Pf\n99999999999 2\n-1\n", 20, "header"},         /* overflows int */
      {"Pf\n2 2\n-1\n\0\0\0\0\0\0", 16, "truncated"},    /* 6 of 16 bytes */
      {"Pf\n30000 30000\n-1\n\0\0\0\0", 22, "promised"}, /* 3.4 GB: refused unallocated */
  };
  for (size_t i = 0; i < sizeof bad_pfm / sizeof bad_pfm[0]; ++i) {
    write_bytes(pfm, bad_pfm[i].bytes, bad_pfm[i].n);
    CHECK_BAD(vf_pfm_read(pfm, &img), VF_ERR_FORMAT, bad_pfm[i].word);
    CHECK(strstr(vf_last_error_message(), "d.pfm") != NULL);
    CHECK(img.data == NULL);
  }
  CHECK_BAD(vf_pfm_read(NULL, &img), VF_ERR_INVALID_ARG, "path");
  CHECK_BAD(vf_pfm_read(pfm, NULL), VF_ERR_INVALID_ARG, "out");
  CHECK_BAD(vf_pfm_read(missing, &img), VF_ERR_IO, "x.png");
  CHECK_OK(vf_image_alloc(&img, 3, 2, VF_PIXEL_F32, VF_MEMORY_HOST));
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x)
      ((float*)((uint8_t*)img.data + (size_t)y * img.stride_bytes))[x] = (float)(10 * y + x);
  CHECK_BAD(vf_pfm_write(NULL, &img), VF_ERR_INVALID_ARG, "path");
  CHECK_BAD(vf_pfm_write(missing, &img), VF_ERR_IO, "x.png");
  vf_image u8 = img;
  u8.format = VF_PIXEL_U8;
  CHECK_BAD(vf_pfm_write(pfm, &u8), VF_ERR_INVALID_ARG, "F32");
  CHECK_BAD(vf_pfm_write(pfm, NULL), VF_ERR_INVALID_ARG, "vf_pfm_write");
  CHECK_OK(vf_pfm_write(pfm, &img));
  CHECK_OK(vf_pfm_read(pfm, &big));
  CHECK(big.width == 3 && ((float*)((uint8_t*)big.data + big.stride_bytes))[2] == 12.0f);
  vf_image_free(&big);
  vf_image_free(&img);
  snprintf(path, sizeof path, "%s", pfm);
  remove(path);
  remove(png16);
  remove(rgb);
  remove(text);
}

int main(void) {
  char dir[256];
  const char* tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/vf_badinput_XXXXXX", tmp != NULL ? tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL);
  test_status();
  test_image();
  test_context();
  test_sampler();
  test_camera();
  test_rig();
  test_rectify();
  test_remap();
  test_files(dir);
  rmdir(dir);
  VF_TEST_END("test_badinput_core");
}

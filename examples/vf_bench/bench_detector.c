// SPDX-License-Identifier: BSD-3-Clause
/* vf_bench: FAST detection with grid NMS (levels 0..2, 32x32 cells, border 8, n 10, eps 10),
 * with and without building the pyramid first, results left in device memory or copied to the
 * host (on CUDA all four). 752x480 uses the birds image of the shared data when --data is given
 * (vilib's test image, TARGETS.md), else a generated texture. On the CPU backend it also reports
 * 2 threads. */
#include <stdlib.h>

#include "bench.h"

typedef struct detector_job {
  vf_pyramid* pyramid;
  vf_detector* detector;
  vf_image input;
  int build_pyramid;
} detector_job;

static vf_status detector_step(void* arg) {
  detector_job* j = arg;
  vf_status s = j->build_pyramid ? vf_pyramid_build(j->pyramid, &j->input) : VF_OK;
  if (s == VF_OK) s = vf_detector_detect(j->detector, j->pyramid, NULL, VF_MEMORY_HOST);
  return s;
}

/* Times one variant; prints its result line. */
static vf_status detector_variant(vf_context* ctx, const bench_options* opt, bench_out* out,
                                  const vf_image* host, const char* source, int host_results,
                                  int build_pyramid, int threads) {
  vf_memory where = vf_context_backend(ctx) == VF_BACKEND_CUDA ? VF_MEMORY_DEVICE : VF_MEMORY_HOST;
  vf_detector_config dc = vf_detector_config_default();
  dc.width = host->width;
  dc.height = host->height;
  dc.host_results = host_results;
  vf_pyramid_config pc = {host->width, host->height, dc.max_level + 1};
  detector_job job = {NULL, NULL, {0}, build_pyramid};
  vf_status s = vf_image_alloc(&job.input, host->width, host->height, VF_PIXEL_U8, where);
  if (s == VF_OK) s = vf_image_copy(host, &job.input);
  if (s == VF_OK) s = vf_pyramid_create(ctx, &pc, &job.pyramid);
  if (s == VF_OK) s = vf_detector_create(ctx, &dc, &job.detector);
  if (s == VF_OK) s = vf_pyramid_build(job.pyramid, &job.input);
  bench_stats st = {0};
  if (s == VF_OK) s = bench_time(ctx, opt, detector_step, &job, &st);
  /* The keypoint count, where the results reached the host. */
  int count = -1;
  const vf_keypoint* kp = NULL;
  if (s == VF_OK && host_results) s = vf_detector_keypoints(job.detector, &kp, &count);
  if (s == VF_OK) {
    vf_grid g;
    vf_detector_grid(job.detector, &g);
    bench_result_begin(out, "detector", host->width, host->height, &st);
    bench_result_str(out, "image", source);
    bench_result_int(out, "with_pyramid", build_pyramid);
    bench_result_str(out, "results", host_results ? "host" : "device");
    if (threads > 0) bench_result_int(out, "cpu_threads", threads);
    bench_result_int(out, "levels", dc.max_level - dc.min_level + 1);
    bench_result_int(out, "cells", g.cols * g.rows);
    if (host_results) bench_result_int(out, "keypoints", count);
    bench_result_end(out);
  } else {
    fprintf(stderr, "detector %dx%d: %s: %s\n", host->width, host->height, vf_status_str(s),
            vf_last_error_message());
  }
  vf_detector_destroy(job.detector);
  vf_pyramid_destroy(job.pyramid);
  vf_image_free(&job.input);
  return s;
}

static int bench_detector_image(vf_context* ctx, const bench_options* opt, bench_out* out,
                                const vf_image* host, const char* source) {
  vf_status s = VF_OK;
  if (vf_context_backend(ctx) == VF_BACKEND_CUDA) {
    s = detector_variant(ctx, opt, out, host, source, 0, 0, 0);
    /* The pyramid already built, the keypoints on the host: what vilib's harness times when it
     * downloads its grid (../shared/peers/vilib_harness builds its pyramid outside the timing). */
    if (s == VF_OK) s = detector_variant(ctx, opt, out, host, source, 1, 0, 0);
    if (s == VF_OK) s = detector_variant(ctx, opt, out, host, source, 0, 1, 0);
    if (s == VF_OK) s = detector_variant(ctx, opt, out, host, source, 1, 1, 0);
    return s != VF_OK;
  }
  vf_device_info info;
  vf_context_device_info(ctx, &info);
  s = detector_variant(ctx, opt, out, host, source, 1, 1, info.multiprocessors);
  /* The CPU figure: the same work on 2 threads. */
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  cc.cpu_threads = 2;
  example_log_install(&cc, "vf_bench", opt->quiet);
  vf_context* two = NULL;
  if (s == VF_OK) s = vf_context_create(&cc, &two);
  if (s == VF_OK) s = detector_variant(two, opt, out, host, source, 1, 1, 2);
  vf_context_destroy(two);
  return s != VF_OK;
}

static int bench_detector_size(vf_context* ctx, const bench_options* opt, bench_out* out, int w,
                               int h) {
  vf_image host = {0};
  const char* source = "texture";
  char path[1024];
  if (opt->image != NULL) {
    snprintf(path, sizeof path, "%s", opt->image);
  } else if (opt->data_dir != NULL && w == 752 && h == 480) {
    snprintf(path, sizeof path, "%s/images/birds_752x480.png", opt->data_dir);
  } else {
    path[0] = '\0';
  }
  if (path[0] != '\0' && vf_png_read_gray8(path, &host) == VF_OK) {
    source = path;
  } else if (bench_make_texture(w, h, 11, &host) != VF_OK) {
    fprintf(stderr, "detector %dx%d: %s\n", w, h, vf_last_error_message());
    return 1;
  }
  int failed = bench_detector_image(ctx, opt, out, &host, source);
  vf_image_free(&host);
  return failed;
}

int bench_detector(vf_context* ctx, const bench_options* opt, bench_out* out) {
  if (opt->width > 0 || opt->image != NULL)
    return bench_detector_size(ctx, opt, out, opt->width, opt->height);
  static const int sizes[][2] = {{752, 480}, {1280, 720}, {1920, 1080}};
  int failed = 0;
  for (int i = 0; i < 3; ++i)
    failed |= bench_detector_size(ctx, opt, out, sizes[i][0], sizes[i][1]);
  return failed;
}

// SPDX-License-Identifier: BSD-3-Clause
/* vf_bench: the image pyramid from a device-resident (CUDA) or host (CPU) 8-bit image. */
#include "bench.h"

typedef struct pyramid_job {
  vf_pyramid* pyramid;
  vf_image input;
} pyramid_job;

static vf_status pyramid_step(void* arg) {
  pyramid_job* j = arg;
  return vf_pyramid_build(j->pyramid, &j->input);
}

static int bench_pyramid_size(vf_context* ctx, const bench_options* opt, bench_out* out, int w,
                              int h, int levels) {
  vf_image host = {0}, input = {0};
  pyramid_job job = {0};
  vf_pyramid_config pc = {w, h, levels};
  vf_memory where = vf_context_backend(ctx) == VF_BACKEND_CUDA ? VF_MEMORY_DEVICE : VF_MEMORY_HOST;
  vf_status s = bench_make_texture(w, h, 7, &host);
  if (s == VF_OK) s = vf_image_alloc(&input, w, h, VF_PIXEL_U8, where);
  if (s == VF_OK) s = vf_image_copy(&host, &input);
  if (s == VF_OK) s = vf_pyramid_create(ctx, &pc, &job.pyramid);
  bench_stats st = {0};
  job.input = input;
  if (s == VF_OK) s = bench_time(ctx, opt, pyramid_step, &job, &st);
  if (s == VF_OK) {
    bench_result_begin(out, "pyramid", w, h, &st);
    bench_result_int(out, "levels", levels);
    bench_result_str(out, "input", where == VF_MEMORY_DEVICE ? "device" : "host");
    bench_result_end(out);
  } else {
    fprintf(stderr, "pyramid %dx%d: %s: %s\n", w, h, vf_status_str(s), vf_last_error_message());
  }
  vf_pyramid_destroy(job.pyramid);
  vf_image_free(&input);
  vf_image_free(&host);
  return s == VF_OK ? 0 : 1;
}

int bench_pyramid(vf_context* ctx, const bench_options* opt, bench_out* out) {
  if (opt->width > 0) return bench_pyramid_size(ctx, opt, out, opt->width, opt->height, 4);
  static const int sizes[][2] = {{752, 480}, {1280, 720}, {1920, 1080}};
  int failed = 0;
  for (int i = 0; i < 3; ++i)
    failed |= bench_pyramid_size(ctx, opt, out, sizes[i][0], sizes[i][1], 4);
  return failed;
}

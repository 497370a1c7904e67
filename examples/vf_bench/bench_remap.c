// SPDX-License-Identifier: BSD-3-Clause
/* vf_bench: stereo rectification of one image through a fixed-point map (vf_remap_apply), with
 * EuRoC's cam0 calibration scaled to each size, alpha 0. On CUDA the input and output stay in
 * device memory (and, in a second row, the input is uploaded from the host each time). On the
 * CPU a second 752x480 row writes 64 MB before each run, untimed: what a frame's image decoding
 * (or a backend) leaves in the caches, so the remap's plan comes from memory as in a replay. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define BENCH_COLD_BYTES (64u << 20)

typedef struct remap_job {
  vf_remap* remap;
  vf_image input, output;
  unsigned char* evict; /* BENCH_COLD_BYTES written before each timed run; NULL: none */
  unsigned char pass;
} remap_job;

static vf_status remap_evict(void* arg) {
  remap_job* j = arg;
  memset(j->evict, ++j->pass, BENCH_COLD_BYTES);
  return VF_OK;
}

static vf_status remap_step(void* arg) {
  remap_job* j = arg;
  return vf_remap_apply(j->remap, &j->input, &j->output);
}

/* EuRoC's rig with intrinsics scaled to w x h. */
static vf_status remap_config(int w, int h, vf_remap_config* mc) {
  vf_camera cams[2];
  vf_euroc_vi_sensor(cams, NULL);
  for (int k = 0; k < 2; ++k) {
    cams[k].fx *= w / 752.0;
    cams[k].cx *= w / 752.0;
    cams[k].fy *= h / 480.0;
    cams[k].cy *= h / 480.0;
    cams[k].width = w;
    cams[k].height = h;
  }
  vf_rectify_config rc = vf_rectify_config_default();
  rc.alpha = 0;
  vf_stereo_rectification rect;
  vf_status s = vf_stereo_rectify(&cams[0], &cams[1], &rc, &rect);
  return s == VF_OK ? vf_remap_config_rectify(&cams[0], &rect, 0, mc) : s;
}

static int bench_remap_size(vf_context* ctx, const bench_options* opt, bench_out* out, int w, int h,
                            vf_memory input_at, int cold) {
  vf_image host = {0};
  remap_job job = {0};
  vf_remap_config mc;
  vf_memory where = vf_context_backend(ctx) == VF_BACKEND_CUDA ? VF_MEMORY_DEVICE : VF_MEMORY_HOST;
  vf_status s = remap_config(w, h, &mc);
  if (s == VF_OK) s = bench_make_texture(w, h, 11, &host);
  if (s == VF_OK) s = vf_image_alloc(&job.input, w, h, VF_PIXEL_U8, input_at);
  if (s == VF_OK) s = vf_image_copy(&host, &job.input);
  if (s == VF_OK) s = vf_image_alloc(&job.output, mc.out_width, mc.out_height, VF_PIXEL_U8, where);
  if (s == VF_OK) s = vf_remap_create(ctx, &mc, &job.remap);
  if (s == VF_OK && cold && (job.evict = malloc(BENCH_COLD_BYTES)) == NULL) s = VF_ERR_NOMEM;
  bench_stats st = {0};
  if (s == VF_OK)
    s = bench_time_prepared(ctx, opt, cold ? remap_evict : NULL, remap_step, &job, &st);
  if (s == VF_OK) {
    bench_result_begin(out, "remap", w, h, &st);
    bench_result_str(out, "input", input_at == VF_MEMORY_DEVICE ? "device" : "host");
    bench_result_str(out, "map", "rectify cam0, alpha 0, 1/256 px fixed point");
    if (cold) bench_result_str(out, "cache", "cold (64 MB written before each run)");
    bench_result_end(out);
  } else {
    fprintf(stderr, "remap %dx%d: %s: %s\n", w, h, vf_status_str(s), vf_last_error_message());
  }
  free(job.evict);
  vf_remap_destroy(job.remap);
  vf_image_free(&job.input);
  vf_image_free(&job.output);
  vf_image_free(&host);
  return s == VF_OK ? 0 : 1;
}

int bench_remap(vf_context* ctx, const bench_options* opt, bench_out* out) {
  vf_memory where = vf_context_backend(ctx) == VF_BACKEND_CUDA ? VF_MEMORY_DEVICE : VF_MEMORY_HOST;
  if (opt->width > 0) return bench_remap_size(ctx, opt, out, opt->width, opt->height, where, 0);
  static const int sizes[][2] = {{752, 480}, {1280, 720}, {1920, 1080}};
  int failed = 0;
  for (int i = 0; i < 3; ++i)
    failed |= bench_remap_size(ctx, opt, out, sizes[i][0], sizes[i][1], where, 0);
  /* What a host frame costs on the GPU, upload included; on the CPU, from cold caches. */
  failed |= bench_remap_size(ctx, opt, out, 752, 480, VF_MEMORY_HOST, where == VF_MEMORY_HOST);
  return failed;
}

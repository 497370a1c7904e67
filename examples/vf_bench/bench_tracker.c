// SPDX-License-Identifier: BSD-3-Clause
/* vf_bench: feature tracking, TARGETS.md's setting: birds_752x480.png (from --data DIR, else a
 * generated texture) moved by (1.3, 0.7) px with gain 1.1 and bias +5 (bilinear, rounded),
 * 4 levels, patches 16/16/8/8, the tracker's default iteration caps (16 on level 0, 3 on the
 * others; TARGETS.md and vilib's harness take 30 a level), 200 / 1000 / 4000 features (the
 * strongest corner per grid cell). The timed step is vf_tracker_submit: on CUDA the GPU time of the
 * upload of the requests, the kernel and the download of the results (CUDA events); a second
 * row times the whole synchronous vf_tracker_track, host round trip included, and two more the
 * same with the requests written into the tracker's own buffer and the results read in place
 * (vf_tracker_request_buffer, vf_tracker_collect_in_place: no copies). Reports accuracy
 * against the known motion beside the time. On the CPU backend it also runs with 2 threads.
 * Rows tracker_refine*: the same with reference refinement (vf_tracker_config.refine). With
 * --data, every row again on peru_640x480.png (issue 18: the iteration tail). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define BENCH_MAX_FEATURES 4000

static const double bench_motion[2] = {1.3, 0.7};

typedef struct tracker_job {
  vf_tracker* tracker;
  vf_pyramid *prev, *cur;
  vf_track_request* requests;
  vf_track_result* results;
  int count;
  vf_track_request* buffer; /* the tracker's own (vf_tracker_request_buffer) */
} tracker_job;

static vf_status tracker_submit_step(void* arg) {
  tracker_job* j = arg;
  return vf_tracker_submit(j->tracker, j->prev, j->cur, j->requests, j->count);
}

static vf_status tracker_track_step(void* arg) {
  tracker_job* j = arg;
  return vf_tracker_track(j->tracker, j->prev, j->cur, j->requests, j->count, j->results);
}

/* The same with the requests already in the tracker's buffer (no copy), and with the results
 * read where the tracker keeps them. */
static vf_status tracker_in_place_step(void* arg) {
  tracker_job* j = arg;
  return vf_tracker_submit(j->tracker, j->prev, j->cur, j->buffer, j->count);
}

static vf_status tracker_in_place_sync_step(void* arg) {
  tracker_job* j = arg;
  const vf_track_result* res = NULL;
  int n = 0;
  vf_status s = vf_tracker_submit(j->tracker, j->prev, j->cur, j->buffer, j->count);
  return s == VF_OK ? vf_tracker_collect_in_place(j->tracker, &res, &n) : s;
}

/* Times both in-place steps; *same: whether their results have the bits of j->results. */
static vf_status bench_in_place(vf_context* ctx, const bench_options* opt, tracker_job* j,
                                bench_stats* st, bench_stats* sync, int* same) {
  vf_status s = vf_tracker_request_buffer(j->tracker, &j->buffer);
  if (s != VF_OK) return s;
  memcpy(j->buffer, j->requests, (size_t)j->count * sizeof *j->requests);
  s = bench_time(ctx, opt, tracker_in_place_step, j, st);
  if (s == VF_OK) s = bench_time(ctx, opt, tracker_in_place_sync_step, j, sync);
  const vf_track_result* res = NULL;
  int n = 0;
  if (s == VF_OK) s = vf_tracker_collect_in_place(j->tracker, &res, &n);
  *same = s == VF_OK && n == j->count && memcmp(res, j->results, (size_t)n * sizeof *res) == 0;
  return s;
}

static int bench_px(const vf_image* im, int x, int y) {
  x = x < 0 ? 0 : x >= im->width ? im->width - 1 : x;
  y = y < 0 ? 0 : y >= im->height ? im->height - 1 : y;
  return ((const uint8_t*)im->data)[(size_t)y * im->stride_bytes + (size_t)x];
}

/* out(x) = 1.1 in(x - motion) + 5, bilinear, rounded. */
static vf_status bench_warp(const vf_image* in, vf_image* out) {
  vf_status s = vf_image_alloc(out, in->width, in->height, VF_PIXEL_U8, VF_MEMORY_HOST);
  for (int y = 0; s == VF_OK && y < in->height; ++y) {
    for (int x = 0; x < in->width; ++x) {
      const double sx = x - bench_motion[0], sy = y - bench_motion[1];
      const int ix = (int)floor(sx), iy = (int)floor(sy);
      const double fx = sx - ix, fy = sy - iy;
      const double v =
          (1 - fx) * (1 - fy) * bench_px(in, ix, iy) + fx * (1 - fy) * bench_px(in, ix + 1, iy) +
          (1 - fx) * fy * bench_px(in, ix, iy + 1) + fx * fy * bench_px(in, ix + 1, iy + 1);
      const double o = floor(1.1 * v + 5.0 + 0.5);
      ((uint8_t*)out->data)[(size_t)y * out->stride_bytes + (size_t)x] = (uint8_t)(o < 0     ? 0
                                                                                   : o > 255 ? 255
                                                                                             : o);
    }
  }
  return s;
}

/* The smaller structure-tensor eigenvalue over a 5x5 window. */
static double bench_corner(const vf_image* im, int x, int y) {
  double a = 0, b = 0, c = 0;
  for (int v = -2; v <= 2; ++v) {
    for (int u = -2; u <= 2; ++u) {
      const double gx = bench_px(im, x + u + 1, y + v) - bench_px(im, x + u - 1, y + v);
      const double gy = bench_px(im, x + u, y + v + 1) - bench_px(im, x + u, y + v - 1);
      a += gx * gx;
      b += gx * gy;
      c += gy * gy;
    }
  }
  return 0.5 * (a + c - sqrt((a - c) * (a - c) + 4 * b * b));
}

typedef struct bench_corner_pt {
  double score;
  float x, y;
} bench_corner_pt;

static int bench_cmp_corner(const void* a, const void* b) {
  const double x = ((const bench_corner_pt*)a)->score, y = ((const bench_corner_pt*)b)->score;
  return (x < y) - (x > y);
}

/* Up to max features: the best corner of each cell of a grid fine enough for max, strongest
 * cells first, 16 px from the edges. Returns the count. */
static int bench_features(const vf_image* im, int max, float* xy) {
  const int border = 16, w = im->width - 2 * border, h = im->height - 2 * border;
  if (w < 1 || h < 1) return 0;
  int cell = (int)sqrt((double)w * h / max);
  cell = cell < 2 ? 2 : cell;
  while (cell > 2 && (w / cell) * (h / cell) < max) --cell;
  const int cols = w / cell, rows = h / cell;
  bench_corner_pt* pts = malloc((size_t)(cols * rows + 1) * sizeof *pts);
  if (pts == NULL) return 0;
  int n = 0;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      bench_corner_pt best = {-1.0, 0, 0};
      for (int y = border + r * cell; y < border + (r + 1) * cell; ++y) {
        for (int x = border + c * cell; x < border + (c + 1) * cell; ++x) {
          const double s = bench_corner(im, x, y);
          if (s > best.score) best = (bench_corner_pt){s, (float)x, (float)y};
        }
      }
      pts[n++] = best;
    }
  }
  qsort(pts, (size_t)n, sizeof *pts, bench_cmp_corner);
  n = n < max ? n : max;
  for (int i = 0; i < n; ++i) {
    xy[2 * i] = pts[i].x;
    xy[2 * i + 1] = pts[i].y;
  }
  free(pts);
  return n;
}

static int bench_cmp_error(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Converged share, median error (failures infinite), share within 0.1 px, mean, max and 99th
 * percentile of the iterations (summed over the levels): a launch lasts as long as its slowest
 * feature, so the tail matters as much as the mean. */
static void bench_accuracy(const tracker_job* j, const float* xy, double out[6]) {
  double* err = malloc((size_t)j->count * sizeof *err);
  double* its = malloc((size_t)j->count * sizeof *its);
  int conv = 0, within = 0, it_max = 0;
  double it_sum = 0;
  out[5] = 0;
  for (int i = 0; err != NULL && its != NULL && i < j->count; ++i) {
    const vf_track_result* r = &j->results[i];
    it_sum += r->iterations;
    its[i] = r->iterations;
    it_max = r->iterations > it_max ? r->iterations : it_max;
    err[i] = INFINITY;
    if (r->status != VF_TRACK_CONVERGED) continue;
    ++conv;
    err[i] = hypot(r->x - (xy[2 * i] + bench_motion[0]), r->y - (xy[2 * i + 1] + bench_motion[1]));
    within += err[i] <= 0.1;
  }
  out[0] = (double)conv / j->count;
  out[1] = INFINITY;
  out[2] = (double)within / j->count;
  out[3] = it_sum / j->count;
  out[4] = it_max;
  if (err != NULL && its != NULL) {
    qsort(err, (size_t)j->count, sizeof *err, bench_cmp_error);
    out[1] = err[j->count / 2];
    qsort(its, (size_t)j->count, sizeof *its, bench_cmp_error);
    out[5] = its[(j->count * 99) / 100];
  }
  free(err);
  free(its);
}

/* refine: each feature has a slot whose reference is taken by one untimed call first; the timed
 * calls then refine against the kept references (a track's steady state). VF_BENCH_TEMPLATES=first:
 * first-observation templates, taken the same way (what vilib's harness times: templates and
 * their Hessians kept from an untimed call); rows tracker_first*. */
static int bench_tracker_count(vf_context* ctx, const bench_options* opt, bench_out* out,
                               tracker_job* j, const float* xy, int wanted, const char* image,
                               int refine) {
  vf_tracker_config tc = vf_tracker_config_default();
  tc.max_features = BENCH_MAX_FEATURES;
  tc.refine = refine;
  const char* templates = getenv("VF_BENCH_TEMPLATES");
  const int first = templates != NULL && strcmp(templates, "first") == 0;
  if (first) tc.template_mode = VF_TEMPLATE_FIRST_OBSERVATION;
  const int slots = refine || first;
  char name[4][40];
  const char* base = refine ? (first ? "tracker_refine_first" : "tracker_refine")
                            : (first ? "tracker_first" : "tracker");
  const char* suffix[4] = {"", "_sync", "_in_place", "_in_place_sync"};
  for (int k = 0; k < 4; ++k) snprintf(name[k], sizeof name[k], "%s%s", base, suffix[k]);
  vf_status s = vf_tracker_create(ctx, &tc, &j->tracker);
  for (int i = 0; i < j->count; ++i) {
    j->requests[i] = vf_track_request_make(xy[2 * i], xy[2 * i + 1], slots ? i : -1);
  }
  if (s == VF_OK && slots) {
    s = vf_tracker_track(j->tracker, j->prev, j->cur, j->requests, j->count, j->results);
    for (int i = 0; i < j->count; ++i) j->requests[i].new_template = 0;
  }
  bench_stats st = {0}, sync = {0};
  if (s == VF_OK) s = bench_time(ctx, opt, tracker_submit_step, j, &st);
  if (s == VF_OK) s = vf_tracker_collect(j->tracker, j->results);
  const int gpu = vf_context_backend(ctx) == VF_BACKEND_CUDA;
  if (s == VF_OK && gpu) s = bench_time(ctx, opt, tracker_track_step, j, &sync);
  bench_stats in_place = {0}, in_place_sync = {0};
  int same = 0;
  if (s == VF_OK && gpu) s = bench_in_place(ctx, opt, j, &in_place, &in_place_sync, &same);
  if (s == VF_OK) {
    double acc[6];
    bench_accuracy(j, xy, acc);
    vf_device_info info;
    vf_context_device_info(ctx, &info);
    vf_image l0;
    vf_pyramid_level(j->prev, 0, &l0);
    bench_result_begin(out, name[0], l0.width, l0.height, &st);
    bench_result_int(out, "features", j->count);
    bench_result_int(out, "features_wanted", wanted);
    bench_result_int(out, "levels", tc.levels);
    bench_result_str(out, "patches", "16/16/8/8");
    bench_result_str(out, "templates", first ? "first_observation" : "previous_frame");
    if (refine) bench_result_int(out, "refine_patch", tc.refine_patch);
    bench_result_int(out, "max_iterations", tc.max_iterations);
    if (vf_context_backend(ctx) == VF_BACKEND_CPU)
      bench_result_int(out, "threads", info.multiprocessors);
    bench_result_str(out, "image", image);
    bench_result_num(out, "converged", acc[0]);
    bench_result_num(out, "median_error_px", acc[1]);
    bench_result_num(out, "within_0.1px", acc[2]);
    bench_result_num(out, "iterations_mean", acc[3]);
    bench_result_int(out, "iterations_max", (long long)acc[4]);
    bench_result_int(out, "iterations_p99", (long long)acc[5]);
    bench_result_end(out);
    if (gpu) {
      bench_result_begin(out, name[1], l0.width, l0.height, &sync);
      bench_result_int(out, "features", j->count);
      bench_result_str(out, "timed", "vf_tracker_track, host round trip included");
      bench_result_end(out);
      bench_result_begin(out, name[2], l0.width, l0.height, &in_place);
      bench_result_int(out, "features", j->count);
      bench_result_str(out, "timed", "vf_tracker_submit, requests in vf_tracker_request_buffer");
      bench_result_int(out, "same_results", same);
      bench_result_end(out);
      bench_result_begin(out, name[3], l0.width, l0.height, &in_place_sync);
      bench_result_int(out, "features", j->count);
      bench_result_str(out, "timed", "submit in place and vf_tracker_collect_in_place");
      bench_result_end(out);
    }
  } else {
    fprintf(stderr, "tracker %d features: %s: %s\n", j->count, vf_status_str(s),
            vf_last_error_message());
  }
  vf_tracker_destroy(j->tracker);
  j->tracker = NULL;
  return s == VF_OK ? 0 : 1;
}

/* All feature counts on one context. */
static int bench_tracker_on(vf_context* ctx, const bench_options* opt, bench_out* out,
                            const vf_image* img0, const vf_image* img1, const char* image) {
  tracker_job j = {0};
  static float xy[2 * BENCH_MAX_FEATURES];
  const vf_pyramid_config pc = {img0->width, img0->height, 4};
  vf_status s = vf_pyramid_create(ctx, &pc, &j.prev);
  if (s == VF_OK) s = vf_pyramid_create(ctx, &pc, &j.cur);
  if (s == VF_OK) s = vf_pyramid_build(j.prev, img0);
  if (s == VF_OK) s = vf_pyramid_build(j.cur, img1);
  j.requests = calloc(BENCH_MAX_FEATURES, sizeof *j.requests);
  j.results = calloc(BENCH_MAX_FEATURES, sizeof *j.results);
  int failed = s != VF_OK || j.requests == NULL || j.results == NULL;
  /* VF_BENCH_FEATURES="100,200,500" picks other counts (scripts/jetson_bench.sh, a TX2). */
  int counts[8] = {200, 1000, 4000}, ncounts = 3;
  const char* list = getenv("VF_BENCH_FEATURES");
  if (list != NULL) {
    for (ncounts = 0; ncounts < 8 && *list != '\0'; ++ncounts) {
      char* end = NULL;
      const long n = strtol(list, &end, 10);
      if (end == list || n < 1 || n > BENCH_MAX_FEATURES) break;
      counts[ncounts] = (int)n;
      list = *end == ',' ? end + 1 : end;
    }
  }
  /* VF_BENCH_REFINE=0 or 1: the rows without or with reference refinement alone. */
  const char* only = getenv("VF_BENCH_REFINE");
  const int r0 = only != NULL && *only == '1', r1 = only != NULL && *only == '0' ? 1 : 2;
  for (int c = 0; !failed && c < ncounts; ++c) {
    j.count = bench_features(img0, counts[c], xy);
    for (int refine = r0; refine < r1 && j.count > 0 && !failed; ++refine)
      failed |= bench_tracker_count(ctx, opt, out, &j, xy, counts[c], image, refine);
  }
  if (s != VF_OK) fprintf(stderr, "tracker: %s\n", vf_last_error_message());
  free(j.requests);
  free(j.results);
  vf_pyramid_destroy(j.prev);
  vf_pyramid_destroy(j.cur);
  return failed;
}

/* One image: the warped copy is tracked on ctx (and, on the CPU backend, on 2 threads: the
 * issue's CPU figure). */
static int bench_tracker_image(vf_context* ctx, const bench_options* opt, bench_out* out,
                               vf_image* img0, const char* image) {
  vf_image img1 = {0};
  vf_status s = bench_warp(img0, &img1);
  int failed = s != VF_OK;
  if (!failed) failed |= bench_tracker_on(ctx, opt, out, img0, &img1, image);
  if (!failed && vf_context_backend(ctx) == VF_BACKEND_CPU) {
    vf_context_config cc = vf_context_config_default();
    cc.backend = VF_BACKEND_CPU;
    cc.cpu_threads = 2;
    example_log_install(&cc, "vf_bench", opt->quiet);
    vf_context* two = NULL;
    s = vf_context_create(&cc, &two);
    failed |= s != VF_OK || bench_tracker_on(two, opt, out, img0, &img1, image);
    vf_context_destroy(two);
  }
  if (s != VF_OK) fprintf(stderr, "tracker: %s\n", vf_last_error_message());
  vf_image_free(&img1);
  return failed;
}

int bench_tracker(vf_context* ctx, const bench_options* opt, bench_out* out) {
  vf_image img0 = {0};
  char path[1024];
  vf_status s = VF_ERR_IO;
  int failed = 0, images = 0;
  /* birds (TARGETS.md's image), then peru: its warp makes a few features iterate far longer
   * than any on birds, and a launch waits for its slowest feature. */
  static const char* const names[] = {"birds_752x480.png", "peru_640x480.png"};
  for (int k = 0; k < 2 && opt->data_dir != NULL && opt->width == 0; ++k) {
    snprintf(path, sizeof path, "%s/images/%s", opt->data_dir, names[k]);
    s = vf_png_read_gray8(path, &img0);
    if (s != VF_OK) continue;
    ++images;
    failed |= bench_tracker_image(ctx, opt, out, &img0, names[k]);
    vf_image_free(&img0);
  }
  if (images == 0) {
    s = bench_make_texture(opt->width > 0 ? opt->width : 752, opt->height > 0 ? opt->height : 480,
                           11, &img0);
    failed |= s != VF_OK || bench_tracker_image(ctx, opt, out, &img0, "texture");
    if (s != VF_OK) fprintf(stderr, "tracker: %s\n", vf_last_error_message());
    vf_image_free(&img0);
  }
  return failed;
}

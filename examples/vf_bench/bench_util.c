// SPDX-License-Identifier: BSD-3-Clause
/* vf_bench helpers: timing loop with medians, JSON result writing, test textures. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int bench_cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

vf_status bench_time(vf_context* ctx, const bench_options* opt, bench_step_fn fn, void* arg,
                     bench_stats* out) {
  return bench_time_prepared(ctx, opt, NULL, fn, arg, out);
}

vf_status bench_time_prepared(vf_context* ctx, const bench_options* opt, bench_step_fn prepare,
                              bench_step_fn fn, void* arg, bench_stats* out) {
  vf_timer* timer = NULL;
  vf_status s = vf_timer_create(ctx, &timer);
  if (s != VF_OK) return s;
  double* samples = calloc((size_t)opt->runs, sizeof *samples);
  if (samples == NULL) {
    vf_timer_destroy(timer);
    return VF_ERR_NOMEM;
  }
  for (int i = 0; s == VF_OK && i < opt->warmup; ++i) s = fn(arg);
  if (s == VF_OK) s = vf_context_synchronize(ctx);
  for (int i = 0; s == VF_OK && i < opt->runs; ++i) {
    if (prepare != NULL) s = prepare(arg);
    if (s == VF_OK) s = vf_timer_start(timer);
    if (s == VF_OK) s = fn(arg);
    if (s == VF_OK) s = vf_timer_stop(timer, &samples[i]);
  }
  if (s == VF_OK) {
    double sum = 0.0;
    for (int i = 0; i < opt->runs; ++i) sum += samples[i];
    qsort(samples, (size_t)opt->runs, sizeof *samples, bench_cmp_double);
    out->runs = opt->runs;
    out->min_ms = samples[0];
    out->mean_ms = sum / opt->runs;
    out->median_ms = opt->runs % 2 ? samples[opt->runs / 2]
                                   : 0.5 * (samples[opt->runs / 2 - 1] + samples[opt->runs / 2]);
  }
  free(samples);
  vf_timer_destroy(timer);
  return s;
}

void bench_result_begin(bench_out* out, const char* stage, int width, int height,
                        const bench_stats* st) {
  fprintf(out->json, "%s\n    {\"stage\": \"%s\", \"width\": %d, \"height\": %d",
          out->count ? "," : "", stage, width, height);
  fprintf(out->json, ", \"runs\": %d, \"median_us\": %.3f, \"min_us\": %.3f, \"mean_us\": %.3f",
          st->runs, st->median_ms * 1e3, st->min_ms * 1e3, st->mean_ms * 1e3);
  out->count++;
  fprintf(stderr, "%-10s %5dx%-5d median %9.2f us  min %9.2f us", stage, width, height,
          st->median_ms * 1e3, st->min_ms * 1e3);
}

void bench_result_int(bench_out* out, const char* key, long long value) {
  fprintf(out->json, ", \"%s\": %lld", key, value);
  fprintf(stderr, "  %s=%lld", key, value);
}

void bench_result_num(bench_out* out, const char* key, double value) {
  fprintf(out->json, ", \"%s\": %.6g", key, value);
  fprintf(stderr, "  %s=%.4g", key, value);
}

void bench_result_str(bench_out* out, const char* key, const char* value) {
  fprintf(out->json, ", \"%s\": \"%s\"", key, value);
  fprintf(stderr, "  %s=%s", key, value);
}

void bench_result_nums(bench_out* out, const char* key, const double* values, int count) {
  double lo = count > 0 ? values[0] : 0.0, hi = lo;
  fprintf(out->json, ", \"%s\": [", key);
  for (int i = 0; i < count; ++i) {
    fprintf(out->json, "%s%.6g", i ? ", " : "", values[i]);
    lo = values[i] < lo ? values[i] : lo;
    hi = values[i] > hi ? values[i] : hi;
  }
  fprintf(out->json, "]");
  fprintf(stderr, "  %s=[%.4g..%.4g]", key, lo, hi);
}

void bench_result_end(bench_out* out) {
  fprintf(out->json, "}");
  fprintf(stderr, "\n");
}

vf_status bench_make_texture(int width, int height, unsigned seed, vf_image* out) {
  vf_status s = vf_image_alloc(out, width, height, VF_PIXEL_U8, VF_MEMORY_HOST);
  if (s != VF_OK) return s;
  /* Smooth blobs plus fine noise: corners at several scales, like a real scene. */
  uint32_t state = seed * 2654435761u + 1u;
  for (int y = 0; y < height; ++y) {
    uint8_t* row = (uint8_t*)out->data + (size_t)y * out->stride_bytes;
    for (int x = 0; x < width; ++x) {
      state = state * 1664525u + 1013904223u;
      int blocks = (((x / 24) * 7 + (y / 16) * 13) % 11) * 18;
      int noise = (int)(state >> 28);
      row[x] = (uint8_t)((blocks + noise * 3 + ((x ^ y) & 15)) & 0xff);
    }
  }
  return VF_OK;
}

// SPDX-License-Identifier: BSD-3-Clause
/* vf_bench: per-stage benchmarks. Warm-up, many timed runs (CUDA events on the GPU, a
 * monotonic clock on the CPU), median and min, JSON on stdout (or --json FILE) with the device,
 * CUDA version, sizes and configuration; a readable line per result on stderr.
 *
 *   vf_bench [--backend auto|cpu|cuda] [--stage NAME] [--runs N] [--warmup N]
 *            [--size WxH] [--data DIR] [--json FILE] [--quiet] */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int usage(void) {
  fprintf(stderr,
          "usage: vf_bench [--backend auto|cpu|cuda] [--stage NAME] [--runs N] [--warmup N]\n"
          "                [--size WxH] [--data DIR] [--json FILE] [--quiet]\nstages:");
  for (const bench_stage* st = bench_stages; st->name != NULL; ++st)
    fprintf(stderr, " %s", st->name);
  fprintf(stderr, "\n");
  return 2;
}

static int parse_backend(const char* s, vf_backend* out) {
  if (strcmp(s, "auto") == 0)
    *out = VF_BACKEND_AUTO;
  else if (strcmp(s, "cpu") == 0)
    *out = VF_BACKEND_CPU;
  else if (strcmp(s, "cuda") == 0)
    *out = VF_BACKEND_CUDA;
  else
    return 0;
  return 1;
}

int main(int argc, char** argv) {
  bench_options opt = {VF_BACKEND_AUTO, 200, 20, 0, 0, NULL, NULL, 0};
  const char* stage = NULL;
  const char* json_path = NULL;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (strcmp(a, "--quiet") == 0) {
      opt.quiet = 1;
      continue;
    }
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (v == NULL) return usage();
    if (strcmp(a, "--backend") == 0) {
      if (!parse_backend(v, &opt.backend)) return usage();
    } else if (strcmp(a, "--stage") == 0) {
      stage = v;
    } else if (strcmp(a, "--runs") == 0) {
      opt.runs = atoi(v);
    } else if (strcmp(a, "--warmup") == 0) {
      opt.warmup = atoi(v);
    } else if (strcmp(a, "--size") == 0) {
      if (sscanf(v, "%dx%d", &opt.width, &opt.height) != 2) return usage();
    } else if (strcmp(a, "--data") == 0) {
      opt.data_dir = v;
    } else if (strcmp(a, "--json") == 0) {
      json_path = v;
    } else {
      return usage();
    }
    ++i;
  }
  if (opt.runs < 1 || opt.warmup < 0 || (opt.width != 0 && (opt.width < 1 || opt.height < 1))) {
    return usage();
  }

  vf_context_config cc = vf_context_config_default();
  cc.backend = opt.backend;
  example_log_install(&cc, "vf_bench", opt.quiet);
  vf_context* ctx = NULL;
  if (vf_context_create(&cc, &ctx) != VF_OK) {
    fprintf(stderr, "vf_bench: %s\n", vf_last_error_message());
    return 1;
  }
  vf_device_info info;
  vf_context_device_info(ctx, &info);
  bench_out out = {stdout, 0};
  if (json_path != NULL) {
    out.json = fopen(json_path, "w");
    if (out.json == NULL) {
      fprintf(stderr, "vf_bench: cannot write %s\n", json_path);
      vf_context_destroy(ctx);
      return 1;
    }
  }
  fprintf(out.json,
          "{\n  \"viofront\": \"%s\",\n  \"backend\": \"%s\",\n  \"device\": \"%s\",\n"
          "  \"compute_capability\": \"%d.%d\",\n  \"multiprocessors\": %d,\n"
          "  \"cuda_runtime\": %d,\n  \"cuda_driver\": %d,\n  \"warmup\": %d,\n"
          "  \"results\": [",
          vf_version(), vf_backend_name(vf_context_backend(ctx)), info.name, info.compute_major,
          info.compute_minor, info.multiprocessors, info.cuda_runtime_version,
          info.cuda_driver_version, opt.warmup);
  fprintf(stderr, "vf_bench: %s backend on %s\n", vf_backend_name(vf_context_backend(ctx)),
          info.name);
  int failed = 0, matched = 0;
  for (const bench_stage* st = bench_stages; st->name != NULL; ++st) {
    if (stage != NULL && strcmp(stage, st->name) != 0) continue;
    matched = 1;
    failed |= st->run(ctx, &opt, &out);
  }
  fprintf(out.json, "\n  ]\n}\n");
  if (out.json != stdout) fclose(out.json);
  vf_context_destroy(ctx);
  if (!matched) return usage();
  return failed;
}

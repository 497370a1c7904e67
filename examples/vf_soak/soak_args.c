// SPDX-License-Identifier: BSD-3-Clause
/* vf_soak's command line. */
#include <stdlib.h>
#include <string.h>

#include "soak.h"

static int usage(void) {
  fprintf(stderr,
          "usage: vf_soak SEQUENCE [--frames N] [--sample N] [--backend auto|cpu|cuda]\n"
          "               [--threads N] [--config FILE] [--csv FILE] [--preload on|off]\n"
          "               [--warmup F] [--max-seconds S] [--quiet]\n"
          "Replays SEQUENCE (an EuRoC ASL folder) lap after lap for N frames (default 10000),\n"
          "sampling memory, threads, file descriptors and GPU memory every --sample frames\n"
          "(default N/100). --preload on (default) decodes the images once; off rewinds the\n"
          "reader every lap. Exit status 3 when anything grew after the first F of the run\n"
          "(default 0.2). --max-seconds ends the run early, at a sample, and judges what ran.\n"
          "The config's context section sets the backend and the threads; --backend and\n"
          "--threads override it.\n");
  return -1;
}

int soak_parse_args(int argc, char** argv, soak_options* opt) {
  memset(opt, 0, sizeof *opt);
  opt->backend = VF_BACKEND_AUTO;
  opt->frames = 10000;
  opt->preload = 1;
  opt->warmup = 0.2;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (strcmp(a, "--quiet") == 0) {
      opt->quiet = 1;
      continue;
    }
    if (a[0] != '-') {
      if (opt->sequence != NULL) return usage();
      opt->sequence = a;
      continue;
    }
    const char* v = i + 1 < argc ? argv[++i] : NULL;
    if (v == NULL) return usage();
    if (strcmp(a, "--frames") == 0) {
      opt->frames = atol(v);
    } else if (strcmp(a, "--sample") == 0) {
      opt->sample = atol(v);
    } else if (strcmp(a, "--threads") == 0) {
      opt->threads = atoi(v);
      opt->threads_given = 1;
    } else if (strcmp(a, "--config") == 0) {
      opt->config = v;
    } else if (strcmp(a, "--csv") == 0) {
      opt->csv = v;
    } else if (strcmp(a, "--max-seconds") == 0) {
      opt->max_seconds = atof(v);
    } else if (strcmp(a, "--warmup") == 0) {
      opt->warmup = atof(v);
    } else if (strcmp(a, "--preload") == 0 && (!strcmp(v, "on") || !strcmp(v, "off"))) {
      opt->preload = strcmp(v, "on") == 0;
    } else if (strcmp(a, "--backend") == 0 &&
               (!strcmp(v, "auto") || !strcmp(v, "cpu") || !strcmp(v, "cuda"))) {
      opt->backend = !strcmp(v, "cpu")    ? VF_BACKEND_CPU
                     : !strcmp(v, "cuda") ? VF_BACKEND_CUDA
                                          : VF_BACKEND_AUTO;
      opt->backend_given = 1;
    } else {
      return usage();
    }
  }
  if (opt->sample <= 0) opt->sample = opt->frames / 100 > 0 ? opt->frames / 100 : 1;
  if (opt->sequence == NULL || opt->frames < 1 || opt->threads < 0 || !(opt->max_seconds >= 0) ||
      !(opt->warmup >= 0.0 && opt->warmup < 1.0))
    return usage();
  return 0;
}

// SPDX-License-Identifier: BSD-3-Clause
/* vf_replay's command line. */
#include <stdlib.h>
#include <string.h>

#include "replay.h"

static int usage(void) {
  fprintf(stderr,
          "usage: vf_replay SEQUENCE [--config FILE] [--backend auto|cpu|cuda] [--realtime]\n"
          "                 [--max-frames N] [--csv FILE] [--json FILE] [--disparity-dir DIR]\n"
          "                 [--overlay-dir DIR] [--overlay N[,N...]] [--quiet]\n"
          "                 [--decode-threads N] [--prefetch N] [--read-only] [--no-eval]\n"
          "                 [--pageable]\n"
          "                 [--stereo dense|sparse] [--dense-every N] [--rig [CAMCHAIN.yaml]]\n"
          "SEQUENCE is an EuRoC ASL folder (holding mav0), real or written by vf_synth.\n"
          "The config's context section sets the backend and the CPU threads; --backend\n"
          "overrides its backend (without a config: auto).\n"
          "--decode-threads: threads decoding images (and ground truth) ahead, 0..64;\n"
          "--prefetch: pairs decoded ahead, 0..64; --read-only: read the images (and the\n"
          "ground-truth files), no frontend; --no-eval: no ground-truth evaluation;\n"
          "--pageable: on CUDA, decode into ordinary memory, not page-locked buffers;\n"
          "--json: the summary (features, tracks, the evaluation) as JSON;\n"
          "--stereo: the frontend's stereo mode (over the config's); --dense-every: in sparse\n"
          "mode also a dense map every N frames (0 = never), compared with the matches;\n"
          "--rig: every camera of a Kalibr camchain file (default SEQUENCE/camchain.yaml; a\n"
          "file name ending in .yaml or .yml) through the rig frontend, mav0/camK per camera.\n");
  return -1;
}

static int parse_frames(const char* s, replay_options* opt) {
  while (*s != '\0' && opt->overlay_count < 16) {
    char* end = NULL;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0) return -1;
    opt->overlay_frames[opt->overlay_count++] = (int)v;
    s = *end == ',' ? end + 1 : end;
    if (*end != ',' && *end != '\0') return -1;
  }
  return 0;
}

/* A whole number 0..max, nothing after it. */
static int parse_count(const char* s, long max, int* out) {
  char* end = NULL;
  long n = strtol(s, &end, 10);
  if (end == s || *end != '\0' || n < 0 || n > max) return -1;
  *out = (int)n;
  return 0;
}

/* The frontend uploads page-locked images asynchronously on CUDA; ordinary ones the driver stages
 * while the frontend's thread waits (docs/perf/replay.md). */
int replay_pinned_buffers(const replay_options* opt, const vf_context* ctx) {
  return vf_context_backend(ctx) == VF_BACKEND_CUDA && !opt->pageable;
}

int replay_parse_args(int argc, char** argv, replay_options* opt) {
  memset(opt, 0, sizeof *opt);
  opt->backend = VF_BACKEND_AUTO;
  opt->decode_threads = opt->prefetch = -1;
  opt->stereo = opt->dense_every = -1;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (strcmp(a, "--realtime") == 0) {
      opt->realtime = 1;
      continue;
    }
    if (strcmp(a, "--quiet") == 0) {
      opt->quiet = 1;
      continue;
    }
    if (strcmp(a, "--rig") == 0) {
      /* The file is optional: only a name ending in .yaml or .yml is taken for it, so that
       * "--rig SEQUENCE" keeps SEQUENCE. */
      const char* v = i + 1 < argc ? argv[i + 1] : "";
      const size_t n = strlen(v);
      if ((n > 5 && strcmp(v + n - 5, ".yaml") == 0) || (n > 4 && strcmp(v + n - 4, ".yml") == 0))
        opt->rig_camchain = argv[++i];
      opt->rig = 1;
      continue;
    }
    if (strcmp(a, "--pageable") == 0) {
      opt->pageable = 1;
      continue;
    }
    if (strcmp(a, "--read-only") == 0 || strcmp(a, "--no-eval") == 0) {
      *(a[2] == 'r' ? &opt->read_only : &opt->no_eval) = 1;
      continue;
    }
    if (a[0] != '-') {
      if (opt->sequence != NULL) return usage();
      opt->sequence = a;
      continue;
    }
    const char* v = i + 1 < argc ? argv[++i] : NULL;
    if (v == NULL) return usage();
    if (strcmp(a, "--config") == 0) {
      opt->config = v;
    } else if (strcmp(a, "--backend") == 0) {
      opt->backend_given = 1;
      if (strcmp(v, "auto") == 0) {
        opt->backend = VF_BACKEND_AUTO;
      } else if (strcmp(v, "cpu") == 0) {
        opt->backend = VF_BACKEND_CPU;
      } else if (strcmp(v, "cuda") == 0) {
        opt->backend = VF_BACKEND_CUDA;
      } else {
        return usage();
      }
    } else if (strcmp(a, "--max-frames") == 0) {
      opt->max_frames = atoi(v);
      if (opt->max_frames < 0) return usage();
    } else if (strcmp(a, "--decode-threads") == 0 || strcmp(a, "--prefetch") == 0) {
      if (parse_count(v, 64, a[2] == 'd' ? &opt->decode_threads : &opt->prefetch) != 0)
        return usage();
    } else if (strcmp(a, "--stereo") == 0) {
      if (strcmp(v, "dense") != 0 && strcmp(v, "sparse") != 0) return usage();
      opt->stereo = v[0] == 'd' ? VF_FRONTEND_STEREO_DENSE : VF_FRONTEND_STEREO_SPARSE;
    } else if (strcmp(a, "--dense-every") == 0) {
      if (parse_count(v, 1000000, &opt->dense_every) != 0) return usage();
    } else if (strcmp(a, "--json") == 0) {
      opt->json = v;
    } else if (strcmp(a, "--csv") == 0) {
      opt->csv = v;
    } else if (strcmp(a, "--disparity-dir") == 0) {
      opt->disparity_dir = v;
    } else if (strcmp(a, "--overlay-dir") == 0) {
      opt->overlay_dir = v;
    } else if (strcmp(a, "--overlay") == 0) {
      if (parse_frames(v, opt) != 0) return usage();
    } else {
      return usage();
    }
  }
  if (opt->sequence == NULL) return usage();
  if (opt->overlay_count > 0 && opt->overlay_dir == NULL) opt->overlay_dir = ".";
  return 0;
}

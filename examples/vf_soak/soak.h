// SPDX-License-Identifier: BSD-3-Clause
/* vf_soak: replays a sequence in a loop through the frontend for a long time and samples the
 * process's memory, threads and file descriptors (and GPU memory on CUDA) to show that nothing
 * grows once warmed up. The pieces: options, the looping event source, the samples. */
#ifndef VF_SOAK_H
#define VF_SOAK_H

#include <stdint.h>
#include <stdio.h>
#include <viofront/viofront.h>

typedef struct soak_options {
  const char* sequence; /* EuRoC ASL folder (holding mav0) */
  const char* config;   /* viofront YAML over the defaults, or NULL */
  const char* csv;      /* samples written here, or NULL */
  vf_backend backend;
  int backend_given;  /* 1: --backend given, over the config's context.backend */
  long frames;        /* frames to process in all */
  long sample;        /* frames between samples */
  int threads;        /* CPU worker threads, 0 = all cores */
  int threads_given;  /* 1: --threads given, over the config's context.cpu_threads */
  int preload;        /* 1: decode the sequence once and loop in memory; 0: rewind the reader */
  double warmup;      /* fraction of the run before the baseline sample */
  double max_seconds; /* stop early (at a sample) after this long; 0 = no limit */
  int quiet;          /* 1: the library's warnings are not shown */
} soak_options;

int soak_parse_args(int argc, char** argv, soak_options* opt);

/* One lap of the sequence repeated with every timestamp shifted by the lap's length, so that
 * time keeps increasing: from the reader (rewound at the end of a lap) or from memory. */
typedef struct soak_source soak_source;

vf_status soak_source_open(vf_euroc* reader, int preload, soak_source** out);
/* The next event of the endless stream; images valid until the next call. */
vf_status soak_source_next(soak_source* src, vf_euroc_event* ev);
long soak_source_laps(const soak_source* src);
void soak_source_close(soak_source* src);

typedef struct soak_sample {
  long frame;
  double wall_s;
  double rss_mb;       /* VmRSS */
  double hwm_mb;       /* VmHWM: the peak */
  int threads;         /* Threads */
  int fds;             /* open file descriptors */
  double gpu_used_mb;  /* device memory in use (total - free), -1 without CUDA */
  double ms_per_frame; /* since the previous sample */
} soak_sample;

/* The process's figures now (frame and timing fields left to the caller); device memory only
 * with `gpu` (asking would otherwise start a CUDA context in a CPU run). */
void soak_sample_take(soak_sample* s, int gpu);
/* One CSV row, or the header row for NULL. */
void soak_sample_print(FILE* f, const soak_sample* s);

/* Growth of the peak allowed after the warm-up (vf_soak and vf_faultsoak). Host memory is judged
 * by its peak (VmHWM): the RSS itself swings by the images in flight (the reader's prefetch
 * queue, the allocator returning large blocks, a reader's decoding threads started again each
 * lap, with their allocator caches under ASan), but a leak keeps raising the peak. */
#define SOAK_HWM_SLACK_MB 4.0

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* Process figures from /proc/self (Linux) and, built with CUDA, device memory in use. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "soak.h"
#ifdef VF_SOAK_CUDA
#include <cuda_runtime_api.h>
#endif

/* A "Key:   value kB" line of /proc/self/status. */
static double status_field(const char* text, const char* key) {
  const char* p = strstr(text, key);
  return p != NULL ? strtod(p + strlen(key), NULL) : -1.0;
}

static int count_fds(void) {
  DIR* d = opendir("/proc/self/fd");
  if (d == NULL) return -1;
  int n = 0;
  for (struct dirent* e = readdir(d); e != NULL; e = readdir(d))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n - 1; /* the descriptor of the listing itself */
}

void soak_sample_take(soak_sample* s, int gpu) {
  char text[8192] = "";
  FILE* f = fopen("/proc/self/status", "r");
  if (f != NULL) {
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
  }
  s->rss_mb = status_field(text, "VmRSS:") / 1024.0;
  s->hwm_mb = status_field(text, "VmHWM:") / 1024.0;
  s->threads = (int)status_field(text, "Threads:");
  s->fds = count_fds();
  s->gpu_used_mb = -1.0;
#ifndef VF_SOAK_CUDA
  (void)gpu;
#endif
#ifdef VF_SOAK_CUDA
  size_t free_b = 0, total_b = 0;
  if (gpu && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
    s->gpu_used_mb = (double)(total_b - free_b) / (1024.0 * 1024.0);
#endif
}

void soak_sample_print(FILE* f, const soak_sample* s) {
  if (s == NULL) {
    fprintf(f, "frame,wall_s,rss_mb,hwm_mb,threads,fds,gpu_used_mb,ms_per_frame\n");
    return;
  }
  fprintf(f, "%ld,%.1f,%.2f,%.2f,%d,%d,%.2f,%.3f\n", s->frame, s->wall_s, s->rss_mb, s->hwm_mb,
          s->threads, s->fds, s->gpu_used_mb, s->ms_per_frame);
}

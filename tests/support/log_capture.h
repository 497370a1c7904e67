// SPDX-License-Identifier: BSD-3-Clause
/* A CPU context whose log callback keeps the warnings, for tests that check what the library
 * warns about (unknown YAML keys, missing EuRoC files). */
#ifndef LOG_CAPTURE_H
#define LOG_CAPTURE_H

#include <stdio.h>
#include <string.h>
#include <viofront/viofront.h>

typedef struct log_capture {
  char text[16384]; /* the messages, one per line */
  int count;
} log_capture;

static void log_capture_fn(vf_log_level level, const char* message, void* user) {
  log_capture* c = user;
  size_t used = strlen(c->text);
  snprintf(c->text + used, sizeof c->text - used, "%d %s\n", (int)level, message);
  c->count++;
}

/* A context on `backend` logging warnings into `c` (cleared). */
static inline vf_context* log_capture_context_on(log_capture* c, vf_backend backend) {
  memset(c, 0, sizeof *c);
  vf_context_config cc = vf_context_config_default();
  cc.backend = backend;
  cc.cpu_threads = 1;
  cc.log_fn = log_capture_fn;
  cc.log_user = c;
  cc.log_level = VF_LOG_WARN;
  vf_context* ctx = NULL;
  if (vf_context_create(&cc, &ctx) != VF_OK) return NULL;
  return ctx;
}

/* The same on the CPU. */
static inline vf_context* log_capture_context(log_capture* c) {
  return log_capture_context_on(c, VF_BACKEND_CPU);
}

static inline void log_capture_clear(log_capture* c) {
  c->text[0] = '\0';
  c->count = 0;
}

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* The example programs' log callback (see example_log.h). */
#include "example_log.h"

#include <stdio.h>

static void example_log_print(vf_log_level level, const char* message, void* user) {
  static const char* const names[] = {"silent", "error", "warning", "info", "debug"};
  const char* name = level >= VF_LOG_SILENT && level <= VF_LOG_DEBUG ? names[level] : "log";
  fprintf(stderr, "%s: %s: %s\n", (const char*)user, name, message);
}

void example_log_install(vf_context_config* cc, const char* program, int quiet) {
  cc->log_fn = quiet ? NULL : example_log_print;
  cc->log_user = (void*)program;
  cc->log_level = VF_LOG_WARN;
}

// SPDX-License-Identifier: BSD-3-Clause
/* The measurement switches' one parser (src/core/vf_env.h). */
#include "core/vf_env.h"

#include <stdlib.h>

int vf_env_digit(const char* name, int lo, int hi) {
  const char* v = getenv(name);
  if (v == NULL || v[0] < '0' + lo || v[0] > '0' + hi || v[1] != '\0') return -1;
  return v[0] - '0';
}

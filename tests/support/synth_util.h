// SPDX-License-Identifier: BSD-3-Clause
/* Shared by the vf_synth tests: running the generator, quaternions to matrices. */
#ifndef SYNTH_UTIL_H
#define SYNTH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vf_test.h"

/* Runs vf_synth (its path compiled in as VF_SYNTH_EXE) with `args`; a check that it succeeded. */
static void run_synth(const char* args) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s %s > /dev/null", VF_SYNTH_EXE, args);
  int rc = system(cmd);
  if (rc != 0) fprintf(stderr, "%s: exit %d\n", cmd, rc);
  CHECK(rc == 0);
}

/* Unit quaternion (w x y z) -> row-major rotation matrix. */
static inline void quat_to_matrix(const double q[4], double R[9]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double m[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                 2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                 2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  memcpy(R, m, sizeof m);
}

#endif

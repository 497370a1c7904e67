// SPDX-License-Identifier: BSD-3-Clause
/* How many cores this process may run on: its CPU affinity mask where Linux gives one (taskset, a
 * container's cpuset, a robot's cores reserved for other processes), else the online count. The
 * online count alone made a frontend pinned to 2 of 16 cores start 16 workers on those 2. */
#define _GNU_SOURCE
#include <unistd.h>
#ifdef __linux__
#include <sched.h>
#endif

#include "core/vf_parallel.h"

int vf_cpu_cores(void) {
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
#endif
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 ? (cores < 4096 ? (int)cores : 4096) : 1;
}

// SPDX-License-Identifier: BSD-3-Clause
/* vf_replay's clock: the monotonic time its figures are measured with, and the pacing of
 * --realtime (each frame handed over no earlier than its recorded time after the first). */
#include <time.h>

#include "replay.h"

double replay_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void replay_pace(double t_start_s, int64_t t0_ns, int64_t t_ns) {
  const double due = t_start_s + (t_ns - t0_ns) * 1e-9, wait = due - replay_now_s();
  if (wait > 0) {
    struct timespec ts = {(time_t)wait, (long)((wait - (time_t)wait) * 1e9)};
    nanosleep(&ts, NULL);
  }
}

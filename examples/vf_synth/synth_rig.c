// SPDX-License-Identifier: BSD-3-Clause
/* The camera rigs vf_synth renders (--rig NAME), in one table so that more can be added: each
 * camera is one of EuRoC's VI-Sensor cameras (intrinsics, distortion, T_BS) turned by a number
 * of quarter turns about body x, which is the vertical of the trajectory (synth_motion.c: body x
 * up, the cameras look along body z), plus the stereo pairs whose disparity is rendered. */
#include <stdio.h>
#include <string.h>

#include "synth.h"

static const synth_rig synth_rigs[] = {
    /* EuRoC's own stereo pair (the only rig before --rig; its files are unchanged). */
    {.name = "stereo", .ncams = 2, .source = {0, 1}, .npairs = 1, .pairs = {{0, 1}}},
    /* The same pair again looking backwards: front left, front right, back left, back right. */
    {.name = "front-back",
     .ncams = 4,
     .source = {0, 1, 0, 1},
     .quarter = {0, 0, 2, 2},
     .npairs = 2,
     .pairs = {{0, 1}, {2, 3}}},
    /* Four mono cameras 90 degrees apart: forward, left, backward, right. */
    {.name = "ring4", .ncams = 4, .quarter = {0, 1, 2, 3}},
};

#define SYNTH_NRIGS ((int)(sizeof synth_rigs / sizeof synth_rigs[0]))

/* T_BS := Rx(q 90 deg) T_BS: the camera's pose turned about body x. The rotation's entries are
 * 0 and +-1, so the turned matrix holds EuRoC's numbers exactly, up to sign. */
static void synth_turn(double T[16], int quarter) {
  static const int cs[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
  int c = cs[quarter & 3][0], s = cs[quarter & 3][1];
  for (int j = 0; j < 4; ++j) {
    double y = T[4 + j], z = T[8 + j];
    T[4 + j] = c * y - s * z;
    T[8 + j] = s * y + c * z;
  }
}

int synth_rig_find(const char* name, synth_rig* out) {
  for (int r = 0; r < SYNTH_NRIGS; ++r) {
    if (strcmp(synth_rigs[r].name, name) != 0) continue;
    *out = synth_rigs[r];
    vf_camera euroc[2];
    vf_euroc_vi_sensor(euroc, NULL);
    for (int k = 0; k < out->ncams; ++k) {
      out->cams[k] = euroc[out->source[k]];
      if (out->quarter[k] != 0) synth_turn(out->cams[k].T_BS, out->quarter[k]);
    }
    return 1;
  }
  return 0;
}

void synth_rig_names(char* buf, size_t size) {
  buf[0] = '\0';
  for (int r = 0; r < SYNTH_NRIGS; ++r) {
    size_t used = strlen(buf);
    snprintf(buf + used, size - used, "%s%s", r ? "|" : "", synth_rigs[r].name);
  }
}

const char* synth_pair_suffix(int left, char buf[16]) {
  /* The pair of cam0 keeps the names it had before rigs: what vf_replay reads. */
  if (left == 0) {
    buf[0] = '\0';
  } else {
    snprintf(buf, 16, "%d", left);
  }
  return buf;
}

// SPDX-License-Identifier: BSD-3-Clause
/* groundtruth/README.txt: the options used and every ground-truth file, for the rig's cameras
 * and stereo pairs. The default stereo rig's text is the one written before rigs existed. */
#include <stdio.h>
#include <string.h>

#include "synth.h"

/* The cameras' names: "<pre>0<post>" for one, "<pre>0<post><sep><pre>1<post>" for two,
 * "<pre>0<post> .. <pre>N<post>" for more. */
static const char* synth_join(char* buf, size_t size, const char* pre, const char* post,
                              const char* sep, int n) {
  if (n == 1) {
    snprintf(buf, size, "%s0%s", pre, post);
  } else if (n == 2) {
    snprintf(buf, size, "%s0%s%s%s1%s", pre, post, sep, pre, post);
  } else {
    snprintf(buf, size, "%s0%s .. %s%d%s", pre, post, pre, n - 1, post);
  }
  return buf;
}

static void synth_readme_pair(FILE* f, const int pair[2]) {
  if (pair[0] == 0 && pair[1] == 1) {
    fprintf(f,
            "  disparity/<t>.png: 16-bit PNG, disparity of each pixel of the rectified left image\n"
            "    (rectification.yaml) in units of 1/256 px; 0 = unknown: outside the raw image,\n"
            "    or hidden from or outside the right camera.\n");
    return;
  }
  char suffix[16];
  synth_pair_suffix(pair[0], suffix);
  fprintf(f,
          "  disparity%s/<t>.png: the same for the pair cam%d (left), cam%d (right), rectified as\n"
          "    rectification%s.yaml says.\n",
          suffix, pair[0], pair[1], suffix);
}

int synth_write_readme(const char* root, const synth_options* o, const synth_rig* rig) {
  char list[512];
  FILE* f = synth_open(root, "groundtruth/README.txt");
  if (f == NULL) return -1;
  int n = rig->ncams;
  fprintf(f, "vf_synth sequence: seed %llu, %d frames, noise %s, photometric %s, speed %g.\n",
          (unsigned long long)o->seed, o->frames, o->noise ? "on" : "off",
          o->photometric ? "on" : "off", o->speed);
  if (strcmp(rig->name, "stereo") != 0) {
    fprintf(f, "Rig %s: %d cameras (mav0/cam<k>/sensor.yaml; all of them in camchain.yaml).\n",
            rig->name, n);
  }
  fprintf(f,
          "mav0/ is in the EuRoC ASL layout (%s, imu0, state_groundtruth_estimate0 at\n"
          "200 Hz: the exact simulated state, biases included). Ground truth beyond EuRoC's:\n",
          synth_join(list, sizeof list, "cam", "", ", ", n));
  fprintf(f, "  %s: 16-bit PNG per frame, z-depth (along the optical\n",
          synth_join(list, sizeof list, "depth", "/<t>.png", ", ", n));
  fprintf(f, "    axis) of each raw, distorted pixel of %s, in units of 1/5000 m; 0 = none.\n",
          synth_join(list, sizeof list, "cam", "", " / ", n));
  for (int p = 0; p < rig->npairs; ++p) synth_readme_pair(f, rig->pairs[p]);
  fprintf(f,
          "  landmarks.csv: id, world position of 3-D points on the surfaces.\n"
          "  %s: per frame, the raw pixel (u, v) of every landmark that\n"
          "    camera sees (in the image and not hidden).\n"
          "  photometric.csv: per frame, the gain and bias applied to each camera's image\n"
          "    (pixel = gain * radiance + bias).\n"
          "World frame: z up, gravity -9.81 m/s^2 along z; body frame = IMU frame.\n",
          synth_join(list, sizeof list, "tracks", ".csv", ", ", n));
  return synth_close(f);
}

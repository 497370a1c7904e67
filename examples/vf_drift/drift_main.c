// SPDX-License-Identifier: BSD-3-Clause
/* vf_drift: how far the tracker's tracks drift from the point they started on, on a
 * constructed sequence with known zoom, in-plane rotation, perspective tilt and translation
 * (drift_sequence.h, drift_measure.h). Stage settings come from the frontend's defaults, a
 * viofront YAML file (--config) or single keys of one (--set), so every tracker, detector and
 * feature-set key the config reader knows passes through. */
#include <stdlib.h>
#include <string.h>

#include "drift_measure.h"

#define DRIFT_MAX_SETS 64

static int usage(void) {
  fprintf(stderr,
          "usage: vf_drift [--backend cpu|cuda] [--frames N] [--size WxH] [--zoom Z]\n"
          "                [--rotate DEG] [--tilt DEG] [--focal PX] [--shift DX,DY]\n"
          "                [--noise SIGMA] [--gain G] [--bias B] [--supersample N] [--seed N]\n"
          "                [--image PNG] [--template first|previous]\n"
          "                [--config FILE | --set SECTION.KEY=VALUE ...] [--threads N]\n"
          "                [--frames-dir DIR] [--json FILE] [--name NAME]\n"
          "Zoom, rotation and tilt are the last frame's, reached evenly; the shift is per frame.\n"
          "--set takes the keys of a viofront config file (config/euroc.yaml), e.g.\n"
          "--set tracker.patch_sizes=[8,8,8,8] --set features.fb_threshold=0.3\n");
  return 2;
}

typedef struct drift_args {
  drift_options opt;
  const char* config;
  const char* sets[DRIFT_MAX_SETS];
  int nsets;
  const char* json;
  const char* name;
  int template_mode; /* -1 = as configured */
} drift_args;

static int parse_double(const char* s, double* v) {
  char* end = NULL;
  *v = strtod(s, &end);
  return end != s && *end == '\0' ? 0 : -1;
}

static int parse_int(const char* s, int* v) {
  char* end = NULL;
  const long l = strtol(s, &end, 10);
  *v = (int)l;
  return end != s && *end == '\0' ? 0 : -1;
}

/* The --set keys as a YAML document, one mapping per section in order of first mention. */
static int sets_yaml(const drift_args* a, char* text, size_t size) {
  size_t len = 0;
  int done[DRIFT_MAX_SETS] = {0};
  for (int i = 0; i < a->nsets; ++i) {
    if (done[i]) continue;
    const char* dot = strchr(a->sets[i], '.');
    const int sec = (int)(dot - a->sets[i]);
    len += (size_t)snprintf(text + len, size - len, "%.*s:\n", sec, a->sets[i]);
    for (int j = i; j < a->nsets && len < size; ++j) {
      if (strncmp(a->sets[j], a->sets[i], (size_t)sec + 1) != 0) continue;
      const char* eq = strchr(a->sets[j], '=');
      len += (size_t)snprintf(text + len, size - len, "  %.*s: %s\n",
                              (int)(eq - a->sets[j]) - sec - 1, a->sets[j] + sec + 1, eq + 1);
      done[j] = 1;
    }
    if (len >= size) return -1;
  }
  return 0;
}

/* Stage settings from --config or --set over the frontend's defaults. */
static int load_stages(drift_args* a) {
  if (a->config == NULL && a->nsets == 0) return 0;
  vf_config cfg;
  vf_status st;
  if (a->config != NULL) {
    st = vf_config_load(a->config, NULL, &cfg);
  } else {
    static char text[16384];
    if (sets_yaml(a, text, sizeof text) != 0) return -1;
    st = vf_config_parse(text, strlen(text), "--set", NULL, NULL, &cfg);
  }
  if (st != VF_OK) {
    fprintf(stderr, "vf_drift: %s\n", vf_last_error_message());
    return -1;
  }
  a->opt.pyramid_levels = cfg.pyramid.levels;
  a->opt.detector = cfg.frontend.detector;
  a->opt.tracker = cfg.frontend.tracker;
  a->opt.features = cfg.frontend.features;
  return 0;
}

static int parse_option(drift_args* a, const char* k, const char* v) {
  drift_sequence_config* q = &a->opt.sequence;
  if (strcmp(k, "--backend") == 0) {
    if (strcmp(v, "cpu") != 0 && strcmp(v, "cuda") != 0) return -1;
    a->opt.backend = v[1] == 'p' ? VF_BACKEND_CPU : VF_BACKEND_CUDA;
    return 0;
  }
  if (strcmp(k, "--template") == 0) {
    if (strcmp(v, "first") != 0 && strcmp(v, "previous") != 0) return -1;
    a->template_mode = v[0] == 'f' ? VF_TEMPLATE_FIRST_OBSERVATION : VF_TEMPLATE_PREVIOUS_FRAME;
    return 0;
  }
  if (strcmp(k, "--set") == 0) {
    const char* dot = strchr(v, '.');
    const char* eq = strchr(v, '=');
    if (dot == NULL || eq == NULL || dot > eq || a->nsets == DRIFT_MAX_SETS) return -1;
    a->sets[a->nsets++] = v;
    return 0;
  }
  if (strcmp(k, "--size") == 0) return sscanf(v, "%dx%d", &q->width, &q->height) == 2 ? 0 : -1;
  if (strcmp(k, "--shift") == 0) {
    return sscanf(v, "%lf,%lf", &q->motion.shift_x, &q->motion.shift_y) == 2 ? 0 : -1;
  }
  if (strcmp(k, "--seed") == 0) {
    char* end = NULL;
    q->seed = strtoull(v, &end, 10);
    return end != v && *end == '\0' ? 0 : -1;
  }
  if (strcmp(k, "--frames") == 0) return parse_int(v, &q->frames);
  if (strcmp(k, "--supersample") == 0) return parse_int(v, &q->supersample);
  if (strcmp(k, "--threads") == 0) return parse_int(v, &a->opt.cpu_threads);
  if (strcmp(k, "--zoom") == 0) return parse_double(v, &q->motion.zoom);
  if (strcmp(k, "--rotate") == 0) return parse_double(v, &q->motion.rotation_deg);
  if (strcmp(k, "--tilt") == 0) return parse_double(v, &q->motion.tilt_deg);
  if (strcmp(k, "--focal") == 0) return parse_double(v, &q->motion.focal_px);
  if (strcmp(k, "--noise") == 0) return parse_double(v, &q->noise_sigma);
  if (strcmp(k, "--gain") == 0) return parse_double(v, &q->gain_end);
  if (strcmp(k, "--bias") == 0) return parse_double(v, &q->bias_end);
  const char** str[] = {&q->image_path, &a->config, &a->opt.frames_dir, &a->json, &a->name};
  const char* names[] = {"--image", "--config", "--frames-dir", "--json", "--name"};
  for (int i = 0; i < 5; ++i) {
    if (strcmp(k, names[i]) == 0) {
      *str[i] = v;
      return 0;
    }
  }
  return -1;
}

int main(int argc, char** argv) {
  drift_args a;
  memset(&a, 0, sizeof a);
  a.opt = drift_options_default();
  a.template_mode = -1;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc || parse_option(&a, argv[i], argv[i + 1]) != 0) return usage();
  }
  if (a.config != NULL && a.nsets > 0) {
    fprintf(stderr, "vf_drift: --config and --set do not mix: put the keys in the file\n");
    return 2;
  }
  if (load_stages(&a) != 0) return 1;
  if (a.template_mode >= 0) a.opt.tracker.template_mode = (vf_template_mode)a.template_mode;
  drift_stats s;
  if (drift_measure_run(&a.opt, &s) != VF_OK) return 1;
  const drift_motion* m = &a.opt.sequence.motion;
  printf(
      "vf_drift %s: %s backend, %s templates, zoom %g, rotation %g deg, tilt %g deg, shift "
      "(%g, %g) px/frame, noise %g\n",
      a.name != NULL ? a.name : "", vf_backend_name(a.opt.backend),
      a.opt.tracker.template_mode == VF_TEMPLATE_FIRST_OBSERVATION ? "first-observation"
                                                                   : "previous-frame",
      m->zoom, m->rotation_deg, m->tilt_deg, m->shift_x, m->shift_y, a.opt.sequence.noise_sigma);
  drift_stats_print(stdout, &s);
  if (a.json != NULL && drift_stats_write_json(a.json, a.name, &a.opt, &s) != 0) {
    fprintf(stderr, "vf_drift: cannot write %s\n", a.json);
    return 1;
  }
  return 0;
}

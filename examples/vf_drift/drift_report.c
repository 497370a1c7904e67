// SPDX-License-Identifier: BSD-3-Clause
/* The drift measurement's table and JSON. */
#include <math.h>

#include "drift_measure.h"

static void drift_print_bin(FILE* f, const char* name, const drift_bin* b) {
  fprintf(f, "  %-24s %8ld %8.3f %8.3f %8.3f\n", name, b->count, b->median, b->mean, b->p90);
}

void drift_stats_print(FILE* f, const drift_stats* s) {
  fprintf(f, "frames %d, tracks %ld, tracked observations %ld\n", s->frames, s->tracks,
          s->observations);
  fprintf(f, "features per frame %.1f, mean track length %.1f frames\n", s->features_per_frame,
          s->mean_track_length);
  fprintf(f, "largest true change since a first observation: scale %.1f%%, rotation %.1f deg\n",
          100.0 * s->max_scale_change, s->max_rotation_deg);
  fprintf(f, "drift (from the first observation): median %.3f px, mean %.3f px, p90 %.3f px\n",
          s->drift.median, s->drift.mean, s->drift.p90);
  fprintf(f, "  within 0.1 px %.1f%%, 0.5 px %.1f%%, 1 px %.1f%%\n", 100.0 * s->within[0],
          100.0 * s->within[1], 100.0 * s->within[2]);
  fprintf(f, "step error (from the previous frame): median %.3f px, mean %.3f px\n", s->step.median,
          s->step.mean);
  fprintf(f, "  %-24s %8s %8s %8s %8s\n", "drift by", "obs", "median", "mean", "p90");
  char name[64];
  for (int b = 0; b < DRIFT_SCALE_BINS; ++b) {
    snprintf(name, sizeof name, "scale change %s", drift_scale_bin_names[b]);
    drift_print_bin(f, name, &s->by_scale[b]);
  }
  for (int b = 0; b < DRIFT_ROTATION_BINS; ++b) {
    snprintf(name, sizeof name, "rotation %s", drift_rotation_bin_names[b]);
    drift_print_bin(f, name, &s->by_rotation[b]);
  }
  for (int b = 0; b < DRIFT_AGE_BINS; ++b) {
    snprintf(name, sizeof name, "age %s", drift_age_bin_names[b]);
    drift_print_bin(f, name, &s->by_age[b]);
  }
  drift_print_bin(f, "alive at the last frame", &s->last_frame);
  fprintf(f, "  (their mean age %.1f frames)\n", s->last_frame_age);
}

/* JSON has no NaN: an empty bin's statistics are null. */
static void drift_json_num(FILE* f, const char* key, double v, const char* sep) {
  if (isfinite(v)) {
    fprintf(f, "\"%s\": %.6g%s", key, v, sep);
  } else {
    fprintf(f, "\"%s\": null%s", key, sep);
  }
}

static void drift_json_bin(FILE* f, const char* name, const drift_bin* b, const char* sep) {
  fprintf(f, "{\"bin\": \"%s\", \"count\": %ld, ", name, b->count);
  drift_json_num(f, "median", b->median, ", ");
  drift_json_num(f, "mean", b->mean, ", ");
  drift_json_num(f, "p90", b->p90, "}");
  fprintf(f, "%s", sep);
}

static void drift_json_bins(FILE* f, const char* key, const char* const* names,
                            const drift_bin* bins, int n) {
  fprintf(f, "  \"%s\": [", key);
  for (int b = 0; b < n; ++b) drift_json_bin(f, names[b], &bins[b], b + 1 < n ? ", " : "");
  fprintf(f, "],\n");
}

int drift_stats_write_json(const char* path, const char* name, const drift_options* o,
                           const drift_stats* s) {
  FILE* f = fopen(path, "w");
  if (f == NULL) return -1;
  const drift_sequence_config* q = &o->sequence;
  fprintf(f, "{\n  \"name\": \"%s\",\n", name != NULL ? name : "");
  fprintf(f,
          "  \"sequence\": {\"width\": %d, \"height\": %d, \"frames\": %d, \"zoom\": %g, "
          "\"rotation_deg\": %g, \"tilt_deg\": %g, \"focal_px\": %g, \"shift_px\": [%g, %g], "
          "\"noise_sigma\": %g, \"gain_end\": %g, \"bias_end\": %g, \"supersample\": %d, "
          "\"seed\": %llu, \"image\": \"%s\"},\n",
          q->width, q->height, q->frames, q->motion.zoom, q->motion.rotation_deg,
          q->motion.tilt_deg, q->motion.focal_px, q->motion.shift_x, q->motion.shift_y,
          q->noise_sigma, q->gain_end, q->bias_end, q->supersample, (unsigned long long)q->seed,
          q->image_path != NULL ? q->image_path : "procedural");
  fprintf(f, "  \"backend\": \"%s\", \"template\": \"%s\",\n", vf_backend_name(o->backend),
          o->tracker.template_mode == VF_TEMPLATE_FIRST_OBSERVATION ? "first_observation"
                                                                    : "previous_frame");
  fprintf(f, "  \"frames\": %d, \"tracks\": %ld, \"observations\": %ld,\n", s->frames, s->tracks,
          s->observations);
  fprintf(f, "  ");
  drift_json_num(f, "features_per_frame", s->features_per_frame, ", ");
  drift_json_num(f, "mean_track_length", s->mean_track_length, ",\n  ");
  drift_json_num(f, "max_scale_change", s->max_scale_change, ", ");
  drift_json_num(f, "max_rotation_deg", s->max_rotation_deg, ",\n  ");
  fprintf(f, "\"drift\": ");
  drift_json_bin(f, "all", &s->drift, ",\n  ");
  fprintf(f, "\"within\": {");
  for (int w = 0; w < DRIFT_WITHIN; ++w) {
    char key[16];
    snprintf(key, sizeof key, "%g", drift_within_px[w]);
    drift_json_num(f, key, s->within[w], w + 1 < DRIFT_WITHIN ? ", " : "},\n  ");
  }
  fprintf(f, "\"step\": ");
  drift_json_bin(f, "all", &s->step, ",\n");
  drift_json_bins(f, "by_scale_change", drift_scale_bin_names, s->by_scale, DRIFT_SCALE_BINS);
  drift_json_bins(f, "by_rotation", drift_rotation_bin_names, s->by_rotation, DRIFT_ROTATION_BINS);
  drift_json_bins(f, "by_age", drift_age_bin_names, s->by_age, DRIFT_AGE_BINS);
  fprintf(f, "  \"last_frame\": ");
  drift_json_bin(f, "alive", &s->last_frame, ",\n  ");
  drift_json_num(f, "last_frame_mean_age", s->last_frame_age, "\n}\n");
  return fclose(f) == 0 ? 0 : -1;
}

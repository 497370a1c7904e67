// SPDX-License-Identifier: BSD-3-Clause
/* vf_replay's evaluation summary (replay_eval.c) as text lines and as one JSON object; for a
 * rig, the lines of each camera under its name. */
#include "replay_eval.h"

static const char* const age_names[REPLAY_EVAL_AGE_BINS] = {"2-5", "6-10", "11-20", "21-50", "51+"};

static const char* const tracking_names[3] = {"step (from the previous frame)",
                                              "drift (from the first observation)",
                                              "drift of tracks not born on a depth edge"};

static void print_tracking(FILE* out, const char* prefix, const char* name,
                           const replay_eval_errors* t) {
  fprintf(out,
          "%sground truth: tracking %s over %ld observations: median %.3f px, mean %.3f px, "
          "%.1f%% within 1 px\n",
          prefix, name, t->observations, t->median_px, t->mean_px, 100 * t->within_1px);
}

static void print_right(FILE* out, const char* prefix, const replay_eval_right* r) {
  fprintf(out,
          "%sground truth: camera-1 records over %ld observations: median %.3f px, %.2f%% over "
          "0.5 px, %.2f%% over 1 px; %.1f%% of %ld left features have one\n",
          prefix, r->observations, r->median_px, 100 * r->over_half_px, 100 * r->over_1px,
          100 * r->with_record, r->left);
}

static void print_disparity(FILE* out, const char* prefix, const replay_eval_summary* s) {
  if (s->disparity_frames > 0) {
    fprintf(out,
            "%sground truth: disparity over %ld frames: bad-1 %.2f%%, bad-2 %.2f%%, bad-3 %.2f%%, "
            "density %.1f%%\n",
            prefix, s->disparity_frames, 100 * s->bad1, 100 * s->bad2, 100 * s->bad3,
            100 * s->density);
  } else {
    fprintf(out, "%sground truth: disparity not compared (other rectification or no maps)\n",
            prefix);
  }
}

void replay_eval_print(replay_eval* e, FILE* out) {
  replay_eval_summary s;
  replay_eval_get(e, &s);
  const replay_eval_errors* t[3] = {&s.step, &s.drift, &s.drift_off_edges};
  for (int k = 0; k < 3; ++k) print_tracking(out, "", tracking_names[k], t[k]);
  fprintf(out, "ground truth: drift by age (median, within 1 px):");
  for (int k = 0; k < REPLAY_EVAL_AGE_BINS; ++k) {
    const replay_eval_errors* b = &s.drift_by_age[k];
    fprintf(out, " %s %.3f px %.1f%%%s", age_names[k], b->median_px, 100 * b->within_1px,
            k + 1 < REPLAY_EVAL_AGE_BINS ? ";" : "\n");
  }
  const long all = s.drift_step[0].observations + s.drift_step[1].observations;
  fprintf(out,
          "ground truth: drift of tracks whose 21x21 window at birth spans a depth step (%.1f%% of "
          "the observations): median %.3f px, %.1f%% within 1 px, along the motion %+.4f px; "
          "the others: median %.3f px, %.1f%% within 1 px, along the motion %+.4f px\n",
          all > 0 ? 100.0 * s.drift_step[1].observations / all : 0.0, s.drift_step[1].median_px,
          100 * s.drift_step[1].within_1px, s.drift_step_signed[1].mean_along_px,
          s.drift_step[0].median_px, 100 * s.drift_step[0].within_1px,
          s.drift_step_signed[0].mean_along_px);
  print_right(out, "", &s.right);
  const replay_eval_right* r = &s.right_edge;
  fprintf(out,
          "ground truth: of those, at depth edges (%.1f%% of the left features): median %.3f px, "
          "%.2f%% over 0.5 px, %.2f%% over 1 px\n",
          s.right.left > 0 ? 100.0 * r->left / s.right.left : 0.0, r->median_px,
          100 * r->over_half_px, 100 * r->over_1px);
  print_disparity(out, "", &s);
  const replay_eval_signed* a = &s.drift_signed[REPLAY_EVAL_AGE_BINS];
  fprintf(out,
          "ground truth: signed drift (ours - truth) over %ld observations: mean u %+.4f px, "
          "v %+.4f px; along the track's motion %+.4f px (%ld moved over 1 px)\n",
          a->observations, a->mean_du_px, a->mean_dv_px, a->mean_along_px, a->moved);
  fprintf(out, "ground truth: signed drift by age (u, v, along the motion, px):");
  for (int k = 0; k < REPLAY_EVAL_AGE_BINS; ++k) {
    const replay_eval_signed* b = &s.drift_signed[k];
    fprintf(out, " %s %+.4f %+.4f %+.4f%s", age_names[k], b->mean_du_px, b->mean_dv_px,
            b->mean_along_px, k + 1 < REPLAY_EVAL_AGE_BINS ? ";" : "\n");
  }
  const replay_eval_disparity_bias* d = &s.disparity_bias;
  fprintf(out,
          "ground truth: disparity of the camera-1 records against the exact one over %ld "
          "observations: mean %+.4f px (%+.4f px within 1 px), median %+.4f px, mean |error| "
          "%.4f px\n",
          d->observations, d->mean_px, d->mean_within_1px_px, d->median_px, d->mean_abs_px);
}

void replay_eval_print_camera(replay_eval* e, const char* name, const char* right_name, FILE* out) {
  replay_eval_summary s;
  replay_eval_get(e, &s);
  char prefix[64], right_prefix[64];
  snprintf(prefix, sizeof prefix, "%s: ", name);
  const replay_eval_errors* t[3] = {&s.step, &s.drift, &s.drift_off_edges};
  for (int k = 0; k < 3; ++k) print_tracking(out, prefix, tracking_names[k], t[k]);
  if (right_name == NULL) return;
  snprintf(right_prefix, sizeof right_prefix, "%s: ", right_name);
  print_right(out, right_prefix, &s.right);
  print_disparity(out, prefix, &s);
}

void replay_eval_print_drift(const replay_eval_errors* drift, const char* prefix, FILE* out) {
  print_tracking(out, prefix, tracking_names[1], drift);
}

void replay_eval_json_errors(FILE* out, const char* name, const replay_eval_errors* t) {
  fprintf(out,
          "  \"%s\": {\"observations\": %ld, \"median_px\": %.5f, \"mean_px\": %.5f, "
          "\"within_1px\": %.5f},\n",
          name, t->observations, t->median_px, t->mean_px, t->within_1px);
}

static void json_signed(FILE* out, const char* name, const replay_eval_signed* b) {
  fprintf(out,
          "\"%s\": {\"observations\": %ld, \"mean_du_px\": %.5f, \"mean_dv_px\": %.5f, "
          "\"moved\": %ld, \"mean_along_px\": %.5f}",
          name, b->observations, b->mean_du_px, b->mean_dv_px, b->moved, b->mean_along_px);
}

void replay_eval_write_json(replay_eval* e, FILE* out) {
  replay_eval_summary s;
  replay_eval_get(e, &s);
  fprintf(out, "{\n");
  replay_eval_json_errors(out, "step", &s.step);
  replay_eval_json_errors(out, "drift", &s.drift);
  replay_eval_json_errors(out, "drift_off_edges", &s.drift_off_edges);
  for (int k = 0; k < REPLAY_EVAL_AGE_BINS; ++k) {
    char name[32];
    snprintf(name, sizeof name, "drift_age_%s", age_names[k]);
    replay_eval_json_errors(out, name, &s.drift_by_age[k]);
  }
  replay_eval_json_errors(out, "drift_one_surface", &s.drift_step[0]);
  replay_eval_json_errors(out, "drift_depth_step", &s.drift_step[1]);
  fprintf(out, "  \"drift_signed\": {");
  json_signed(out, "one_surface", &s.drift_step_signed[0]);
  fprintf(out, ", ");
  json_signed(out, "depth_step", &s.drift_step_signed[1]);
  fprintf(out, ", ");
  json_signed(out, "all", &s.drift_signed[REPLAY_EVAL_AGE_BINS]);
  for (int k = 0; k < REPLAY_EVAL_AGE_BINS; ++k) {
    fprintf(out, ", ");
    json_signed(out, age_names[k], &s.drift_signed[k]);
  }
  fprintf(out, "},\n");
  const replay_eval_disparity_bias* d = &s.disparity_bias;
  fprintf(out,
          "  \"disparity_bias\": {\"observations\": %ld, \"mean_px\": %.5f, "
          "\"mean_within_1px_px\": %.5f, \"median_px\": %.5f, \"mean_abs_px\": %.5f},\n",
          d->observations, d->mean_px, d->mean_within_1px_px, d->median_px, d->mean_abs_px);
  const replay_eval_right* r = &s.right;
  fprintf(out,
          "  \"camera1\": {\"observations\": %ld, \"median_px\": %.5f, \"over_half_px\": "
          "%.5f, \"over_1px\": %.5f, \"with_record\": %.5f},\n",
          r->observations, r->median_px, r->over_half_px, r->over_1px, r->with_record);
  fprintf(out,
          "  \"disparity_map\": {\"frames\": %ld, \"bad1\": %.5f, \"bad2\": %.5f, "
          "\"bad3\": %.5f, \"density\": %.5f}\n}\n",
          s.disparity_frames, s.bad1, s.bad2, s.bad3, s.density);
}

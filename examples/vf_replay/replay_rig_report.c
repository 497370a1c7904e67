// SPDX-License-Identifier: BSD-3-Clause
/* vf_replay --rig's summary: per tracked camera (a rig unit) its features, tracks and camera-1
 * records, the reader's and the frontend's time, and per camera the ground-truth evaluation
 * (tracking step and drift; for a pair the right camera's records and the disparity map) with
 * the drift of every camera together; as text lines, each prefixed by its camera's name, and as
 * JSON. */

#include "replay_rig.h"

static const char* right_name(const replay_rig_run* r, int u) {
  return r->unit[u].right_camera >= 0 ? r->rig.names[r->unit[u].right_camera] : NULL;
}

/* Tracks observed and of them living 10 frames or more. */
static void count_tracks(const replay_stats* st, long* tracks, long* long_lived) {
  *tracks = *long_lived = 0;
  for (uint64_t id = 0; id < st->max_id; ++id) {
    *tracks += st->track_age[id] > 0;
    *long_lived += st->track_age[id] >= 10;
  }
}

static void print_unit(const replay_rig_run* r, int u, FILE* out) {
  const replay_stats* st = &r->stats[u];
  const char* name = r->rig.names[r->unit[u].camera];
  double per_frame, length;
  long tracks, long_lived;
  replay_stats_summary(st, &per_frame, &length);
  count_tracks(st, &tracks, &long_lived);
  fprintf(out,
          "%s: %ld frames, features per frame %.1f (%.1f%% with depth), tracks %ld, mean track "
          "length %.2f frames, tracks living >= 10 frames %.1f%%\n",
          name, st->frames, per_frame,
          st->features > 0 ? 100.0 * st->with_depth / st->features : 0.0, tracks, length,
          tracks > 0 ? 100.0 * long_lived / tracks : 0.0);
  if (right_name(r, u) != NULL) {
    fprintf(out, "%s: %ld camera-1 records (right of %s), for %.1f%% of its features\n",
            right_name(r, u), st->right_records, name,
            st->features > 0 ? 100.0 * st->right_records / st->features : 0.0);
  }
}

void replay_rig_print(replay_rig_run* r, FILE* out) {
  const double n = r->sets > 0 ? (double)r->sets : 1.0;
  fprintf(out, "sets %ld in %.2f s (%.1f sets/s)", r->sets, r->wall_s,
          r->wall_s > 0 ? r->sets / r->wall_s : 0.0);
  if (r->skipped > 0) fprintf(out, ", %ld skipped (no unit had all its images)", r->skipped);
  fprintf(out, "\n");
  if (r->opt->read_only) {
    fprintf(out, "read only: %.3f ms per set waiting for decoded images (%d decode threads)\n",
            1e3 * r->read_s / n, r->decode_threads);
    return;
  }
  for (int u = 0; u < r->units; ++u) print_unit(r, u, out);
  double eval_wait_s = 0.0;
  for (int u = 0; u < r->units; ++u) eval_wait_s += replay_eval_wait_s(r->eval[u]);
  fprintf(out,
          "reader: %.3f ms per set waiting for decoded images (%d decode threads, %d sets "
          "ahead)\n",
          1e3 * r->read_s / n, r->decode_threads, r->prefetch);
  fprintf(out,
          "frontend: %.3f ms per set in vf_rig_frontend_process (callbacks included; of it "
          "%.3f ms waiting for ground-truth files)\n",
          1e3 * r->process_s / n, 1e3 * eval_wait_s / n);
  int evaluated = 0;
  for (int u = 0; u < r->units; ++u) {
    if (r->eval[u] == NULL) continue;
    replay_eval_print_camera(r->eval[u], r->rig.names[r->unit[u].camera], right_name(r, u), out);
    ++evaluated;
  }
  if (evaluated > 0) {
    replay_eval_errors all;
    replay_eval_pool_drift(r->eval, r->units, &all);
    replay_eval_print_drift(&all, "all cameras: ", out);
  }
}

static void json_unit(replay_rig_run* r, int u, FILE* f) {
  const replay_stats* st = &r->stats[u];
  const int cam = r->unit[u].camera;
  double per_frame, length;
  replay_stats_summary(st, &per_frame, &length);
  fprintf(f, "{\"camera\": \"%s\", \"index\": %d, ", r->rig.names[cam], cam);
  if (right_name(r, u) != NULL) {
    fprintf(f, "\"right\": \"%s\", \"right_index\": %d, ", right_name(r, u),
            r->unit[u].right_camera);
  } else {
    fprintf(f, "\"right\": null, \"right_index\": -1, ");
  }
  fprintf(f,
          "\"frames\": %ld, \"features\": %ld, \"features_per_frame\": %.3f, "
          "\"mean_track_length\": %.3f, \"right_records\": %ld,\n\"eval\": ",
          st->frames, st->features, per_frame, length, st->right_records);
  if (r->eval[u] != NULL) {
    replay_eval_write_json(r->eval[u], f);
  } else {
    fprintf(f, "null\n");
  }
  fprintf(f, "}");
}

int replay_rig_write_json(replay_rig_run* r, const char* path) {
  FILE* f = fopen(path, "w");
  if (f == NULL) return -1;
  fprintf(f, "{\"frames\": %ld, \"skipped\": %ld, \"rig_cameras\": %d,\n\"cameras\": [", r->sets,
          r->skipped, r->rig.camera_count);
  for (int u = 0; u < r->units; ++u) {
    json_unit(r, u, f);
    fprintf(f, "%s", u + 1 < r->units ? ",\n" : "],\n");
  }
  fprintf(f, "\"eval_all\": ");
  if (r->units > 0 && r->eval[0] != NULL) {
    replay_eval_errors all;
    replay_eval_pool_drift(r->eval, r->units, &all);
    fprintf(f, "{\n");
    replay_eval_json_errors(f, "drift", &all);
    fprintf(f, "  \"cameras\": %d}\n", r->units);
  } else {
    fprintf(f, "null\n");
  }
  fprintf(f, "}\n");
  return fclose(f) == 0 ? 0 : -1;
}

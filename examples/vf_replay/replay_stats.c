// SPDX-License-Identifier: BSD-3-Clause
/* Replay statistics: features per frame (mean, min, median, max), track lengths (a track's
 * length is the number of frames it was observed in), the share of tracks that lived 10 frames,
 * camera-1 records and why the others are missing, mean stage times. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

static int cmp_int(const void* a, const void* b) {
  int x = *(const int*)a, y = *(const int*)b;
  return (x > y) - (x < y);
}

int replay_stats_add(replay_stats* st, const vf_feature_frame* frame) {
  if ((size_t)st->frames == st->per_frame_cap) {
    size_t cap = st->per_frame_cap ? 2 * st->per_frame_cap : 1024;
    int* grown = realloc(st->per_frame, cap * sizeof *grown);
    if (grown == NULL) return -1;
    st->per_frame = grown;
    st->per_frame_cap = cap;
  }
  int left = 0;
  for (int i = 0; i < frame->count; ++i) left += frame->features[i].camera == st->camera;
  st->per_frame[st->frames] = left;
  st->right_records += frame->count - left;
  for (int k = 0; k < VF_RIGHT_MISSING_REASONS; ++k)
    st->right_missing[k] += frame->right_missing[k];
  st->frames++;
  vf_stage_times* s = &st->sum;
  const vf_stage_times* t = &frame->times;
  s->rectify_ms += t->rectify_ms;
  s->pyramid_ms += t->pyramid_ms;
  s->track_ms += t->track_ms;
  s->detect_ms += t->detect_ms;
  s->stereo_ms += t->stereo_ms;
  s->features_ms += t->features_ms;
  s->total_ms += t->total_ms;
  for (int i = 0; i < frame->count; ++i) {
    const vf_feature* p = &frame->features[i];
    if (p->camera != st->camera) continue;
    /* A rig unit's own id: its unit's index sits above (vf_rig_frontend.h). */
    const uint64_t id = p->id & ((UINT64_C(1) << VF_RIG_FRONTEND_ID_SHIFT) - 1);
    st->features++;
    if (!isnan(p->disparity)) st->with_depth++;
    st->depth_edge += (p->flags & VF_FEATURE_DEPTH_EDGE) != 0;
    if (id >= st->track_cap) {
      size_t cap = st->track_cap ? st->track_cap : 1024;
      while (cap <= id) cap *= 2;
      int* grown = realloc(st->track_age, cap * sizeof *grown);
      if (grown == NULL) return -1;
      memset(grown + st->track_cap, 0, (cap - st->track_cap) * sizeof *grown);
      st->track_age = grown;
      st->track_cap = cap;
    }
    st->track_age[id]++;
    if (id + 1 > st->max_id) st->max_id = id + 1;
  }
  return 0;
}

void replay_stats_summary(const replay_stats* st, double* per_frame, double* track_length) {
  long tracks = 0, observations = 0;
  for (uint64_t id = 0; id < st->max_id; ++id) {
    tracks += st->track_age[id] > 0;
    observations += st->track_age[id];
  }
  *per_frame = st->frames > 0 ? (double)st->features / st->frames : 0.0;
  *track_length = tracks > 0 ? (double)observations / tracks : 0.0;
}

void replay_stats_print(const replay_stats* st, FILE* out) {
  long tracks = 0, observations = 0, long_lived = 0;
  for (uint64_t id = 0; id < st->max_id; ++id) {
    if (st->track_age[id] == 0) continue;
    tracks++;
    observations += st->track_age[id];
    if (st->track_age[id] >= 10) long_lived++;
  }
  double n = st->frames > 0 ? (double)st->frames : 1.0;
  fprintf(out, "frames %ld in %.2f s (%.1f fps)\n", st->frames, st->wall_s,
          st->wall_s > 0 ? st->frames / st->wall_s : 0.0);
  fprintf(out, "features per frame %.1f (%.1f%% with depth), tracks %ld\n", st->features / n,
          st->features ? 100.0 * st->with_depth / st->features : 0.0, tracks);
  if (st->frames > 0) {
    qsort(st->per_frame, (size_t)st->frames, sizeof *st->per_frame, cmp_int);
    fprintf(out, "features per frame min %d, median %d, max %d\n", st->per_frame[0],
            st->per_frame[st->frames / 2], st->per_frame[st->frames - 1]);
  }
  const double left = st->features > 0 ? (double)st->features : 1.0;
  const long* m = st->right_missing;
  long none = 0;
  for (int r = 0; r < VF_RIGHT_MISSING_REASONS; ++r) none += m[r];
  /* Frames without a right image (sparse stereo) are named only where there were any. */
  char absent[64] = "";
  if (m[VF_RIGHT_NO_IMAGE] > 0)
    snprintf(absent, sizeof absent, ", no right image %.2f%%", 100.0 * m[VF_RIGHT_NO_IMAGE] / left);
  fprintf(out,
          "camera-1 records for %.1f%% of the features; none for %.2f%% (no disparity %.2f%%, "
          "left-right check %.2f%%, outside %.2f%%, ambiguous %.2f%%, low correlation %.2f%%%s); "
          "depth edges under %.1f%%\n",
          100.0 * st->right_records / left, 100.0 * none / left,
          100.0 * m[VF_RIGHT_NO_DISPARITY] / left, 100.0 * m[VF_RIGHT_OCCLUDED] / left,
          100.0 * m[VF_RIGHT_OUTSIDE] / left, 100.0 * m[VF_RIGHT_AMBIGUOUS] / left,
          100.0 * m[VF_RIGHT_LOW_CORRELATION] / left, absent, 100.0 * st->depth_edge / left);
  fprintf(out, "mean track length %.2f frames, tracks living >= 10 frames %.1f%%\n",
          tracks ? (double)observations / tracks : 0.0, tracks ? 100.0 * long_lived / tracks : 0.0);
  const vf_stage_times* s = &st->sum;
  fprintf(out,
          "mean ms per frame: rectify %.3f pyramid %.3f track %.3f detect %.3f "
          "stereo %.3f features %.3f total %.3f\n",
          s->rectify_ms / n, s->pyramid_ms / n, s->track_ms / n, s->detect_ms / n, s->stereo_ms / n,
          s->features_ms / n, s->total_ms / n);
}

void replay_stats_print_reader(const replay_stats* st, int decode_threads, int prefetch,
                               double eval_wait_s, FILE* out) {
  const double n = st->read_frames > 0 ? (double)st->read_frames : 1.0;
  fprintf(out,
          "reader: %ld pairs, %.3f ms per pair waiting for decoded images (%.1f pairs/s if that "
          "were all; %d decode threads, %d pairs ahead)\n",
          st->read_frames, 1e3 * st->read_s / n,
          st->read_s > 0 ? st->read_frames / st->read_s : 0.0, prefetch > 0 ? decode_threads : 0,
          prefetch);
  if (st->process_s > 0) {
    fprintf(out,
            "frontend: %.3f ms per frame in vf_frontend_process (callbacks included; of it %.3f ms "
            "waiting for ground-truth files)\n",
            1e3 * st->process_s / n, 1e3 * eval_wait_s / n);
  } else {
    fprintf(out,
            "read only: %ld pairs in %.3f s (%.1f pairs/s), of it %.3f ms per pair waiting for "
            "ground-truth files\n",
            st->read_frames, st->wall_s, st->wall_s > 0 ? st->read_frames / st->wall_s : 0.0,
            1e3 * eval_wait_s / n);
  }
}

void replay_stats_free(replay_stats* st) {
  free(st->track_age);
  free(st->per_frame);
  memset(st, 0, sizeof *st);
}

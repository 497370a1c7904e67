// SPDX-License-Identifier: BSD-3-Clause
/* Replay statistics: features per frame, track lengths (a track's length is the number of
 * frames it was observed in), the share of tracks that lived 10 frames, mean stage times. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

int replay_stats_add(replay_stats* st, const vf_feature_frame* frame) {
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
    if (p->camera != 0) continue;
    st->features++;
    if (!isnan(p->disparity)) st->with_depth++;
    if (p->id >= st->track_cap) {
      size_t cap = st->track_cap ? st->track_cap : 1024;
      while (cap <= p->id) cap *= 2;
      int* grown = realloc(st->track_age, cap * sizeof *grown);
      if (grown == NULL) return -1;
      memset(grown + st->track_cap, 0, (cap - st->track_cap) * sizeof *grown);
      st->track_age = grown;
      st->track_cap = cap;
    }
    st->track_age[p->id]++;
    if (p->id + 1 > st->max_id) st->max_id = p->id + 1;
  }
  return 0;
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
  fprintf(out, "mean track length %.2f frames, tracks living >= 10 frames %.1f%%\n",
          tracks ? (double)observations / tracks : 0.0, tracks ? 100.0 * long_lived / tracks : 0.0);
  const vf_stage_times* s = &st->sum;
  fprintf(out,
          "mean ms per frame: rectify %.3f pyramid %.3f track %.3f detect %.3f "
          "stereo %.3f features %.3f total %.3f\n",
          s->rectify_ms / n, s->pyramid_ms / n, s->track_ms / n, s->detect_ms / n, s->stereo_ms / n,
          s->features_ms / n, s->total_ms / n);
}

void replay_stats_free(replay_stats* st) {
  free(st->track_age);
  memset(st, 0, sizeof *st);
}

// SPDX-License-Identifier: BSD-3-Clause
/* Sparse stereo against the dense map at the features: in sparse mode with dense_every, a frame
 * that also gets a map has each feature's own match (the left record's disparity, for the left
 * records with a camera-1 record) and the map's value at its rectified pixel (nearest pixel).
 * on_features runs before on_disparity in the same vf_frontend_process call, so the frame's
 * matches are kept until its map arrives. Needs no ground truth: real and synthetic sequences. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

int replay_sparse_wanted(const vf_frontend_config* fc) {
  return fc->stereo_enabled && fc->stereo_mode == VF_FRONTEND_STEREO_SPARSE && fc->dense_every > 0;
}

static int grow(void** data, long* cap, long need, size_t size) {
  if (need <= *cap) return 0;
  long n = *cap > 0 ? 2 * *cap : 1024;
  while (n < need) n *= 2;
  void* grown = realloc(*data, (size_t)n * size);
  if (grown == NULL) return -1;
  *data = grown;
  *cap = n;
  return 0;
}

int replay_sparse_features(replay_sparse* sp, const vf_feature_frame* frame) {
  sp->pending_count = 0;
  sp->pending_sequence = frame->sequence;
  if (grow((void**)&sp->pending, &sp->pending_cap, frame->count, sizeof *sp->pending) != 0)
    return -1;
  /* Camera-1 records follow the camera-0 ones in the same order: one walk pairs them. */
  int left = 0;
  while (left < frame->count && frame->features[left].camera == 0) ++left;
  for (int i = 0, j = left; i < left && j < frame->count; ++i) {
    const vf_feature* f = &frame->features[i];
    if (frame->features[j].id != f->id) continue;
    ++j;
    if (isnan(f->disparity)) continue;
    replay_sparse_match* m = &sp->pending[sp->pending_count++];
    m->u_rect = f->u_rect;
    m->v_rect = f->v_rect;
    m->disparity = f->disparity;
  }
  return 0;
}

int replay_sparse_disparity(replay_sparse* sp, const vf_disparity_frame* frame) {
  const vf_image* d = &frame->disparity;
  if (frame->sequence != sp->pending_sequence || d->location != VF_MEMORY_HOST ||
      d->format != VF_PIXEL_U16)
    return 0;
  if (grow((void**)&sp->diffs, &sp->diff_cap, sp->diff_count + sp->pending_count,
           sizeof *sp->diffs) != 0)
    return -1;
  const double scale = 1.0 / (1 << frame->fractional_bits);
  for (long i = 0; i < sp->pending_count; ++i) {
    const replay_sparse_match* m = &sp->pending[i];
    const long x = lrintf(m->u_rect), y = lrintf(m->v_rect);
    sp->records++;
    const int inside = x >= 0 && y >= 0 && x < d->width && y < d->height;
    const uint16_t v =
        inside ? ((const uint16_t*)((const uint8_t*)d->data + (size_t)y * d->stride_bytes))[x]
               : VF_STEREO_INVALID;
    if (v == VF_STEREO_INVALID) {
      sp->no_value++;
      continue;
    }
    sp->diffs[sp->diff_count++] = (float)fabs(m->disparity - v * scale);
  }
  sp->frames++;
  sp->pending_count = 0;
  return 0;
}

static int cmp_float(const void* a, const void* b) {
  float x = *(const float*)a, y = *(const float*)b;
  return (x > y) - (x < y);
}

void replay_sparse_print(replay_sparse* sp, FILE* out) {
  long over_half = 0, over_1 = 0;
  for (long i = 0; i < sp->diff_count; ++i) {
    over_half += sp->diffs[i] > 0.5f;
    over_1 += sp->diffs[i] > 1.0f;
  }
  double median = 0.0;
  if (sp->diff_count > 0) {
    qsort(sp->diffs, (size_t)sp->diff_count, sizeof *sp->diffs, cmp_float);
    median = sp->diffs[sp->diff_count / 2];
  }
  const double n = sp->diff_count > 0 ? (double)sp->diff_count : 1.0;
  fprintf(out,
          "sparse vs dense map at the features: %ld features on %ld frames, median |diff| %.3f px, "
          "over 0.5 px %.1f%%, over 1 px %.1f%%; the map has no value at %.1f%% of %ld sparse "
          "records\n",
          sp->diff_count, sp->frames, median, 100.0 * over_half / n, 100.0 * over_1 / n,
          sp->records > 0 ? 100.0 * sp->no_value / sp->records : 0.0, sp->records);
}

void replay_sparse_free(replay_sparse* sp) {
  free(sp->pending);
  free(sp->diffs);
  memset(sp, 0, sizeof *sp);
}

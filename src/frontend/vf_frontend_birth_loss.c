// SPDX-License-Identifier: BSD-3-Clause
/* Sparse stereo's correlation birth check. A corner whose window straddles a depth step sees
 * two surfaces shift by different disparities, so its best match correlates worse than the
 * images' noise lets a corner on one surface correlate. What that noise allows differs between
 * sequences (vf_synth's births have a ZNCC over 0.97, a real EuRoC frame's a median of 0.94), so
 * the threshold is relative: a birth whose correlation loss 1 - ZNCC exceeds
 * sparse_birth_max_loss times the median loss of the recent births is refused. The births, not
 * the live tracks, set the median: the tracks have already survived on their correlation, and
 * against them the births of a real sequence lost 13% of the features (docs/perf/sparse_stereo.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/vf_frontend_internal.h"

static int vf_compare_floats(const void* a, const void* b) {
  const float x = *(const float*)a, y = *(const float*)b;
  return (x > y) - (x < y);
}

void vf_frontend_birth_losses(vf_frontend* fe, const vf_stereo_match* matches, int m) {
  fe->birth_loss_limit = INFINITY;
  if (!(fe->cfg.sparse_birth_max_loss > 0.0f)) return;
  for (int i = 0; i < m; ++i) {
    const vf_stereo_match* q = &matches[i];
    if (q->result != VF_STEREO_MATCH_OK || !(q->zncc == q->zncc)) continue;
    fe->birth_loss[fe->birth_loss_next] = 1.0f - q->zncc;
    fe->birth_loss_next = (fe->birth_loss_next + 1) % VF_BIRTH_LOSSES;
    if (fe->birth_loss_count < VF_BIRTH_LOSSES) ++fe->birth_loss_count;
  }
  /* Too few births yet for a median that speaks for the sequence: no check. */
  if (fe->birth_loss_count < VF_BIRTH_LOSSES_MIN) return;
  float sorted[VF_BIRTH_LOSSES];
  const int n = fe->birth_loss_count;
  memcpy(sorted, fe->birth_loss, (size_t)n * sizeof *sorted);
  qsort(sorted, (size_t)n, sizeof *sorted, vf_compare_floats);
  fe->birth_loss_limit = fe->cfg.sparse_birth_max_loss * sorted[n / 2];
}

int vf_frontend_birth_correlates(const vf_frontend* fe, const vf_stereo_match* m) {
  return !(m->result == VF_STEREO_MATCH_OK && 1.0f - m->zncc > fe->birth_loss_limit);
}

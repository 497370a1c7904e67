// SPDX-License-Identifier: BSD-3-Clause
/* EuRoC ground truth: rows, and interpolation at any time inside their span (position,
 * velocity and biases linear, orientation by slerp, in double: positions are metres with
 * millimetre detail and timestamps are 1e18 ns, beyond float). */
#include <math.h>

#include "io/vf_euroc_internal.h"

int vf_euroc_groundtruth_count(const vf_euroc* e) { return e != NULL ? e->gt_count : 0; }

vf_status vf_euroc_groundtruth(const vf_euroc* e, int index, vf_euroc_state* out) {
  if (e == NULL || out == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_groundtruth: NULL argument");
  }
  if (index < 0 || index >= e->gt_count) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_groundtruth: index %d is outside 0..%d",
                   index, e->gt_count - 1);
  }
  *out = e->gt[index];
  return VF_OK;
}

/* Shortest-arc slerp of unit quaternions (w x y z). */
static void vf_slerp(const double a[4], const double b[4], double t, double out[4]) {
  double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  double sign = d < 0 ? -1.0 : 1.0;
  d = fabs(d);
  double wa = 1 - t, wb = t;
  if (d < 0.9995) { /* else nearly parallel: linear, then normalized */
    double th = acos(d), s = sin(th);
    wa = sin((1 - t) * th) / s;
    wb = sin(t * th) / s;
  }
  double n = 0;
  for (int i = 0; i < 4; ++i) {
    out[i] = wa * a[i] + wb * sign * b[i];
    n += out[i] * out[i];
  }
  n = sqrt(n);
  for (int i = 0; i < 4; ++i) out[i] /= n;
}

vf_status vf_euroc_groundtruth_at(const vf_euroc* e, int64_t t_ns, vf_euroc_state* out) {
  if (e == NULL || out == NULL) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG, "vf_euroc_groundtruth_at: NULL argument");
  }
  if (e->gt_count == 0)
    return vf_fail(NULL, VF_ERR_STATE, "vf_euroc_groundtruth_at: no ground truth");
  if (t_ns < e->gt[0].t_ns || t_ns > e->gt[e->gt_count - 1].t_ns) {
    return vf_fail(NULL, VF_ERR_INVALID_ARG,
                   "vf_euroc_groundtruth_at: %lld ns is outside the ground truth's %lld..%lld ns",
                   (long long)t_ns, (long long)e->gt[0].t_ns,
                   (long long)e->gt[e->gt_count - 1].t_ns);
  }
  int lo = 0, hi = e->gt_count - 1; /* gt[lo].t <= t_ns <= gt[hi].t */
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    if (e->gt[mid].t_ns <= t_ns) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const vf_euroc_state* a = &e->gt[lo];
  const vf_euroc_state* b = &e->gt[hi];
  double t = b->t_ns > a->t_ns ? (double)(t_ns - a->t_ns) / (double)(b->t_ns - a->t_ns) : 0.0;
  vf_euroc_state r = *a;
  r.t_ns = t_ns;
  for (int i = 0; i < 3; ++i) {
    r.p[i] = a->p[i] + t * (b->p[i] - a->p[i]);
    r.v[i] = a->v[i] + t * (b->v[i] - a->v[i]);
    r.bg[i] = a->bg[i] + t * (b->bg[i] - a->bg[i]);
    r.ba[i] = a->ba[i] + t * (b->ba[i] - a->ba[i]);
  }
  vf_slerp(a->q, b->q, t, r.q);
  *out = r;
  return VF_OK;
}

// SPDX-License-Identifier: BSD-3-Clause
/* CPU reference refinement: one feature at a time, features split across threads. Mirrors
 * cuda/vf_affine.cu step for step; the mathematics is src/vf_tracker_affine.h. Sums in double. */
#include "vf_affine_cpu.h"

#include <stdint.h>
#include <string.h>

#include "../vf_parallel.h"

static float* vf_affine_cpu_samples(const vf_affine_params* p, int slot) {
  const size_t n = (size_t)p->patch * (size_t)p->patch;
  return p->samples + (size_t)slot * 3 * n;
}

/* Takes the reference of r->slot from the previous image at (r->x, r->y): samples, centring,
 * H and its factor. A reference outside the image or without texture is marked unusable. */
static void vf_affine_cpu_capture(const vf_affine_params* p, const vf_track_request* r) {
  vf_affine_slot* s = &p->slot[r->slot];
  const float identity[4] = {1.0f, 0.0f, 0.0f, 1.0f};
  memset(s, 0, sizeof *s);
  memcpy(s->shape, identity, sizeof identity);
  s->gain = 1.0f;
  s->valid = VF_AFFINE_OUTSIDE;
  /* One pixel more each side for the central differences. */
  if (!vf_affine_inside(r->x, r->y, identity, p->patch, 1, p->width, p->height)) return;
  const int n = p->patch * p->patch;
  float* t = vf_affine_cpu_samples(p, r->slot);
  float *tx = t + n, *ty = t + 2 * n;
  double sum = 0.0;
  int used = 0;
  for (int i = 0; i < n; ++i) {
    float ox, oy;
    vf_affine_offset(i, p->patch, &ox, &oy);
    vf_affine_pixel(p->prev, p->prev_stride, r->x + ox, r->y + oy, &t[i], &tx[i], &ty[i]);
    if (!vf_lk_unsaturated(t[i])) {
      t[i] = -1.0f;
      continue;
    }
    sum += t[i];
    ++used;
  }
  if (used < 8) {
    s->valid = VF_AFFINE_FLAT;
    return;
  }
  s->used = used;
  s->mu = (float)(sum / used);
  double h[VF_AFFINE_PACKED] = {0}, l[VF_AFFINE_PACKED];
  const float inv_half = 1.0f / VF_AFFINE_HALF(p->patch);
  for (int i = 0; i < n; ++i) {
    if (t[i] < 0.0f) continue;
    float ox, oy, j[8];
    vf_affine_offset(i, p->patch, &ox, &oy);
    vf_affine_jacobian(t[i] - s->mu, tx[i], ty[i], ox * inv_half, oy * inv_half, j);
    vf_affine_outer(j, h);
  }
  vf_affine_add_prior(h, p->shape_prior, s->prior);
  const int ok = vf_affine_factor(h, l);
  for (int k = 0; k < VF_AFFINE_PACKED; ++k) s->h[k] = (float)h[k];
  vf_affine_inverse(l, s->inv);
  s->valid = ok ? VF_AFFINE_USABLE : VF_AFFINE_FLAT;
}

/* The sums of one iteration at the state's warp (VF_AFFINE_SUMS, order in the header) and the
 * samples they cover. Samples marked in out[] are skipped; one that saturates in the current
 * image joins them, its terms go to h_out, and *grew counts it. */
static int vf_affine_cpu_sums(const vf_affine_params* p, const float* t, const vf_affine_slot* s,
                              const vf_affine_state* st, double sums[VF_AFFINE_SUMS], uint8_t* out,
                              double h_out[VF_AFFINE_PACKED], int* grew) {
  const int n = p->patch * p->patch;
  const float *tx = t + n, *ty = t + 2 * n;
  const float inv_half = 1.0f / VF_AFFINE_HALF(p->patch);
  const float px = (float)st->px, py = (float)st->py;
  const float a0 = (float)st->a[0], a1 = (float)st->a[1], a2 = (float)st->a[2],
              a3 = (float)st->a[3];
  const float c = (float)st->c, inv_gain = (float)(1.0 / st->gain);
  memset(sums, 0, VF_AFFINE_SUMS * sizeof *sums);
  int used = 0;
  for (int i = 0; i < n; ++i) {
    if (t[i] < 0.0f || out[i]) continue;
    float ox, oy, j[8];
    vf_affine_offset(i, p->patch, &ox, &oy);
    const float v =
        vf_affine_sample(p->cur, p->cur_stride, px + a0 * ox + a1 * oy, py + a2 * ox + a3 * oy);
    const float tc = t[i] - s->mu;
    vf_affine_jacobian(tc, tx[i], ty[i], ox * inv_half, oy * inv_half, j);
    if (!vf_lk_unsaturated(v)) {
      vf_affine_outer(j, h_out);
      out[i] = 1;
      ++*grew;
      continue;
    }
    const float e = (v - c) * inv_gain - tc;
    for (int k = 0; k < 8; ++k) sums[k] += (double)j[k] * e;
    sums[8] += (double)e * e;
    sums[9] += tc;
    sums[10] += (double)tc * tc;
    ++used;
  }
  return used;
}

static void vf_affine_cpu_one(const vf_affine_params* p, const vf_track_request* r,
                              vf_track_result* out) {
  if (r->slot < 0 || r->slot >= p->slots) return;
  if (r->new_template && out->status != VF_TRACK_INVALID) vf_affine_cpu_capture(p, r);
  if (out->status != VF_TRACK_CONVERGED) return;
  vf_affine_slot* s = &p->slot[r->slot];
  if (s->valid != VF_AFFINE_USABLE) {
    out->status = vf_affine_unusable_status(s->valid);
    return;
  }
  const float* t = vf_affine_cpu_samples(p, r->slot);
  vf_affine_state st;
  vf_affine_state_init(p, s, r->x, r->y, out->x, out->y, &st);
  double sums[VF_AFFINE_SUMS] = {0}, h_out[VF_AFFINE_PACKED] = {0};
  uint8_t out_set[VF_TRACKER_MAX_REF_PATCH * VF_TRACKER_MAX_REF_PATCH] = {0};
  float inv_sat[VF_AFFINE_PACKED];
  int used = 0, converged = 0, left_out = 0;
  double last_step = INFINITY;
  for (int it = 0; it < p->max_iterations && !converged; ++it) {
    float a[4] = {(float)st.a[0], (float)st.a[1], (float)st.a[2], (float)st.a[3]};
    if (!vf_affine_inside((float)st.px, (float)st.py, a, p->patch, 0, p->width, p->height)) {
      out->status = VF_TRACK_OUT_OF_IMAGE;
      return;
    }
    int grew = 0;
    used = vf_affine_cpu_sums(p, t, s, &st, sums, out_set, h_out, &grew);
    ++out->iterations;
    if (used < s->used / 2) break; /* mostly saturated now: not a match to trust */
    if (grew > 0 && !vf_affine_downdate(s, h_out, inv_sat)) break;
    left_out += grew;
    double d[8];
    vf_affine_step(s, left_out > 0 ? inv_sat : s->inv, &st, sums, d);
    last_step = vf_affine_update(&st, d, p->patch);
    converged = last_step < p->min_update;
  }
  converged |= last_step < VF_AFFINE_SETTLED * p->min_update;
  const float ncc = vf_affine_ncc(sums, used);
  const float residual = used > 0 ? (float)sqrt(sums[8] / used) : 0.0f;
  vf_affine_finish(p, s, &st, ncc, converged, residual, out);
}

typedef struct vf_affine_cpu_job {
  const vf_affine_params* p;
  const vf_track_request* requests;
  vf_track_result* results;
} vf_affine_cpu_job;

static void vf_affine_cpu_item(int i, void* arg) {
  const vf_affine_cpu_job* j = arg;
  vf_affine_cpu_one(j->p, &j->requests[i], &j->results[i]);
}

void vf_affine_cpu_refine(const vf_affine_params* p, const vf_track_request* requests,
                          vf_track_result* results, int count, int threads) {
  vf_affine_cpu_job job = {p, requests, results};
  /* A refinement costs tens of microseconds: 16 features a thread at least. */
  const int useful = count / 16;
  threads = useful < threads ? useful : threads;
  vf_parallel_items(count, threads, 8, vf_affine_cpu_item, &job);
}

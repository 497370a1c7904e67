// SPDX-License-Identifier: BSD-3-Clause
/* CPU tracker: one feature at a time, features split across threads. The per-feature flow
 * mirrors cuda/features/vf_lk.cu; the shared scalar steps live in
 * src/features/kernels/vf_lk_rules.h, the patch loops (float samples, 4 lanes at a time, float
 * partial sums added in double: vf_lk_cpu_patch.h) in vf_lk_cpu_*.c. */
#include "features/kernels/vf_lk_cpu.h"

#include <string.h>

#include "core/vf_parallel.h"
#include "features/cpu/vf_lk_cpu_patch.h"

/* Samples the level-k template from the previous image around (cx, cy); 0 when the patch is
 * not inside the level. */
static int vf_lk_cpu_extract(const vf_lk_params* p, float cx, float cy, int k, vf_lk_patch* tp) {
  vf_lk_patch_init(tp, p->patch[k]);
  if (!vf_lk_patch_inside(cx, cy, tp->size, 1, p->width[k], p->height[k])) return 0;
  const vf_lk_sampler s = vf_lk_sampler_at(cx, cy, tp->size);
  vf_lk_patch_extract(tp, p->prev[k], p->prev_stride[k], &s);
  return 1;
}

static float* vf_lk_cpu_slot(const vf_lk_params* p, int slot, int k) {
  return p->templates + (size_t)slot * p->slot_floats + p->level_offset[k];
}

/* Takes the template of every level into the request's slot; returns the slot's level mask. */
static uint32_t vf_lk_cpu_capture(const vf_lk_params* p, const vf_track_request* r) {
  uint32_t mask = VF_LK_SLOT_CAPTURED;
  for (int k = 0; k < p->levels; ++k) {
    vf_lk_patch tp;
    if (!vf_lk_cpu_extract(p, vf_lk_to_level(r->x, k), vf_lk_to_level(r->y, k), k, &tp)) continue;
    vf_lk_patch_store(&tp, vf_lk_cpu_slot(p, r->slot, k));
    mask |= 1u << k;
  }
  p->slot_levels[r->slot] = mask;
  return mask;
}

/* The level-k template: from the previous image (src 0) or the slot (else); 0 when none. */
static int vf_lk_cpu_template(const vf_lk_params* p, const vf_track_request* r, int src,
                              uint32_t kept, int k, const float phase[2], vf_lk_patch* tp) {
  if (src == 0) {
    return vf_lk_cpu_extract(p, vf_lk_to_level(r->x, k) + phase[0],
                             vf_lk_to_level(r->y, k) + phase[1], k, tp);
  }
  if (!((kept >> k) & 1u)) return 0;
  vf_lk_patch_init(tp, p->patch[k]);
  vf_lk_patch_load(tp, vf_lk_cpu_slot(p, r->slot, k));
  return 1;
}

/* H as an iteration uses it, with its factor and moments: the template's, or that less the
 * terms (h_out) of the samples saturated in the current image (left_out). */
typedef struct vf_lk_cpu_h {
  double h[10], l[10];
  vf_lk_moments m;
  int used;
  int ok; /* factored (else singular) */
  double h_out[10];
  uint64_t left_out[VF_LK_SET_WORDS];
} vf_lk_cpu_h;

/* Level 0 steps with the factor, coarse levels with the moments (vf_lk_iterate); the factor
 * also says whether H is singular. */
static void vf_lk_cpu_h_factor(const vf_lk_params* p, int k, vf_lk_cpu_h* hs) {
  hs->ok = vf_lk_factor(hs->h, p->param_mask, hs->l);
  if (hs->ok && k > 0) vf_lk_moments_prepare(hs->h, hs->used, &hs->m);
}

/* Samples saturated in the current image leave H as well, and stay out for the rest of the
 * level (vf_tracker_lk.h): the reduced H loses their terms sample by sample and is factored
 * again. */
static void vf_lk_cpu_h_reduce(const vf_lk_params* p, int k, vf_lk_patch* tp, const float* cur,
                               vf_lk_cpu_h* reduced) {
  uint64_t set[VF_LK_SET_WORDS];
  vf_lk_patch_saturated_set(tp, cur, set);
  vf_lk_patch_leave(tp, set, reduced->left_out, reduced->h_out);
  reduced->used = tp->count - (int)reduced->h_out[9];
  for (int j = 0; j < 10; ++j) reduced->h[j] = tp->h[j] - reduced->h_out[j];
  vf_lk_cpu_h_factor(p, k, reduced);
}

/* The iterations of level k from st with the prepared template and its H; a VF_LK_LEVEL_*
 * outcome. */
static int vf_lk_cpu_iterate(const vf_lk_params* p, int k, vf_lk_patch* tp, const vf_lk_cpu_h* full,
                             vf_lk_state* st, float* residual, int* iterations) {
  const vf_lk_state start = *st;
  const int n = tp->size, max_it = vf_lk_level_iterations(p, k);
  const size_t stride = p->cur_stride[k];
  _Alignas(16) float cur[VF_LK_AREA_MAX];
  vf_lk_cpu_h reduced;
  memset(reduced.h_out, 0, sizeof reduced.h_out);
  memset(reduced.left_out, 0, sizeof reduced.left_out);
  /* outcome: 0 to go on, and still 0 (VF_LK_LEVEL_DONE) when the iterations run out. */
  int outcome = 0, used = 0, summed = 0;
  const vf_lk_cpu_h* hs = full; /* the reduced H once a sample has left */
  double sum_e2 = 0.0;
  for (int it = 0; it < max_it && outcome == 0; ++it) {
    if (!vf_lk_patch_inside(st->px, st->py, n, 0, p->width[k], p->height[k])) {
      *st = start;
      outcome = VF_LK_LEVEL_OUT;
      break;
    }
    const vf_lk_sampler s = vf_lk_sampler_at(st->px, st->py, n);
    const uint8_t* corner = p->cur[k] + (size_t)s.y0 * stride + (size_t)s.x0;
    vf_lk_cpu_resample(corner, stride, &s, n, tp->width, n + 1, cur, tp->width);
    double sums[5];
    if (vf_lk_patch_sums(tp, cur, (float)st->c, (float)(1.0 / st->a), sums)) {
      vf_lk_cpu_h_reduce(p, k, tp, cur, &reduced);
      hs = &reduced;
    }
    ++*iterations;
    if (!hs->ok) {
      outcome = VF_LK_LEVEL_FLAT;
      break;
    }
    sum_e2 = sums[4];
    used = hs->used;
    summed = 1;
    outcome = vf_lk_iterate(hs->h, hs->l, &hs->m, p, sums, st);
  }
  /* The residual that counts is the level's last: one square root a level. */
  if (summed) *residual = vf_lk_residual(sum_e2, used);
  return outcome;
}

/* Level k: centring, H, its factor, then the iterations; keeps *bias in step with st. */
static int vf_lk_cpu_level(const vf_lk_params* p, int k, vf_lk_patch* tp, vf_lk_state* st,
                           double* bias, float* residual, int* iterations) {
  vf_lk_cpu_h full;
  full.used = vf_lk_patch_prepare(tp, p->param_mask & 8);
  if (full.used == 0) return VF_LK_LEVEL_FLAT;
  memcpy(full.h, tp->h, sizeof full.h);
  vf_lk_cpu_h_factor(p, k, &full);
  if (!full.ok) return VF_LK_LEVEL_FLAT;
  st->c = *bias + st->a * tp->mu;
  st->dx = st->dy = 0.0;
  st->level = k;
  const int outcome = vf_lk_cpu_iterate(p, k, tp, &full, st, residual, iterations);
  *bias = st->c - st->a * tp->mu;
  return outcome;
}

/* The coarse-to-fine descent from level top, its template from src (kept: the slot's levels). */
static vf_track_result vf_lk_cpu_descend(const vf_lk_params* p, const vf_track_request* r, int src,
                                         uint32_t kept, int top) {
  vf_track_result out = vf_lk_result_init(r);
  vf_lk_state st;
  st.px = vf_lk_to_level(r->guess_x, top);
  st.py = vf_lk_to_level(r->guess_y, top);
  st.a = r->gain;
  st.c = st.dx = st.dy = 0.0;
  st.level = top;
  double bias = r->bias;
  float residual = 0.0f;
  int k = top, status = -1;
  for (; k >= 0 && status < 0; --k) {
    if (k < top) {
      st.px = vf_lk_to_finer(st.px);
      st.py = vf_lk_to_finer(st.py);
    }
    vf_lk_patch tp;
    int outcome = VF_LK_LEVEL_NO_TEMPLATE;
    /* Templates from the image go on the sub-pixel phase that cancels the interpolation bias
     * (vf_lk_phase_shift; kept templates have theirs fixed). */
    float phase[2] = {0.0f, 0.0f};
    if (src == 0) {
      phase[0] = vf_lk_phase_shift(vf_lk_to_level(r->x, k), st.px);
      phase[1] = vf_lk_phase_shift(vf_lk_to_level(r->y, k), st.py);
    }
    if (vf_lk_cpu_template(p, r, src, kept, k, phase, &tp)) {
      st.px += phase[0];
      st.py += phase[1];
      outcome = vf_lk_cpu_level(p, k, &tp, &st, &bias, &residual, &out.iterations);
      st.px -= phase[0];
      st.py -= phase[1];
    }
    status = vf_lk_after_level(outcome, k, residual, p);
  }
  ++k; /* the level the loop stopped on */
  out.x = vf_lk_to_level0(st.px, k);
  out.y = vf_lk_to_level0(st.py, k);
  out.gain = (float)st.a;
  out.bias = (float)bias;
  out.residual = residual;
  out.status = vf_lk_final_status(status, p, r, out.x, out.y);
  return out;
}

vf_track_result vf_lk_cpu_track_one(const vf_lk_params* p, const vf_track_request* r, int i) {
  vf_track_result out = vf_lk_result_init(r);
  if (!vf_lk_request_valid(r, p)) return out;
  const int src = vf_lk_template_source(r, p);
  uint32_t kept = 0;
  if (src == 1) kept = vf_lk_cpu_capture(p, r);
  if (src == 2) kept = p->slot_levels[r->slot];
  if (src != 0 && !(kept & VF_LK_SLOT_CAPTURED)) return out;
  const int top = vf_lk_top_level(p, i);
  out = vf_lk_cpu_descend(p, r, src, kept, top);
  if (vf_lk_retry(top, p, out.status)) {
    const int spent = out.iterations;
    out = vf_lk_cpu_descend(p, r, src, kept, p->levels - 1);
    out.iterations += spent;
  }
  return out;
}

/* Features go to the threads in blocks from a shared counter: a track's cost varies (weak
 * texture iterates longer, saturation refactors H), so equal shares would leave a thread idle. */
typedef struct vf_lk_cpu_job {
  const vf_lk_params* p;
  const vf_track_request* requests;
  vf_track_result* results;
} vf_lk_cpu_job;

static void vf_lk_cpu_item(int i, void* arg) {
  const vf_lk_cpu_job* j = arg;
  j->results[i] = vf_lk_cpu_track_one(j->p, &j->requests[i], i);
}

void vf_lk_cpu_track(const vf_lk_params* p, const vf_track_request* requests,
                     vf_track_result* results, int count, vf_pool* pool) {
  int threads = vf_pool_threads(pool);
  vf_lk_cpu_job job = {p, requests, results};
  /* A feature costs about 4 us, a thread start about 20 us: 32 features a thread at least. */
  const int useful = count / 32;
  threads = useful < threads ? useful : threads;
  vf_parallel_items(pool, count, threads, 8, vf_lk_cpu_item, &job);
}

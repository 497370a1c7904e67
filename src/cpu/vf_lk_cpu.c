/* CPU tracker: one feature at a time, patch sums accumulated in double, features split across
 * threads. The per-feature flow mirrors cuda/vf_lk.cu line for line; the shared scalar steps
 * live in src/vf_tracker_lk.h. */
#include "vf_lk_cpu.h"

#include <string.h>

#include "../vf_parallel.h"

#define VF_LK_MAX_N (VF_TRACKER_MAX_PATCH * VF_TRACKER_MAX_PATCH)

typedef struct vf_lk_patch {
  int size, n;
  float t[VF_LK_MAX_N], tx[VF_LK_MAX_N], ty[VF_LK_MAX_N];
  uint8_t use[VF_LK_MAX_N]; /* template sample unsaturated */
  uint8_t out[VF_LK_MAX_N]; /* saturated in the current image during this level's iterations */
} vf_lk_patch;

/* Samples the level-k template from the previous image around the request's position; 0 when
 * the patch is not inside the level. */
static int vf_lk_cpu_extract(const vf_lk_params* p, float cx, float cy, int k, vf_lk_patch* tp) {
  tp->size = p->patch[k];
  tp->n = tp->size * tp->size;
  if (!vf_lk_patch_inside(cx, cy, tp->size, 1, p->width[k], p->height[k])) return 0;
  const vf_lk_sampler s = vf_lk_sampler_at(cx, cy, tp->size);
  const size_t stride = p->prev_stride[k];
  for (int row = 0, i = 0; row < tp->size; ++row) {
    const uint8_t* line = p->prev[k] + (size_t)(s.y0 + row) * stride + (size_t)s.x0;
    for (int col = 0; col < tp->size; ++col, ++i) {
      vf_lk_template_pixel(line + col, stride, &s, &tp->t[i], &tp->tx[i], &tp->ty[i]);
    }
  }
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
    float* slot = vf_lk_cpu_slot(p, r->slot, k);
    const size_t bytes = (size_t)tp.n * sizeof(float);
    memcpy(slot, tp.t, bytes);
    memcpy(slot + tp.n, tp.tx, bytes);
    memcpy(slot + 2 * tp.n, tp.ty, bytes);
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
  tp->size = p->patch[k];
  tp->n = tp->size * tp->size;
  const float* slot = vf_lk_cpu_slot(p, r->slot, k);
  const size_t bytes = (size_t)tp->n * sizeof(float);
  memcpy(tp->t, slot, bytes);
  memcpy(tp->tx, slot + tp->n, bytes);
  memcpy(tp->ty, slot + 2 * tp->n, bytes);
  return 1;
}

/* The iterations of level k from st (the template centred by mu, H, its factor l and moments
 * m); a VF_LK_LEVEL_* outcome. */
static int vf_lk_cpu_iterate(const vf_lk_params* p, int k, vf_lk_patch* tp, float mu,
                             const double h[10], const double l[10], const vf_lk_moments* m,
                             vf_lk_state* st, float* residual, int* iterations) {
  const vf_lk_state start = *st;
  const size_t stride = p->cur_stride[k];
  const int max_it = vf_lk_level_iterations(p, k);
  for (int it = 0; it < max_it; ++it) {
    if (!vf_lk_patch_inside(st->px, st->py, tp->size, 0, p->width[k], p->height[k])) {
      *st = start;
      return VF_LK_LEVEL_OUT;
    }
    const vf_lk_sampler s = vf_lk_sampler_at(st->px, st->py, tp->size);
    const float inv_a = (float)(1.0 / st->a), c = (float)st->c;
    double sums[5] = {0}, h_sat[10] = {0};
    int used = 0, saturated = 0;
    for (int row = 0, i = 0; row < tp->size; ++row) {
      const uint8_t* line = p->cur[k] + (size_t)(s.y0 + row) * stride + (size_t)s.x0;
      for (int col = 0; col < tp->size; ++col, ++i) {
        if (!tp->use[i]) continue;
        const float v = vf_lk_bilinear(line + col, stride, &s), t = tp->t[i] - mu;
        /* A sample that saturates stays out for the rest of the level (vf_tracker_lk.h). */
        tp->out[i] |= (uint8_t)!vf_lk_unsaturated(v);
        if (tp->out[i]) {
          float terms[10];
          vf_lk_hessian_terms(tp->tx[i], tp->ty[i], t, terms);
          for (int j = 0; j < 10; ++j) h_sat[j] += terms[j];
          saturated = 1;
          continue;
        }
        const float e = (v - c) * inv_a - t;
        sums[0] += tp->tx[i] * e;
        sums[1] += tp->ty[i] * e;
        sums[2] += t * e;
        sums[3] += e;
        sums[4] += e * e;
        ++used;
      }
    }
    ++*iterations;
    /* Samples saturated in the current image leave H as well (rare: refactor only then). */
    double l_sat[10];
    vf_lk_moments m_sat;
    const double *hf = h, *lf = l;
    const vf_lk_moments* mf = m;
    if (saturated) {
      for (int j = 0; j < 10; ++j) h_sat[j] = h[j] - h_sat[j];
      if (!vf_lk_factor(h_sat, p->param_mask, l_sat)) return VF_LK_LEVEL_FLAT;
      vf_lk_moments_prepare(h_sat, used, &m_sat);
      hf = h_sat;
      lf = l_sat;
      mf = &m_sat;
    }
    *residual = vf_lk_residual(sums[4], used);
    const int outcome = vf_lk_iterate(hf, lf, mf, p, sums, st);
    if (outcome != 0) return outcome;
  }
  return VF_LK_LEVEL_DONE;
}

/* Level k: centring, H, its factor, then the iterations; keeps *bias in step with st. */
static int vf_lk_cpu_level(const vf_lk_params* p, int k, vf_lk_patch* tp, vf_lk_state* st,
                           double* bias, float* residual, int* iterations) {
  double sum_t = 0.0;
  int count = 0;
  for (int i = 0; i < tp->n; ++i) {
    tp->use[i] = (uint8_t)vf_lk_unsaturated(tp->t[i]);
    tp->out[i] = 0;
    sum_t += tp->use[i] ? tp->t[i] : 0.0f;
    count += tp->use[i];
  }
  if (count == 0) return VF_LK_LEVEL_FLAT;
  const float mu = (p->param_mask & 8) ? (float)(sum_t / count) : 0.0f;
  double h[10] = {0};
  for (int i = 0; i < tp->n; ++i) {
    if (!tp->use[i]) continue;
    float terms[10];
    vf_lk_hessian_terms(tp->tx[i], tp->ty[i], tp->t[i] - mu, terms);
    for (int j = 0; j < 10; ++j) h[j] += terms[j];
  }
  double l[10];
  if (!vf_lk_factor(h, p->param_mask, l)) return VF_LK_LEVEL_FLAT;
  vf_lk_moments m;
  vf_lk_moments_prepare(h, count, &m);
  st->c = *bias + st->a * mu;
  st->dx = st->dy = 0.0;
  st->level = k;
  const int outcome = vf_lk_cpu_iterate(p, k, tp, mu, h, l, &m, st, residual, iterations);
  *bias = st->c - st->a * mu;
  return outcome;
}

static vf_track_result vf_lk_cpu_one(const vf_lk_params* p, const vf_track_request* r) {
  vf_track_result out = vf_lk_result_init(r);
  if (!vf_lk_request_valid(r, p)) return out;
  const int src = vf_lk_template_source(r, p);
  uint32_t kept = 0;
  if (src == 1) kept = vf_lk_cpu_capture(p, r);
  if (src == 2) kept = p->slot_levels[r->slot];
  if (src != 0 && !(kept & VF_LK_SLOT_CAPTURED)) return out;

  const int top = p->levels - 1;
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

typedef struct vf_lk_cpu_job {
  const vf_lk_params* p;
  const vf_track_request* requests;
  vf_track_result* results;
} vf_lk_cpu_job;

static void vf_lk_cpu_range(int begin, int end, void* arg) {
  const vf_lk_cpu_job* j = arg;
  for (int i = begin; i < end; ++i) j->results[i] = vf_lk_cpu_one(j->p, &j->requests[i]);
}

void vf_lk_cpu_track(const vf_lk_params* p, const vf_track_request* requests,
                     vf_track_result* results, int count, int threads) {
  vf_lk_cpu_job job = {p, requests, results};
  /* A feature costs about 20 us; a thread start about 50 us: 16 features per thread at least. */
  const int useful = count / 16;
  vf_parallel_for(count, useful < threads ? useful : threads, vf_lk_cpu_range, &job);
}

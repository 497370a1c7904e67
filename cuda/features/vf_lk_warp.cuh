// SPDX-License-Identifier: BSD-3-Clause
// CUDA tracker, one feature on one warp. A warp runs alone on its scheduler, so its time is its
// instruction count times the latency between dependent instructions (docs/perf/tracker.md);
// the code is built to issue few of them:
// - Lane l owns a run of consecutive samples of one patch row, and each level runs at the width
//   of its runs (16x16: 8 samples a lane; 8x8: 2), so coarse levels do not pay for empty slots.
//   A lane reads its pixels as a few aligned 32-bit words and turns bytes into floats with a
//   byte permute and one add, all loads issued at once; a step that keeps the patch's integer
//   corner reuses the rows already read.
// - The per-iteration sums of J^T e (4 at level 0, 5 with sum e^2 on coarse levels) go through a
//   butterfly (xor-shuffle) that gives every lane the same bits, so all lanes take the same
//   branches; level 0 reduces sum e^2 once, for the residual, when the level ends.
// - H is reduced once a level, over the samples the level's first current patch leaves
//   unsaturated; it changes (one more reduction and factorization) only when more saturate.
// The mathematics is src/features/kernels/vf_lk_rules.h, shared with the CPU reference
// src/features/cpu/vf_lk_cpu.c.
// This header holds the device code of one feature (vf_warp_feature), so that the tracker's
// kernel (cuda/features/vf_lk.cu) and the one-launch tracker-and-refinement kernel
// (cuda/features/vf_affine.cu) share it.
#ifndef VF_LK_WARP_CUH
#define VF_LK_WARP_CUH

#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "features/kernels/vf_lk_cuda.h"
#include "vf_warp_sums.cuh"

namespace vf_lk_warp {

constexpr unsigned kFullMask = 0xffffffffu;

// The lane's run: samples (row, col + j), j < len, of a size x size patch.
struct vf_run {
  int row, col, len;
};

// From the level's runs in the parameters (vf_lk_set_runs): no division on the device.
__device__ __forceinline__ vf_run vf_lane_run(const vf_lk_params& p, int k, int lane) {
  const int s = p.run_span[k], g = p.run_groups[k], size = p.patch[k];
  vf_run r;
  r.row = (lane * p.run_magic[k]) >> 16;
  r.col = (lane - r.row * g) * s;
  r.len = r.row < size ? min(s, size - r.col) : 0;
  return r;
}

// vf_lk_to_level with the division by 2^k as a multiplication by 2^-k: both exact, so the same
// bits, without the division's instruction sequence.
__device__ __forceinline__ float vf_to_level(float v0, int k) {
  return (v0 + 0.5f) * __int_as_float((127 - k) << 23) - 0.5f;
}

// Byte i of w as a float: the byte under the exponent of 2^23, minus 2^23 (exact), which takes
// two full-rate instructions where an integer-to-float conversion runs at a quarter rate.
__device__ __forceinline__ float vf_byte(unsigned w, int i) {
  return __int_as_float(__byte_perm(w, 0x4b000000u, 0x7440u | (unsigned)i)) - 8388608.0f;
}

// p[0 .. N-1] as floats, of which the first n are needed (0: none, nothing read). Reads the
// aligned 32-bit words that hold needed bytes, all at once: pyramid rows start 128-byte aligned
// (vf_tracker_bind checks), so no word leaves the row's padded storage.
template <int N>
__device__ __forceinline__ void vf_load_row(const uint8_t* p, int n, float (&out)[N]) {
  constexpr int kWords = (N + 6) / 4;  // N bytes at any alignment
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const unsigned shift = 8u * (unsigned)(a & 3u);
  const unsigned* w = reinterpret_cast<const unsigned*>(a & ~(uintptr_t)3);
  const int need = n > 0 ? (int)(a & 3u) + n : 0;
  unsigned word[kWords];
#pragma unroll
  for (int i = 0; i < kWords; ++i) word[i] = 4 * i < need ? __ldg(w + i) : 0u;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const int q = i >> 2;
    const unsigned v =
        q + 1 < kWords ? __funnelshift_r(word[q], word[q + 1], shift) : word[q] >> shift;
    out[i] = vf_byte(v, i & 3);
  }
}

// Bilinear interpolation as one multiply and three fused multiply-adds (a dependent chain of
// four; the CPU's two products and a sum differ from it by rounding only).
__device__ __forceinline__ float vf_bilinear4(const vf_lk_sampler& s, float a, float b, float c,
                                              float d) {
  return fmaf(s.w11, d, fmaf(s.w10, c, fmaf(s.w01, b, s.w00 * a)));
}

// This lane's N samples of one level's patch (N: the level's run span, so that an 8x8 level
// does the work of 2 samples a lane, not 8): its run, template and gradients (centred once the
// level starts), and the samples in use: bit j of `use` (in the patch, template unsaturated) and
// of `live` (and not saturated in the current image so far this level). A bit, not a float
// bound per sample: eight registers fewer at level 0.
template <int N>
struct vf_lane_level {
  int size;
  vf_run run;
  unsigned use, live;
  float t[N], tx[N], ty[N];
};

// Samples the level-k template of the previous image at (cx, cy); false (the same on every lane)
// when the patch is not inside the level. The arithmetic of vf_lk_template_pixel. No branch:
// outside, nothing is read, so these loads issue together with the ones that follow.
template <int N>
__device__ __forceinline__ bool vf_lane_extract(const vf_lk_params& p, float cx, float cy, int k,
                                                vf_lane_level<N>& tp) {
  const bool in = vf_lk_patch_inside(cx, cy, tp.size, 1, p.width[k], p.height[k]);
  const vf_lk_sampler s = vf_lk_sampler_at(in ? cx : 0.0f, in ? cy : 0.0f, tp.size);
  const size_t stride = p.prev_stride[k];
  // Rows row - 1 .. row + 2, columns col - 1 .. col + len + 1: the run and its gradients'
  // neighbours.
  const uint8_t* base =
      p.prev[k] + (ptrdiff_t)(s.y0 + tp.run.row - 1) * (ptrdiff_t)stride + (s.x0 + tp.run.col - 1);
  const int n = in && tp.run.len > 0 ? tp.run.len + 3 : 0;
  float px[4][N + 3];
#pragma unroll
  for (int r = 0; r < 4; ++r) vf_load_row(base + (ptrdiff_t)r * (ptrdiff_t)stride, n, px[r]);
  const auto bilinear = [&](int r, int c) {
    return vf_bilinear4(s, px[r][c], px[r][c + 1], px[r + 1][c], px[r + 1][c + 1]);
  };
#pragma unroll
  for (int j = 0; j < N; ++j) {
    tp.t[j] = bilinear(1, j + 1);
    tp.tx[j] = 0.5f * (bilinear(1, j + 2) - bilinear(1, j));
    tp.ty[j] = 0.5f * (bilinear(2, j + 1) - bilinear(0, j + 1));
  }
  return in;
}

__device__ __forceinline__ float* vf_slot_level(const vf_lk_params& p, int slot, int k) {
  return p.templates + (size_t)slot * p.slot_floats + p.level_offset[k];
}

// A level's set-up that depends on its template alone, as vf_level_setup leaves it with no
// current sample saturated: kept in the slot after the template (first-observation mode), so
// that a kept template's level, when none of its first current samples saturates (a bright,
// clipped image saturates many: docs/perf/tracker.md), loads it instead of reducing H and
// factoring again: the same floats, so the same bits.
struct vf_level_cache {
  float flat;   // 1 when the level has no samples in use or H is singular
  float shift;  // the centre less t0 (vf_level_use)
  float h[10], l[10];
  float m[5];  // vf_lk_moments: inv_n, mt, inv_vt, inv_h5, inv_det
  float n;     // the samples in use
  float pad[4];
};
static_assert(sizeof(vf_level_cache) == VF_LK_LEVEL_CACHE * sizeof(float),
              "the cache fills the slot's room");

__device__ __forceinline__ vf_level_cache* vf_slot_cache(const vf_lk_params& p, int slot, int k) {
  return reinterpret_cast<vf_level_cache*>(vf_slot_level(p, slot, k) +
                                           vf_lk_level_samples(p.patch[k]));
}

template <int N>
__device__ __forceinline__ void vf_lane_load(const vf_lk_params& p, int slot, int k,
                                             vf_lane_level<N>& tp) {
  const float* src = vf_slot_level(p, slot, k);
  const int n = tp.size * tp.size, i0 = tp.run.row * tp.size + tp.run.col;
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const bool in = j < tp.run.len;
    tp.t[j] = in ? src[i0 + j] : 0.0f;
    tp.tx[j] = in ? src[n + i0 + j] : 0.0f;
    tp.ty[j] = in ? src[2 * n + i0 + j] : 0.0f;
  }
}

// The two rows of the current image under the lane's run for the patch whose top-left sample
// is at integer (x0, y0), as floats. A step that keeps the patch's integer corner (most steps
// once a level nears its answer) needs new weights only: no memory round trip, no conversion.
template <int N>
struct vf_lane_rows {
  int x0, y0;
  float r0[N + 1], r1[N + 1];
};

template <int N>
__device__ __forceinline__ void vf_rows_load(const uint8_t* img, size_t stride,
                                             const vf_lk_sampler& s, const vf_run& run, bool in,
                                             vf_lane_rows<N>& rows) {
  const uint8_t* base = img + (ptrdiff_t)(s.y0 + run.row) * (ptrdiff_t)stride + (s.x0 + run.col);
  const int n = in && run.len > 0 ? run.len + 1 : 0;
  vf_load_row(base, n, rows.r0);
  vf_load_row(base + stride, n, rows.r1);
  rows.x0 = in ? s.x0 : INT_MIN;  // nothing read outside: never reused
  rows.y0 = s.y0;
}

// The lane's samples, bilinear with s's weights.
template <int N>
__device__ __forceinline__ void vf_rows_sample(const vf_lane_rows<N>& rows, const vf_lk_sampler& s,
                                               float (&v)[N]) {
#pragma unroll
  for (int j = 0; j < N; ++j) {
    v[j] = vf_bilinear4(s, rows.r0[j], rows.r0[j + 1], rows.r1[j], rows.r1[j + 1]);
  }
}

// A level's first rows of the current image at (x, y), read with its template so that both wait
// on memory once; nothing read when the patch is outside (the first iteration then ends the
// level).
template <int N>
__device__ __forceinline__ void vf_rows_at(const vf_lk_params& p, int k, float x, float y,
                                           const vf_lane_level<N>& tp, vf_lane_rows<N>& rows) {
  const bool in = vf_lk_patch_inside(x, y, tp.size, 0, p.width[k], p.height[k]);
  const vf_lk_sampler s = vf_lk_sampler_at(in ? x : 0.0f, in ? y : 0.0f, tp.size);
  vf_rows_load(p.cur[k], p.cur_stride[k], s, tp.run, in, rows);
}

// The terms of J J^T (about the centred template) of this lane's samples, each weighted by
// w_j (0, 1 or -1), added to hs. The constant term is also the count of samples.
template <int N>
__device__ __forceinline__ void vf_lane_hessian(const vf_lane_level<N>& tp, const float (&w)[N],
                                                float hs[10]) {
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const float a = w[j] * tp.tx[j], b = w[j] * tp.ty[j], c = w[j] * tp.t[j];
    hs[0] = fmaf(a, tp.tx[j], hs[0]);
    hs[1] = fmaf(a, tp.ty[j], hs[1]);
    hs[2] = fmaf(b, tp.ty[j], hs[2]);
    hs[3] = fmaf(a, tp.t[j], hs[3]);
    hs[4] = fmaf(b, tp.t[j], hs[4]);
    hs[5] = fmaf(c, tp.t[j], hs[5]);
    hs[6] += a;
    hs[7] += b;
    hs[8] += c;
    hs[9] += w[j];
  }
}

// More samples saturated in the current image: `gone` (this lane's, bit j) leave the live set,
// H and the count of samples in use for the rest of the level (out of `live`, they stay out
// of the sums), then the factor and moments are redone; false when the rest is flat.
template <int N>
__device__ __forceinline__ bool vf_warp_refactor(const vf_lk_params& p, int k, vf_lane_level<N>& tp,
                                                 unsigned gone, float hf[10], float lf[10],
                                                 vf_lk_moments& mf, int& nf) {
  float w[N], hs[10] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  tp.live &= ~gone;
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const bool out = (gone >> j) & 1u;
    w[j] = out ? -1.0f : 0.0f;
  }
  vf_lane_hessian(tp, w, hs);
  vf_warp_sums<10>(hs);
#pragma unroll
  for (int i = 0; i < 10; ++i) hf[i] += hs[i];
  nf += (int)hs[9];
  if (!vf_lk_factor(hf, p.param_mask, lf)) return false;
  if (k > 0) vf_lk_moments_prepare(hf, nf, &mf);  // level 0 steps with the factor alone
  return true;
}

// The iterations of level k from st: template centred, hf, its factor lf and moments mf over the
// nf samples in use (the template's less those saturated in the level's first current samples);
// a VF_LK_LEVEL_* outcome. Sets the residual of the last iteration that stepped.
template <int N>
__device__ __forceinline__ int vf_warp_iterate(const vf_lk_params& p, int k, vf_lane_level<N>& tp,
                                               float (&hf)[10], float (&lf)[10], vf_lk_moments& mf,
                                               int nf, vf_lane_rows<N>& rows,
                                               const float (&v_first)[N], vf_lk_state& st,
                                               float& residual, int& iterations) {
  const vf_lk_state start = st;
  const size_t stride = p.cur_stride[k];
  const uint8_t* img = p.cur[k];
  const int w = p.width[k], hgt = p.height[k], max_it = vf_lk_level_iterations(&p, k);
  float e2_done = 0.0f;  // sum e^2 (level 0: this lane's share) and count of the last step
  int n_done = 0;
  int outcome = VF_LK_LEVEL_DONE;
  for (int it = 0; it < max_it; ++it) {
    if (!vf_lk_patch_inside(st.px, st.py, tp.size, 0, w, hgt)) {
      st = start;
      outcome = VF_LK_LEVEL_OUT;
      break;
    }
    float v[N];
    if (it == 0) {
#pragma unroll
      for (int j = 0; j < N; ++j) v[j] = v_first[j];
    } else {
      const vf_lk_sampler s = vf_lk_sampler_at(st.px, st.py, tp.size);
      if (s.x0 != rows.x0 || s.y0 != rows.y0) vf_rows_load(img, stride, s, tp.run, true, rows);
      vf_rows_sample(rows, s, v);
    }
    const float inv_a = VF_LK_RCP(st.a), c = st.c;
    float sums[5] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    unsigned off = 0;  // samples not used this iteration (bit j)
#pragma unroll
    for (int j = 0; j < N; ++j) {
      // Samples out of use fail like a saturated value does.
      const bool fine = ((tp.live >> j) & 1u) && v[j] >= 1.0f && v[j] <= 254.0f;
      off |= fine ? 0u : 1u << j;
      const float e = fine ? (v[j] - c) * inv_a - tp.t[j] : 0.0f;
      sums[0] = fmaf(tp.tx[j], e, sums[0]);
      sums[1] = fmaf(tp.ty[j], e, sums[1]);
      sums[2] = fmaf(tp.t[j], e, sums[2]);
      sums[3] += e;
      sums[4] = fmaf(e, e, sums[4]);
    }
    const unsigned gone = off & tp.live;
    if (k > 0) {
      vf_warp_sums<5>(sums);
    } else {
      vf_warp_sums<4>(sums);
    }
    ++iterations;
    // Samples saturated in the current image leave H too, for the rest of the level.
    if (__any_sync(kFullMask, gone != 0)) {
      if (!vf_warp_refactor(p, k, tp, gone, hf, lf, mf, nf)) {
        outcome = VF_LK_LEVEL_FLAT;
        break;
      }
    }
    e2_done = sums[4];
    n_done = nf;
    outcome = vf_lk_iterate(hf, lf, &mf, &p, sums, &st);
    if (outcome != 0) break;
    outcome = VF_LK_LEVEL_DONE;
  }
  if (n_done > 0) {
    if (k == 0) vf_warp_sums<1>(&e2_done);
    residual = vf_lk_residual(e2_done, n_done);
  }
  return outcome;
}

// The template's samples in use (inside the patch, unsaturated) into tp.use; returns t0, lane
// 0's first one (128 where it has none): the reference about which H's sums stay small.
template <int N>
__device__ __forceinline__ float vf_level_use(vf_lane_level<N>& tp) {
  tp.use = 0;
  float ref = 128.0f;
#pragma unroll
  for (int j = N - 1; j >= 0; --j) {
    if (j < tp.run.len && vf_lk_unsaturated(tp.t[j])) {
      tp.use |= 1u << j;
      ref = tp.t[j];
    }
  }
  return __shfl_sync(kFullMask, ref, 0);
}

// The level's set-up over the samples in use less `sat` (this lane's, bit j): one reduction, the
// sums of H about t0 with the template's sum and count for its mean, then moved to the mean (two
// reductions in a row would add 5 shuffle rounds); tp.t centred, the centring's shift, H, its
// factor, moments and count of samples; false when the level is flat (no sample in use, or H
// singular). No branch per sample: samples out of a sum are weighted by 0.
template <int N>
__device__ __forceinline__ bool vf_level_setup(const vf_lk_params& p, int k, float t0, unsigned sat,
                                               vf_lane_level<N>& tp, float& shift, float (&h)[10],
                                               float (&l)[10], vf_lk_moments& m, int& n) {
  float w[N], hs[12] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int j = 0; j < N; ++j) {
    const float u = (tp.use >> j) & 1u ? 1.0f : 0.0f;
    tp.t[j] -= t0;
    w[j] = (sat >> j) & 1u ? 0.0f : u;
    hs[10] = fmaf(u, tp.t[j], hs[10]);
    hs[11] += u;
  }
  vf_lane_hessian(tp, w, hs);
  vf_warp_sums<12>(hs);
  if (hs[11] == 0.0f) return false;
  // The centring: the template's mean when the bias is estimated, else 0; shift = it less t0.
  shift = (p.param_mask & 8) ? hs[10] * VF_LK_RCP(hs[11]) : -t0;
  const float d = -shift;  // t - centre = (t - t0) + d: the terms that hold t move with d
#pragma unroll
  for (int i = 0; i < 10; ++i) h[i] = hs[i];
  h[3] += d * hs[6];
  h[4] += d * hs[7];
  h[5] += d * (2.0f * hs[8] + hs[9] * d);
  h[8] += hs[9] * d;
#pragma unroll
  for (int j = 0; j < N; ++j) tp.t[j] += d;
  if (!vf_lk_factor(h, p.param_mask, l)) return false;
  n = (int)h[9];
  m = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  if (k > 0) vf_lk_moments_prepare(h, n, &m);  // level 0 steps with the factor alone
  return true;
}

// Level k: which samples to use, centring, H over them less those saturated in the level's
// first current samples, its factor and moments (vf_level_setup, or a kept template's cache when
// none saturates), then the iterations; keeps bias in step with st.
template <int N>
__device__ __forceinline__ int vf_warp_level(const vf_lk_params& p, int k, vf_lane_level<N>& tp,
                                             vf_lane_rows<N>& rows, vf_lk_state& st, float& bias,
                                             float& residual, int& iterations,
                                             const vf_level_cache* kept) {
  const float t0 = vf_level_use(tp);
  // The first iteration's samples (the same rows and weights): those saturated leave H now
  // rather than in a second reduction at that iteration.
  unsigned sat = 0;
  float v[N];
  vf_rows_sample(rows, vf_lk_sampler_at(st.px, st.py, tp.size), v);
#pragma unroll
  for (int j = 0; j < N; ++j) sat |= vf_lk_unsaturated(v[j]) ? 0u : 1u << j;
  sat = rows.x0 != INT_MIN ? sat & tp.use : 0u;  // nothing read: the first iteration leaves
  float shift, h[10], l[10];
  vf_lk_moments m;
  int n;
  bool ok;
  if (kept != nullptr && !__any_sync(kFullMask, sat != 0)) {
    ok = kept->flat == 0.0f;
    shift = kept->shift;
#pragma unroll
    for (int i = 0; i < 10; ++i) {
      h[i] = kept->h[i];
      l[i] = kept->l[i];
    }
    m = {kept->m[0], kept->m[1], kept->m[2], kept->m[3], kept->m[4]};
    n = (int)kept->n;
    // vf_level_setup's centring of the samples, the same two roundings.
#pragma unroll
    for (int j = 0; j < N; ++j) tp.t[j] = (tp.t[j] - t0) - shift;
  } else {
    ok = vf_level_setup(p, k, t0, sat, tp, shift, h, l, m, n);
  }
  if (!ok) return VF_LK_LEVEL_FLAT;
  const float centre = t0 + shift;
  st.c = bias + st.a * centre;
  st.dx = st.dy = 0.0f;
  st.level = k;
  tp.live = tp.use & ~sat;
  const int outcome = vf_warp_iterate(p, k, tp, h, l, m, n, rows, v, st, residual, iterations);
  bias = st.c - st.a * centre;
  return outcome;
}

// Keeps level k's template in the request's slot; false when it lies outside the image.
template <int N>
__device__ __forceinline__ bool vf_warp_capture_level(const vf_lk_params& p,
                                                      const vf_track_request& r, int k, int lane) {
  vf_lane_level<N> tp;
  tp.size = p.patch[k];
  tp.run = vf_lane_run(p, k, lane);
  if (!vf_lane_extract(p, vf_to_level(r.x, k), vf_to_level(r.y, k), k, tp)) return false;
  float* slot = vf_slot_level(p, r.slot, k);
  const int n = tp.size * tp.size, i0 = tp.run.row * tp.size + tp.run.col;
#pragma unroll
  for (int j = 0; j < N; ++j) {
    if (j < tp.run.len) {
      slot[i0 + j] = tp.t[j];
      slot[n + i0 + j] = tp.tx[j];
      slot[2 * n + i0 + j] = tp.ty[j];
    }
  }
  // The set-up of a level whose first current samples do not saturate: what vf_warp_level
  // computes from these samples (loaded back, the same floats) with none saturated.
  float shift = 0.0f, h[10], l[10];
  vf_lk_moments m;
  int count = 0;
  const bool ok = vf_level_setup(p, k, vf_level_use(tp), 0u, tp, shift, h, l, m, count);
  if (lane == 0) {
    vf_level_cache* c = vf_slot_cache(p, r.slot, k);
    c->flat = ok ? 0.0f : 1.0f;
    c->shift = shift;
#pragma unroll
    for (int i = 0; i < 10; ++i) {
      c->h[i] = h[i];
      c->l[i] = l[i];
    }
    c->m[0] = m.inv_n;
    c->m[1] = m.mt;
    c->m[2] = m.inv_vt;
    c->m[3] = m.inv_h5;
    c->m[4] = m.inv_det;
    c->n = (float)count;
  }
  return true;
}

// Takes the template of every level into the request's slot; returns the slot's level mask.
__device__ __forceinline__ uint32_t vf_warp_capture(const vf_lk_params& p,
                                                    const vf_track_request& r, int lane) {
  uint32_t mask = VF_LK_SLOT_CAPTURED;
  for (int k = 0; k < p.levels; ++k) {
    const int span = p.run_span[k];
    bool in;
    if (span <= 2) {
      in = vf_warp_capture_level<2>(p, r, k, lane);
    } else if (span <= 4) {
      in = vf_warp_capture_level<4>(p, r, k, lane);
    } else {
      in = vf_warp_capture_level<8>(p, r, k, lane);
    }
    if (in) mask |= 1u << k;
  }
  if (lane == 0) p.slot_levels[r.slot] = mask;
  __syncwarp();  // lane 0's caches are seen by the lanes that track with them next
  return mask;
}

// Level k of one feature from st: its template (from the previous image on the sub-pixel phase
// that cancels the interpolation bias, vf_lk_phase_shift, or kept in the slot with its phase
// fixed) and iterations; a VF_LK_LEVEL_* outcome.
template <int N>
__device__ __forceinline__ int vf_warp_track_level(const vf_lk_params& p, const vf_track_request& r,
                                                   int src, uint32_t kept, int k, int lane,
                                                   vf_lk_state& st, float& bias, float& residual,
                                                   int& iterations) {
  vf_lane_level<N> tp;
  tp.size = p.patch[k];
  tp.run = vf_lane_run(p, k, lane);
  bool have = false;
  float phase_x = 0.0f, phase_y = 0.0f;
  vf_lane_rows<N> rows;
  const vf_level_cache* cache = nullptr;
  if (src == 0) {
    const float cx = vf_to_level(r.x, k), cy = vf_to_level(r.y, k);
    phase_x = vf_lk_phase_shift(cx, st.px);
    phase_y = vf_lk_phase_shift(cy, st.py);
    have = vf_lane_extract(p, cx + phase_x, cy + phase_y, k, tp);
    vf_rows_at(p, k, st.px + phase_x, st.py + phase_y, tp, rows);
  } else if ((kept >> k) & 1u) {
    vf_lane_load(p, r.slot, k, tp);
    vf_rows_at(p, k, st.px, st.py, tp, rows);
    cache = vf_slot_cache(p, r.slot, k);
    have = true;
  }
  if (!have) return VF_LK_LEVEL_NO_TEMPLATE;
  st.px += phase_x;
  st.py += phase_y;
  const int outcome = vf_warp_level(p, k, tp, rows, st, bias, residual, iterations, cache);
  st.px -= phase_x;
  st.py -= phase_y;
  return outcome;
}

__device__ __forceinline__ vf_track_result vf_warp_track(const vf_lk_params& p,
                                                         const vf_track_request& r, int src,
                                                         uint32_t kept, int lane, int top) {
  vf_track_result out = vf_lk_result_init(&r);
  vf_lk_state st;
  st.px = vf_to_level(r.guess_x, top);
  st.py = vf_to_level(r.guess_y, top);
  st.a = r.gain;
  st.c = st.dx = st.dy = 0.0f;
  st.level = top;
  float bias = r.bias, residual = 0.0f;
  int k = top, status = -1;
  for (; k >= 0 && status < 0; --k) {
    if (k < top) {
      st.px = vf_lk_to_finer(st.px);
      st.py = vf_lk_to_finer(st.py);
    }
    // Each level at the width of its runs (the same on every lane).
    const int span = p.run_span[k];
    int outcome;
    if (span <= 2) {
      outcome =
          vf_warp_track_level<2>(p, r, src, kept, k, lane, st, bias, residual, out.iterations);
    } else if (span <= 4) {
      outcome =
          vf_warp_track_level<4>(p, r, src, kept, k, lane, st, bias, residual, out.iterations);
    } else {
      outcome =
          vf_warp_track_level<8>(p, r, src, kept, k, lane, st, bias, residual, out.iterations);
    }
    status = vf_lk_after_level(outcome, k, residual, &p);
  }
  ++k;  // the level the loop stopped on
  out.x = vf_lk_to_level0(st.px, k);
  out.y = vf_lk_to_level0(st.py, k);
  out.gain = st.a;
  out.bias = bias;
  out.residual = residual;
  out.status = vf_lk_final_status(status, &p, &r, out.x, out.y);
  return out;
}

// A request as two 16-byte loads: two round trips over the bus, not eight, when it lies in mapped
// host memory.
__device__ __forceinline__ vf_track_request vf_load_request(const vf_track_request* q) {
  static_assert(sizeof(vf_track_request) == 2 * sizeof(uint4), "a request is two 16-byte words");
  const uint4* v = reinterpret_cast<const uint4*>(q);
  const uint4 lo = v[0], hi = v[1];
  vf_track_request r;
  memcpy(&r, &lo, sizeof lo);
  memcpy(reinterpret_cast<char*>(&r) + sizeof lo, &hi, sizeof hi);
  return r;
}

// One feature on the whole warp, from its request (the f-th of the call) to its result (the same
// bits on every lane; the caller writes it). A descent from fewer levels than all that does not
// converge runs again from the coarsest (vf_lk_retry), as on the CPU.
__device__ __forceinline__ vf_track_result vf_warp_feature(const vf_lk_params& p,
                                                           const vf_track_request& r, int f,
                                                           int lane) {
  vf_track_result out = vf_lk_result_init(&r);
  // Read first: start_levels lies in mapped host memory, a bus round trip that then overlaps
  // the template's capture instead of following it.
  int top = vf_lk_top_level(&p, f);
  if (vf_lk_request_valid(&r, &p)) {
    const int src = vf_lk_template_source(&r, &p);
    uint32_t kept = 0;
    if (src == 1) kept = vf_warp_capture(p, r, lane);
    if (src == 2) kept = p.slot_levels[r.slot];
    if (src == 0 || (kept & VF_LK_SLOT_CAPTURED)) {
      // One inlined descent, run twice where it retries (two copies would double the code).
      int spent = 0;
      for (;;) {
        out = vf_warp_track(p, r, src, kept, lane, top);
        out.iterations += spent;
        if (!vf_lk_retry(top, &p, out.status)) break;
        spent = out.iterations;
        top = p.levels - 1;
      }
    }
  }
  return out;
}

}  // namespace vf_lk_warp

#endif

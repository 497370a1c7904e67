// SPDX-License-Identifier: BSD-3-Clause
// CUDA reference refinement: one warp per feature, every feature of a call in one launch, run
// after the frame-to-frame kernel (cuda/vf_lk.cu) on the same stream. Lane l takes samples
// l, l + 32, ... of the reference patch; the sums of an iteration go through a butterfly
// (xor-shuffle) that leaves the same bits in every lane, so all lanes step in lockstep and take
// the same branches, and lane 0 writes the result and the slot. The mathematics is
// src/vf_tracker_affine.h, shared with the CPU reference src/cpu/vf_affine_cpu.c.
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "../src/vf_cuda_affine.h"
#include "vf_warp_sums.cuh"

namespace {

__device__ __forceinline__ float* vf_slot_samples(const vf_affine_params& p, int slot) {
  return p.samples + (size_t)slot * 3 * (size_t)(p.patch * p.patch);
}

// Takes the reference of r.slot from the previous image at (r.x, r.y); every lane returns once
// the slot is written (lane 0 writes the state, every lane its samples).
__device__ void vf_warp_capture(const vf_affine_params& p, const vf_track_request& r, int lane) {
  vf_affine_slot* s = p.slot + r.slot;
  const float identity[4] = {1.0f, 0.0f, 0.0f, 1.0f};
  const int n = p.patch * p.patch;
  float* t = vf_slot_samples(p, r.slot);
  float *tx = t + n, *ty = t + 2 * n;
  int valid = VF_AFFINE_OUTSIDE;
  float mu = 0.0f, sd = 0.0f, l[VF_AFFINE_PACKED], prior[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  int used = 0;
  if (vf_affine_inside(r.x, r.y, identity, p.patch, 1, p.width, p.height)) {
    float m[3] = {0.0f, 0.0f, 0.0f};  // sum T, sum T^2, count
    for (int i = lane; i < n; i += 32) {
      float ox, oy, v, gx, gy;
      vf_affine_offset(i, p.patch, &ox, &oy);
      vf_affine_pixel(p.prev, p.prev_stride, r.x + ox, r.y + oy, &v, &gx, &gy);
      if (!vf_lk_unsaturated(v)) v = -1.0f;
      t[i] = v;
      tx[i] = gx;
      ty[i] = gy;
      if (v >= 0.0f) {
        m[0] += v;
        m[1] += v * v;
        m[2] += 1.0f;
      }
    }
    vf_warp_sums<3>(m);
    used = (int)m[2];
    valid = VF_AFFINE_FLAT;
    if (used >= 8) {
      mu = m[0] / m[2];
      sd = sqrtf(fmaxf(m[1] / m[2] - mu * mu, 0.0f));
      float h[VF_AFFINE_PACKED];
#pragma unroll
      for (int k = 0; k < VF_AFFINE_PACKED; ++k) h[k] = 0.0f;
      const float inv_half = 1.0f / VF_AFFINE_HALF(p.patch);
      for (int i = lane; i < n; i += 32) {
        if (t[i] < 0.0f) continue;
        float ox, oy, j[8];
        vf_affine_offset(i, p.patch, &ox, &oy);
        vf_affine_jacobian(t[i] - mu, tx[i], ty[i], ox * inv_half, oy * inv_half, j);
#pragma unroll
        for (int a = 0; a < 8; ++a) {
#pragma unroll
          for (int b = 0; b <= a; ++b) h[VF_AFFINE_IDX(a, b)] += j[a] * j[b];
        }
      }
      vf_warp_sums<VF_AFFINE_PACKED>(h);
      vf_affine_add_prior(h, p.shape_prior, prior);
      if (vf_affine_factor(h, l)) valid = VF_AFFINE_USABLE;
    }
  }
  if (lane == 0) {
    vf_affine_slot out;
    memset(&out, 0, sizeof out);
    memcpy(out.shape, identity, sizeof identity);
    out.gain = 1.0f;
    out.valid = valid;
    if (valid != VF_AFFINE_OUTSIDE) {
      out.used = used;
      out.mu = mu;
      out.sd = sd;
    }
    if (valid == VF_AFFINE_USABLE) {
      for (int k = 0; k < VF_AFFINE_PACKED; ++k) out.l[k] = l[k];
      for (int k = 0; k < 4; ++k) out.prior[k] = prior[k];
    }
    *s = out;
  }
  __syncwarp();
}

// The sums of one iteration (VF_AFFINE_SUMS, order in the header) over the warp, and the
// samples they cover.
__device__ int vf_warp_iteration_sums(const vf_affine_params& p, const float* __restrict__ t,
                                      float mu, const vf_affine_state& st, int lane,
                                      float (&sums)[VF_AFFINE_SUMS]) {
  const int n = p.patch * p.patch;
  const float *tx = t + n, *ty = t + 2 * n;
  const float inv_half = 1.0f / VF_AFFINE_HALF(p.patch);
  const float inv_gain = 1.0f / st.gain;
#pragma unroll
  for (int k = 0; k < VF_AFFINE_SUMS; ++k) sums[k] = 0.0f;
  float used = 0.0f;
  for (int i = lane; i < n; i += 32) {
    const float tv = __ldg(t + i);
    if (tv < 0.0f) continue;
    float ox, oy, j[8];
    vf_affine_offset(i, p.patch, &ox, &oy);
    const float v = vf_affine_sample(p.cur, p.cur_stride, st.px + st.a[0] * ox + st.a[1] * oy,
                                     st.py + st.a[2] * ox + st.a[3] * oy);
    if (!vf_lk_unsaturated(v)) continue;
    const float tc = tv - mu;
    const float e = (v - st.c) * inv_gain - tc;
    vf_affine_jacobian(tc, __ldg(tx + i), __ldg(ty + i), ox * inv_half, oy * inv_half, j);
#pragma unroll
    for (int k = 0; k < 8; ++k) sums[k] += j[k] * e;
    sums[8] += e * e;
    sums[9] += v;
    sums[10] += v * v;
    sums[11] += v * tv;
    used += 1.0f;
  }
  float all[VF_AFFINE_SUMS + 1];
#pragma unroll
  for (int k = 0; k < VF_AFFINE_SUMS; ++k) all[k] = sums[k];
  all[VF_AFFINE_SUMS] = used;
  vf_warp_sums<VF_AFFINE_SUMS + 1>(all);
#pragma unroll
  for (int k = 0; k < VF_AFFINE_SUMS; ++k) sums[k] = all[k];
  return (int)all[VF_AFFINE_SUMS];
}

__global__ void __launch_bounds__(32)
    vf_affine_kernel(const vf_affine_params p, const vf_track_request* __restrict__ requests,
                     vf_track_result* __restrict__ results, int count) {
  const int lane = threadIdx.x & 31;
  const int f = blockIdx.x;
  if (f >= count) return;
  const vf_track_request r = requests[f];
  if (r.slot < 0 || r.slot >= p.slots) return;
  vf_track_result out = results[f];
  if (r.new_template && out.status != VF_TRACK_INVALID) vf_warp_capture(p, r, lane);
  if (out.status != VF_TRACK_CONVERGED) return;
  vf_affine_slot* s = p.slot + r.slot;
  const int valid = s->valid;
  if (valid != VF_AFFINE_USABLE) {
    if (lane == 0) results[f].status = (vf_track_status)vf_affine_unusable_status(valid);
    return;
  }
  const float mu = s->mu;
  const int slot_used = s->used;
  const float* t = vf_slot_samples(p, r.slot);
  vf_affine_state st;
  vf_affine_state_init(s, out.x, out.y, &st);
  float sums[VF_AFFINE_SUMS];
  int used = 0, converged = 0;
  for (int it = 0; it < p.max_iterations && !converged; ++it) {
    const float a[4] = {st.a[0], st.a[1], st.a[2], st.a[3]};
    if (!vf_affine_inside(st.px, st.py, a, p.patch, 0, p.width, p.height)) {
      if (lane == 0) results[f].status = VF_TRACK_OUT_OF_IMAGE;
      return;
    }
    used = vf_warp_iteration_sums(p, t, mu, st, lane, sums);
    ++out.iterations;
    if (used < slot_used / 2) break;  // mostly saturated now: not a match to trust
    float d[8];
    vf_affine_step(s, &st, sums, d);
    converged = vf_affine_update(&st, d, p.patch) < p.min_update;
  }
  if (lane != 0) return;
  const float ncc = vf_affine_ncc(sums[9], sums[10], sums[11], used, mu, s->sd);
  const float residual = used > 0 ? sqrtf(sums[8] / (float)used) : 0.0f;
  vf_affine_finish(&p, s, &st, ncc, converged, residual, &out);
  results[f] = out;
}

}  // namespace

extern "C" int vf_cuda_affine_refine(const vf_affine_params* params,
                                     const vf_track_request* requests, vf_track_result* results,
                                     int count, void* stream) {
  if (count <= 0) return 0;
  vf_affine_kernel<<<count, 32, 0, (cudaStream_t)stream>>>(*params, requests, results, count);
  return (int)cudaGetLastError();
}

// SPDX-License-Identifier: BSD-3-Clause
// CUDA reference refinement: one block of four warps per feature, every feature of a call in one
// launch, run after the frame-to-frame kernel (cuda/features/vf_lk.cu) on the same stream. Thread i
// takes samples i, i + 128, ... of the reference patch and keeps them in registers; the sums of an
// iteration go through a reduce-scatter in each warp and then shared memory, added in one order
// for every thread, so all threads step in lockstep and take the same branches, and thread 0 writes
// the result and the slot (a new reference is taken by the whole block). The current image is read
// once per feature: the binomial-smoothed window under the warped patch goes to shared memory,
// where each sample is one bilinear read (4 loads instead of the 16 taps of the smoothed sampler).
// The mathematics is src/features/kernels/vf_affine_rules.h, shared with the CPU reference
// src/features/cpu/vf_affine_cpu.c.
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "core/vf_cuda_fault.cuh"
#include "features/kernels/vf_affine_cuda.h"
#include "vf_lk_warp.cuh"
#include "vf_warp_sums.cuh"

namespace {

// The smoothed window: up to kWin x kWin pixels in shared memory. A warped patch that does not
// fit falls back to the smoothed sampler in global memory.
constexpr int kWin = 64;

// The parameter block is read in place by the helpers that take it by reference; without
// __grid_constant__ (before CUDA 11.7, e.g. JetPack 4's 10.2, and below sm_70, e.g. the TX2's
// sm_62, where nvcc rejects it) the kernel copies it to the stack.
#if defined(__CUDACC_VER_MAJOR__) &&                                                            \
    (__CUDACC_VER_MAJOR__ > 11 || (__CUDACC_VER_MAJOR__ == 11 && __CUDACC_VER_MINOR__ >= 7)) && \
    (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700)
#define VF_GRID_CONSTANT __grid_constant__
#else
#define VF_GRID_CONSTANT
#endif

__device__ __forceinline__ float* vf_slot_samples(const vf_affine_params& p, int slot) {
  return p.samples + (size_t)slot * 3 * (size_t)(p.patch * p.patch);
}

// Threads per feature: four warps share a feature's samples, so that an iteration's latency (a
// chain of dependent steps per sample) is a quarter of one warp's; their sums meet in shared
// memory.
constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
// Three blocks a multiprocessor: the compiler otherwise takes 254 registers a thread, which
// leaves room for two, and 1000 or 4000 features then queue in waves (measured on the H100:
// 1000 features 112 -> 104 us, 4000 291 -> 249 us with 168 registers; four blocks spill and
// lose at 200 features).
constexpr int kMinBlocks = 3;

// The smoothed current image over [x0, x0 + w) x [y0, y0 + h) in shared memory, row stride kWin:
// the [1 2 1] / 4 binomial along the rows (one more each side), then down the columns, as the
// smoothed sampler weighs them.
struct vf_window {
  int x0, y0, w, h;
};

// The [1 2 1] / 4 binomial of three values (a and b the outer ones): one expression for every
// builder below, so that they round alike.
__device__ __forceinline__ float vf_binomial3(float a, float b, float mid) {
  return 0.25f * (a + b) + 0.5f * mid;
}

// Row pass at raw pixel q.
__device__ __forceinline__ float vf_row_binomial(const uint8_t* q) {
  return vf_binomial3((float)__ldg(q - 1), (float)__ldg(q + 1), (float)__ldg(q));
}

// Pixel i = tid + threads j of a window w pixels wide, at row r, column c: stepped without a
// division per pixel.
struct vf_pixel_walk {
  int r, c, step_r, step_c, w;
  __device__ __forceinline__ vf_pixel_walk(int tid, int threads, int width) : w(width) {
    step_r = threads / w;
    step_c = threads - step_r * w;
    r = tid / w;
    c = tid - r * w;
  }
  __device__ __forceinline__ void next() {
    r += step_r;
    c += step_c;
    if (c >= w) {
      c -= w;
      ++r;
    }
  }
};

// The window, built by `threads` threads (tid 0 .. threads - 1; the whole block, or the warps
// that work while the first warp tracks): each pixel takes its three row passes itself. Rows
// smoothed once into a staging buffer took a third of the loads but 17 KB more shared memory a
// block, which on a TX2 (64 KB a multiprocessor) left room for one block instead of three, for
// 0.4% fewer of the refinement's instructions (the window is mostly built once a feature). The
// caller synchronises the block before the window is read.
__device__ void vf_block_window(const vf_affine_params& p, const vf_window& wd, float* win, int tid,
                                int threads) {
  const size_t stride = p.cur_stride;
  for (vf_pixel_walk i(tid, threads, wd.w); i.r < wd.h; i.next()) {
    const uint8_t* q = p.cur + (size_t)(wd.y0 + i.r) * stride + (size_t)(wd.x0 + i.c);
    win[i.r * kWin + i.c] =
        vf_binomial3(vf_row_binomial(q - stride), vf_row_binomial(q + stride), vf_row_binomial(q));
  }
}

// The window for the patch warped by st, with `margin` pixels to spare each side; w = 0 when
// it would exceed kWin.
__device__ vf_window vf_window_for(const vf_affine_params& p, const vf_affine_state& st,
                                   int margin) {
  float rx, ry;
  vf_affine_extent(&st, p.patch, &rx, &ry);
  vf_window wd;
  wd.x0 = max(1, (int)floorf(st.px - rx) - margin);
  wd.y0 = max(1, (int)floorf(st.py - ry) - margin);
  // Exclusive ends: a smoothed pixel needs its raw neighbours, so the last is width - 2.
  const int x1 = min(p.width - 1, (int)floorf(st.px + rx) + 2 + margin);
  const int y1 = min(p.height - 1, (int)floorf(st.py + ry) + 2 + margin);
  wd.w = x1 - wd.x0;
  wd.h = y1 - wd.y0;
  if (wd.w > kWin || wd.h > kWin) wd.w = 0;
  return wd;
}

// Nonzero when every bilinear read of the warped patch lies inside the window.
__device__ __forceinline__ int vf_window_holds(const vf_affine_params& p, const vf_window& wd,
                                               const vf_affine_state& st) {
  float rx, ry;
  vf_affine_extent(&st, p.patch, &rx, &ry);
  return wd.w > 0 && st.px - rx >= (float)wd.x0 && st.py - ry >= (float)wd.y0 &&
         st.px + rx < (float)(wd.x0 + wd.w - 1) && st.py + ry < (float)(wd.y0 + wd.h - 1);
}

__device__ __forceinline__ float vf_window_sample(const float* win, const vf_window& wd, float x,
                                                  float y) {
  x -= (float)wd.x0;
  y -= (float)wd.y0;
  const float fx = floorf(x), fy = floorf(y);
  const float ax = x - fx, ay = y - fy;
  const float* q = win + (int)fy * kWin + (int)fx;
  const float top = q[0] + ax * (q[1] - q[0]);
  const float bot = q[kWin] + ax * (q[kWin + 1] - q[kWin]);
  return top + ay * (bot - top);
}

// After the barrier, v[k] = the warps' rows of red (kWarps x N, each warp's totals) added in the
// same order by every thread, which all end with the same bits.
// Lane l adds the rows' values l and l + 32, and the others get them by shuffles: a few loads a
// thread instead of kWarps x N.
template <int N>
__device__ __forceinline__ void vf_block_add_rows(float* v, const float* red) {
  static_assert(N <= 64, "two values a lane");
  __syncthreads();
  const int lane = threadIdx.x & 31;
  float t[2] = {0.0f, 0.0f};
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int k = lane + 32 * h;
    if (k < N) {
      t[h] = red[k];
#pragma unroll
      for (int w = 1; w < kWarps; ++w) t[h] += red[w * N + k];
    }
  }
#pragma unroll
  for (int k = 0; k < N; ++k) v[k] = __shfl_sync(0xffffffffu, t[k >> 5], k & 31);
}

// One exchange of vf_block_sums_scatter: the lane keeps the upper or lower N of the 2 N slots it
// holds (by lane bit M) and adds the partner's copy of them.
template <int M, int N>
__device__ __forceinline__ void vf_scatter_step(float (&a)[32], int lane) {
  const bool hi = lane & M;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const float send = hi ? a[i] : a[i + N], keep = hi ? a[i + N] : a[i];
    a[i] = keep + __shfl_xor_sync(0xffffffffu, send, M);
  }
}

// Sums v[0..N-1] (33 <= N <= 64) over the block: a reduce-scatter inside each warp (64 slots
// halved five times: 61 shuffles where a butterfly takes 5 N), so that lane l ends with the
// warp's totals of two slots, then the warps' rows in shared memory (red, kWarps x N, one of two
// buffers alternated by the caller so that one barrier suffices).
template <int N>
__device__ __forceinline__ void vf_block_sums_scatter(float* v, float* red, int tid) {
  static_assert(N > 32 && N <= 64, "64 slots, more than one a lane");
  const int lane = tid & 31;
  float a[32];
  {
    const bool hi = lane & 16;
#pragma unroll
    for (int i = 0; i < 32; ++i) {
      const float lo_v = v[i], hi_v = i + 32 < N ? v[i + 32] : 0.0f;
      a[i] = (hi ? hi_v : lo_v) + __shfl_xor_sync(0xffffffffu, hi ? lo_v : hi_v, 16);
    }
  }
  vf_scatter_step<8, 16>(a, lane);
  vf_scatter_step<4, 8>(a, lane);
  vf_scatter_step<2, 4>(a, lane);
  vf_scatter_step<1, 2>(a, lane);
  const int slot = (lane & 16 ? 32 : 0) + (lane & 8 ? 16 : 0) + (lane & 4 ? 8 : 0) +
                   (lane & 2 ? 4 : 0) + (lane & 1 ? 2 : 0);
  if (slot < N) red[(tid >> 5) * N + slot] = a[0];
  if (slot + 1 < N) red[(tid >> 5) * N + slot + 1] = a[1];
  vf_block_add_rows<N>(v, red);
}

// The 12 sums of an iteration (VF_AFFINE_SUMS and the count) over the block. Within each warp a
// reduce-scatter (13 shuffles where the butterfly takes 60): each exchange sends half of the
// values a lane still holds and keeps the other half, so that after five exchanges each lane pair
// {2j, 2j + 1} holds the warp's total of one value; those go to shared memory (red, as
// vf_block_sums_scatter).
__device__ __forceinline__ void vf_block_sums12(float (&v)[12], float* red, int tid) {
  constexpr unsigned kAll = 0xffffffffu;
  const int lane = tid & 31;
  const bool h16 = lane & 16, h8 = lane & 8, h4 = lane & 4, h2 = lane & 2;
  float a[6], b[3];
#pragma unroll
  for (int i = 0; i < 6; ++i) {  // a[i]: value (h16 ? 6 : 0) + i
    const float send = h16 ? v[i] : v[i + 6], keep = h16 ? v[i + 6] : v[i];
    a[i] = keep + __shfl_xor_sync(kAll, send, 16);
  }
#pragma unroll
  for (int i = 0; i < 3; ++i) {  // b[i]: value (h16 ? 6 : 0) + (h8 ? 3 : 0) + i
    const float send = h8 ? a[i] : a[i + 3], keep = h8 ? a[i + 3] : a[i];
    b[i] = keep + __shfl_xor_sync(kAll, send, 8);
  }
  // Three values split over lane pairs as four, the fourth zero: c0 is value (h4 ? 2 : 0) of the
  // three, c1 value (h4 ? 3 : 1) (3: the padding).
  const float c0 = (h4 ? b[2] : b[0]) + __shfl_xor_sync(kAll, h4 ? b[0] : b[2], 4);
  const float c1 = (h4 ? 0.0f : b[1]) + __shfl_xor_sync(kAll, h4 ? b[1] : 0.0f, 4);
  float d = (h2 ? c1 : c0) + __shfl_xor_sync(kAll, h2 ? c0 : c1, 2);
  d += __shfl_xor_sync(kAll, d, 1);
  const int off = (h4 ? 2 : 0) + (h2 ? 1 : 0);
  if (!(lane & 1) && off < 3) red[(tid >> 5) * 12 + (h16 ? 6 : 0) + (h8 ? 3 : 0) + off] = d;
  vf_block_add_rows<12>(v, red);
}

// The thread's reference samples (tid, tid + kThreads, ...), held for all iterations: t = T - mu
// (-inf marks an unused sample) and the gradients.
template <int K>
struct vf_thread_ref {
  float t[K], tx[K], ty[K];
  float ox[K], oy[K];  // the samples' offsets from the patch centre, fixed for the call
};

// The thread's reference samples of a slot whose mean is mu.
template <int K>
__device__ __forceinline__ void vf_load_ref(const float* t, int patch, float mu, int tid,
                                            vf_thread_ref<K>& ref) {
  const int n = patch * patch;
  const float half = VF_AFFINE_HALF(patch), inv_patch = 1.0f / (float)patch;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int i = tid + kThreads * k;
    const int row = (int)(((float)i + 0.5f) * inv_patch);
    ref.oy[k] = (float)row - half;
    ref.ox[k] = (float)(i - row * patch) - half;
    const float tv = i < n ? __ldg(t + i) : -1.0f;
    ref.t[k] = tv >= 0.0f ? tv - mu : -INFINITY;
    ref.tx[k] = i < n ? __ldg(t + n + i) : 0.0f;
    ref.ty[k] = i < n ? __ldg(t + 2 * n + i) : 0.0f;
  }
}

// The sums of one iteration (VF_AFFINE_SUMS, order in the header) over the block, skipping the
// thread's samples in out_mask; those that saturate in the current image now go to *fresh (bit
// k: sample tid + kThreads k). Returns the samples used.
template <int K>
__device__ __forceinline__ int vf_block_iteration(const vf_affine_params& p,
                                                  const vf_thread_ref<K>& ref,
                                                  const vf_affine_state& st, const vf_window& wd,
                                                  const float* win, int tid, unsigned out_mask,
                                                  float* red, float (&sums)[VF_AFFINE_SUMS],
                                                  unsigned* fresh_out) {
  const float inv_half = 1.0f / VF_AFFINE_HALF(p.patch);
  const float inv_gain = VF_LK_RCP(st.gain);
  float acc[VF_AFFINE_SUMS + 1];
#pragma unroll
  for (int k = 0; k < VF_AFFINE_SUMS + 1; ++k) acc[k] = 0.0f;
  unsigned fresh = 0u;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    // Samples past the patch hold t = -inf, like unused ones.
    if (!(ref.t[k] > -1e30f) || ((out_mask >> k) & 1u)) continue;
    const float ox = ref.ox[k], oy = ref.oy[k];
    float x, y;
    vf_affine_warp_point(&st, ox, oy, &x, &y);
    const float v =
        wd.w > 0 ? vf_window_sample(win, wd, x, y) : vf_affine_sample(p.cur, p.cur_stride, x, y);
    if (!vf_lk_unsaturated(v)) {
      fresh |= 1u << k;
      continue;
    }
    const float tc = ref.t[k];
    const float e = (v - st.c) * inv_gain - tc;
    float j[8];
    vf_affine_jacobian(tc, ref.tx[k], ref.ty[k], ox * inv_half, oy * inv_half, j);
#pragma unroll
    for (int q = 0; q < 8; ++q) acc[q] += j[q] * e;
    acc[8] += e * e;
    acc[9] += tc;
    acc[10] += tc * tc;
    acc[VF_AFFINE_SUMS] += 1.0f;
  }
  static_assert(VF_AFFINE_SUMS + 1 == 12, "vf_block_sums12 takes the iteration's sums");
  vf_block_sums12(acc, red, tid);
#pragma unroll
  for (int k = 0; k < VF_AFFINE_SUMS; ++k) sums[k] = acc[k];
  *fresh_out = fresh;
  return (int)acc[VF_AFFINE_SUMS];
}

// When more samples saturate (rare, so not inlined, and reading the reference again from global
// memory): their terms join the running total of left-out terms in shared memory (h_total), and
// the inverse of H less that total goes to inv_out (shared memory). Returns 0 when what is left is
// singular (the same answer in every thread).
__device__ __noinline__ int vf_block_downdate(const vf_affine_params& p, const float* t,
                                              const vf_affine_slot* s, int tid, unsigned fresh,
                                              float* red, float* h_total, float* inv_out) {
  const float half = VF_AFFINE_HALF(p.patch), inv_half = 1.0f / half;
  const int n = p.patch * p.patch;
  float h_new[VF_AFFINE_PACKED];
#pragma unroll
  for (int k = 0; k < VF_AFFINE_PACKED; ++k) h_new[k] = 0.0f;
  for (int k = 0; fresh != 0u; ++k, fresh >>= 1) {
    if (!(fresh & 1u)) continue;
    const int i = tid + kThreads * k;
    float ox, oy, j[8];
    vf_affine_offset(i, p.patch, &ox, &oy);
    vf_affine_jacobian(__ldg(t + i) - s->mu, __ldg(t + n + i), __ldg(t + 2 * n + i), ox * inv_half,
                       oy * inv_half, j);
    vf_affine_outer(j, h_new);
  }
  vf_block_sums_scatter<VF_AFFINE_PACKED>(h_new, red, tid);
  float total[VF_AFFINE_PACKED], inv[VF_AFFINE_PACKED];
#pragma unroll
  for (int k = 0; k < VF_AFFINE_PACKED; ++k) total[k] = h_total[k] + h_new[k];
  const int ok = vf_affine_downdate(s, total, inv);
  __syncthreads();  // every thread has read h_total and red
  if (tid == 0) {
    for (int k = 0; k < VF_AFFINE_PACKED; ++k) {
      h_total[k] = total[k];
      inv_out[k] = inv[k];
    }
  }
  __syncthreads();
  return ok;
}

// Takes the reference of r.slot from the previous image at (r.x, r.y), with every thread of the
// block: a new reference lies on its feature's path to the result, and one warp alone made
// its block the launch's last (thread 0 writes the state, every thread its samples, each the
// ones it reads again). Its two totals use the two halves of red (the count and sum first,
// then H), so each needs one barrier. The caller synchronises the block before the slot is read.
// Not inlined: its 36-term sums would crowd the registers of the iterations.
__device__ __noinline__ void vf_block_capture(const vf_affine_params& p, const vf_track_request& r,
                                              int tid, float (*red)[kWarps * VF_AFFINE_PACKED]) {
  vf_affine_slot* s = p.slot + r.slot;
  const float identity[4] = {1.0f, 0.0f, 0.0f, 1.0f};
  const int n = p.patch * p.patch;
  float* t = vf_slot_samples(p, r.slot);
  float *tx = t + n, *ty = t + 2 * n;
  int valid = VF_AFFINE_OUTSIDE;
  float mu = 0.0f, h[VF_AFFINE_PACKED], l[VF_AFFINE_PACKED], prior[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  int used = 0;
  if (vf_affine_inside(r.x, r.y, identity, p.patch, 1, p.width, p.height)) {
    float m[2] = {0.0f, 0.0f};  // sum T, count
    for (int i = tid; i < n; i += kThreads) {
      float ox, oy, v, gx, gy;
      vf_affine_offset(i, p.patch, &ox, &oy);
      vf_affine_pixel(p.prev, p.prev_stride, r.x + ox, r.y + oy, &v, &gx, &gy);
      if (!vf_lk_unsaturated(v)) v = -1.0f;
      t[i] = v;
      tx[i] = gx;
      ty[i] = gy;
      if (v >= 0.0f) {
        m[0] += v;
        m[1] += 1.0f;
      }
    }
    vf_warp_sums<2>(m);
    if ((tid & 31) == 0) {
      red[0][(tid >> 5) * 2] = m[0];
      red[0][(tid >> 5) * 2 + 1] = m[1];
    }
    vf_block_add_rows<2>(m, red[0]);
    used = (int)m[1];
    valid = VF_AFFINE_FLAT;
    if (used >= 8) {
      mu = m[0] / m[1];
#pragma unroll
      for (int k = 0; k < VF_AFFINE_PACKED; ++k) h[k] = 0.0f;
      const float inv_half = 1.0f / VF_AFFINE_HALF(p.patch);
      for (int i = tid; i < n; i += kThreads) {
        if (t[i] < 0.0f) continue;
        float ox, oy, j[8];
        vf_affine_offset(i, p.patch, &ox, &oy);
        vf_affine_jacobian(t[i] - mu, tx[i], ty[i], ox * inv_half, oy * inv_half, j);
        vf_affine_outer(j, h);
      }
      vf_block_sums_scatter<VF_AFFINE_PACKED>(h, red[1], tid);
      vf_affine_add_prior(h, p.shape_prior, prior);
      if (vf_affine_factor(h, l)) valid = VF_AFFINE_USABLE;
    }
  }
  if (tid == 0) {
    vf_affine_slot out;
    memset(&out, 0, sizeof out);
    memcpy(out.shape, identity, sizeof identity);
    out.gain = 1.0f;
    vf_affine_slot_reset_warp(&out, r.x, r.y);
    out.valid = valid;
    if (valid != VF_AFFINE_OUTSIDE) {
      out.used = used;
      out.mu = mu;
    }
    if (valid == VF_AFFINE_USABLE) {
      for (int k = 0; k < VF_AFFINE_PACKED; ++k) out.h[k] = h[k];
      vf_affine_inverse(l, out.inv);
      for (int k = 0; k < 4; ++k) out.prior[k] = prior[k];
    }
    *s = out;
  }
}

// One feature on the block. FUSED: the frame-to-frame result is computed here first, by the first
// warp (vf_lk_warp::vf_warp_feature, lp), and written to results[f] as the tracker's kernel
// writes it; else it is read from that kernel's output. Then the refinement.
template <int K, bool FUSED>
__device__ __forceinline__ void vf_affine_feature(const vf_affine_params& p, const vf_lk_params* lp,
                                                  const vf_track_request* __restrict__ requests,
                                                  vf_track_result* __restrict__ results, int f) {
  __shared__ float win[kWin * kWin];
  __shared__ float h_total[VF_AFFINE_PACKED], inv_sat[VF_AFFINE_PACKED];
  __shared__ float red[2][kWarps * VF_AFFINE_PACKED];
  __shared__ vf_track_result lk_out;
  __shared__ vf_window early;  // FUSED: the window the other warps built meanwhile (w 0: none)
  const int tid = threadIdx.x;
  // Every thread reads the same words, so every exit below is taken by the whole block. Two
  // 16-byte loads, as the tracker's kernel reads a request (it lies in mapped host memory).
  const vf_track_request r = vf_lk_warp::vf_load_request(requests + f);
  if (FUSED && tid < 32) {
    // The other warps go on to read the kept reference meanwhile.
    const vf_track_result o = vf_lk_warp::vf_warp_feature(*lp, r, f, tid);
    if (tid == 0) {
      results[f] = o;
      lk_out = o;
    }
  }
  if (r.slot < 0 || r.slot >= p.slots) return;
  vf_affine_slot* s = p.slot + r.slot;
  const float* t = vf_slot_samples(p, r.slot);
  // A kept reference is read before the frame-to-frame result is waited for (only this kernel
  // writes the slots, and this block alone this slot).
  const int kept = !r.new_template;
  int valid = 0, slot_used = 0;
  float mu = 0.0f;
  vf_thread_ref<K> ref;
  if (kept) {
    valid = s->valid;
    mu = s->mu;
    slot_used = s->used;
    if (valid == VF_AFFINE_USABLE) vf_load_ref<K>(t, p.patch, mu, tid, ref);
  }
  if (FUSED && tid >= 32) {
    // While the first warp tracks, the others build the window at the request's guess, with two
    // more pixels to spare: the tracked position usually lies within them. (The window's values
    // do not depend on where it starts or how it was built, so the results keep their bits.)
    vf_window wd;
    wd.w = 0;
    if (kept && valid == VF_AFFINE_USABLE) {
      vf_affine_state g;
      vf_affine_state_init(&p, s, r.x, r.y, r.guess_x, r.guess_y, &g);
      wd = vf_window_for(p, g, 4);
      if (!vf_window_holds(p, wd, g)) wd.w = 0;
      if (wd.w > 0) vf_block_window(p, wd, win, tid - 32, kThreads - 32);
    }
    if (tid == 32) early = wd;
  }
  vf_track_result out;
  if (FUSED) {
    __syncthreads();
    out = lk_out;
  } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // Launched programmatically behind the frame-to-frame kernel (Hopper): everything above ran
    // while it finished; its results are complete and visible from here on.
    cudaGridDependencySynchronize();
#endif
    out = p.lk_results != nullptr ? p.lk_results[f] : results[f];
  }
  if (r.new_template && out.status != VF_TRACK_INVALID) {
    vf_block_capture(p, r, tid, red);
    __syncthreads();
  }
  if (out.status != VF_TRACK_CONVERGED) return;
  if (!kept) {
    valid = s->valid;
    mu = s->mu;
    slot_used = s->used;
  }
  if (valid != VF_AFFINE_USABLE) {
    if (tid == 0) results[f].status = (vf_track_status)vf_affine_unusable_status(valid);
    return;
  }
  if (!kept) vf_load_ref<K>(t, p.patch, mu, tid, ref);
  if (tid < VF_AFFINE_PACKED) h_total[tid] = 0.0f;
  vf_affine_state st;
  vf_affine_state_init(&p, s, r.x, r.y, out.x, out.y, &st);
  vf_window wd;
  wd.w = 0;
  int have_window = 0;
  if (FUSED && early.w > 0) {
    wd = early;
    have_window = 1;  // rebuilt below unless it holds the tracked patch
  }
  float sums[VF_AFFINE_SUMS];
  int used = 0, converged = 0, any_out = 0;
  float last_step = INFINITY;
  unsigned out_mask = 0u;  // the thread's samples left out (saturated) for the rest of the call
  for (int it = 0; it < p.max_iterations && !converged; ++it) {
    if (!vf_affine_state_inside(&st, p.patch, p.width, p.height)) {
      if (tid == 0) results[f].status = VF_TRACK_OUT_OF_IMAGE;
      return;
    }
    // A window with two pixels to spare each side usually serves every iteration.
    if (!have_window || !vf_window_holds(p, wd, st)) {
      wd = vf_window_for(p, st, 2);
      if (!vf_window_holds(p, wd, st)) wd.w = 0;  // the smoothed sampler in global memory
      __syncthreads();                            // nobody still reads the old window
      if (wd.w > 0) {
        vf_block_window(p, wd, win, tid, kThreads);
        __syncthreads();
      }
      have_window = 1;
    }
    unsigned fresh = 0u;
    used = vf_block_iteration<K>(p, ref, st, wd, win, tid, out_mask, red[it & 1], sums, &fresh);
    ++out.iterations;
    if (used < slot_used / 2) break;  // mostly saturated now: not a match to trust
    if (__syncthreads_or(fresh != 0u)) {
      if (!vf_block_downdate(p, t, s, tid, fresh, red[(it + 1) & 1], h_total, inv_sat)) break;
      out_mask |= fresh;
      any_out = 1;
    }
    // Lane i of each warp takes d[i] (one row of H^-1 a lane, not eight), then every lane all.
    float b[8];
    vf_affine_step_rhs(s, &st, sums, b);
    const float d_lane = vf_affine_step_row(any_out ? inv_sat : s->inv, b, (tid & 31) & 7);
    float d[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) d[i] = __shfl_sync(0xffffffffu, d_lane, i);
    last_step = vf_affine_update(&st, d, p.patch);
    converged = last_step < p.min_update;
  }
  converged |= last_step < VF_AFFINE_SETTLED * p.min_update;
  if (tid != 0) return;
  const float ncc = vf_affine_ncc(sums, used);
  const float residual = used > 0 ? sqrtf(sums[8] / (float)used) : 0.0f;
  vf_affine_finish(&p, s, &st, ncc, converged, residual, &out);
  results[f] = out;
}

template <int K>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    vf_affine_kernel(const VF_GRID_CONSTANT vf_affine_params p,
                     const vf_track_request* __restrict__ requests,
                     vf_track_result* __restrict__ results, int count) {
  if ((int)blockIdx.x < count)
    vf_affine_feature<K, false>(p, nullptr, requests, results, blockIdx.x);
}

template <int K>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    vf_track_refine_kernel(const VF_GRID_CONSTANT vf_lk_params lp,
                           const VF_GRID_CONSTANT vf_affine_params p,
                           const vf_track_request* __restrict__ requests,
                           vf_track_result* __restrict__ results, int count) {
  if ((int)blockIdx.x < count) vf_affine_feature<K, true>(p, &lp, requests, results, blockIdx.x);
}

// A thread's samples live in registers: the kernels are compiled for a few patch ranges.
template <template <int> class Pick>
typename Pick<2>::type vf_pick(const vf_affine_params* params) {
  const int per_thread = (params->patch * params->patch + kThreads - 1) / kThreads;
  return per_thread <= 2   ? Pick<2>::get()
         : per_thread <= 4 ? Pick<4>::get()
         : per_thread <= 6 ? Pick<6>::get()
                           : Pick<8>::get();
}

template <int K>
struct vf_pick_refine {
  typedef void (*type)(const vf_affine_params, const vf_track_request*, vf_track_result*, int);
  static type get() { return vf_affine_kernel<K>; }
};

template <int K>
struct vf_pick_fused {
  typedef void (*type)(const vf_lk_params, const vf_affine_params, const vf_track_request*,
                       vf_track_result*, int);
  static type get() { return vf_track_refine_kernel<K>; }
};

}  // namespace

extern "C" int vf_cuda_affine_refine(const vf_affine_params* params,
                                     const vf_track_request* requests, vf_track_result* results,
                                     int count, void* stream) {
  if (count <= 0) return 0;
  const auto kernel = vf_pick<vf_pick_refine>(params);
#if CUDART_VERSION >= 11080
  // On Hopper the launch may overlap the end of the frame-to-frame kernel (programmatic
  // dependent launch; the kernel waits for its results before reading them). Elsewhere the
  // attribute is ignored and the launch is an ordinary one.
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((unsigned)count);
  cfg.blockDim = dim3(kThreads);
  cfg.stream = (cudaStream_t)stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  int rc = (int)cudaLaunchKernelEx(&cfg, kernel, *params, requests, results, count);
  if (rc != 0) {
    cudaGetLastError();
    return rc;
  }
#else
  kernel<<<count, kThreads, 0, (cudaStream_t)stream>>>(*params, requests, results, count);
#endif
  return VF_CUDA_LAUNCH_STATUS();
}

extern "C" int vf_cuda_track_refine(const vf_lk_params* lk, const vf_affine_params* params,
                                    const vf_track_request* requests, vf_track_result* results,
                                    int count, void* stream) {
  if (count <= 0) return 0;
  const auto kernel = vf_pick<vf_pick_fused>(params);
  kernel<<<count, kThreads, 0, (cudaStream_t)stream>>>(*lk, *params, requests, results, count);
  return VF_CUDA_LAUNCH_STATUS();
}

extern "C" int vf_cuda_track_refine_capacity(const vf_affine_params* params) {
  int device = 0, sms = 0, blocks = 0;
  const auto kernel = vf_pick<vf_pick_fused>(params);
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreads, 0) != cudaSuccess) {
    cudaGetLastError();  // a query's error is not the context's
    return 0;
  }
  return sms * blocks;
}

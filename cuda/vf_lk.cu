// CUDA tracker: one warp per feature, every feature of a call in one launch. Lane l owns the
// patch samples l, l + 32, l + 64, ... (row-major), so a warp reads two 16-pixel rows (or four
// 8-pixel rows) per load: coalesced. Each lane keeps its template samples and gradients in
// registers, accumulates its share of H and of J^T e, and an xor-shuffle butterfly gives every
// lane the same sums bit for bit (both partners add the same two numbers), so all lanes take the
// same branches and run the same iterations. The mathematics is src/vf_tracker_lk.h, shared
// with the CPU reference src/cpu/vf_lk_cpu.c.
#include <cuda_runtime.h>

#include "../src/vf_cuda_lk.h"

namespace {

constexpr int kWarpsPerBlock = 2;
constexpr int kPerLane = (VF_TRACKER_MAX_PATCH * VF_TRACKER_MAX_PATCH + 31) / 32;
constexpr unsigned kFullMask = 0xffffffffu;

template <int N>
__device__ __forceinline__ void vf_warp_sums(float (&v)[N]) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) {
#pragma unroll
    for (int i = 0; i < N; ++i) v[i] += __shfl_xor_sync(kFullMask, v[i], m);
  }
}

// This lane's samples of one level's patch: template, gradients, where they sit, and which
// are inside the patch and unsaturated (bit j).
struct vf_lane_patch {
  int size, n;
  unsigned use;
  int row[kPerLane], col[kPerLane];
  float t[kPerLane], tx[kPerLane], ty[kPerLane];
};

__device__ __forceinline__ void vf_lane_layout(int size, int lane, vf_lane_patch& tp) {
  tp.size = size;
  tp.n = size * size;
#pragma unroll
  for (int j = 0; j < kPerLane; ++j) {
    const int i = lane + 32 * j;
    tp.row[j] = i / size;
    tp.col[j] = i - tp.row[j] * size;
  }
}

// Samples the level-k template of the previous image at (cx, cy); false (the same on every
// lane) when the patch is not inside the level.
__device__ __forceinline__ bool vf_lane_extract(const vf_lk_params* p, float cx, float cy, int k,
                                                vf_lane_patch& tp) {
  if (!vf_lk_patch_inside(cx, cy, tp.size, 1, p->width[k], p->height[k])) return false;
  const vf_lk_sampler s = vf_lk_sampler_at(cx, cy, tp.size);
  const size_t stride = p->prev_stride[k];
  const uint8_t* base = p->prev[k] + (size_t)s.y0 * stride + s.x0;
#pragma unroll
  for (int j = 0; j < kPerLane; ++j) {
    tp.t[j] = tp.tx[j] = tp.ty[j] = 0.0f;
    if (tp.row[j] < tp.size) {
      const uint8_t* px = base + (size_t)tp.row[j] * stride + tp.col[j];
      vf_lk_template_pixel(px, stride, &s, &tp.t[j], &tp.tx[j], &tp.ty[j]);
    }
  }
  return true;
}

__device__ __forceinline__ float* vf_slot_level(const vf_lk_params* p, int slot, int k) {
  return p->templates + (size_t)slot * p->slot_floats + p->level_offset[k];
}

// Takes the template of every level into the request's slot; returns the slot's level mask.
__device__ __forceinline__ uint32_t vf_warp_capture(const vf_lk_params* p,
                                                    const vf_track_request& r, int lane) {
  uint32_t mask = VF_LK_SLOT_CAPTURED;
  for (int k = 0; k < p->levels; ++k) {
    vf_lane_patch tp;
    vf_lane_layout(p->patch[k], lane, tp);
    if (!vf_lane_extract(p, vf_lk_to_level(r.x, k), vf_lk_to_level(r.y, k), k, tp)) continue;
    float* slot = vf_slot_level(p, r.slot, k);
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      const int i = lane + 32 * j;
      if (i < tp.n) {
        slot[i] = tp.t[j];
        slot[tp.n + i] = tp.tx[j];
        slot[2 * tp.n + i] = tp.ty[j];
      }
    }
    mask |= 1u << k;
  }
  if (lane == 0) p->slot_levels[r.slot] = mask;
  return mask;
}

__device__ __forceinline__ void vf_lane_load(const vf_lk_params* p, int slot, int k, int lane,
                                             vf_lane_patch& tp) {
  const float* src = vf_slot_level(p, slot, k);
#pragma unroll
  for (int j = 0; j < kPerLane; ++j) {
    const int i = lane + 32 * j;
    const bool in = i < tp.n;
    tp.t[j] = in ? src[i] : 0.0f;
    tp.tx[j] = in ? src[tp.n + i] : 0.0f;
    tp.ty[j] = in ? src[2 * tp.n + i] : 0.0f;
  }
}

// The iterations of level k from st (template centred by mu, H and its factor l); a
// VF_LK_LEVEL_* outcome.
__device__ __forceinline__ int vf_warp_iterate(const vf_lk_params* p, int k,
                                               const vf_lane_patch& tp, float mu, const float h[10],
                                               const float l[10], vf_lk_state& st, float& residual,
                                               int& iterations) {
  const vf_lk_state start = st;
  const size_t stride = p->cur_stride[k];
  const uint8_t* img = p->cur[k];
  const int w = p->width[k], hgt = p->height[k];
  for (int it = 0; it < p->max_iterations; ++it) {
    if (!vf_lk_patch_inside(st.px, st.py, tp.size, 0, w, hgt)) {
      st = start;
      return VF_LK_LEVEL_OUT;
    }
    const vf_lk_sampler s = vf_lk_sampler_at(st.px, st.py, tp.size);
    const float inv_a = 1.0f / st.a, c = st.c;
    const uint8_t* base = img + (size_t)s.y0 * stride + s.x0;
    float sums[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};  // + the count of samples used
    unsigned saturated = 0;
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      if ((tp.use >> j) & 1u) {
        const uint8_t* px = base + (size_t)tp.row[j] * stride + tp.col[j];
        const float v = vf_lk_bilinear(px, stride, &s), t = tp.t[j] - mu;
        if (vf_lk_unsaturated(v)) {
          const float e = (v - c) * inv_a - t;
          sums[0] += tp.tx[j] * e;
          sums[1] += tp.ty[j] * e;
          sums[2] += t * e;
          sums[3] += e;
          sums[4] += e * e;
          sums[5] += 1.0f;
        } else {
          saturated |= 1u << j;
        }
      }
    }
    vf_warp_sums(sums);
    ++iterations;
    // Samples saturated in the current image leave H too (rare: refactor only then).
    float hf[10], lf[10];
#pragma unroll
    for (int i = 0; i < 10; ++i) {
      hf[i] = h[i];
      lf[i] = l[i];
    }
    if (__any_sync(kFullMask, saturated != 0)) {
      float h_sat[10] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
      for (int j = 0; j < kPerLane; ++j) {
        if ((saturated >> j) & 1u) {
          float terms[10];
          vf_lk_hessian_terms(tp.tx[j], tp.ty[j], tp.t[j] - mu, terms);
#pragma unroll
          for (int i = 0; i < 10; ++i) h_sat[i] += terms[i];
        }
      }
      vf_warp_sums(h_sat);
#pragma unroll
      for (int i = 0; i < 10; ++i) hf[i] = h[i] - h_sat[i];
      if (!vf_lk_factor(hf, p->param_mask, lf)) return VF_LK_LEVEL_FLAT;
    }
    const int outcome = vf_lk_iterate(hf, lf, p, sums, (int)sums[5], &st, &residual);
    if (outcome != 0) return outcome;
  }
  return VF_LK_LEVEL_DONE;
}

// Level k: which samples to use, centring, H and its factor, then the iterations; keeps bias in
// step with st.
__device__ __forceinline__ int vf_warp_level(const vf_lk_params* p, int k, vf_lane_patch& tp,
                                             vf_lk_state& st, float& bias, float& residual,
                                             int& iterations) {
  float moments[2] = {0.0f, 0.0f};  // sum t, count
  tp.use = 0;
#pragma unroll
  for (int j = 0; j < kPerLane; ++j) {
    if (tp.row[j] < tp.size && vf_lk_unsaturated(tp.t[j])) {
      tp.use |= 1u << j;
      moments[0] += tp.t[j];
      moments[1] += 1.0f;
    }
  }
  vf_warp_sums(moments);
  if (moments[1] == 0.0f) return VF_LK_LEVEL_FLAT;
  const float mu = (p->param_mask & 8) ? moments[0] / moments[1] : 0.0f;
  float hs[10] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int j = 0; j < kPerLane; ++j) {
    if ((tp.use >> j) & 1u) {
      float terms[10];
      vf_lk_hessian_terms(tp.tx[j], tp.ty[j], tp.t[j] - mu, terms);
#pragma unroll
      for (int i = 0; i < 10; ++i) hs[i] += terms[i];
    }
  }
  vf_warp_sums(hs);
  float l[10];
  if (!vf_lk_factor(hs, p->param_mask, l)) return VF_LK_LEVEL_FLAT;
  st.c = bias + st.a * mu;
  st.dx = st.dy = 0.0f;
  st.level = k;
  const int outcome = vf_warp_iterate(p, k, tp, mu, hs, l, st, residual, iterations);
  bias = st.c - st.a * mu;
  return outcome;
}

__device__ __forceinline__ vf_track_result vf_warp_track(const vf_lk_params* p,
                                                         const vf_track_request& r, int src,
                                                         uint32_t kept, int lane) {
  vf_track_result out = vf_lk_result_init(&r);
  const int top = p->levels - 1;
  vf_lk_state st;
  st.px = vf_lk_to_level(r.guess_x, top);
  st.py = vf_lk_to_level(r.guess_y, top);
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
    vf_lane_patch tp;
    vf_lane_layout(p->patch[k], lane, tp);
    // Templates from the image go on the sub-pixel phase that cancels the interpolation bias
    // (vf_lk_phase_shift; kept templates have theirs fixed).
    bool have = false;
    float phase_x = 0.0f, phase_y = 0.0f;
    if (src == 0) {
      const float cx = vf_lk_to_level(r.x, k), cy = vf_lk_to_level(r.y, k);
      phase_x = vf_lk_phase_shift(cx, st.px);
      phase_y = vf_lk_phase_shift(cy, st.py);
      have = vf_lane_extract(p, cx + phase_x, cy + phase_y, k, tp);
    } else if ((kept >> k) & 1u) {
      vf_lane_load(p, r.slot, k, lane, tp);
      have = true;
    }
    int outcome = VF_LK_LEVEL_NO_TEMPLATE;
    if (have) {
      st.px += phase_x;
      st.py += phase_y;
      outcome = vf_warp_level(p, k, tp, st, bias, residual, out.iterations);
      st.px -= phase_x;
      st.py -= phase_y;
    }
    status = vf_lk_after_level(outcome, k, residual, p);
  }
  ++k;  // the level the loop stopped on
  out.x = vf_lk_to_level0(st.px, k);
  out.y = vf_lk_to_level0(st.py, k);
  out.gain = st.a;
  out.bias = bias;
  out.residual = residual;
  out.status = vf_lk_final_status(status, p, &r, out.x, out.y);
  return out;
}

__global__ void __launch_bounds__(32 * kWarpsPerBlock)
    vf_lk_kernel(const vf_lk_params* __restrict__ p, const vf_track_request* __restrict__ requests,
                 vf_track_result* __restrict__ results, int count) {
  const int lane = threadIdx.x & 31;
  const int f = blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5);
  if (f >= count) return;  // whole warps only
  const vf_track_request r = requests[f];
  vf_track_result out = vf_lk_result_init(&r);
  if (vf_lk_request_valid(&r, p)) {
    const int src = vf_lk_template_source(&r, p);
    uint32_t kept = 0;
    if (src == 1) kept = vf_warp_capture(p, r, lane);
    if (src == 2) kept = p->slot_levels[r.slot];
    if (src == 0 || (kept & VF_LK_SLOT_CAPTURED)) out = vf_warp_track(p, r, src, kept, lane);
  }
  if (lane == 0) results[f] = out;
}

}  // namespace

extern "C" int vf_cuda_lk_track(const vf_lk_params* params, const vf_track_request* requests,
                                vf_track_result* results, int count, void* stream) {
  if (count <= 0) return 0;
  const int blocks = (count + kWarpsPerBlock - 1) / kWarpsPerBlock;
  vf_lk_kernel<<<blocks, 32 * kWarpsPerBlock, 0, (cudaStream_t)stream>>>(params, requests, results,
                                                                         count);
  return (int)cudaGetLastError();
}

extern "C" int vf_cuda_lk_host_alloc(void** ptr, size_t bytes) {
  return (int)cudaMallocHost(ptr, bytes);
}

extern "C" int vf_cuda_lk_host_free(void* ptr) { return (int)cudaFreeHost(ptr); }

// SPDX-License-Identifier: BSD-3-Clause
// Runs the CUDA kernel's code on the CPU: 32 threads a warp in lockstep at each shuffle/vote
// (run.sh).
#include <pthread.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#define __CUDACC__ 1
#define __host__
#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __restrict__
struct dim3h {
  unsigned x;
};
static thread_local dim3h threadIdx;
static dim3h blockIdx, blockDim;
static pthread_barrier_t bar;
static float slot[32];
static int islot[32];
static unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  uint8_t b[8];
  for (int i = 0; i < 4; ++i) {
    b[i] = (x >> (8 * i)) & 255;
    b[4 + i] = (y >> (8 * i)) & 255;
  }
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= (unsigned)b[(s >> (4 * i)) & 7] << (8 * i);
  return r;
}
static unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned sh) {
  uint64_t v = ((uint64_t)hi << 32) | lo;
  return (unsigned)(v >> (sh & 31));
}
static float __int_as_float(unsigned x) {
  float f;
  memcpy(&f, &x, 4);
  return f;
}
static unsigned __ldg(const unsigned* p) { return *p; }
static float __shfl_xor_sync(unsigned, float v, int m) {
  const int l = threadIdx.x & 31;
  slot[l] = v;
  pthread_barrier_wait(&bar);
  const float r = slot[l ^ m];
  pthread_barrier_wait(&bar);
  return r;
}
static float __shfl_sync(unsigned, float v, int src) {
  const int l = threadIdx.x & 31;
  slot[l] = v;
  pthread_barrier_wait(&bar);
  const float r = slot[src & 31];
  pthread_barrier_wait(&bar);
  return r;
}
static int __any_sync(unsigned, int v) {
  const int l = threadIdx.x & 31;
  islot[l] = v != 0;
  pthread_barrier_wait(&bar);
  int any = 0;
  for (int i = 0; i < 32; ++i) any |= islot[i];
  pthread_barrier_wait(&bar);
  return any;
}
using std::max;
using std::min;
#include "lk_warp.inc"  // cuda/features/vf_lk.cu less the launch code (run.sh makes it)
extern "C" {
#include "cpu/vf_lk_cpu.h"
}
#include "viofront/viofront.h"

static vf_lk_params P;
static const vf_track_request* REQ;
static vf_track_result* RES;
static int COUNT;
static void* lane_main(void* arg) {
  threadIdx.x = (unsigned)(uintptr_t)arg;
  for (int f = 0; f < COUNT; ++f) {
    if (threadIdx.x == 0) blockIdx.x = f;
    pthread_barrier_wait(&bar);
    vf_lk_kernel(P, REQ, RES, COUNT);
    pthread_barrier_wait(&bar);
  }
  return NULL;
}

extern "C" int feat_features(const vf_image* im, int max, float* xy);
extern "C" vf_status feat_warp(const vf_image* in, vf_image* out);

int main(int argc, char** argv) {
  const int n_want = argc > 1 ? atoi(argv[1]) : 200;
  vf_image img0 = {0}, img1 = {0};
  if (vf_png_read_gray8("/work/shared/data/images/birds_752x480.png", &img0) != VF_OK) return 1;
  feat_warp(&img0, &img1);
  vf_context_config cc = vf_context_config_default();
  cc.backend = VF_BACKEND_CPU;
  cc.cpu_threads = 1;
  vf_context* ctx;
  vf_context_create(&cc, &ctx);
  const vf_pyramid_config pc = {img0.width, img0.height, 4};
  vf_pyramid *p0, *p1;
  vf_pyramid_create(ctx, &pc, &p0);
  vf_pyramid_create(ctx, &pc, &p1);
  vf_pyramid_build(p0, &img0);
  vf_pyramid_build(p1, &img1);
  memset(&P, 0, sizeof P);
  P.levels = 4;
  for (int k = 0; k < 4; ++k) {
    vf_image a, b;
    vf_pyramid_level(p0, k, &a);
    vf_pyramid_level(p1, k, &b);
    P.patch[k] = k < 2 ? 16 : 8;
    // VF_EMU_PATCHES="12,11,10,8": other patch sizes per level (every run width of the kernel).
    if (const char* e = getenv("VF_EMU_PATCHES")) {
      for (int i = 0; i < k && e != NULL; ++i) e = strchr(e, ',') ? strchr(e, ',') + 1 : NULL;
      if (e != NULL) P.patch[k] = atoi(e);
    }
    P.width[k] = a.width;
    P.height[k] = a.height;
    P.prev[k] = (const uint8_t*)a.data;
    P.cur[k] = (const uint8_t*)b.data;
    P.prev_stride[k] = a.stride_bytes;
    P.cur_stride[k] = b.stride_bytes;
  }
  P.max_iterations = 16;
  P.coarse_iterations = 3;
  P.min_update = 0.01f;
  P.min_update_sq = 0.01f * 0.01f;
  P.max_residual = 30;
  P.min_gain = 0.3f;
  P.max_gain = 3.0f;
  P.param_mask = 15;
  static float xy[2 * 4000];
  static vf_track_request req[4000];
  static vf_track_result a[4000], b[4000];
  int n = feat_features(&img0, n_want, xy);
  // VF_EMU_MASK: photometric parameters (bits 2 gain, 3 bias); VF_EMU_RANDOM: arbitrary points
  // (weak texture included) instead of corners.
  if (getenv("VF_EMU_MASK") != NULL) P.param_mask = 3 | (atoi(getenv("VF_EMU_MASK")) & 12);
  if (getenv("VF_EMU_RANDOM") != NULL) {
    unsigned seed = 99u;
    for (int i = 0; i < n_want; ++i) {
      seed = seed * 1103515245u + 12345u;
      xy[2 * i] = (float)((seed >> 8) % 100000 / 100000.0 * img0.width);
      seed = seed * 1103515245u + 12345u;
      xy[2 * i + 1] = (float)((seed >> 8) % 100000 / 100000.0 * img0.height);
    }
    n = n_want;
  }
  for (int i = 0; i < n; ++i) req[i] = vf_track_request_make(xy[2 * i], xy[2 * i + 1], -1);
  // odd requests at the end
  const float odd[6][2] = {{-5, 10}, {3, 3}, {750, 50}, {8.5f, 8.5f}, {NAN, 20}, {752, 480}};
  int m = n;
  for (int i = 0; i < 6; ++i) req[m++] = vf_track_request_make(odd[i][0], odd[i][1], -1);
  pthread_barrier_init(&bar, NULL, 32);
  const int fo = argc > 2 ? atoi(argv[2]) : 0;  // first-observation passes
  static float* tpl_cpu;
  static float* tpl_gpu;
  static uint32_t lv_cpu[4100], lv_gpu[4100];
  if (fo) {
    P.first_observation = 1;
    P.slots = m;
    P.slot_floats = 0;
    for (int k = 0; k < 4; ++k) {
      P.level_offset[k] = P.slot_floats;
      P.slot_floats += 3 * P.patch[k] * P.patch[k];
    }
    tpl_cpu = (float*)calloc(m * P.slot_floats, 4);
    tpl_gpu = (float*)calloc(m * P.slot_floats, 4);
    for (int i = 0; i < m; ++i) {
      req[i].slot = i;
      req[i].new_template = 1;
    }
  }
  for (int pass = 0; pass < (fo ? 2 : 1); ++pass) {
    if (pass == 1)
      for (int i = 0; i < m; ++i) req[i].new_template = 0;
    if (fo) {
      P.templates = tpl_cpu;
      P.slot_levels = lv_cpu;
    }
    vf_lk_cpu_track(&P, req, a, m, 1);
    if (fo) {
      P.templates = tpl_gpu;
      P.slot_levels = lv_gpu;
    }
    REQ = req;
    RES = b;
    COUNT = m;
    blockDim.x = 32;
    pthread_t th[32];
    for (int l = 0; l < 32; ++l) pthread_create(&th[l], NULL, lane_main, (void*)(uintptr_t)l);
    for (int l = 0; l < 32; ++l) pthread_join(th[l], NULL);
    if (fo) {
      int diff = 0;
      for (size_t i = 0; i < (size_t)m * P.slot_floats; ++i)
        diff += fabsf(tpl_cpu[i] - tpl_gpu[i]) > 1e-3f;
      for (int i = 0; i < m; ++i) diff += lv_cpu[i] != lv_gpu[i];
      printf("pass %d: template slots differing: %d\n", pass, diff);
    }
    int same = 0, strict = 0, both = 0, it_same = 0;
    double worst = 0, wg = 0, wb = 0;
    for (int i = 0; i < m; ++i) {
      same += a[i].status == b[i].status;
      it_same += a[i].iterations == b[i].iterations;
      if (a[i].status != VF_TRACK_CONVERGED || b[i].status != VF_TRACK_CONVERGED) {
        if (a[i].status != b[i].status)
          printf(" f%d status cpu %d gpu %d it %d/%d\n", i, a[i].status, b[i].status,
                 a[i].iterations, b[i].iterations);
        continue;
      }
      ++both;
      const double dp = hypot(a[i].x - b[i].x, a[i].y - b[i].y), dg = fabs(a[i].gain - b[i].gain),
                   db = fabs(a[i].bias - b[i].bias);
      worst = fmax(worst, dp);
      wg = fmax(wg, dg);
      wb = fmax(wb, db);
      strict += dp <= 0.01 && dg <= 1e-3 && db <= 0.25;
      if (fabs(a[i].residual - b[i].residual) > 0.01 * a[i].residual + 1e-3)
        printf(" f%d residual %g %g\n", i, a[i].residual, b[i].residual);
    }
    printf(
        "n=%d same status %d, same iterations %d, both converged %d, strict %d, worst dp %.6f "
        "dgain %.6f dbias %.4f\n",
        m, same, it_same, both, strict, worst, wg, wb);
    for (int i = n; i < m; ++i)
      printf(" odd %d: cpu st %d (%g,%g) gpu st %d (%g,%g)\n", i - n, a[i].status, a[i].x, a[i].y,
             b[i].status, b[i].x, b[i].y);
  }
  return 0;
}

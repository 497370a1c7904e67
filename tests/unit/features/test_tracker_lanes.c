// SPDX-License-Identifier: BSD-3-Clause
/* The CPU tracker's 8-lane patch loops (AVX2, src/core/vf_simd8.h) against the 4-lane ones
 * (SSE2) bit for bit: vf_lk_cpu_resample8 / 4 on random bytes, every patch size, window widths
 * with and without the padding lanes, rows that end inside the 8-lane columns (the 4-lane tail
 * reads them), sub-pixel weights of every kind; vf_lk_patch_sums8 / 4 on random templates, use
 * masks and current samples with saturated ones (the flag, and the sums of the rest);
 * vf_lk_patch_prepare_lanes (use masks, centring, H) on templates from the image and from a
 * slot, with saturated samples; the
 * reference refinement (vf_affine_cpu_refine, two patch rows in 8 lanes) over two frames of a
 * texture under zoom, rotation, shift and a gain that saturates part of it, odd and even row
 * counts, patches with and without a last column, features whose window meets the border (the
 * sampler, in 4 lanes either way): results and slots. Also that each 4-lane resample equals
 * vf_lk_bilinear sample by sample. Skips where the build has no 8-lane path or the CPU no AVX2. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/vf_simd8.h"
#include "features/cpu/vf_lk_cpu_patch.h"
#include "features/kernels/vf_affine_cpu.h"
#include "vf_test.h"

#ifdef VF_SIMD8
enum { IMG_W = 64, IMG_H = 64, OUT_MAX = (VF_LK_ROW_MAX + 4) * (VF_LK_ROW_MAX + 2) };

static float rand_unit(unsigned* seed) { return (float)(vf_test_rand(seed) % 10007) / 10007.0f; }

/* The two resamples of one window, compared with each other and with the scalar rule; the
 * bytes read end at `bytes` a row (the window placed against the image's right border, so that
 * a read past them would leave the image... and ASan's guard). */
static void check_resample(const uint8_t* img, unsigned* seed, int rows, int cols, int bytes) {
  _Alignas(16) float a[OUT_MAX], b[OUT_MAX];
  const int out_stride = (cols + 3) & ~3;
  const float x = 2.0f + (float)(vf_test_rand(seed) % 20) + rand_unit(seed);
  const float y = 2.0f + (float)(vf_test_rand(seed) % 20) + rand_unit(seed);
  const vf_lk_sampler s = vf_lk_sampler_at(x, y, 1);
  /* The last byte of each row read is the image row's last. */
  const uint8_t* p = img + (size_t)s.y0 * IMG_W + (size_t)(IMG_W - bytes);
  memset(a, 0xAB, sizeof a);
  memset(b, 0xAB, sizeof b);
  vf_lk_cpu_resample4(p, IMG_W, &s, rows, cols, bytes, a, out_stride);
  vf_lk_cpu_resample8(p, IMG_W, &s, rows, cols, bytes, b, out_stride);
  int same = 1, rule = 1;
  for (int r = 0; r < rows; ++r) {
    same &= memcmp(a + r * out_stride, b + r * out_stride, sizeof(float) * (size_t)cols) == 0;
    for (int c = 0; c < cols && c + 1 < bytes; ++c) {
      const float want = vf_lk_bilinear(p + (size_t)r * IMG_W + (size_t)c, IMG_W, &s);
      rule &= memcmp(&want, &a[r * out_stride + c], sizeof want) == 0;
    }
  }
  if (!same || !rule)
    fprintf(stderr, "resample rows %d cols %d bytes %d: 8 lanes %s, rule %s\n", rows, cols, bytes,
            same ? "same" : "differ", rule ? "same" : "differs");
  CHECK(same);
  CHECK(rule);
}

static void check_sums(unsigned* seed, int size, int saturating) {
  static vf_lk_patch tp;
  _Alignas(16) float cur[VF_LK_AREA_MAX];
  vf_lk_patch_init(&tp, size);
  const int n = size * tp.width;
  for (int i = 0; i < n; ++i) {
    const int inside = i % tp.width < size;
    const int used = inside && vf_test_rand(seed) % 10 != 0;
    tp.use[i] = used ? ~0u : 0u;
    tp.t[i] = used ? 200.0f * rand_unit(seed) - 100.0f : 0.0f;
    tp.tx[i] = used ? 60.0f * rand_unit(seed) - 30.0f : 0.0f;
    tp.ty[i] = used ? 60.0f * rand_unit(seed) - 30.0f : 0.0f;
    cur[i] = 1.0f + 253.0f * rand_unit(seed);
    if (saturating && vf_test_rand(seed) % 17 == 0) cur[i] = vf_test_rand(seed) % 2 ? 0.0f : 255.0f;
  }
  const float c = 10.0f * rand_unit(seed), inv_a = 0.8f + 0.4f * rand_unit(seed);
  double s4[5], s8[5];
  const int sat4 = vf_lk_patch_sums4(&tp, cur, c, inv_a, s4);
  const int sat8 = vf_lk_patch_sums8(&tp, cur, c, inv_a, s8);
  const int same = sat4 == sat8 && memcmp(s4, s8, sizeof s4) == 0;
  if (!same) fprintf(stderr, "sums size %d saturating %d differ\n", size, saturating);
  CHECK(same);
}

/* A template of every size from the image (windowed) and from a slot, prepared in both widths;
 * img has saturated bytes. */
static void check_prepare(const uint8_t* img, unsigned* seed, int size) {
  static vf_lk_patch a, b;
  static float slot[3 * VF_LK_AREA_MAX];
  const float x = 12.0f + (float)(vf_test_rand(seed) % 30) + rand_unit(seed);
  const float y = 12.0f + (float)(vf_test_rand(seed) % 30) + rand_unit(seed);
  const vf_lk_sampler s = vf_lk_sampler_at(x, y, size);
  for (int from_slot = 0; from_slot < 2; ++from_slot) {
    vf_lk_patch_init(&a, size);
    vf_lk_patch_extract(&a, img, IMG_W, &s);
    if (from_slot) {
      vf_lk_patch_store(&a, slot);
      vf_lk_patch_init(&a, size);
      vf_lk_patch_load(&a, slot);
    }
    b = a;
    const int center = (int)(vf_test_rand(seed) % 2);
    const int na = vf_lk_patch_prepare_lanes(&a, center, 0);
    const int nb = vf_lk_patch_prepare_lanes(&b, center, 1);
    const int same = na == nb && memcmp(&a, &b, sizeof a) == 0;
    if (!same)
      fprintf(stderr, "prepare size %d from_slot %d: %d / %d used\n", size, from_slot, na, nb);
    CHECK(same);
  }
}

enum { RW = 200, RH = 150, RF = 48 };

/* A smooth texture with fine detail; cur: prev under zoom z, rotation th, shift (dx, dy), gain
 * and bias, clipped to the 8-bit range. */
static double texture(double x, double y) {
  return 128.0 + 50.0 * sin(0.21 * x + 0.6 * sin(0.07 * y)) + 35.0 * cos(0.17 * y - 0.09 * x) +
         20.0 * sin(0.45 * x + 0.38 * y);
}

static void render(uint8_t* img, double z, double th, double dx, double dy, double gain,
                   double bias) {
  const double cx = RW / 2.0, cy = RH / 2.0, c = cos(th) / z, s = sin(th) / z;
  for (int y = 0; y < RH; ++y) {
    for (int x = 0; x < RW; ++x) {
      const double u = x - cx - dx, v = y - cy - dy;
      const double v0 = gain * texture(cx + c * u + s * v, cy - s * u + c * v) + bias;
      img[y * RW + x] = (uint8_t)(v0 < 0 ? 0 : v0 > 255 ? 255 : lround(v0));
    }
  }
}

typedef struct ref_run {
  vf_affine_params p;
  vf_affine_slot slot[RF];
  float samples[RF * 3 * VF_TRACKER_MAX_REF_PATCH * VF_TRACKER_MAX_REF_PATCH];
} ref_run;

static void ref_params(ref_run* run, int patch, const uint8_t* prev, const uint8_t* cur) {
  memset(&run->p, 0, sizeof run->p);
  vf_affine_params* p = &run->p;
  p->enabled = 1;
  p->patch = patch;
  p->max_iterations = 10;
  p->min_update = 0.01f;
  p->min_ncc = 0.0f;
  p->max_scale = 1.25f;
  p->max_shift = 2.0f;
  p->shape_prior = 0.0f;
  p->min_gain = 0.5f;
  p->max_gain = 2.0f;
  p->width = RW;
  p->height = RH;
  p->prev_stride = p->cur_stride = RW;
  p->prev = prev;
  p->cur = cur;
  p->slots = RF;
  p->slot = run->slot;
  p->samples = run->samples;
}

/* Two frames (a new reference, then the slot's warp carried) of RF features, 4 and 8 lanes. */
static void check_refine(int patch, double gain, unsigned* seed) {
  static uint8_t img[3][RW * RH];
  static ref_run run[2];
  render(img[0], 1.0, 0.0, 0.0, 0.0, 1.0, 0.0);
  render(img[1], 1.02, 0.02, 0.8, -0.5, gain, 4.0);
  render(img[2], 1.05, 0.05, 1.7, -1.1, gain * 1.05, 6.0);
  int equal = 1, refined = 0;
  for (int frame = 1; frame <= 2; ++frame) {
    for (int k = 0; k < 2; ++k) ref_params(&run[k], patch, img[0], img[frame]);
    for (int i = 0; i < RF; ++i) {
      vf_track_request r;
      memset(&r, 0, sizeof r);
      /* A grid, the last features close to the borders (no window there). */
      r.x = i < RF - 4 ? 20.0f + (float)(i % 11) * 16.0f + 0.25f * (float)(i % 3)
                       : (i % 2 ? 12.5f : (float)RW - 13.5f);
      r.y = i < RF - 4 ? 20.0f + (float)(i / 11) * 26.0f + 0.3f * (float)(i % 5)
                       : (i % 4 < 2 ? 12.0f : (float)RH - 13.0f);
      r.gain = 1.0f;
      r.slot = i;
      r.new_template = frame == 1;
      /* Where the frame-to-frame step would have put it: the warp's position, a little off. */
      const double cx = RW / 2.0, cy = RH / 2.0, z = frame == 1 ? 1.02 : 1.05;
      const double th = frame == 1 ? 0.02 : 0.05, dx = frame == 1 ? 0.8 : 1.7;
      const double dy = frame == 1 ? -0.5 : -1.1, u = r.x - cx, v = r.y - cy;
      const float tx = (float)(cx + dx + z * (cos(th) * u - sin(th) * v));
      const float ty = (float)(cy + dy + z * (sin(th) * u + cos(th) * v));
      const float x0 = tx + 0.2f * rand_unit(seed) - 0.1f, y0 = ty + 0.2f * rand_unit(seed) - 0.1f;
      vf_track_result out[2];
      for (int k = 0; k < 2; ++k) {
        memset(&out[k], 0, sizeof out[k]);
        out[k].status = VF_TRACK_CONVERGED;
        out[k].x = x0;
        out[k].y = y0;
        out[k].gain = 1.0f;
        vf_affine_cpu_refine(&run[k].p, &r, &out[k], k);
      }
      const int same = memcmp(&out[0], &out[1], sizeof out[0]) == 0 &&
                       memcmp(&run[0].slot[i], &run[1].slot[i], sizeof run[0].slot[i]) == 0;
      if (!same && equal)
        fprintf(stderr, "feature %d frame %d: x %.9g %.9g y %.9g %.9g it %d %d st %d %d\n", i,
                frame, out[0].x, out[1].x, out[0].y, out[1].y, out[0].iterations, out[1].iterations,
                out[0].status, out[1].status);
      equal &= same;
      refined += (out[0].flags & VF_TRACK_REFINED) != 0;
    }
  }
  printf("refinement, patch %d, gain %.2f: %d of %d refined, 8 lanes %s\n", patch, gain, refined,
         2 * RF, equal ? "equal" : "differ");
  CHECK(equal);
  CHECK(refined > RF);
}

#endif

int main(void) {
#ifndef VF_SIMD8
  VF_TEST_SKIP("this build has no 8-lane path (not x86-64, VF_SIMD_PORTABLE or VF_SIMD_AVX2=OFF)");
#else
  if (!vf_simd8_available()) VF_TEST_SKIP("this CPU has no AVX2");
  static uint8_t img[IMG_W * IMG_H];
  unsigned seed = 12345u;
  /* Random bytes, one in 12 saturated. */
  for (int i = 0; i < IMG_W * IMG_H; ++i) {
    img[i] = (uint8_t)vf_test_rand(&seed);
    if (vf_test_rand(&seed) % 12 == 0) img[i] = vf_test_rand(&seed) % 2 ? 255 : 0;
  }
  int resamples = 0, sums = 0, prepares = 0;
  for (int size = 4; size <= VF_TRACKER_MAX_PATCH; ++size) {
    const int w = (size + 3) & ~3;
    for (int k = 0; k < 20; ++k) {
      /* As the tracker calls it: iterations (rows n, cols width, bytes n + 1) and templates
       * (rows n + 2, cols width + 2, bytes n + 3); then rows cut shorter than the columns. */
      check_resample(img, &seed, size, w, size + 1);
      check_resample(img, &seed, size + 2, w + 2, size + 3);
      check_resample(img, &seed, size, w, 1 + (int)(vf_test_rand(&seed) % (unsigned)(w + 1)));
      resamples += 3;
      check_sums(&seed, size, 0);
      check_sums(&seed, size, 1);
      sums += 2;
      check_prepare(img, &seed, size);
      prepares += 2;
    }
  }
  printf("resamples %d, sums %d, templates %d: 8 lanes equal 4 lanes bit for bit\n", resamples,
         sums, prepares);
  /* 21: the default (a last column of its own); 15: none; 31: the largest; gains that leave the
   * image unsaturated and that saturate its bright parts. */
  const int patches[] = {21, 15, 17, 31, 9};
  for (int k = 0; k < 5; ++k) {
    check_refine(patches[k], 1.0, &seed);
    check_refine(patches[k], 1.35, &seed);
  }
#endif
  VF_TEST_END("test_tracker_lanes");
}

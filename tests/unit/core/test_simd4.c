// SPDX-License-Identifier: BSD-3-Clause
/* src/cpu/vf_simd4.h, whichever path this build takes (SSE2, NEON or plain C): every operation
 * against a scalar reference written here, bit for bit, on random values and on the awkward ones
 * (signed zeros, denormals, infinities, NaN, values near the truncation limits). The same
 * references on every ISA make SSE2 == NEON == plain C. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/vf_simd4.h"
#include "vf_test.h"

#define N_VALUES 64

static uint32_t bits(float x) {
  uint32_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}
static uint64_t bits64(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

/* 4 lanes stored, compared bit for bit with the expected floats. */
static int same4(vf_f4 v, const float want[4]) {
  _Alignas(16) float got[4];
  vf_f4_store(got, v);
  int ok = 1;
  for (int i = 0; i < 4; ++i) ok &= bits(got[i]) == bits(want[i]);
  return ok;
}
static int same_mask(vf_m4 m, const int want[4]) {
  _Alignas(16) uint32_t got[4];
  vf_m4_store(got, m);
  int ok = 1;
  for (int i = 0; i < 4; ++i) ok &= got[i] == (want[i] ? 0xffffffffu : 0u);
  return ok;
}

static float pick(unsigned* seed, int i) {
  static const float special[] = {0.0f,          -0.0f,          1e-40f,      -1e-40f,
                                  INFINITY,      -INFINITY,      1.0f,        255.0f,
                                  2147483520.0f, -2147483520.0f, 0.49999997f, -1.5f};
  const int ns = (int)(sizeof special / sizeof special[0]);
  if (i < ns) return special[i];
  const uint32_t r = vf_test_rand(seed);
  return ((float)(r % 200001) - 100000.0f) / (float)(1 + r % 97);
}

int main(void) {
  unsigned seed = 7u;
  _Alignas(16) float v[N_VALUES];
  for (int i = 0; i < N_VALUES; ++i) v[i] = pick(&seed, i);
  int bad_arith = 0, bad_conv = 0, bad_mask = 0, bad_sum = 0, bad_gather = 0;
  for (int k = 0; k + 8 <= N_VALUES; k += 4) {
    const float* a = v + k;
    const float* b = v + k + 4;
    const vf_f4 fa = vf_f4_load(a), fb = vf_f4_loadu(b);
    float s[4], d[4], p[4], z[4];
    for (int i = 0; i < 4; ++i) {
      s[i] = a[i] + b[i];
      d[i] = a[i] - b[i];
      p[i] = a[i] * b[i];
      z[i] = 0.0f;
    }
    /* A product then a sum: no fused multiply-add may make it one rounding. */
    float fm[4];
    for (int i = 0; i < 4; ++i) {
      volatile float prod = a[i] * b[i];
      fm[i] = prod + a[i];
    }
    bad_arith += !same4(vf_f4_add(fa, fb), s) + !same4(vf_f4_sub(fa, fb), d) +
                 !same4(vf_f4_mul(fa, fb), p) + !same4(vf_f4_zero(), z) +
                 !same4(vf_f4_add(vf_f4_mul(fa, fb), fa), fm);
    float one[4] = {a[1], a[1], a[1], a[1]};
    bad_arith += !same4(vf_f4_set1(a[1]), one);

    /* Masks: in_range and at_least (NaN is out), select, logic, bits. */
    const float lo = -50.0f, hi = 300.0f;
    int in[4], inb[4], m_and[4], m_or[4], m_andn[4], expect_bits = 0;
    float sel[4];
    for (int i = 0; i < 4; ++i) {
      in[i] = a[i] >= lo && a[i] <= hi;
      inb[i] = b[i] >= lo && b[i] <= hi;
      m_and[i] = in[i] && inb[i];
      m_or[i] = in[i] || inb[i];
      m_andn[i] = in[i] && !inb[i];
      sel[i] = in[i] ? a[i] : 0.0f;
      expect_bits |= in[i] << i;
    }
    const vf_m4 ma = vf_f4_in_range(fa, lo, hi), mb = vf_f4_in_range(fb, lo, hi);
    int at_least[4];
    for (int i = 0; i < 4; ++i) at_least[i] = a[i] >= lo;
    bad_mask += !same_mask(vf_f4_at_least(fa, lo), at_least);
    bad_mask += !same_mask(ma, in) + !same_mask(vf_m4_and(ma, mb), m_and) +
                !same_mask(vf_m4_or(ma, mb), m_or) + !same_mask(vf_m4_and_not(ma, mb), m_andn) +
                !same4(vf_f4_select(ma, fa), sel) + (vf_m4_bits(ma) != expect_bits);
    _Alignas(16) uint32_t raw[4];
    vf_m4_store(raw, ma);
    bad_mask += !same_mask(vf_m4_load(raw), in);

    /* Both coordinates truncated towards zero (either sign) and the index in a 64-wide grid. */
    uint32_t idx[4];
    _Alignas(16) float gx[4], gy[4];
    float tx[4], ty[4];
    for (int i = 0; i < 4; ++i) {
      gx[i] = (float)(vf_test_rand(&seed) % 64000u) * 0.001f - 32.0f;
      gy[i] = (float)(vf_test_rand(&seed) % 64000u) * 0.001f - 32.0f;
      tx[i] = (float)(int32_t)gx[i];
      ty[i] = (float)(int32_t)gy[i];
    }
    vf_f4 tfx, tfy;
    vf_f4_trunc_index(vf_f4_load(gx), vf_f4_load(gy), 6, &tfx, &tfy, idx);
    bad_conv += !same4(tfx, tx) + !same4(tfy, ty);
    for (int i = 0; i < 4; ++i)
      bad_conv += idx[i] != (uint32_t)((int32_t)ty[i] * 64 + (int32_t)tx[i]);

    /* Bytes to floats. */
    const uint32_t w = vf_test_rand(&seed);
    uint8_t bytes[4];
    float fbytes[4];
    for (int i = 0; i < 4; ++i) {
      bytes[i] = (uint8_t)(w >> (8 * i));
      fbytes[i] = (float)bytes[i];
    }
    bad_conv += !same4(vf_f4_from_u32(w), fbytes) + !same4(vf_f4_from_u8(bytes), fbytes);

    /* Neighbouring lanes from one 8-byte load, and from the 8 bytes that end a shorter row. */
    uint8_t row8[16];
    for (int i = 0; i < 16; ++i) row8[i] = (uint8_t)vf_test_rand(&seed);
    vf_f4 at0, at1;
    vf_f4_from_u8_pair(row8, &at0, &at1);
    float want0[4], want1[4];
    for (int i = 0; i < 4; ++i) {
      want0[i] = (float)row8[i];
      want1[i] = (float)row8[i + 1];
    }
    bad_conv += !same4(at0, want0) + !same4(at1, want1);
    for (int avail = 1; avail <= 7; ++avail) {
      vf_f4_from_u8_pair_last(row8 + 8, avail, &at0, &at1);
      for (int i = 0; i < 4; ++i) {
        want0[i] = i < avail ? (float)row8[8 + i] : 0.0f;
        want1[i] = i + 1 < avail ? (float)row8[9 + i] : 0.0f;
      }
      bad_conv += !same4(at0, want0) + !same4(at1, want1);
    }

    /* Double accumulation and the fixed summation order. */
    vf_d4 acc = vf_d4_zero();
    double e[4] = {0, 0, 0, 0};
    for (int r = 0; r < 3; ++r) {
      vf_d4_add_f4(&acc, r == 1 ? fb : fa);
      for (int i = 0; i < 4; ++i) e[i] += (double)(r == 1 ? b[i] : a[i]);
    }
    bad_sum += bits64(vf_d4_sum(acc)) != bits64((e[0] + e[2]) + (e[1] + e[3]));
    /* The same from memory. */
    vf_d4 acc_at = vf_d4_zero();
    for (int r = 0; r < 3; ++r) vf_d4_add_f4_at(&acc_at, r == 1 ? b : a);
    bad_sum += bits64(vf_d4_sum(acc_at)) != bits64(vf_d4_sum(acc));

    /* Gather of neighbouring pairs. */
    uint32_t g[4];
    float glo[4], ghi[4];
    for (int i = 0; i < 4; ++i) {
      g[i] = vf_test_rand(&seed) % (N_VALUES - 1);
      glo[i] = v[g[i]];
      ghi[i] = v[g[i] + 1];
    }
    vf_f4 lo4, hi4;
    vf_f4_gather2(v, g, &lo4, &hi4);
    bad_gather += !same4(lo4, glo) + !same4(hi4, ghi);
  }
  for (int n = 0; n <= 4; ++n) {
    const int want[4] = {0 < n, 1 < n, 2 < n, 3 < n};
    bad_mask += !same_mask(vf_m4_first(n), want);
  }
  const int none[4] = {0, 0, 0, 0};
  bad_mask += !same_mask(vf_m4_none(), none);
  printf(
      "vf_simd4 path: %s; %d value groups; mismatches: arithmetic %d, conversions %d, "
      "masks %d, sums %d, gathers %d\n",
#if defined(__SSE2__) && !defined(VF_SIMD4_PORTABLE)
      "SSE2",
#elif defined(__ARM_NEON) && defined(__aarch64__) && !defined(VF_SIMD4_PORTABLE)
      "NEON",
#else
      "plain C",
#endif
      N_VALUES / 4 - 1, bad_arith, bad_conv, bad_mask, bad_sum, bad_gather);
  CHECK(bad_arith == 0);
  CHECK(bad_conv == 0);
  CHECK(bad_mask == 0);
  CHECK(bad_sum == 0);
  CHECK(bad_gather == 0);
  VF_TEST_END("test_simd4");
}

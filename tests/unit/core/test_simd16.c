// SPDX-License-Identifier: BSD-3-Clause
/* src/core/vf_simd16.h, whichever path this build takes (SSE2, NEON or plain C): every operation
 * against a scalar reference written here, on random bytes and words and on the edge values
 * (0, 1, 127, 128, 255; INT16_MIN, -1, 0, INT16_MAX). The same references on every ISA make
 * SSE2 == NEON == plain C, which the bit-exactness of CPU SGM and of the CPU refinement's window
 * smoothing rests on. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/vf_simd16.h"
#include "core/vf_simd4.h"
#include "vf_test.h"

#define ROUNDS 200

static int same_u8(vf_u8x16 v, const uint8_t want[16]) {
  uint8_t got[16];
  vf_u8x16_store(got, v);
  return memcmp(got, want, sizeof got) == 0;
}
static int same_i16(vf_i16x8 v, const int16_t want[8]) {
  int16_t got[8];
  vf_i16x8_store(got, v);
  return memcmp(got, want, sizeof got) == 0;
}
/* 4 float lanes, bit for bit. */
static int same_f4(vf_f4 v, const float want[4]) {
  _Alignas(16) float got[4];
  vf_f4_store(got, v);
  return memcmp(got, want, sizeof got) == 0;
}

static uint8_t pick8(unsigned* seed, int round, int i) {
  static const uint8_t edge[] = {0, 1, 127, 128, 255};
  if (round < 5) return edge[(round + i) % 5];
  return (uint8_t)vf_test_rand(seed);
}
static int16_t pick16(unsigned* seed, int round, int i) {
  static const int16_t edge[] = {INT16_MIN, -1, 0, 1, INT16_MAX};
  if (round < 5) return edge[(round + i) % 5];
  return (int16_t)(vf_test_rand(seed) & 0xFFFF);
}

static uint8_t min8(uint8_t a, uint8_t b) { return a < b ? a : b; }

int main(void) {
  unsigned seed = 11u;
  int bad_bytes = 0, bad_words = 0, bad_minima = 0, bad_widen = 0;
  for (int round = 0; round < ROUNDS; ++round) {
    uint8_t a[16], b[16], c[16], d[16];
    int16_t x[8], y[8];
    for (int i = 0; i < 16; ++i) {
      a[i] = pick8(&seed, round, i);
      b[i] = pick8(&seed, round, i + 1);
      c[i] = pick8(&seed, round, i + 2);
      d[i] = pick8(&seed, round, i + 3);
    }
    for (int i = 0; i < 8; ++i) {
      x[i] = pick16(&seed, round, i);
      y[i] = pick16(&seed, round, i + 2);
    }
    const vf_u8x16 va = vf_u8x16_load(a), vb = vf_u8x16_load(b);
    const vf_u8x16 vc = vf_u8x16_load(c), vd = vf_u8x16_load(d);
    const vf_i16x8 vx = vf_i16x8_load(x), vy = vf_i16x8_load(y);
    const int n = round % 8, m = (uint8_t)vf_test_rand(&seed);

    /* Byte lanes: arithmetic modulo 256, unsigned minimum, logic, masked shifts. */
    uint8_t e_min[16], e_add[16], e_sub[16], e_and[16], e_xor[16], e_shr[16], e_one[16];
    uint8_t e_or[16], e_adds[16], e_subs[16];
    unsigned e_bits = 0;
    for (int i = 0; i < 16; ++i) {
      e_or[i] = a[i] | b[i];
      e_adds[i] = (uint8_t)(a[i] + b[i] > 255 ? 255 : a[i] + b[i]);
      e_subs[i] = (uint8_t)(a[i] > b[i] ? a[i] - b[i] : 0);
      e_bits |= (c[i] != 0 ? 1u : 0u) << i;
    }
    for (int i = 0; i < 16; ++i) {
      e_min[i] = min8(a[i], b[i]);
      e_add[i] = (uint8_t)(a[i] + b[i]);
      e_sub[i] = (uint8_t)(a[i] - b[i]);
      e_and[i] = a[i] & b[i];
      e_xor[i] = a[i] ^ b[i];
      e_shr[i] = (uint8_t)((a[i] >> n) & m);
      e_one[i] = c[3];
    }
    bad_bytes += !same_u8(vf_u8x16_min(va, vb), e_min) + !same_u8(vf_u8x16_add(va, vb), e_add) +
                 !same_u8(vf_u8x16_sub(va, vb), e_sub) + !same_u8(vf_u8x16_and(va, vb), e_and) +
                 !same_u8(vf_u8x16_xor(va, vb), e_xor) +
                 !same_u8(vf_u8x16_shr_and(va, n, (uint8_t)m), e_shr) +
                 !same_u8(vf_u8x16_set1(c[3]), e_one) + !same_u8(vf_u8x16_or(va, vb), e_or) +
                 !same_u8(vf_u8x16_adds(va, vb), e_adds) + !same_u8(vf_u8x16_subs(va, vb), e_subs) +
                 (vf_u8x16_nonzero_bits(vc) != e_bits);

    /* Minima over lanes: of one vector in every lane, of four interleaved, broadcasts. */
    uint8_t ms[4] = {a[0], b[0], c[0], d[0]}, e_all[16], e_four[16];
    for (int i = 1; i < 16; ++i) {
      ms[0] = min8(ms[0], a[i]);
      ms[1] = min8(ms[1], b[i]);
      ms[2] = min8(ms[2], c[i]);
      ms[3] = min8(ms[3], d[i]);
    }
    for (int i = 0; i < 16; ++i) {
      e_all[i] = ms[0];
      e_four[i] = ms[i % 4];
    }
    const vf_u8x16 four = vf_u8x16_min4(va, vb, vc, vd);
    bad_minima += !same_u8(vf_u8x16_min_all(va), e_all) + !same_u8(four, e_four);
    for (int j = 0; j < 4; ++j) {
      uint8_t e_b[16];
      memset(e_b, ms[j], sizeof e_b);
      bad_minima += !same_u8(vf_u8x16_bcast(four, j), e_b);
    }
    int e_lanes = x[0];
    for (int i = 1; i < 8; ++i) e_lanes = x[i] < e_lanes ? x[i] : e_lanes;
    bad_minima += vf_i16x8_min_lanes(vx) != e_lanes;

    /* Widening and narrowing between bytes and words. */
    int16_t e_lo[8], e_hi[8], small_lo[8], small_hi[8];
    for (int i = 0; i < 8; ++i) {
      e_lo[i] = a[i];
      e_hi[i] = a[8 + i];
      small_lo[i] = (int16_t)(x[i] & 0xFF);
      small_hi[i] = (int16_t)(y[i] & 0xFF);
    }
    uint8_t e_narrow[16];
    for (int i = 0; i < 8; ++i) {
      e_narrow[i] = (uint8_t)small_lo[i];
      e_narrow[8 + i] = (uint8_t)small_hi[i];
    }
    bad_widen +=
        !same_i16(vf_u8x16_widen_lo(va), e_lo) + !same_i16(vf_u8x16_widen_hi(va), e_hi) +
        !same_u8(vf_u8x16_narrow(vf_i16x8_load(small_lo), vf_i16x8_load(small_hi)), e_narrow);
    /* 8 bytes widened straight from memory: the last 8 of a 16-byte buffer, so that the
     * sanitizer build sees a read past them. */
    bad_widen += !same_i16(vf_i16x8_from_u8(a + 8), e_hi);
    /* Words to floats, read as unsigned (INT16_MIN is 32768, -1 is 65535). */
    float e_flo[4], e_fhi[4];
    for (int i = 0; i < 4; ++i) {
      e_flo[i] = (float)(uint16_t)x[i];
      e_fhi[i] = (float)(uint16_t)x[4 + i];
    }
    vf_f4 flo, fhi;
    vf_i16x8_to_f4(vx, &flo, &fhi);
    bad_widen += !same_f4(flo, e_flo) + !same_f4(fhi, e_fhi);

    /* Word lanes: arithmetic modulo 2^16, signed minimum, logic, unsigned shifts, stores. */
    const int s = round % 16;
    int16_t e_wadd[8], e_wmin[8], e_wand[8], e_wor[8], e_shl[8], e_wshr[8], e_set[8];
    for (int i = 0; i < 8; ++i) {
      e_wadd[i] = (int16_t)(uint16_t)((uint16_t)x[i] + (uint16_t)y[i]);
      e_wmin[i] = x[i] < y[i] ? x[i] : y[i];
      e_wand[i] = (int16_t)(x[i] & y[i]);
      e_wor[i] = (int16_t)(x[i] | y[i]);
      e_shl[i] = (int16_t)(uint16_t)((uint16_t)x[i] << s);
      e_wshr[i] = (int16_t)(uint16_t)((uint16_t)x[i] >> s);
      e_set[i] = y[5];
    }
    _Alignas(16) int16_t streamed[8];
    vf_i16x8_stream(streamed, vx);
    vf_simd16_fence();
    bad_words += !same_i16(vf_i16x8_add(vx, vy), e_wadd) + !same_i16(vf_i16x8_min(vx, vy), e_wmin) +
                 !same_i16(vf_i16x8_and(vx, vy), e_wand) + !same_i16(vf_i16x8_or(vx, vy), e_wor) +
                 !same_i16(vf_i16x8_shl(vx, s), e_shl) + !same_i16(vf_i16x8_shr(vx, s), e_wshr) +
                 !same_i16(vf_i16x8_set1(y[5]), e_set) + (memcmp(streamed, x, sizeof x) != 0);
  }
  printf("vf_simd16 path: %s; %d rounds; mismatches: bytes %d, words %d, minima %d, widen %d\n",
#if defined(__SSE2__) && !defined(VF_SIMD4_PORTABLE)
         "SSE2",
#elif defined(__ARM_NEON) && defined(__aarch64__) && !defined(VF_SIMD4_PORTABLE)
         "NEON",
#else
         "plain C",
#endif
         ROUNDS, bad_bytes, bad_words, bad_minima, bad_widen);
  CHECK(bad_bytes == 0);
  CHECK(bad_words == 0);
  CHECK(bad_minima == 0);
  CHECK(bad_widen == 0);
  VF_TEST_END("test_simd16");
}

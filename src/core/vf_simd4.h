// SPDX-License-Identifier: BSD-3-Clause
/* Four-lane float arithmetic for the CPU tracker's patch loops (src/features/cpu/vf_lk_cpu_*.c,
 * src/features/cpu/vf_affine_cpu.c): SSE2 intrinsics on x86-64 and NEON (arm_neon.h) on AArch64,
 * both baselines of their ISA, so no run-time dispatch; plain C elsewhere (compilers may vectorise
 * it). All three give bit-identical results: the same IEEE single-precision operations in the same
 * order, lane by lane, none fused (the library builds with -ffp-contract=off, as AArch64 has FMA).
 * 32-bit ARM takes plain C: its NEON flushes denormals to zero. Define VF_SIMD4_PORTABLE to build
 * the plain C path anywhere (to test it). vf_f4: 4 floats; vf_m4: 4 lane masks; vf_d4: 4 double
 * accumulators. Integer vectors (16 bytes, 8 x 16 bits) are vf_simd16.h's. */
#ifndef VF_SIMD4_H
#define VF_SIMD4_H

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__) && !defined(VF_SIMD4_PORTABLE)
#include <emmintrin.h>

typedef __m128 vf_f4;
typedef __m128 vf_m4; /* all bits set = true */
typedef struct vf_d4 {
  __m128d lo, hi;
} vf_d4;

static inline vf_f4 vf_f4_set1(float x) { return _mm_set1_ps(x); }
static inline vf_f4 vf_f4_zero(void) { return _mm_setzero_ps(); }
/* Aligned (16 bytes) and unaligned loads; aligned store. */
static inline vf_f4 vf_f4_load(const float* p) { return _mm_load_ps(p); }
static inline vf_f4 vf_f4_loadu(const float* p) { return _mm_loadu_ps(p); }
static inline void vf_f4_store(float* p, vf_f4 x) { _mm_store_ps(p, x); }
static inline vf_f4 vf_f4_add(vf_f4 a, vf_f4 b) { return _mm_add_ps(a, b); }
static inline vf_f4 vf_f4_sub(vf_f4 a, vf_f4 b) { return _mm_sub_ps(a, b); }
static inline vf_f4 vf_f4_mul(vf_f4 a, vf_f4 b) { return _mm_mul_ps(a, b); }

/* Bytes 0..3 (least significant first) of w as floats. */
static inline vf_f4 vf_f4_from_u32(uint32_t w) {
  const __m128i z = _mm_setzero_si128();
  const __m128i b = _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)w), z);
  return _mm_cvtepi32_ps(_mm_unpacklo_epi16(b, z));
}
/* p[0..3] as floats (reads exactly 4 bytes; x86 is little-endian). */
static inline vf_f4 vf_f4_from_u8(const uint8_t* p) {
  uint32_t w;
  memcpy(&w, p, sizeof w);
  return vf_f4_from_u32(w);
}

/* lo <= x <= hi (false for NaN). */
static inline vf_m4 vf_f4_in_range(vf_f4 x, float lo, float hi) {
  return _mm_and_ps(_mm_cmpge_ps(x, _mm_set1_ps(lo)), _mm_cmple_ps(x, _mm_set1_ps(hi)));
}
/* p[0..3] (at0) and p[1..4] (at1) as floats from one load of 8 bytes (p[0..7] must be readable). */
static inline void vf_f4_from_u8_pair(const uint8_t* p, vf_f4* at0, vf_f4* at1) {
  const __m128i z = _mm_setzero_si128();
  const __m128i w = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i*)p), z);
  *at0 = _mm_cvtepi32_ps(_mm_unpacklo_epi16(w, z));
  *at1 = _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_srli_si128(w, 2), z));
}

/* The same with p[i] read as 0 from i = avail on (1 <= avail <= 7), from one load of the 8
 * bytes p[avail - 8 .. avail - 1] (which must be readable) shifted down (x86 is little-endian). */
static inline void vf_f4_from_u8_pair_last(const uint8_t* p, int avail, vf_f4* at0, vf_f4* at1) {
  uint64_t w;
  memcpy(&w, p + avail - 8, sizeof w);
  w >>= 8 * (8 - avail);
  const __m128i z = _mm_setzero_si128();
  const __m128i b = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i*)&w), z);
  *at0 = _mm_cvtepi32_ps(_mm_unpacklo_epi16(b, z));
  *at1 = _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_srli_si128(b, 2), z));
}

/* lo <= x (false for NaN). */
static inline vf_m4 vf_f4_at_least(vf_f4 x, float lo) { return _mm_cmpge_ps(x, _mm_set1_ps(lo)); }
/* x where m, else +0. */
static inline vf_f4 vf_f4_select(vf_m4 m, vf_f4 x) { return _mm_and_ps(m, x); }

/* x and y truncated towards zero as floats (fx, fy), and the index (int y << shift) + int x of
 * each lane (idx) in integers: no float round trip for the index. |x|, |y| < 2^31; the index
 * modulo 2^32 (unsigned, so that a non-negative one needs no sign extension as an offset). */
static inline void vf_f4_trunc_index(vf_f4 x, vf_f4 y, int shift, vf_f4* fx, vf_f4* fy,
                                     uint32_t idx[4]) {
  const __m128i ix = _mm_cvttps_epi32(x), iy = _mm_cvttps_epi32(y);
  *fx = _mm_cvtepi32_ps(ix);
  *fy = _mm_cvtepi32_ps(iy);
  const __m128i v = _mm_add_epi32(_mm_sll_epi32(iy, _mm_cvtsi32_si128(shift)), ix);
#if defined(__x86_64__)
  /* Two 64-bit moves and integer shifts, measured faster than the compiler's way (a shuffle and
   * a move per lane): the vector ports are the busy ones in the gathers. */
  const uint64_t lo = (uint64_t)_mm_cvtsi128_si64(v);
  const uint64_t hi = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v));
  idx[0] = (uint32_t)lo;
  idx[1] = (uint32_t)(lo >> 32);
  idx[2] = (uint32_t)hi;
  idx[3] = (uint32_t)(hi >> 32);
#else
  _mm_storeu_si128((__m128i*)idx, v);
#endif
}
/* p[idx[i]] (lo) and p[idx[i] + 1] (hi) for the 4 lanes: one 8-byte load per lane. */
static inline void vf_f4_gather2(const float* p, const uint32_t idx[4], vf_f4* lo, vf_f4* hi) {
  const __m128 z = _mm_setzero_ps();
  const __m128 a =
      _mm_loadh_pi(_mm_loadl_pi(z, (const __m64*)(p + idx[0])), (const __m64*)(p + idx[1]));
  const __m128 b =
      _mm_loadh_pi(_mm_loadl_pi(z, (const __m64*)(p + idx[2])), (const __m64*)(p + idx[3]));
  *lo = _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
  *hi = _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
}

static inline vf_m4 vf_m4_none(void) { return _mm_setzero_ps(); }
static inline vf_m4 vf_m4_load(const uint32_t* p) { return _mm_load_ps((const float*)p); }
static inline void vf_m4_store(uint32_t* p, vf_m4 m) { _mm_store_ps((float*)p, m); }
static inline vf_m4 vf_m4_and(vf_m4 a, vf_m4 b) { return _mm_and_ps(a, b); }
static inline vf_m4 vf_m4_or(vf_m4 a, vf_m4 b) { return _mm_or_ps(a, b); }
/* a and not b. */
static inline vf_m4 vf_m4_and_not(vf_m4 a, vf_m4 b) { return _mm_andnot_ps(b, a); }
/* Lanes 0 .. n - 1 set. */
static inline vf_m4 vf_m4_first(int n) {
  return _mm_castsi128_ps(_mm_cmplt_epi32(_mm_set_epi32(3, 2, 1, 0), _mm_set1_epi32(n)));
}
static inline int vf_m4_bits(vf_m4 m) { return _mm_movemask_ps(m); }

static inline vf_d4 vf_d4_zero(void) {
  vf_d4 d = {_mm_setzero_pd(), _mm_setzero_pd()};
  return d;
}
static inline void vf_d4_add_f4(vf_d4* d, vf_f4 x) {
  d->lo = _mm_add_pd(d->lo, _mm_cvtps_pd(x));
  d->hi = _mm_add_pd(d->hi, _mm_cvtps_pd(_mm_movehl_ps(x, x)));
}
/* The same with the 4 floats at p: converted straight from memory, which takes no shuffle for
 * the upper pair. */
static inline void vf_d4_add_f4_at(vf_d4* d, const float* p) {
  d->lo = _mm_add_pd(d->lo, _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i*)p))));
  d->hi =
      _mm_add_pd(d->hi, _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i*)(p + 2)))));
}
/* (lane 0 + lane 2) + (lane 1 + lane 3). */
static inline double vf_d4_sum(vf_d4 d) {
  const __m128d s = _mm_add_pd(d.lo, d.hi);
  return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

#elif defined(__ARM_NEON) && defined(__aarch64__) && !defined(__ARM_BIG_ENDIAN) && \
    !defined(VF_SIMD4_PORTABLE)
#include <arm_neon.h>

typedef float32x4_t vf_f4;
typedef uint32x4_t vf_m4; /* all bits set = true */
typedef struct vf_d4 {
  float64x2_t lo, hi;
} vf_d4;

static inline vf_f4 vf_f4_set1(float x) { return vdupq_n_f32(x); }
static inline vf_f4 vf_f4_zero(void) { return vdupq_n_f32(0.0f); }
static inline vf_f4 vf_f4_load(const float* p) { return vld1q_f32(p); }
static inline vf_f4 vf_f4_loadu(const float* p) { return vld1q_f32(p); }
static inline void vf_f4_store(float* p, vf_f4 x) { vst1q_f32(p, x); }
static inline vf_f4 vf_f4_add(vf_f4 a, vf_f4 b) { return vaddq_f32(a, b); }
static inline vf_f4 vf_f4_sub(vf_f4 a, vf_f4 b) { return vsubq_f32(a, b); }
static inline vf_f4 vf_f4_mul(vf_f4 a, vf_f4 b) { return vmulq_f32(a, b); }

/* Bytes 0..3 of w (little-endian lanes) widened to 16, then 32 bits, converted exactly. */
static inline vf_f4 vf_f4_from_u32(uint32_t w) {
  const uint16x8_t h = vmovl_u8(vcreate_u8((uint64_t)w));
  return vcvtq_f32_u32(vmovl_u16(vget_low_u16(h)));
}
static inline vf_f4 vf_f4_from_u8(const uint8_t* p) {
  uint32_t w;
  memcpy(&w, p, sizeof w);
  return vf_f4_from_u32(w);
}

static inline vf_m4 vf_f4_in_range(vf_f4 x, float lo, float hi) {
  return vandq_u32(vcgeq_f32(x, vdupq_n_f32(lo)), vcleq_f32(x, vdupq_n_f32(hi)));
}
static inline void vf_f4_from_u8_pair(const uint8_t* p, vf_f4* at0, vf_f4* at1) {
  const uint16x8_t w = vmovl_u8(vld1_u8(p));
  *at0 = vcvtq_f32_u32(vmovl_u16(vget_low_u16(w)));
  *at1 = vcvtq_f32_u32(vmovl_u16(vget_low_u16(vextq_u16(w, w, 1))));
}

static inline void vf_f4_from_u8_pair_last(const uint8_t* p, int avail, vf_f4* at0, vf_f4* at1) {
  uint64_t w;
  memcpy(&w, p + avail - 8, sizeof w);
  const uint16x8_t b = vmovl_u8(vcreate_u8(w >> (8 * (8 - avail))));
  *at0 = vcvtq_f32_u32(vmovl_u16(vget_low_u16(b)));
  *at1 = vcvtq_f32_u32(vmovl_u16(vget_low_u16(vextq_u16(b, b, 1))));
}

static inline vf_m4 vf_f4_at_least(vf_f4 x, float lo) { return vcgeq_f32(x, vdupq_n_f32(lo)); }
static inline vf_f4 vf_f4_select(vf_m4 m, vf_f4 x) {
  return vreinterpretq_f32_u32(vandq_u32(m, vreinterpretq_u32_f32(x)));
}

static inline void vf_f4_trunc_index(vf_f4 x, vf_f4 y, int shift, vf_f4* fx, vf_f4* fy,
                                     uint32_t idx[4]) {
  const int32x4_t ix = vcvtq_s32_f32(x), iy = vcvtq_s32_f32(y); /* round towards zero */
  *fx = vcvtq_f32_s32(ix);
  *fy = vcvtq_f32_s32(iy);
  vst1q_u32(idx, vreinterpretq_u32_s32(vaddq_s32(vshlq_s32(iy, vdupq_n_s32(shift)), ix)));
}
/* Lane i's pair as 2 floats; the four pairs de-interleaved into even (lo) and odd (hi). */
static inline void vf_f4_gather2(const float* p, const uint32_t idx[4], vf_f4* lo, vf_f4* hi) {
  const float32x4_t a = vcombine_f32(vld1_f32(p + idx[0]), vld1_f32(p + idx[1]));
  const float32x4_t b = vcombine_f32(vld1_f32(p + idx[2]), vld1_f32(p + idx[3]));
  *lo = vuzp1q_f32(a, b);
  *hi = vuzp2q_f32(a, b);
}

static inline vf_m4 vf_m4_none(void) { return vdupq_n_u32(0u); }
static inline vf_m4 vf_m4_load(const uint32_t* p) { return vld1q_u32(p); }
static inline void vf_m4_store(uint32_t* p, vf_m4 m) { vst1q_u32(p, m); }
static inline vf_m4 vf_m4_and(vf_m4 a, vf_m4 b) { return vandq_u32(a, b); }
static inline vf_m4 vf_m4_or(vf_m4 a, vf_m4 b) { return vorrq_u32(a, b); }
static inline vf_m4 vf_m4_and_not(vf_m4 a, vf_m4 b) { return vbicq_u32(a, b); }
static inline vf_m4 vf_m4_first(int n) {
  const int32_t lanes[4] = {0, 1, 2, 3};
  return vcltq_s32(vld1q_s32(lanes), vdupq_n_s32(n));
}
/* Sign bit of lane i to bit i. */
static inline int vf_m4_bits(vf_m4 m) {
  const int32_t shift[4] = {0, 1, 2, 3};
  return (int)vaddvq_u32(vshlq_u32(vshrq_n_u32(m, 31), vld1q_s32(shift)));
}

static inline vf_d4 vf_d4_zero(void) {
  vf_d4 d = {vdupq_n_f64(0.0), vdupq_n_f64(0.0)};
  return d;
}
static inline void vf_d4_add_f4(vf_d4* d, vf_f4 x) {
  d->lo = vaddq_f64(d->lo, vcvt_f64_f32(vget_low_f32(x)));
  d->hi = vaddq_f64(d->hi, vcvt_high_f64_f32(x));
}
static inline void vf_d4_add_f4_at(vf_d4* d, const float* p) { vf_d4_add_f4(d, vld1q_f32(p)); }
/* (lane 0 + lane 2) + (lane 1 + lane 3). */
static inline double vf_d4_sum(vf_d4 d) {
  const float64x2_t s = vaddq_f64(d.lo, d.hi);
  return vgetq_lane_f64(s, 0) + vgetq_lane_f64(s, 1);
}

#else

typedef struct vf_f4 {
  float v[4];
} vf_f4;
typedef struct vf_m4 {
  uint32_t v[4];
} vf_m4;
typedef struct vf_d4 {
  double v[4];
} vf_d4;

static inline vf_f4 vf_f4_set1(float x) {
  vf_f4 r = {{x, x, x, x}};
  return r;
}
static inline vf_f4 vf_f4_zero(void) { return vf_f4_set1(0.0f); }
static inline vf_f4 vf_f4_load(const float* p) {
  vf_f4 r;
  memcpy(r.v, p, sizeof r.v);
  return r;
}
static inline vf_f4 vf_f4_loadu(const float* p) { return vf_f4_load(p); }
static inline void vf_f4_store(float* p, vf_f4 x) { memcpy(p, x.v, sizeof x.v); }
static inline vf_f4 vf_f4_add(vf_f4 a, vf_f4 b) {
  for (int i = 0; i < 4; ++i) a.v[i] += b.v[i];
  return a;
}
static inline vf_f4 vf_f4_sub(vf_f4 a, vf_f4 b) {
  for (int i = 0; i < 4; ++i) a.v[i] -= b.v[i];
  return a;
}
static inline vf_f4 vf_f4_mul(vf_f4 a, vf_f4 b) {
  for (int i = 0; i < 4; ++i) a.v[i] *= b.v[i];
  return a;
}
static inline vf_f4 vf_f4_from_u32(uint32_t w) {
  vf_f4 r;
  for (int i = 0; i < 4; ++i) r.v[i] = (float)((w >> (8 * i)) & 255u);
  return r;
}
static inline vf_f4 vf_f4_from_u8(const uint8_t* p) {
  vf_f4 r;
  for (int i = 0; i < 4; ++i) r.v[i] = (float)p[i];
  return r;
}
static inline vf_m4 vf_f4_in_range(vf_f4 x, float lo, float hi) {
  vf_m4 m;
  for (int i = 0; i < 4; ++i) m.v[i] = x.v[i] >= lo && x.v[i] <= hi ? 0xffffffffu : 0u;
  return m;
}
static inline void vf_f4_from_u8_pair(const uint8_t* p, vf_f4* at0, vf_f4* at1) {
  for (int i = 0; i < 4; ++i) {
    at0->v[i] = (float)p[i];
    at1->v[i] = (float)p[i + 1];
  }
}
static inline void vf_f4_from_u8_pair_last(const uint8_t* p, int avail, vf_f4* at0, vf_f4* at1) {
  for (int i = 0; i < 4; ++i) {
    at0->v[i] = i < avail ? (float)p[i] : 0.0f;
    at1->v[i] = i + 1 < avail ? (float)p[i + 1] : 0.0f;
  }
}
static inline vf_m4 vf_f4_at_least(vf_f4 x, float lo) {
  vf_m4 m;
  for (int i = 0; i < 4; ++i) m.v[i] = x.v[i] >= lo ? 0xffffffffu : 0u;
  return m;
}
static inline vf_f4 vf_f4_select(vf_m4 m, vf_f4 x) {
  for (int i = 0; i < 4; ++i) x.v[i] = m.v[i] ? x.v[i] : 0.0f;
  return x;
}

static inline void vf_f4_trunc_index(vf_f4 x, vf_f4 y, int shift, vf_f4* fx, vf_f4* fy,
                                     uint32_t idx[4]) {
  for (int i = 0; i < 4; ++i) {
    const int32_t ix = (int32_t)x.v[i], iy = (int32_t)y.v[i];
    fx->v[i] = (float)ix;
    fy->v[i] = (float)iy;
    idx[i] = ((uint32_t)iy << shift) + (uint32_t)ix;
  }
}
static inline void vf_f4_gather2(const float* p, const uint32_t idx[4], vf_f4* lo, vf_f4* hi) {
  for (int i = 0; i < 4; ++i) {
    lo->v[i] = p[idx[i]];
    hi->v[i] = p[idx[i] + 1];
  }
}

static inline vf_m4 vf_m4_none(void) {
  vf_m4 m = {{0u, 0u, 0u, 0u}};
  return m;
}
static inline vf_m4 vf_m4_load(const uint32_t* p) {
  vf_m4 m;
  memcpy(m.v, p, sizeof m.v);
  return m;
}
static inline void vf_m4_store(uint32_t* p, vf_m4 m) { memcpy(p, m.v, sizeof m.v); }
static inline vf_m4 vf_m4_and(vf_m4 a, vf_m4 b) {
  for (int i = 0; i < 4; ++i) a.v[i] &= b.v[i];
  return a;
}
static inline vf_m4 vf_m4_or(vf_m4 a, vf_m4 b) {
  for (int i = 0; i < 4; ++i) a.v[i] |= b.v[i];
  return a;
}
static inline vf_m4 vf_m4_and_not(vf_m4 a, vf_m4 b) {
  for (int i = 0; i < 4; ++i) a.v[i] &= ~b.v[i];
  return a;
}
static inline vf_m4 vf_m4_first(int n) {
  vf_m4 m;
  for (int i = 0; i < 4; ++i) m.v[i] = i < n ? 0xffffffffu : 0u;
  return m;
}
static inline int vf_m4_bits(vf_m4 m) {
  int bits = 0;
  for (int i = 0; i < 4; ++i) bits |= (int)(m.v[i] >> 31) << i;
  return bits;
}

static inline vf_d4 vf_d4_zero(void) {
  vf_d4 d = {{0.0, 0.0, 0.0, 0.0}};
  return d;
}
static inline void vf_d4_add_f4(vf_d4* d, vf_f4 x) {
  for (int i = 0; i < 4; ++i) d->v[i] += (double)x.v[i];
}
static inline void vf_d4_add_f4_at(vf_d4* d, const float* p) {
  for (int i = 0; i < 4; ++i) d->v[i] += (double)p[i];
}
static inline double vf_d4_sum(vf_d4 d) { return (d.v[0] + d.v[2]) + (d.v[1] + d.v[3]); }

#endif

#endif

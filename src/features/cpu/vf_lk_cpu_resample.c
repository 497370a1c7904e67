// SPDX-License-Identifier: BSD-3-Clause
/* Bilinear resampling of an 8-bit window into float rows for the CPU tracker. A translation
 * gives every sample of a patch the same sub-pixel weights (vf_lk_sampler), so a window costs
 * one interpolation per sample, with vf_lk_bilinear's float operations in its order. Columns of
 * 4 lanes run top to bottom, so that each image row is read and converted once per column. */
#include "core/vf_simd4.h"
#include "core/vf_simd8.h"
#include "features/cpu/vf_lk_cpu_patch.h"

/* How a column of 4 lanes reads a row: lanes p[0..3] and p[1..4] from one 8-byte load, from the
 * 8 bytes that end the row (the padded lanes of a row's last column read zeros), or byte by byte
 * (rows shorter than 8 bytes, and columns wholly past the row's end, which read none). */
enum { VF_LK_READ_8, VF_LK_READ_LAST, VF_LK_READ_BYTES };

/* Lanes p[0..3] and p[1..4] as floats, reading only the first `avail` bytes of p. */
static inline void vf_lk_row_lanes(const uint8_t* p, int how, int avail, vf_f4* at0, vf_f4* at1) {
  if (how == VF_LK_READ_8) {
    vf_f4_from_u8_pair(p, at0, at1);
  } else if (how == VF_LK_READ_LAST) {
    vf_f4_from_u8_pair_last(p, avail, at0, at1);
  } else {
    uint32_t w = 0;
    for (int i = 0; i < avail && i < 4; ++i) w |= (uint32_t)p[i] << (8 * i);
    *at0 = vf_f4_from_u32(w);
    *at1 = vf_f4_from_u32((w >> 8) | (avail > 4 ? (uint32_t)p[4] << 24 : 0u));
  }
}

/* One column of 4 lanes, top to bottom; `how` is a constant where it is called (one loop each,
 * without a branch a row), rows two at a time so that the row read last is not copied. */
static inline void vf_lk_resample_column(const uint8_t* line, size_t stride, int how, int avail,
                                         const vf_f4 w[4], int rows, float* o, int out_stride) {
  vf_f4 up0, up1, down0, down1;
  vf_lk_row_lanes(line, how, avail, &up0, &up1);
  int r = 0;
  for (; r + 2 <= rows; r += 2) {
    line += stride;
    vf_lk_row_lanes(line, how, avail, &down0, &down1);
    vf_f4 top = vf_f4_add(vf_f4_mul(w[0], up0), vf_f4_mul(w[1], up1));
    vf_f4 bottom = vf_f4_add(vf_f4_mul(w[2], down0), vf_f4_mul(w[3], down1));
    vf_f4_store(o, vf_f4_add(top, bottom));
    o += out_stride;
    line += stride;
    vf_lk_row_lanes(line, how, avail, &up0, &up1);
    top = vf_f4_add(vf_f4_mul(w[0], down0), vf_f4_mul(w[1], down1));
    bottom = vf_f4_add(vf_f4_mul(w[2], up0), vf_f4_mul(w[3], up1));
    vf_f4_store(o, vf_f4_add(top, bottom));
    o += out_stride;
  }
  if (r < rows) {
    vf_lk_row_lanes(line + stride, how, avail, &down0, &down1);
    const vf_f4 top = vf_f4_add(vf_f4_mul(w[0], up0), vf_f4_mul(w[1], up1));
    const vf_f4 bottom = vf_f4_add(vf_f4_mul(w[2], down0), vf_f4_mul(w[3], down1));
    vf_f4_store(o, vf_f4_add(top, bottom));
  }
}

/* Columns c0, c0 + 4, ... below cols, 4 lanes at a time. */
static inline void vf_lk_resample4_from(const uint8_t* p, size_t stride, const vf_lk_sampler* s,
                                        int rows, int c0, int cols, int bytes, float* out,
                                        int out_stride) {
  const vf_f4 w[4] = {vf_f4_set1(s->w00), vf_f4_set1(s->w01), vf_f4_set1(s->w10),
                      vf_f4_set1(s->w11)};
  for (int c = c0; c < cols; c += 4) {
    const int avail = bytes - c;
    if (avail >= 8) {
      vf_lk_resample_column(p + c, stride, VF_LK_READ_8, avail, w, rows, out + c, out_stride);
    } else if (bytes >= 8 && avail > 0) {
      vf_lk_resample_column(p + c, stride, VF_LK_READ_LAST, avail, w, rows, out + c, out_stride);
    } else {
      vf_lk_resample_column(p + c, stride, VF_LK_READ_BYTES, avail, w, rows, out + c, out_stride);
    }
  }
}

void vf_lk_cpu_resample4(const uint8_t* p, size_t stride, const vf_lk_sampler* s, int rows,
                         int cols, int bytes, float* out, int out_stride) {
  vf_lk_resample4_from(p, stride, s, rows, 0, cols, bytes, out, out_stride);
}

#ifdef VF_SIMD8
/* Lanes p[0..7] and p[1..8] as floats (9 bytes read). */
static inline VF_SIMD8_TARGET void vf_lk_row_lanes8(const uint8_t* p, vf_f8* at0, vf_f8* at1) {
  *at0 = vf_f8_from_u8(p);
  *at1 = vf_f8_from_u8(p + 1);
}

/* vf_lk_resample_column in 8 lanes, where all 9 bytes of every row are there to read. */
static inline VF_SIMD8_TARGET void vf_lk_resample_column8(const uint8_t* line, size_t stride,
                                                          const vf_f8 w[4], int rows, float* o,
                                                          int out_stride) {
  vf_f8 up0, up1, down0, down1;
  vf_lk_row_lanes8(line, &up0, &up1);
  int r = 0;
  for (; r + 2 <= rows; r += 2) {
    line += stride;
    vf_lk_row_lanes8(line, &down0, &down1);
    vf_f8 top = vf_f8_add(vf_f8_mul(w[0], up0), vf_f8_mul(w[1], up1));
    vf_f8 bottom = vf_f8_add(vf_f8_mul(w[2], down0), vf_f8_mul(w[3], down1));
    vf_f8_store(o, vf_f8_add(top, bottom));
    o += out_stride;
    line += stride;
    vf_lk_row_lanes8(line, &up0, &up1);
    top = vf_f8_add(vf_f8_mul(w[0], down0), vf_f8_mul(w[1], down1));
    bottom = vf_f8_add(vf_f8_mul(w[2], up0), vf_f8_mul(w[3], up1));
    vf_f8_store(o, vf_f8_add(top, bottom));
    o += out_stride;
  }
  if (r < rows) {
    vf_lk_row_lanes8(line + stride, &down0, &down1);
    const vf_f8 top = vf_f8_add(vf_f8_mul(w[0], up0), vf_f8_mul(w[1], up1));
    const vf_f8 bottom = vf_f8_add(vf_f8_mul(w[2], down0), vf_f8_mul(w[3], down1));
    vf_f8_store(o, vf_f8_add(top, bottom));
  }
}

VF_SIMD8_TARGET void vf_lk_cpu_resample8(const uint8_t* p, size_t stride, const vf_lk_sampler* s,
                                         int rows, int cols, int bytes, float* out,
                                         int out_stride) {
  const vf_f8 w[4] = {vf_f8_set1(s->w00), vf_f8_set1(s->w01), vf_f8_set1(s->w10),
                      vf_f8_set1(s->w11)};
  const int padded = (cols + 3) & ~3;
  int c = 0;
  for (; c + 8 <= padded && bytes - c >= 9; c += 8)
    vf_lk_resample_column8(p + c, stride, w, rows, out + c, out_stride);
  /* The last 4 lanes, or those whose rows end within 9 bytes, as the 4-lane loop reads them. */
  vf_lk_resample4_from(p, stride, s, rows, c, cols, bytes, out, out_stride);
}
#endif

void vf_lk_cpu_resample(const uint8_t* p, size_t stride, const vf_lk_sampler* s, int rows, int cols,
                        int bytes, float* out, int out_stride) {
#ifdef VF_SIMD8
  if (vf_simd8_available()) {
    vf_lk_cpu_resample8(p, stride, s, rows, cols, bytes, out, out_stride);
    return;
  }
#endif
  vf_lk_cpu_resample4(p, stride, s, rows, cols, bytes, out, out_stride);
}

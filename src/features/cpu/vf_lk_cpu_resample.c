// SPDX-License-Identifier: BSD-3-Clause
/* Bilinear resampling of an 8-bit window into float rows for the CPU tracker. A translation
 * gives every sample of a patch the same sub-pixel weights (vf_lk_sampler), so a window costs
 * one interpolation per sample, with vf_lk_bilinear's float operations in its order. Columns of
 * 4 lanes run top to bottom, so that each image row is read and converted once per column. */
#include "core/vf_simd4.h"
#include "features/cpu/vf_lk_cpu_patch.h"

/* Lanes p[0..3] and p[1..4] as floats, reading only the first `avail` bytes of p (zeros after:
 * the padded lanes of a row's last column). */
static void vf_lk_row_lanes(const uint8_t* p, int avail, vf_f4* at0, vf_f4* at1) {
  if (avail >= 5) {
    *at0 = vf_f4_from_u8(p);
    *at1 = vf_f4_from_u8(p + 1);
    return;
  }
  uint32_t w = 0;
  for (int i = 0; i < avail; ++i) w |= (uint32_t)p[i] << (8 * i);
  *at0 = vf_f4_from_u32(w);
  *at1 = vf_f4_from_u32(w >> 8);
}

void vf_lk_cpu_resample(const uint8_t* p, size_t stride, const vf_lk_sampler* s, int rows, int cols,
                        int bytes, float* out, int out_stride) {
  const vf_f4 w00 = vf_f4_set1(s->w00), w01 = vf_f4_set1(s->w01);
  const vf_f4 w10 = vf_f4_set1(s->w10), w11 = vf_f4_set1(s->w11);
  for (int c = 0; c < cols; c += 4) {
    const uint8_t* line = p + c;
    const int avail = bytes - c;
    vf_f4 up0, up1, down0, down1;
    vf_lk_row_lanes(line, avail, &up0, &up1);
    float* o = out + c;
    for (int r = 0; r < rows; ++r, o += out_stride) {
      line += stride;
      vf_lk_row_lanes(line, avail, &down0, &down1);
      const vf_f4 top = vf_f4_add(vf_f4_mul(w00, up0), vf_f4_mul(w01, up1));
      const vf_f4 bottom = vf_f4_add(vf_f4_mul(w10, down0), vf_f4_mul(w11, down1));
      vf_f4_store(o, vf_f4_add(top, bottom));
      up0 = down0;
      up1 = down1;
    }
  }
}

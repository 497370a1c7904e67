// SPDX-License-Identifier: BSD-3-Clause
/* Disparity evaluation against ground truth (rule of ../shared/docs/DATA.md): over the
 * non-occluded pixels with known truth, bad-t = share with |d - gt| > t (no disparity counts as
 * bad); also bad-2 over valid pixels only, density and mean absolute error. */
#ifndef STEREO_EVAL_H
#define STEREO_EVAL_H

#include <viofront/viofront.h>

typedef struct stereo_eval {
  double bad[5];     /* bad-t for t = 0 (unused), 1, 2, 3, 4, in percent */
  double bad2_valid; /* percent of valid evaluated pixels with |d - gt| > 2 */
  double density;    /* percent of evaluated pixels with a disparity */
  double mae;        /* mean |d - gt| over valid evaluated pixels, px */
  long pixels;       /* evaluated (non-occluded, known) pixels */
} stereo_eval;

/* gt_left/gt_right: F32 host images in pixels (<= 0 or NaN = unknown); gt_right may be NULL
 * (then every known pixel counts as non-occluded). disparity: F32 host image, NaN = invalid. */
vf_status stereo_evaluate(const vf_image* disparity, const vf_image* gt_left,
                          const vf_image* gt_right, stereo_eval* out);

/* Reads ground truth into a new F32 host image (pixels): a PFM file, a KITTI 16-bit PNG
 * (value / 256, 0 = unknown) or an 8-bit PNG with value / scale8 (Middlebury 2003: 4). */
vf_status stereo_read_truth(const char* path, float scale8, vf_image* out);

#endif

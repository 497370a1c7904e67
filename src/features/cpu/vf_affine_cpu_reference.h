// SPDX-License-Identifier: BSD-3-Clause
/* The CPU refinement's references (src/features/cpu/vf_affine_cpu_reference.c): taking one, and H
 * by rows, which the iterations also use for the samples that saturate later. */
#ifndef VF_AFFINE_CPU_REFERENCE_H
#define VF_AFFINE_CPU_REFERENCE_H

#include <stdint.h>

#include "features/kernels/vf_affine_rules.h"

/* The samples of a slot: T, Tx, Ty, patch^2 floats each. */
static inline float* vf_affine_cpu_samples(const vf_affine_params* p, int slot) {
  const size_t n = (size_t)p->patch * (size_t)p->patch;
  return p->samples + (size_t)slot * 3 * n;
}

/* Adds to h the packed sum of J J^T over the samples of row r in the columns `cols` (bits),
 * double throughout. */
void vf_affine_cpu_h_row(int patch, const float* t, float mu, int r, uint32_t cols,
                         double h[VF_AFFINE_PACKED]);

/* Takes the reference of r->slot from the previous image at (r->x, r->y): samples, centring,
 * H and its factor. A reference outside the image or without texture is marked unusable. */
void vf_affine_cpu_capture(const vf_affine_params* p, const vf_track_request* r);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* FAST detection shared by the backends: the job description both execute, the one-bit arc
 * lookup table (built on the host, used by the CUDA kernels) and the CPU reference. */
#ifndef VF_FAST_CPU_H
#define VF_FAST_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/vf_parallel.h"
#include "viofront/vf_keypoint.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VF_FAST_LUT_WORDS 2048 /* 2^16 bits */
#define VF_FAST_MAX_LEVELS 8
#define VF_FAST_MAX_COLS 1024 /* cells in a row: width 32768 over cells of 32 pixels */

/* One searched pyramid level: its pixels and (CPU only) its response map, `pitch` floats per
 * row. */
typedef struct vf_fast_level {
  const uint8_t* image;
  size_t stride;
  int width, height;
  float* response;
  int pitch;
} vf_fast_level;

/* Where a cell's two blocks meet: 0, or the first one's best key with the top bit set. */
typedef struct vf_fast_meet {
  unsigned long long best;
} vf_fast_meet;

/* Everything one detection needs; pointers are in the backend's memory. */
typedef struct vf_fast_job {
  int first_level; /* pyramid level of level[0] */
  int levels;      /* searched levels: first_level .. first_level + levels - 1 */
  vf_fast_level level[VF_FAST_MAX_LEVELS];
  int threshold, arc_length, score, border;
  int cell_width, cell_height; /* level-0 pixels */
  int cols, rows;
  const uint32_t* lut;      /* CUDA only: the arc table for arc_length */
  const uint8_t* occupancy; /* NULL or one byte per cell, nonzero = skip */
  vf_keypoint* cells;       /* out: cols * rows entries */
  /* CUDA only: where the blocks that share a cell (its first level and its other levels run in
   * two blocks) meet, one entry a cell; zero between launches (the second block clears it). */
  vf_fast_meet* meet;
  /* CUDA only: cells a block takes, 1 or 2 (two neighbours of a row: fewer instructions, half
   * as many blocks; vf_detector_create picks it from the multiprocessor count). */
  int cells_per_block;
  /* CUDA only: rows of cells a block takes, 1 to 4 (cells_per_block x rows_per_block <= 8): more
   * than one where cells are low (the frontend's birth bands, 32x8), so that a block's chunk
   * holds about 32 rows. */
  int rows_per_block;
} vf_fast_job;

/* Responses are computed on [lo, size - lo) in both directions, lo = max(3, border - 1): every
 * pixel a candidate (inside the border) or its neighbour can read; the rest stays 0. */
static inline int vf_fast_response_margin(int border) { return border - 1 > 3 ? border - 1 : 3; }

/* Bit m of `lut` is 1 when the 16-bit circular pattern m holds >= arc_length contiguous ones. */
void vf_fast_lut_build(int arc_length, uint32_t lut[VF_FAST_LUT_WORDS]);

/* The CPU reference: textbook segment test into the response maps, then plain non-maxima
 * suppression and the per-cell maximum over the levels, into job->cells. */
void vf_cpu_fast_detect(const vf_fast_job* job, vf_pool* pool);

#ifdef __cplusplus
}
#endif
#endif

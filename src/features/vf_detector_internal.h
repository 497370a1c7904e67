// SPDX-License-Identifier: BSD-3-Clause
/* What the detector's files share: the handle (src/features/vf_detector.c makes it,
 * src/features/vf_detector_batch.c detects with several at once). */
#ifndef VF_DETECTOR_INTERNAL_H
#define VF_DETECTOR_INTERNAL_H

#include "core/vf_context_internal.h"
#include "features/kernels/vf_fast_cpu.h"
#include "viofront/vf_detector.h"

struct vf_detector {
  vf_error err;
  vf_context* ctx;
  vf_detector_config config;
  vf_grid grid;
  int ncells;
  vf_fast_job job;    /* sizes (and CPU response maps) set at create, images at detect */
  void* response;     /* CPU: every level's response map, one block */
  vf_keypoint* cells; /* per-cell results, context memory */
  /* CUDA, host results: the kernel writes the cells straight into mapped page-locked host
   * memory (no copy to launch or wait for); mapped_cells is its device address. */
  vf_keypoint* staged;
  vf_keypoint* mapped_cells;
  uint32_t* lut; /* CUDA: the arc table in device memory */
  /* CUDA, host occupancy: the kernel reads the mask from mapped page-locked host memory. */
  uint8_t* mask_staged;
  uint8_t* mapped_mask;
  void* mask_event;  /* CUDA: after the last kernel that read mask_staged */
  vf_keypoint* list; /* compacted host results */
  int count;
  int detected; /* a detect has run */
  int pending;  /* a submit waits for its collect */
  /* CUDA: the event after a batched detection (vf_detector_submit_batch) that the collect waits
   * for instead of the stream; NULL for the detector's own launch. */
  void* done_event;
  int listed; /* the host list holds its results */
};

/* Points d's job at the pyramid's levels after checking it fits the configuration; errors
 * named after fn, in d's error. */
vf_status vf_detector_use_pyramid(vf_detector* d, const char* fn, const vf_pyramid* p);

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* What the CPU and CUDA halves of the alternative stereo stage (vf_stereo_alt.c,
 * vf_stereo_alt_cuda.c) share: the handle and its buffers. */
#ifndef VF_STEREO_ALT_INTERNAL_H
#define VF_STEREO_ALT_INTERNAL_H

#include <stdint.h>

#include "vf_error.h"
#include "vf_stereo_alt.h"
#include "vf_stereo_alt_common.h"

struct vf_stereo_alt {
  vf_error err;
  vf_context* ctx;
  vf_stereo_alt_config config;
  int on_device;         /* buffers in device memory (CUDA backend) */
  int radius;            /* ZNCC window half side */
  int integral;          /* window sums from summed-area tables */
  uint16_t weights[256]; /* FastDT Q15 weights by |dI| */
  /* In the context's memory, allocated at create time: */
  void* volume; /* ZNCC cost volume, cost_bytes per cost */
  size_t cost_bytes;
  uint16_t* sums;    /* window sums, left then right (w*h each) */
  uint32_t* vars;    /* window variance terms, left then right */
  uint32_t* sat;     /* summed-area tables (integral sums only) */
  void* census;      /* census words, left then right (64-bit; CUDA CS: 32-bit) */
  uint32_t* scratch; /* CPU: running column sums and DT rows */
  uint16_t* raw;     /* disparity before the median */
  /* CUDA only: input copies for host images, output for host maps, the weights. */
  uint8_t* dev_left;
  uint8_t* dev_right;
  size_t dev_stride;
  uint16_t* dev_disp;
  uint16_t* dev_weights;
};

/* Checks every field the method uses; messages start with `what`. */
vf_status vf_stereo_alt_validate(const vf_stereo_alt_config* c, const char* what);

/* Host or device memory by the backend; the message names `what`. */
vf_status vf_alt_buffer(vf_stereo_alt* s, void** ptr, size_t bytes, const char* what);

void vf_alt_cyclops_params(const vf_stereo_alt_config* c, vf_alt_cyclops* out);

#ifdef VF_HAVE_CUDA
vf_status vf_alt_cuda_allocate(vf_stereo_alt* s);
void vf_alt_cuda_release(vf_stereo_alt* s);
vf_status vf_alt_cuda_compute(vf_stereo_alt* s, const vf_image* left, const vf_image* right,
                              vf_image* disparity);
#endif

#endif

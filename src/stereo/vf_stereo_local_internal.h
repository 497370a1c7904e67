// SPDX-License-Identifier: BSD-3-Clause
/* What the CPU and CUDA halves of the local stereo stage (vf_stereo_local.c,
 * vf_stereo_local_cuda.c) share: the handle and its buffers. */
#ifndef VF_STEREO_LOCAL_INTERNAL_H
#define VF_STEREO_LOCAL_INTERNAL_H

#include <stdint.h>

#include "core/vf_error.h"
#include "stereo/kernels/vf_local_rules.h"
#include "stereo/vf_stereo_local.h"

struct vf_stereo_local {
  vf_error err;
  vf_context* ctx;
  vf_stereo_local_config config;
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
vf_status vf_stereo_local_validate(const vf_stereo_local_config* c, const char* what);

/* Host or device memory by the backend; the message names `what`. */
vf_status vf_local_buffer(vf_stereo_local* s, void** ptr, size_t bytes, const char* what);
/* Frees what vf_local_buffer gave (NULL is ignored). */
void vf_local_release(vf_stereo_local* s, void* ptr);

void vf_local_cyclops_params(const vf_stereo_local_config* c, vf_local_cyclops* out);

#ifdef VF_HAVE_CUDA
vf_status vf_local_cuda_allocate(vf_stereo_local* s);
void vf_local_cuda_release(vf_stereo_local* s);
vf_status vf_local_cuda_compute(vf_stereo_local* s, const vf_image* left, const vf_image* right,
                                vf_image* disparity);
#endif

#endif

// SPDX-License-Identifier: BSD-3-Clause
/* vf_stereo internals shared by src/stereo/vf_stereo*.c. */
#ifndef VF_STEREO_INTERNAL_H
#define VF_STEREO_INTERNAL_H

#include "stereo/kernels/vf_sgm_rules.h"
#include "viofront/vf_stereo.h"

/* Validates `c` (messages name the field, prefixed by `what`) and fills `p`. */
vf_status vf_stereo_params_from_config(const vf_stereo_config* c, vf_sgm_params* p,
                                       const char* what);

/* How many stereo computations of this size the caller runs at once on the device (a rig's
 * pairs, each on its own stream; 1 by default): on CUDA the SGM then picks its path layout for
 * the device as they fill it together (vf_cuda_sgm_runs_at). The same disparities either way.
 * Call before the first computation; without effect on other backends and methods. */
void vf_stereo_expect_concurrent(vf_stereo* s, int concurrent);

#endif

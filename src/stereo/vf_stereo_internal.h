// SPDX-License-Identifier: BSD-3-Clause
/* vf_stereo internals shared by src/stereo/vf_stereo*.c. */
#ifndef VF_STEREO_INTERNAL_H
#define VF_STEREO_INTERNAL_H

#include "stereo/kernels/vf_sgm_rules.h"
#include "viofront/vf_stereo.h"

/* Validates `c` (messages name the field, prefixed by `what`) and fills `p`. */
vf_status vf_stereo_params_from_config(const vf_stereo_config* c, vf_sgm_params* p,
                                       const char* what);

#endif

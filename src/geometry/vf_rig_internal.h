// SPDX-License-Identifier: BSD-3-Clause
/* What the camchain reader (vf_yaml_camchain.c) shares with the rig type (src/geometry/vf_rig.c):
 * the pair rules in words, so that a file's error can name its line and key rather than a function.
 */
#ifndef VF_RIG_INTERNAL_H
#define VF_RIG_INTERNAL_H

#include <stddef.h>

#include "viofront/vf_rig.h"

/* 0 when (left, right) can follow the rig's first `pairs_before` pairs; else 1 with the reason
 * in msg ("camera 5 is not in the rig (4 cameras)"). */
int vf_rig_pair_problem(const vf_rig* rig, int pairs_before, int left, int right, char* msg,
                        size_t size);

#endif

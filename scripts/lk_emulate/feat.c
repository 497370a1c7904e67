// SPDX-License-Identifier: BSD-3-Clause
/* The bench's warp and features for scripts/lk_emulate/warp.cpp (bench_part.c: run.sh cuts it from
 * examples/vf_bench/bench_tracker.c). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <viofront/viofront.h>
static const double bench_motion[2] = {1.3, 0.7};
#include "bench_part.c"
int feat_features(const vf_image* im, int max, float* xy) { return bench_features(im, max, xy); }
vf_status feat_warp(const vf_image* in, vf_image* out) { return bench_warp(in, out); }

// SPDX-License-Identifier: BSD-3-Clause
/* The list of stage benchmarks vf_bench knows; --stage picks one, default all. */
#include "bench.h"

/* One entry per line (clang-format off) so that branches adding stages merge cleanly. */
/* clang-format off */
const bench_stage bench_stages[] = {
    {"pyramid", bench_pyramid},
    {"remap", bench_remap},
    {"detector", bench_detector},
    {"tracker", bench_tracker},
    {"stereo", bench_stereo},
    {"frontend", bench_frontend},
    {"streams", bench_streams},
    {"rig", bench_rig},
    {NULL, NULL},
};
/* clang-format on */

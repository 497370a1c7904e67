/* The list of stage benchmarks vf_bench knows; --stage picks one, default all. */
#include "bench.h"

const bench_stage bench_stages[] = {
    {"pyramid", bench_pyramid},   {"frontend", bench_frontend},
    {"stereo", bench_stereo},     {"detector", bench_detector},
    {"stereo", bench_stereo},     {"detector", bench_detector},
    {"remap", bench_remap},       {NULL, NULL},
    {"pyramid", bench_pyramid},   {"stereo", bench_stereo},
    {"detector", bench_detector}, {"remap", bench_remap},
    {"tracker", bench_tracker},   {NULL, NULL},
};

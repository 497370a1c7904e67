/* The list of stage benchmarks vf_bench knows; --stage picks one, default all. */
#include "bench.h"

const bench_stage bench_stages[] = {
    {"pyramid", bench_pyramid},
    {"tracker", bench_tracker},
    {NULL, NULL},
};

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Inputs of the TX2 model (scripts/tx2_model.py, docs/perf/tx2.md), on a machine with an NVIDIA
# GPU and Nsight Compute (e.g. the H100 through the device tool): per kernel of each vf_bench
# stage of the TX2 profile, the executed instructions (warp level), DRAM bytes read and written,
# the duration and the launch count, as CSV and one JSON, then the model's estimate.
#   scripts/tx2_profile.sh [OUT_DIR]     (default $OUT, else ./tx2_profile)
# ncu serialises and replays kernels: its durations are not vf_bench's; only counts are used.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-$PWD/tx2_profile}}
mkdir -p "$out"
build=${VF_GPU_BUILD:-build-gpu}
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
[ -n "$ncu" ] || { echo "tx2_profile: ncu (Nsight Compute) not found"; exit 1; }
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native \
  -DVF_BUILD_TESTS=OFF >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target vf_bench >"$out/build.log" 2>&1 ||
  { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }

metrics=smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics=$metrics,lts__t_bytes.sum,gpu__time_duration.sum,launch__grid_size,launch__block_size
metrics=$metrics,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
bench=("$build/examples/vf_bench" --backend cuda --quiet --runs 5 --warmup 0)
run() { # name, env and vf_bench arguments...
  local name=$1
  shift
  echo "== $name"
  "$ncu" --metrics "$metrics" --csv --page raw --log-file "$out/$name.ncu.log" \
    env "$@" >"$out/$name.csv" 2>"$out/$name.err" || { tail -5 "$out/$name.err"; return 1; }
}
rc=0
run detector "${bench[@]}" --stage detector --size 752x480 || rc=1
run tracker VF_BENCH_FEATURES=100,200,500 "${bench[@]}" --stage tracker || rc=1
run stereo "${bench[@]}" --stage stereo --size 752x480 || rc=1
run frontend "${bench[@]}" --stage frontend || rc=1
# Every launch of a stage file counts (set-up kernels too, so the estimate is an upper bound);
# the model divides by the runs vf_bench made (--runs 5 per row, no warm-up).
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv >"$out/gpu.csv" 2>&1
python3 scripts/tx2_model.py --runs 5 "$out"/detector.csv "$out"/tracker.csv "$out"/stereo.csv \
  "$out"/frontend.csv --json "$out/tx2_estimate.json" --markdown "$out/tx2_estimate.md" || rc=1
exit $rc

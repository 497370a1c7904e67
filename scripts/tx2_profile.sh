#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Inputs of the TX2 model (scripts/tx2_model.py, docs/perf/tx2.md), on a machine with an NVIDIA
# GPU and Nsight Compute (e.g. the H100 through the device tool): per kernel of each vf_bench
# stage of the TX2 profile, the executed instructions (warp level), DRAM bytes read and written,
# the duration and the launch count, as CSV and one JSON, then the model's estimate.
#   scripts/tx2_profile.sh [OUT_DIR]     (default $OUT, else ./tx2_profile)
#   VF_TX2_MPS=1 scripts/tx2_profile.sh  also the SM-limited vf_bench run (MPS, see below)
#   VF_TX2_PEERS=DIR scripts/tx2_profile.sh  also the peers' counts in the same call: DIR is the
#     folder of the peers' harnesses (a copy of ../shared/peers: ncu_counts.sh builds vilib and
#     libSGM and counts them beside this vf_bench on its settings); VF_DATA_DIR names the folder
#     with images/birds_752x480.png (default .gpu/data)
# ncu serialises and replays kernels: its durations are not vf_bench's; only counts are used.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-$PWD/tx2_profile}}
mkdir -p "$out"
build=${VF_GPU_BUILD:-build-gpu}
. scripts/gpu_deps.sh
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
  "$ncu" --target-processes all --metrics "$metrics" --csv --page raw \
    --log-file "$out/$name.csv" env "$@" >"$out/$name.out" 2>"$out/$name.err" ||
    { tail -5 "$out/$name.err"; return 1; }
}
rc=0
run detector "${bench[@]}" --stage detector --size 752x480 || rc=1
for n in 100 200 500; do
  run "tracker$n" VF_BENCH_FEATURES=$n VF_BENCH_REFINE=0 "${bench[@]}" --stage tracker || rc=1
  run "tracker${n}_refine" VF_BENCH_FEATURES=$n VF_BENCH_REFINE=1 "${bench[@]}" --stage tracker ||
    rc=1
done
run stereo VF_BENCH_STEREO=sgm "${bench[@]}" --stage stereo --size 752x480 || rc=1
run frontend "${bench[@]}" --stage frontend || rc=1
# The SM-limited check (opt-in, VF_TX2_MPS=1): the TX2 profile's vf_bench rows on a few SMs
# through an MPS daemon of this user (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, default 1.5% = 2 of the
# H100's 132 SMs); the JSON's "multiprocessors" is what the runtime reported inside the limit.
if [ "${VF_TX2_MPS:-0}" = 1 ] && command -v nvidia-cuda-mps-control >/dev/null; then
  export CUDA_MPS_PIPE_DIRECTORY="$out/mps" CUDA_MPS_LOG_DIRECTORY="$out/mps"
  mkdir -p "$out/mps"
  nvidia-cuda-mps-control -d && trap 'echo quit | nvidia-cuda-mps-control' EXIT
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=${VF_MPS_PERCENT:-1.5}
  for st in detector stereo frontend; do
    VF_BENCH_STEREO=sgm "$build/examples/vf_bench" --backend cuda --quiet --stage $st \
      $([ $st = frontend ] || echo --size 752x480) --json "$out/mps_$st.json" 2>>"$out/mps.txt"
  done
  VF_BENCH_FEATURES=100,200,500 "$build/examples/vf_bench" --backend cuda --quiet \
    --stage tracker --json "$out/mps_tracker.json" 2>>"$out/mps.txt"
  unset CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
  grep -h '"multiprocessors"' "$out"/mps_*.json | sort | uniq -c
  cat "$out/mps.txt"
fi

# The peers' instructions and DRAM bytes in this call (issue 35: a ratio to a peer comes from one
# call), ours on the same settings beside them; their table is printed, not fed to the model.
if [ -n "${VF_TX2_PEERS:-}" ]; then
  data=${VF_DATA_DIR:-$PWD/.gpu/data}
  "$VF_TX2_PEERS/ncu_counts.sh" "$(cd "$build" && pwd)/examples/vf_bench" "$data" "$out/peers" \
    >"$out/peer_counts.txt" 2>&1 || rc=1
  echo "== same-call counts (ncu_counts.sh)"
  cat "$out/peer_counts.txt"
fi

# Per stage file: every launch (set-up kernels too, so a little high), divided by the timed
# iterations vf_bench made (its JSON, <stage>.out: runs and warm-up of every row).
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv >"$out/gpu.csv" 2>&1
python3 scripts/tx2_model.py "$out"/*.csv --json "$out/tx2_estimate.json" \
  --markdown "$out/tx2_estimate.md" || rc=1
exit $rc

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Replay speed (issue 18, item 7): vf_replay on a vf_synth sequence with the EuRoC reader's
# decoding pool at several sizes, with and without the ground-truth evaluation, and the reader
# alone (--read-only). The evaluation's summary must be the same at every pool size.
#   scripts/replay_speed.sh [BUILD [FRAMES [BACKEND [THREADS...]]]]
# Defaults: build-gpu, 300 frames, cuda, threads 1 4 8. Results in $OUT when set, else
# ./replay_out. A BUILD not yet configured is made through scripts/gpu_check.sh (which also runs
# the GPU tests and vf_bench's pyramid stage once); vf_replay and vf_synth are then rebuilt.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
frames=${2:-300}
backend=${3:-cuda}
shift $(($# < 3 ? $# : 3))
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 4 8)
out=${OUT:-$PWD/replay_out}
mkdir -p "$out"

if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "replay_speed: configuring and building $build through scripts/gpu_check.sh"
  VF_GPU_BUILD=$build VF_CPU_BENCH=0 OUT="$out/gpu_check" scripts/gpu_check.sh --stage pyramid \
    --runs 1 >"$out/gpu_check.log" 2>&1
fi
# A build folder left by an earlier call is brought up to date.
cmake --build "$build" -j"$(nproc)" --target vf_replay vf_synth >"$out/build.log" 2>&1 ||
  { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }
# gpu_check.sh unpacks missing libraries there; the programs need them at run time too.
deps=/tmp/vfdeps/usr/lib/x86_64-linux-gnu
[ -d "$deps" ] && export LD_LIBRARY_PATH="$deps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -x "$build/examples/vf_replay" ] || { echo "replay_speed: no $build/examples/vf_replay"; exit 1; }

seq=$out/synth_$frames
if [ ! -f "$seq/mav0/cam0/data.csv" ]; then
  "$build/examples/vf_synth" --out "$seq" --frames "$frames" --seed 1 --threads "$(nproc)" \
    >"$out/synth.log" 2>&1 || { tail -5 "$out/synth.log"; exit 1; }
fi
echo "replay_speed: $(nproc) cores, $seq, backend $backend"

status=0
for t in "${threads[@]}"; do
  for mode in no-eval eval; do
    flag=()
    [ "$mode" = no-eval ] && flag=(--no-eval)
    log=$out/replay_t${t}_$mode.txt
    "$build/examples/vf_replay" "$seq" --backend "$backend" --quiet --decode-threads "$t" \
      "${flag[@]}" >"$log" 2>&1 || status=1
    echo "== threads $t, $mode"
    grep -E "^(frames|reader|frontend)" "$log"
    log=$out/read_t${t}_$mode.txt
    "$build/examples/vf_replay" "$seq" --read-only --quiet --decode-threads "$t" "${flag[@]}" \
      >"$log" 2>&1 || status=1
    grep -E "^read only" "$log"
  done
done
# The evaluation must not depend on the pool.
first=""
for t in "${threads[@]}"; do
  grep "^ground truth" "$out/replay_t${t}_eval.txt" >"$out/eval_t$t.txt"
  if [ -z "$first" ]; then
    first=$out/eval_t$t.txt
  elif ! diff -q "$first" "$out/eval_t$t.txt" >/dev/null; then
    echo "replay_speed: the evaluation at $t threads differs from $first"
    status=1
  fi
done
[ $status -eq 0 ] && echo "replay_speed: evaluation identical at threads ${threads[*]}"
exit $status

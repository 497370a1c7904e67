#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 9 on a machine with an NVIDIA GPU (the device tool's H100), within one device call:
#   scripts/gpu_reliability.sh
# builds, runs ctest -L gpu, starts the CPU soak (10^4 frames, 12 threads) in the background,
# runs vf_replay on a short synthetic sequence under compute-sanitizer memcheck, racecheck,
# initcheck and synccheck, then the GPU soak (10^5 frames) alone on the GPU (its memory is read
# device-wide) in the time left. Logs and CSVs go to $OUT (else ./gpu_out), a summary at the end. Every
# step has a time limit so that the whole ends within VF_DEADLINE_S (default 450) seconds.
# Issue 17: the build has fault injection compiled in (-DVF_FAULT_INJECTION=ON: an atomic load
# per allocation and CUDA call when not armed). VF_GPU_FAULTS=walk runs instead, after the build,
# the CUDA failure walk (test_fault_alloc cuda) plainly and under compute-sanitizer memcheck with
# leak check; VF_GPU_FAULTS=soak runs vf_faultsoak on CUDA under compute-sanitizer memcheck
# (VF_FAULTSOAK_FRAMES, default 100000, within the time left) on the real EuRoC excerpt when
# $VF_DATA_DIR has it, else on a vf_synth sequence; VF_GPU_FAULTS=1 both (one device call of
# 10 minutes holds the build and one of them; the build folder stays for the next call).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu_out}
mkdir -p "$out"
build=${VF_GPU_BUILD:-build-rel}
deadline=$(($(date +%s) + ${VF_DEADLINE_S:-450}))
summary="$out/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
left() { echo $((deadline - $(date +%s))); }
# step NAME CAP_S CMD...: runs CMD with at most CAP_S seconds (less if the deadline is nearer).
step() {
  local name=$1 cap=$2 t0 rc lim
  shift 2
  lim=$(left)
  [ "$lim" -gt "$cap" ] && lim=$cap
  if [ "$lim" -lt 10 ]; then
    note "$name: skipped, no time left"
    return 0
  fi
  t0=$(date +%s)
  timeout "$lim" "$@" >"$out/$name.log" 2>&1
  rc=$?
  note "$name: rc $rc in $(($(date +%s) - t0)) s (limit $lim s)"
  return $rc
}

if ! echo '#include <yaml.h>
#include <png.h>
#include <cglm/cglm.h>' | cc -E -x c - >/dev/null 2>&1 && ls .deps/*.deb >/dev/null 2>&1; then
  prefix=/tmp/vfdeps
  for deb in .deps/*.deb; do dpkg -x "$deb" "$prefix"; done
  export CMAKE_PREFIX_PATH="$prefix/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export PATH="$PATH:/usr/local/cuda/bin"
note "commit $(cat .staged_commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo none)" \
  "$(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)" \
  "$(nproc) cores"
data=${VF_DATA_DIR:-$PWD/.gpu/data}
step configure 120 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CUDA_ARCHITECTURES="${VF_CUDA_ARCH:-90}" -DVF_DATA_DIR="$data" -DVF_FAULT_INJECTION=ON ||
  exit 1
step build 300 cmake --build "$build" -j"$(nproc)" || { tail -30 "$out/build.log"; exit 1; }
ex=$build/examples

faults=${VF_GPU_FAULTS:-0}
if [ "$faults" = walk ] || [ "$faults" = 1 ]; then
  step fault_walk 150 "$build/tests/test_fault_alloc" cuda
  step fault_walk_cs 300 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 99 \
    "$build/tests/test_fault_alloc" cuda
  grep -E "calls failed in turn|sites:|checks|SKIP|never failed|wrong|ERROR SUMMARY|LEAK SUMMARY" \
    "$out/fault_walk.log" "$out/fault_walk_cs.log" | tee -a "$summary"
fi
if [ "$faults" = soak ] || [ "$faults" = 1 ]; then
  seq=$data/euroc/V1_01_easy_micro
  if [ ! -f "$seq/mav0/cam0/data.csv" ]; then
    seq=$build/seq_fault
    step synth_fault 60 "$ex/vf_synth" --out "$seq" --frames 60 --seed 2 --threads "$(nproc)"
  fi
  soak_limit=$(($(left) - 15))
  step faultsoak_cs "$soak_limit" compute-sanitizer --tool memcheck --leak-check full \
    --error-exitcode 99 "$ex/vf_faultsoak" "$seq" --work "$build/faultsoak" --backend cuda \
    --frames "${VF_FAULTSOAK_FRAMES:-100000}" --sample 500 --max-seconds $((soak_limit - 30)) \
    --csv "$out/faultsoak_cuda.csv"
  grep -E "^vf_faultsoak|^  |ERROR SUMMARY|LEAK SUMMARY" "$out/faultsoak_cs.log" | tee -a "$summary"
fi
if [ "$faults" != 0 ]; then
  note "done, $(left) s before the deadline"
  exit 0
fi

step synth 60 "$ex/vf_synth" --out "$build/seq_soak" --frames 60 --seed 2 --threads "$(nproc)"
step synth_cs 30 "$ex/vf_synth" --out "$build/seq_cs" --frames 4 --seed 4 --threads "$(nproc)"
step ctest_gpu 120 ctest --test-dir "$build" -L gpu --output-on-failure --timeout 100
grep -E "tests passed|tests failed|\*\*\*|Passed|Failed" "$out/ctest_gpu.log" | tee -a "$summary"
# The CPU soak runs beside the rest (after the GPU tests, whose CPU references need the cores);
# it touches no GPU.
cpu_limit=$(($(left) - 20))
step soak_cpu "$cpu_limit" "$ex/vf_soak" "$build/seq_soak" --backend cpu --threads 12 \
  --frames 10000 --sample 100 --preload off --max-seconds $((cpu_limit - 10)) \
  --config examples/vf_soak/soak_cpu.yaml --csv "$out/soak_cpu.csv" &
cpu_pid=$!
for tool in memcheck racecheck initcheck synccheck; do
  extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  step "cs_$tool" 60 compute-sanitizer --tool "$tool" ${extra[@]+"${extra[@]}"} \
    --error-exitcode 99 "$ex/vf_replay" "$build/seq_cs" --backend cuda --quiet
  grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|frames [0-9]+ in" "$out/cs_$tool.log" |
    sed "s/^/  $tool: /" | tee -a "$summary"
done
# The GPU soak alone on the GPU, in the time left.
gpu_limit=$(($(left) - 15))
step soak_gpu "$gpu_limit" "$ex/vf_soak" "$build/seq_soak" --backend cuda --frames 100000 \
  --sample 1000 --preload on --max-seconds $((gpu_limit - 10)) --csv "$out/soak_gpu.csv"
wait "$cpu_pid"
tail -n 1 "$out/soak_gpu.log" "$out/soak_cpu.log" | tee -a "$summary"
note "done, $(left) s before the deadline"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the libFuzzer targets with clang and runs each, one after the other, bounded by time or
# by executions:
#   scripts/run_fuzz.sh [seconds-per-target]     (default 60; CI)
#   scripts/run_fuzz.sh --runs N                 (N executions per target, e.g. 1000000)
# VF_FUZZ_TARGETS="fuzz_png fuzz_yaml" picks targets (default: all). Each target starts from its
# seed corpus tests/fuzz/corpus/<name> (cut from the shared real data, see the README there) in
# a scratch copy, so the repository is unchanged. Per target one line: executions, seconds,
# coverage (cov: edges) and features (ft:), corpus size; a crash, leak, timeout or an allocation
# above 2 GB fails the script with the reproducer under build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=(-max_total_time="${1:-60}")
if [ "${1:-}" = "--runs" ]; then limit=(-runs="$2"); fi
CC=clang cmake -S . -B build-fuzz -DVF_FUZZ=ON -DVF_ENABLE_CUDA=OFF -DVF_BUILD_TESTS=OFF \
  -DVF_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"$(nproc)" >/dev/null
targets=${VF_FUZZ_TARGETS:-$(cd build-fuzz/tests/fuzz && ls fuzz_* | grep -v '\.')}
for name in $targets; do
  work=build-fuzz/corpus/$name
  rm -rf "$work" && mkdir -p "$work"
  cp tests/fuzz/corpus/"${name#fuzz_}"/* "$work"/
  start=$(date +%s)
  rc=0
  # UBSan reports are failures too (the fuzz build's checks recover unless told to halt).
  (cd build-fuzz && TMPDIR=$PWD UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "./tests/fuzz/$name" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$PWD/$name-" "corpus/$name") >"$work.log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work.log")
  done_line=$(grep -E "^#[0-9]+[[:space:]]+DONE" "$work.log" | tail -1 || true)
  echo "$name: ${runs:-?} runs in $(($(date +%s) - start)) s; ${done_line:-no DONE line}"
  [ "$rc" -eq 0 ] || { tail -40 "$work.log"; echo "$name found a failure (rc $rc)"; exit 1; }
done

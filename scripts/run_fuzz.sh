#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a bounded time:
#   scripts/run_fuzz.sh [seconds-per-target]   (default 60)
# Each target starts from its seed corpus tests/fuzz/corpus/<name> (plus the real files of
# the shared data when present) and works in a scratch copy, so the repository is unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
CC=clang cmake -S . -B build-fuzz -DVF_FUZZ=ON -DVF_ENABLE_CUDA=OFF -DVF_BUILD_TESTS=OFF \
  -DVF_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"$(nproc)"
data=${VF_DATA_DIR:-../shared/data}
for fuzzer in build-fuzz/tests/fuzz/fuzz_*; do
  name=$(basename "$fuzzer")
  work=build-fuzz/corpus/$name
  rm -rf "$work" && mkdir -p "$work"
  cp tests/fuzz/corpus/"${name#fuzz_}"/* "$work"/
  case $name in
    fuzz_png) [ -d "$data/images" ] && cp "$data"/middlebury/cones/im2.png "$work"/ ;;
    fuzz_yaml) [ -d "$data/euroc" ] && { printf '\001'; cat "$data"/euroc/V1_01_easy_micro/mav0/cam0/sensor.yaml; } >"$work"/real_cam0.yaml ;;
  esac
  echo "== $name for $seconds s =="
  rc=0
  "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 "$work" \
    >"$work.log" 2>&1 || rc=$?
  grep -E "stat::number_of_executed_units|ERROR|SUMMARY|^Done" "$work.log" || true
  [ "$rc" -eq 0 ] || { tail -40 "$work.log"; echo "$name found a failure"; exit 1; }
done

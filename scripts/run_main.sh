#!/usr/bin/env bash
# Set up, build and run the main job. Until the EuRoC replay lands (issue 7) the main job is
# the stage benchmark on the best backend present (GPU if any, else CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DVF_BUILD_TESTS=OFF
cmake --build build -j"$(nproc)"
build/examples/vf_bench --runs 50 --warmup 5

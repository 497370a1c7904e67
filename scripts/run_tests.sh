#!/usr/bin/env bash
# Set up, build and run the test suite: scripts/run_tests.sh [build-dir] [extra cmake args]
# GPU tests skip cleanly on a machine without a CUDA device.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PATH:/usr/local/cuda/bin" # the toolkit's usual place, when it is not on the PATH
build=${1:-build}
shift || true
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up, build and run the test suite: scripts/run_tests.sh [build-dir] [extra cmake args]
# GPU tests skip cleanly on a machine without a CUDA device. Then the Python package's tests
# (scripts/run_python_tests.sh). Its own build folder (build-tests)
# so that it and scripts/run_main.sh (build/, Release, no tests) never undo each other's
# configuration; tests are always configured on, and ctest fails when no test ran.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PATH:/usr/local/cuda/bin" # the toolkit's usual place, when it is not on the PATH
build=${1:-build-tests}
shift || true
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVF_BUILD_TESTS=ON "$@"
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$(nproc)"
# The Python package: pip install of the checkout into a venv under $build, then its pytest suite.
scripts/run_python_tests.sh "$build"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# CI step "aarch64": the CPU-only library, examples and tests cross-built for 64-bit ARM (the
# Jetson's CPU) with cmake/aarch64-linux-gnu.cmake, the non-GPU tests run under qemu-user
# (CMAKE_CROSSCOMPILING_EMULATOR), bad-input suite included: first with the NEON path of the
# 4-lane CPU kernels, then plain C (-DVF_SIMD_PORTABLE=ON) for the tests of those kernels.
# Under qemu-user every floating-point instruction is emulated in software (softfloat: float
# code runs 25-100x slower than natively, integer code ~8x), and each thread created leaks
# ~280 KB of the emulator's memory (qemu 7.2). So the synthetic sequence has 6 frames instead of
# 16, and these tests are left out (they run natively in the other CI steps; VF_QEMU_TESTS=all
# runs them here too): test_consumer (builds a project with the host's compiler), test_soak_short
# and test_faultsoak_short (their memory verdicts would measure qemu's leak), test_layout (a
# check of the source tree and of the host's nm over the objects, not of the target), and the
# six whose float work is minutes here:
# test_tracker_refine (6.4 s native, over 300 s), test_synth (190 s), test_tracker_drift_measure
# (150 s), test_synth_imu (80-120 s), test_synth_rig (217 s: rendering the rigs' cameras) and
# test_replay_rig (103 s; 4.6 and 18.7 s native). docs/jetson.md has the measurements.
# Usage: scripts/ci_aarch64.sh [BUILD_PREFIX]   (build folders PREFIX-neon, PREFIX-portable)
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-build-aarch64}
jobs=${VF_JOBS:-$(nproc)}
. scripts/ci_apt.sh
dpkg --print-foreign-architectures | grep -qx arm64 || { dpkg --add-architecture arm64; vf_apt update; }
vf_apt_install gcc-aarch64-linux-gnu qemu-user libc6-dev:arm64 libyaml-dev:arm64 libpng-dev:arm64 \
  libcglm-dev:arm64 zlib1g-dev:arm64

skip="test_consumer|test_soak_short|test_faultsoak_short|test_layout"
if [ "${VF_QEMU_TESTS:-}" != all ]; then
  skip="$skip|test_tracker_refine|test_synth|test_tracker_drift_measure|test_synth_imu"
  skip="$skip|test_synth_rig|test_replay_rig"
fi
echo "aarch64: not run under qemu (reasons in scripts/ci_aarch64.sh): ${skip//|/ }"

build() { # folder, extra cmake options...
  local dir=$1
  shift
  mkdir -p "$dir"
  cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
    -DCMAKE_BUILD_TYPE=Release "$@" >"$dir/configure.log" 2>&1 || { cat "$dir/configure.log"; exit 1; }
}

t0=$(date +%s)
build "$prefix-neon" -DVF_TEST_SYNTH_FRAMES="${VF_QEMU_SYNTH_FRAMES:-6}"
cmake --build "$prefix-neon" -j"$jobs" >/dev/null
echo "-- aarch64 NEON build: $(($(date +%s) - t0)) s"
t0=$(date +%s)
ctest --test-dir "$prefix-neon" -LE gpu -E "^($skip)\$" -j"$jobs" --timeout 600 --output-on-failure |
  tail -n 25
grep -q "vf_simd4 path: NEON" "$prefix-neon/Testing/Temporary/LastTest.log" ||
  { echo "test_simd4 did not take the NEON path"; exit 1; }
grep -q "vf_simd16 path: NEON" "$prefix-neon/Testing/Temporary/LastTest.log" ||
  { echo "test_simd16 did not take the NEON path"; exit 1; }
echo "-- aarch64 NEON tests under qemu: $(($(date +%s) - t0)) s"

# Plain C: the library and the tests of the SIMD kernels (the tracker's patch loops, CPU SGM,
# FAST's segment test, the remap's bilinear blend, the sparse stereo search and the disparity
# refinement).
t0=$(date +%s)
simd_tests="test_simd4 test_simd16 test_cpu_digest test_tracker_template test_tracker_input"
simd_tests="$simd_tests test_tracker_gyro test_detector test_remap test_stereo_match_run"
simd_tests="$simd_tests test_disparity_refine_cpu"
build "$prefix-portable" -DVF_SIMD_PORTABLE=ON -DVF_BUILD_EXAMPLES=OFF
# shellcheck disable=SC2086
cmake --build "$prefix-portable" -j"$jobs" --target $simd_tests >/dev/null
ctest --test-dir "$prefix-portable" -R "^(${simd_tests// /|})\$" -j"$jobs" --timeout 600 \
  --output-on-failure | tail -n 12
grep -q "vf_simd4 path: plain C" "$prefix-portable/Testing/Temporary/LastTest.log" ||
  { echo "test_simd4 did not take the plain C path"; exit 1; }
grep -q "vf_simd16 path: plain C" "$prefix-portable/Testing/Temporary/LastTest.log" ||
  { echo "test_simd16 did not take the plain C path"; exit 1; }
echo "-- aarch64 plain C build and tests under qemu: $(($(date +%s) - t0)) s"

# Bit for bit across architectures and paths: test_cpu_digest's hashes of the detector (with and
# without an occupancy mask), tracker (with and without refinement), SGM, sparse matching and remap
# results, x86-64 (SSE2, and AVX2 where the CPU has it) against AArch64 NEON and plain C.
# The x86 build: VF_X86_BUILD (e.g. .ci/run's build-tests), else a CPU-only one made here.
x86=${VF_X86_BUILD:-$prefix-x86}
if [ ! -x "$x86/tests/test_cpu_digest" ]; then
  mkdir -p "$x86"
  cmake -S . -B "$x86" -DCMAKE_BUILD_TYPE=Release -DVF_ENABLE_CUDA=OFF -DVF_BUILD_EXAMPLES=OFF \
    >"$x86/configure.log" 2>&1 || { cat "$x86/configure.log"; exit 1; }
  cmake --build "$x86" -j"$jobs" --target test_cpu_digest >/dev/null
fi
ref=$("$x86/tests/test_cpu_digest" | grep '^digest:')
echo "x86-64:          $ref"
for path in neon portable; do
  got=$(qemu-aarch64 "$prefix-$path/tests/test_cpu_digest" | grep '^digest:')
  echo "aarch64 $path: $got"
  [ "$got" = "$ref" ] || { echo "aarch64 $path differs from x86-64"; exit 1; }
done
echo "aarch64: CPU results bit-identical to x86-64 on both paths"

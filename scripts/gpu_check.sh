#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# On a machine with an NVIDIA GPU: configure and build for the local GPU, run the GPU tests
# (ctest -L gpu) and vf_bench, and print a short table. Used through the device tool:
#   scripts/gpu_check.sh [bench args...]      (results in $OUT when set, else ./gpu_out)
# Libraries missing on the GPU machine (libyaml, libpng, cglm) are taken from .deps/*.deb
# (Debian packages fetched with `apt-get download`) unpacked into a scratch prefix (gpu_deps.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu_out}
mkdir -p "$out"
build=${VF_GPU_BUILD:-build-gpu}

. scripts/gpu_deps.sh

arch=${VF_CUDA_ARCH:-native}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
  -DVF_DATA_DIR="${VF_DATA_DIR:-$PWD/.gpu/data}" >"$out/configure.log" 2>&1 ||
  { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" >"$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -60; exit 1; }

ctest --test-dir "$build" -L gpu --output-on-failure >"$out/ctest_gpu.log" 2>&1
gpu_rc=$?
grep -E "Test +#|tests passed|checks" "$out/ctest_gpu.log"
[ $gpu_rc -eq 0 ] || tail -60 "$out/ctest_gpu.log"

"$build/examples/vf_bench" --backend cuda --data "${VF_DATA_DIR:-$PWD/.gpu/data}" --json "$out/bench_cuda.json" "$@" 2>"$out/bench_cuda.txt"
bench_rc=$?
# The CPU backend is the reference, not the product: a few runs suffice (later options win).
# VF_CPU_BENCH=0 skips it (the CPU stereo rows take minutes).
if [ "${VF_CPU_BENCH:-1}" != 0 ]; then
  "$build/examples/vf_bench" --backend cpu --json "$out/bench_cpu.json" "$@" --runs 5 --warmup 1 \
    2>"$out/bench_cpu.txt"
else
  echo "skipped (VF_CPU_BENCH=0)" >"$out/bench_cpu.txt"
fi
# The main job on the GPU: a synthetic sequence replayed with its ground-truth evaluation.
seq="$build/sequences/synth_gpu"
mkdir -p "$(dirname "$seq")"
"$build/examples/vf_synth" --out "$seq" --frames "${VF_GPU_REPLAY_FRAMES:-200}" --seed 1 \
  >"$out/synth.txt" 2>&1 &&
  "$build/examples/vf_replay" "$seq" --backend cuda --quiet >"$out/replay_cuda.txt" 2>&1
replay_rc=$?
# The Python package on the GPU: CuPy/PyTorch device arrays through the CUDA stages (each test
# skips when its framework is absent; the venv sees the machine's packages and takes its build
# tools from .deps/wheels when there is no PyPI; without them it is skipped with a message).
VF_PY_SYSTEM_SITE=1 scripts/run_python_tests.sh "$build" python/tests/test_gpu.py -rs \
  >"$out/pytest_gpu.log" 2>&1
py_rc=$?
echo "== vf_bench (GPU) =="; cat "$out/bench_cuda.txt"
echo "== vf_bench (CPU, $(nproc) cores) =="; cat "$out/bench_cpu.txt"
echo "== vf_replay on a synthetic sequence (GPU) =="; cat "$out/replay_cuda.txt"
echo "== Python package, GPU tests =="; tail -15 "$out/pytest_gpu.log"
commit=$(cat .staged_commit 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo none)
echo "gpu tests rc=$gpu_rc bench rc=$bench_rc replay rc=$replay_rc python rc=$py_rc commit=$commit"
[ $gpu_rc -eq 0 ] && [ $bench_rc -eq 0 ] && [ $replay_rc -eq 0 ] && [ $py_rc -eq 0 ]

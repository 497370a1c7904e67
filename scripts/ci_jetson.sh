#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# CI step "Jetson toolchain": the CUDA backend built as for a Jetson, with Debian's CUDA 11.8
# (non-free nvidia-cuda-toolkit) and g++-11 as host compiler, for sm_62 (TX2), sm_72 (Xavier)
# and sm_87 (Orin), C++14, warnings as errors; then cuobjdump must list code for all three in
# every kernel. The configure step runs cmake/VfCuda102Check.cmake (nothing beyond CUDA 10.2
# outside version guards). Needs root for apt-get. Usage: scripts/ci_jetson.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-jetson}
. scripts/ci_apt.sh
vf_apt_components
# Debian's toolkit puts nvcc 11.8 (and ptxas, cuobjdump) in /usr/bin, where builds that look for
# nvcc on the PATH before /usr/local/cuda/bin (scripts/run_main.sh, .ci/run) would take it
# instead of the machine's own toolkit: if this step installs the package that holds them, it
# removes it again on exit (its libraries and headers stay for the next run; VF_KEEP_CUDA118=1
# keeps it all).
if ! vf_apt_installed nvidia-cuda-toolkit && [ "${VF_KEEP_CUDA118:-0}" != 1 ]; then
  trap 'vf_apt purge nvidia-cuda-toolkit >/dev/null && echo "jetson toolchain: nvcc 11.8 removed again"' EXIT
fi
vf_apt_install nvidia-cuda-toolkit g++-11
nvcc=/usr/bin/nvcc
# nvcc runs ptxas, fatbinary and nvlink through PATH: 11.8's (/usr/bin) before any newer ones.
export PATH="/usr/bin:$PATH"
"$nvcc" --version | tail -1

# The machine may link a newer toolkit's headers (CUDA 13) into /usr/local/include, which g++
# searches before /usr/include: 11.8's generated stub code then meets 13's host_runtime.h and
# fails (__cudaLaunch). A folder of links to 11.8's own headers, passed with -I, comes first.
mkdir -p "$build"
inc="$PWD/$build/cuda118-include"
rm -rf "$inc"
dpkg -L nvidia-cuda-dev | while read -r f; do
  case "$f" in
    /usr/include/*) [ -f "$f" ] || continue
      mkdir -p "$inc/$(dirname "${f#/usr/include/}")"
      ln -s "$f" "$inc/${f#/usr/include/}" ;;
  esac
done

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DVF_BUILD_TESTS=OFF -DVF_BUILD_EXAMPLES=OFF \
  -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_HOST_COMPILER=g++-11 \
  -DCMAKE_CUDA_ARCHITECTURES="62;72;87" -DCMAKE_CUDA_FLAGS="-I$inc" >"$build/configure.log" ||
  { cat "$build/configure.log"; exit 1; }
grep -E "viofront:" "$build/configure.log"
cmake --build "$build" --target viofront -j"${VF_JOBS:-$(nproc)}"

# Every kernel in sm_62, sm_72 and sm_87 code (the .so holds the fatbinary).
lib=$(find "$build" -maxdepth 1 -name 'libviofront.so*' -type f | head -1)
"$(dirname "$nvcc")/cuobjdump" --list-elf "$lib" >"$build/elf.txt"
for sm in 62 72 87; do
  n=$(grep -c "sm_$sm" "$build/elf.txt" || true)
  [ "$n" -gt 0 ] || { echo "no sm_$sm code in $lib"; exit 1; }
  echo "sm_$sm: $n cubins"
done
kernels() { "$(dirname "$nvcc")/cuobjdump" --dump-elf-symbols --gpu-architecture "sm_$1" "$lib" |
  grep -oE '_Z[0-9A-Za-z_]+' | sort -u; }
for sm in 72 87; do
  diff <(kernels 62) <(kernels "$sm") >/dev/null || { echo "kernels differ: sm_62 vs sm_$sm"; exit 1; }
done
echo "jetson toolchain: $(kernels 62 | wc -l) device symbols in each of sm_62, sm_72, sm_87"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the Debian packages (libviofront<ABI>, libviofront-dev, viofront-tools) with CPack into
# <build-dir>/packages:   scripts/build_packages.sh [build-dir] [extra cmake args]
# e.g. scripts/build_packages.sh build-deb -DVF_ENABLE_CUDA=OFF for a CPU-only library. The CUDA
# backend, when compiled in, links cudart statically: the packages need no CUDA package.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# dpkg-shlibdeps (dpkg-dev) and file compute the runtime dependencies.
for p in dpkg-dev file; do
  dpkg -s "$p" >/dev/null 2>&1 || {
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$p"
  }
done
export PATH="$PATH:/usr/local/cuda/bin"
build=${1:-build-deb}
shift || true
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DVF_BUILD_TESTS=OFF -DVF_BUILD_EXAMPLES=ON "$@" >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
rm -rf "$build/packages"
(cd "$build" && cpack -G DEB >/dev/null 2>&1) || (cd "$build" && cpack -G DEB)
ls "$build"/packages/*.deb

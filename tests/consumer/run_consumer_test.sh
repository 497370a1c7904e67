#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Installs the built viofront into a scratch prefix, then configures, builds and runs the
# consumer project against it through find_package and through pkg-config.
set -eu
build_dir=$1
work=$2
src=$3
# A sanitizer build of viofront needs the consumer built with the same runtime.
cflags=${4:-}
rm -rf "$work"
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
libdir=$(find "$work/prefix" -name 'libviofront*' -print | head -n 1 | xargs dirname)
static=OFF
[ -f "$libdir/libviofront.a" ] && static=ON
for mode in package pkgconfig; do
  PKG_CONFIG_PATH="$libdir/pkgconfig" cmake -S "$src" -B "$work/$mode" \
    -DCMAKE_PREFIX_PATH="$work/prefix" -DVF_CONSUMER_MODE=$mode -DVF_CONSUMER_STATIC=$static \
    -DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" >/dev/null
  cmake --build "$work/$mode" >"$work/$mode.log" 2>&1 || { tail -20 "$work/$mode.log"; exit 1; }
  LD_LIBRARY_PATH="$libdir" "$work/$mode/consumer"
done
echo "consumer test: find_package and pkg-config both link"

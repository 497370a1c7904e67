#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Installs the built viofront into a scratch prefix, then configures, builds and runs the
# consumer project against it through find_package and through pkg-config. With --installed
# in place of the build folder it uses the viofront installed on the system (the Debian
# packages) instead, and checks that the consumer loads the system's library.
set -eu
build_dir=$1
work=$2
src=$3
# A sanitizer build of viofront needs the consumer built with the same runtime.
cflags=${4:-}
rm -rf "$work"
static=OFF
prefix=""
libdir=""
if [ "$build_dir" != "--installed" ]; then
  cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
  prefix="$work/prefix"
  libdir=$(find "$prefix" -name 'libviofront.so' -o -name 'libviofront.a' | head -n 1 | xargs dirname)
  [ -f "$libdir/libviofront.a" ] && static=ON
fi
for mode in package pkgconfig; do
  PKG_CONFIG_PATH="${libdir:+$libdir/pkgconfig}" cmake --no-warn-unused-cli -S "$src" -B "$work/$mode" \
    -DCMAKE_PREFIX_PATH="$prefix" -DVF_CONSUMER_MODE=$mode -DVF_CONSUMER_STATIC=$static \
    -DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" >/dev/null
  cmake --build "$work/$mode" >"$work/$mode.log" 2>&1 || { tail -20 "$work/$mode.log"; exit 1; }
  if [ -z "$prefix" ]; then
    loaded=$(ldd "$work/$mode/consumer" | awk '/libviofront/ {print $3}')
    owner=$(dpkg -S "$(readlink -f "$loaded")" 2>/dev/null) || {
      echo "$mode: consumer loads $loaded, which no installed package holds" >&2
      exit 1
    }
    echo "$mode: consumer loads $loaded (${owner%%:*})"
  fi
  LD_LIBRARY_PATH="$libdir" "$work/$mode/consumer"
done
echo "consumer test: find_package and pkg-config both link"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the GPU-machine scripts (gpu_check.sh, tx2_profile.sh): when libyaml, libpng or
# cglm are missing there, the Debian packages in .deps/*.deb (fetched with `apt-get download`)
# are unpacked into a scratch prefix that CMake and the loader then search.
if ! echo '#include <yaml.h>
#include <png.h>
#include <cglm/cglm.h>' | cc -E -x c - >/dev/null 2>&1 && ls .deps/*.deb >/dev/null 2>&1; then
  prefix=/tmp/vfdeps
  for deb in .deps/*.deb; do dpkg -x "$deb" "$prefix"; done
  export CMAKE_PREFIX_PATH="$prefix/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "dependencies unpacked from .deps into $prefix"
fi

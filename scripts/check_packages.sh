#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checks the Debian packages that scripts/build_packages.sh wrote, then installs them on this
# machine, builds and runs tests/consumer against them through find_package and pkg-config,
# runs one installed tool, and removes them again:   scripts/check_packages.sh [packages-dir]
# Needs root (or sudo) for apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-deb/packages}
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
fail() {
  echo "check_packages: $*" >&2
  exit 1
}
one() { # the single file matching a pattern
  local f
  f=$(compgen -G "$1") || fail "no package $1"
  [ "$(echo "$f" | wc -l)" -eq 1 ] || fail "more than one package $1"
  echo "$f"
}
lib=$(one "$dir/libviofront[0-9]*_*.deb")
dev=$(one "$dir/libviofront-dev_*.deb")
tools=$(one "$dir/viofront-tools_*.deb")
libpkg=$(dpkg-deb -f "$lib" Package)
version=$(dpkg-deb -f "$lib" Version)
soversion=${libpkg#libviofront}
# Each package's file list, read once (grep -q on a pipe could end it early under pipefail).
declare -A listing
for p in "$lib" "$dev" "$tools"; do listing[$p]=$(dpkg -c "$p" | awk '{print $6}'); done
has() { grep -qE "$2" <<<"${listing[$1]}" || fail "$(basename "$1") lacks $2"; }
hasnt() { ! grep -qE "$2" <<<"${listing[$1]}" || fail "$(basename "$1") must not hold $2"; }

# Runtime package: the versioned library and its SONAME link, nothing for developers.
has "$lib" "^\./usr/lib/[^/]+/libviofront\.so\.$soversion\.[0-9]+$"
has "$lib" "^\./usr/lib/[^/]+/libviofront\.so\.$soversion$"
has "$lib" "^\./usr/share/doc/$libpkg/copyright$"
hasnt "$lib" "include/|\.pc$|\.cmake$|/bin/|libviofront\.so$"
# Development package: headers, the .so link, CMake package and pkg-config file.
for h in viofront.h vf_version.h vf_frontend.h vf_stereo.h vf_tracker.h; do
  has "$dev" "^\./usr/include/viofront/$h$"
done
has "$dev" "^\./usr/lib/[^/]+/libviofront\.so$"
has "$dev" "^\./usr/lib/[^/]+/cmake/viofront/viofrontConfig\.cmake$"
has "$dev" "^\./usr/lib/[^/]+/cmake/viofront/viofrontConfigVersion\.cmake$"
has "$dev" "^\./usr/lib/[^/]+/pkgconfig/viofront\.pc$"
has "$dev" "^\./usr/share/doc/libviofront-dev/copyright$"
hasnt "$dev" "libviofront\.so\.[0-9]"
# Tools: the example programs under their own names.
for t in vf_replay vf_synth vf_bench vf_stereo vf_vo vf_soak vf_faultsoak vf_features vf_drift; do
  has "$tools" "^\./usr/bin/$t$"
done
has "$tools" "^\./usr/share/doc/viofront-tools/copyright$"

# Dependencies: the Debian libraries we link, the exact runtime package, no CUDA package.
deps=$(dpkg-deb -f "$lib" Depends)
for d in libc6 libyaml-0-2 libpng16-16; do
  grep -qE "(^|, )$d( |,|$)" <<<"$deps" || fail "$libpkg does not depend on $d: $deps"
done
for p in "$lib" "$dev" "$tools"; do
  ! grep -qiE "cuda|nvidia" <<<"$(dpkg-deb -f "$p" Depends)" || fail "$(basename "$p") depends on CUDA"
done
grep -qF "$libpkg (= $version)" <<<"$(dpkg-deb -f "$dev" Depends)" || fail "-dev does not pin $libpkg"
grep -qF "$libpkg (= $version)" <<<"$(dpkg-deb -f "$tools" Depends)" || fail "tools do not pin $libpkg"
shlibs=$(dpkg-deb --ctrl-tarfile "$lib" | tar -xO ./shlibs)
grep -qx "libviofront $soversion $libpkg (>= $version)" <<<"$shlibs" ||
  fail "$libpkg has no shlibs entry for libviofront $soversion"
# The library inside carries the SONAME the package is named after.
tmp=$(mktemp -d)
installed=0
cleanup() {
  [ "$installed" -eq 0 ] || $sudo apt-get purge -y -qq viofront-tools libviofront-dev "$libpkg" >/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
dpkg-deb -x "$lib" "$tmp/lib"
so=$(find "$tmp/lib" -type f -name 'libviofront.so.*')
grep -qF "[libviofront.so.$soversion]" <<<"$(readelf -d "$so")" || fail "SONAME of $so is not libviofront.so.$soversion"
grep -q "License: BSD-3-Clause" "$tmp/lib/usr/share/doc/$libpkg/copyright" || fail "copyright lacks the license"
echo "package contents and dependencies: ok ($libpkg $version)"

# Install, use, remove (on the way out, also when a check fails).
installed=1
$sudo apt-get install -y -qq "./$lib" "./$dev" "./$tools" >"$tmp/install.log" 2>&1 ||
  { tail -20 "$tmp/install.log"; fail "apt-get install failed"; }
pkg-config --modversion viofront | grep -qx "${version%%-*}" || fail "pkg-config does not see viofront $version"
tests/consumer/run_consumer_test.sh --installed "$tmp/consumer" "$PWD/tests/consumer"
vf_minimal
echo "packages installed and used by the consumer through find_package and pkg-config; removing them"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages viofront needs to build (skips what is already there).
set -euo pipefail
pkgs="cmake gcc make pkg-config libcglm-dev libyaml-dev libpng-dev"
missing=""
for p in $pkgs; do
  # This machine's architecture: with multiarch (scripts/ci_aarch64.sh's arm64 -dev packages)
  # `dpkg -s NAME` is ambiguous and fails.
  dpkg-query -W -f='${Architecture} ${Status}\n' "$p" 2>/dev/null |
    grep -qE "^($(dpkg --print-architecture)|all) install ok installed$" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "setup: installing$missing"
  $sudo apt-get update -qq || echo "setup: apt-get update failed; trying the cached package lists"
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages viofront needs to build (skips what is already there).
set -euo pipefail
pkgs="cmake gcc make pkg-config libcglm-dev libyaml-dev libpng-dev"
missing=""
for p in $pkgs; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "setup: installing$missing"
  $sudo apt-get update -qq || echo "setup: apt-get update failed; trying the cached package lists"
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi

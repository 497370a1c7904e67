#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Helpers for the CI steps that need Debian packages beyond main (sourced, not run):
#   vf_apt_components  add contrib non-free non-free-firmware to the Debian apt sources
#   vf_apt_installed PKG   whether PKG is installed
#   vf_apt_install PKG...  apt-get install what is not installed
# apt waits for the dpkg lock (other jobs on the machine may hold it).
vf_apt() {
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 -y -qq "$@"
}

vf_apt_components() {
  local f=/etc/apt/sources.list.d/debian.sources changed=0
  if [ -f "$f" ]; then
    if grep -q '^Components: main$' "$f"; then
      sed -i 's/^Components: main$/Components: main contrib non-free non-free-firmware/' "$f"
      changed=1
    fi
  elif [ -f /etc/apt/sources.list ] && grep -qE '^deb .* main$' /etc/apt/sources.list; then
    sed -i -E 's/^(deb .* main)$/\1 contrib non-free non-free-firmware/' /etc/apt/sources.list
    changed=1
  fi
  [ "$changed" = 0 ] || vf_apt update
}

# Installed, not only known to dpkg (a removed package keeps its configuration files).
vf_apt_installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

vf_apt_install() {
  local missing=() p
  for p in "$@"; do
    vf_apt_installed "$p" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] || vf_apt install --no-install-recommends "${missing[@]}"
}

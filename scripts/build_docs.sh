#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The API reference: Doxygen over include/viofront into build-docs/html/index.html (or
# <out>/html):   scripts/build_docs.sh [out]
# Fails on any Doxygen warning, an undocumented public symbol included.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v doxygen >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "build_docs: installing doxygen"
  $sudo apt-get update -qq || echo "build_docs: apt-get update failed; trying the cached lists"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq doxygen
fi
out=${1:-build-docs}
mkdir -p "$out"
VF_DOCS_OUT=$(cd "$out" && pwd)
VF_DOCS_VERSION=$(sed -n 's/^project(viofront VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
export VF_DOCS_OUT VF_DOCS_VERSION
rm -rf "$VF_DOCS_OUT/html"
if ! doxygen docs/api/Doxyfile 2>"$VF_DOCS_OUT/warnings.log"; then
  cat "$VF_DOCS_OUT/warnings.log" >&2
  echo "build_docs: $(grep -cE 'warning:|error:' "$VF_DOCS_OUT/warnings.log") Doxygen warnings (listed above)" >&2
  exit 1
fi
if [ -s "$VF_DOCS_OUT/warnings.log" ]; then
  cat "$VF_DOCS_OUT/warnings.log" >&2
  exit 1
fi
echo "API reference: $VF_DOCS_OUT/html/index.html"

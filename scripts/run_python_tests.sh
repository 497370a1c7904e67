#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Python package's tests: scripts/run_python_tests.sh [build-dir] [pytest args]
# Makes a venv under <build-dir>/pyvenv (numpy, pytest, scikit-build-core, nanobind from PyPI,
# or from wheels in .deps/wheels where there is no PyPI), installs the checkout into it with pip
# (the C library built into the extension, CUDA when nvcc and a device are found; CMake's build
# kept in <build-dir>/pybuild), and runs pytest over python/tests (the EuRoC tests take vf_synth from
# <build-dir>/examples). VF_PYTHON_TESTS: on (the default under CI=true) fails when the venv or
# its packages cannot be had; auto (the default otherwise) skips with a message; off skips.
# VF_PY_SYSTEM_SITE=1 lets the venv see the machine's packages (CuPy, PyTorch for the GPU tests).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-tests}
shift || true
mode=${VF_PYTHON_TESTS:-$([ "${CI:-}" = true ] && echo on || echo auto)}
[ "$mode" != off ] || { echo "python tests: off (VF_PYTHON_TESTS=off)"; exit 0; }
skip() {
  if [ "$mode" = on ]; then echo "python tests: $*" >&2; exit 1; fi
  echo "python tests: skipped: $*"
  exit 0
}
export PYTHONDONTWRITEBYTECODE=1 PATH="$PATH:/usr/local/cuda/bin"

# Debian's python3 needs python3-venv for venvs and python3-dev for the extension's headers.
if ! python3 -c "import ensurepip, venv, sysconfig, os, sys
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" 2>/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  { $sudo apt-get update -qq || true; } >/dev/null 2>&1
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv python3-dev >/dev/null ||
    skip "python3-venv and python3-dev are missing and could not be installed"
fi

venv=$PWD/$build/pyvenv
site=()
[ "${VF_PY_SYSTEM_SITE:-0}" = 1 ] && site=(--system-site-packages)
[ -x "$venv/bin/python" ] || python3 -m venv "${site[@]}" "$venv" || skip "python3 -m venv failed"
if [ "${VF_PY_SYSTEM_SITE:-0}" = 1 ]; then
  # The machine's own packages (CuPy, PyTorch) may live in its user site or other paths that
  # --system-site-packages leaves out: append them, after the venv's own.
  python3 -c "import site, sys
print('\n'.join(p for p in sys.path[1:] + [site.getusersitepackages()] if p))" \
    >"$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/zz_system.pth"
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)
need="numpy pytest scikit-build-core nanobind"
if ! "$venv/bin/python" -c "import numpy, pytest, scikit_build_core, nanobind" 2>/dev/null; then
  wheels=()
  [ -d .deps/wheels ] && wheels=(--find-links .deps/wheels)
  # shellcheck disable=SC2086
  # Offline (the GPU machine): the wheels in .deps/wheels and what the system site already has.
  "${pip[@]}" install "${wheels[@]}" $need ||
    { [ ${#wheels[@]} -gt 0 ] && "${pip[@]}" install --no-index "${wheels[@]}" $need; } ||
    skip "could not install $need (no PyPI?)"
fi

# Without a CUDA device the package's CUDA backend cannot run here, and the bindings do not
# depend on it: build the test package CPU-only (a third compile of the device code cost CI
# 215 s of its 30 minutes). VF_PY_CUDA=on builds it as `pip install .` does for users.
cuda=()
if [ "${VF_PY_CUDA:-auto}" != on ] &&
  ! { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }; then
  cuda=(-Ccmake.define.VF_ENABLE_CUDA=OFF)
  echo "python tests: no CUDA device, the test package is built CPU-only (VF_PY_CUDA=on: CUDA)"
fi
t0=$(date +%s)
"${pip[@]}" install --no-build-isolation --no-deps --force-reinstall "${cuda[@]}" \
  -Cbuild-dir="$PWD/$build/pybuild" .
t1=$(date +%s)
"$venv/bin/python" -c "import viofront; print('python tests: viofront', viofront.__version__,
  'CUDA backend' if viofront.built_with_cuda() else 'CPU-only', 'installed in', viofront.__file__)"
[ -x "$build/examples/vf_synth" ] && export VF_SYNTH=$PWD/$build/examples/vf_synth
"$venv/bin/python" -m pytest -q -p no:cacheprovider "${@:-python/tests}"
echo "python tests: pip install $((t1 - t0)) s, pytest $(($(date +%s) - t1)) s"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Our features in a real estimator (issue 19): builds vf_synth and vf_replay if needed, makes a
# Python venv with numpy and gtsam (PyPI) under build-gtsam/, writes a vf_synth sequence with
# noise and photometric changes, replays it into a features CSV, tests the example's own
# pieces, then runs the GTSAM stereo-inertial smoother and prints the ATE table
# (docs/estimator.md).
# Usage: scripts/run_gtsam.sh [FRAMES [SEED]] [vf_gtsam.py options, e.g. --max-ratio 1.3
#        --require-stereo-better]; FRAMES defaults to 400 (20 s), SEED to 1. VF_GTSAM_BUILD
#        names another build folder to use (e.g. build, as run_main.sh leaves it).
#        VF_GTSAM_CONFIG=FILE passes `--config FILE` to vf_replay (e.g. config/euroc.yaml with
#        `frontend.stereo: sparse`); the sequence folder then gets the file's name (without
#        .yaml) as a suffix, so runs with different configs do not overwrite each other. Unset:
#        vf_replay's defaults, folder $build/gtsam_seq_FRAMES_sSEED, as before.
#        VF_GTSAM_RIG=NAME (e.g. front-back) writes `vf_synth --rig NAME` instead, replays it with
#        `vf_replay --rig` and runs the estimator on all the rig's units, then on unit 0 alone
#        (front-back: the front pair), and prints both ATEs (folder suffix _NAME).
set -euo pipefail
replay_config=()
seq_suffix=""
if [[ -n ${VF_GTSAM_CONFIG:-} ]]; then
  [[ -f $VF_GTSAM_CONFIG ]] || { echo "run_gtsam: no config file $VF_GTSAM_CONFIG" >&2; exit 2; }
  name=$(basename "$VF_GTSAM_CONFIG")
  # Absolute, as the script moves to the repository root below.
  replay_config=(--config "$(cd "$(dirname "$VF_GTSAM_CONFIG")" && pwd)/$name")
  seq_suffix=_${name%.*}
fi
rig=${VF_GTSAM_RIG:-}
synth_rig=()
replay_rig=()
if [[ -n $rig ]]; then
  synth_rig=(--rig "$rig")
  replay_rig=(--rig)
  seq_suffix=${seq_suffix}_$rig
fi
cd "$(dirname "$0")/.."
frames=400
seed=1
if [[ $# -gt 0 && $1 != -* ]]; then frames=$1; shift; fi
if [[ $# -gt 0 && $1 != -* ]]; then seed=$1; shift; fi
build=${VF_GTSAM_BUILD:-build-gtsam}
# No __pycache__ beside the example in the source tree.
export PYTHONDONTWRITEBYTECODE=1

scripts/setup.sh
# Configured once; a folder configured by hand (e.g. with tests) is kept as it is.
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target vf_synth vf_replay >/dev/null

venv=$build/venv
if ! "$venv/bin/python" -c "import numpy, gtsam" 2>/dev/null; then
  if ! python3 -c "import ensurepip, venv" 2>/dev/null; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq || echo "run_gtsam: apt-get update failed; trying the cached lists"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv
  fi
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q numpy gtsam
fi

seq=$build/gtsam_seq_${frames}_s$seed$seq_suffix
rm -rf "$seq"
t0=$(date +%s)
"$build/examples/vf_synth" --out "$seq" --frames "$frames" --seed "$seed" --noise on \
  --photometric on "${synth_rig[@]}" >/dev/null
t1=$(date +%s)
"$build/examples/vf_replay" "$seq" "${replay_config[@]}" "${replay_rig[@]}" \
  --csv "$seq/features.csv" --quiet
t2=$(date +%s)
"$venv/bin/python" examples/gtsam/test_vf_gtsam.py "$seq"
if [[ -z $rig ]]; then
  "$venv/bin/python" examples/gtsam/vf_gtsam.py "$seq" "$seq/features.csv" \
    --json "$seq/gtsam.json" "$@"
else
  # Both rows from one replay: what the other units add is the difference between them.
  "$venv/bin/python" examples/gtsam/vf_gtsam.py "$seq" "$seq/features.csv" --rig --units all \
    --units 0 --json "$seq/gtsam.json" "$@"
fi
echo "run_gtsam: vf_synth $((t1 - t0)) s, vf_replay $((t2 - t1)) s, estimator $(($(date +%s) - t2)) s"

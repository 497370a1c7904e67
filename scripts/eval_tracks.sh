#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 19's track-quality measurement: vf_synth sequences with noise and photometric changes
# (two seeds, 400 frames = 20 s), replayed through the frontend with the ground-truth evaluation.
#   scripts/eval_tracks.sh BUILD_DIR BACKEND [extra vf_replay options...]
# Prints, per seed, the replay's summary lines on features, tracks, step/drift errors and
# camera-1 records, signed drift by age and the disparity bias. Sequences are written once under
# BUILD_DIR/sequences.
set -euo pipefail
build=$1
backend=$2
shift 2
mkdir -p "$build/sequences"
for seed in 1 2; do
  seq="$build/sequences/eval_seed$seed"
  if [ ! -f "$seq/mav0/cam0/data.csv" ]; then
    "$build/examples/vf_synth" --out "$seq" --frames 400 --seed "$seed" --noise on \
      --photometric on --threads "$(nproc)" >/dev/null
  fi
  echo "== seed $seed, $backend backend $*"
  "$build/examples/vf_replay" "$seq" --backend "$backend" --quiet "$@" |
    grep -E "features per frame|track length|ground truth: tracking|drift by age|drift of tracks whose|camera-1 records over|signed drift|disparity of the camera-1|fps"
done

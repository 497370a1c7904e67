#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The main job on a fresh machine: install what is missing, build, write a synthetic EuRoC
# sequence with ground truth (vf_synth) and replay it through the frontend (vf_replay) on the GPU
# if one is present, else on the CPU. Ends with the replay's summary and its errors against the
# ground truth.   scripts/run_main.sh [frames] [extra vf_replay options]
set -euo pipefail
cd "$(dirname "$0")/.."
frames=${1:-60}
shift || true
scripts/setup.sh
export PATH="$PATH:/usr/local/cuda/bin"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DVF_BUILD_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
seq=build/sequences/synth_room
mkdir -p "$(dirname "$seq")"
build/examples/vf_synth --out "$seq" --frames "$frames" --seed 1
build/examples/vf_replay "$seq" --csv build/features.csv --overlay 10,$((frames / 2)) \
  --overlay-dir build/overlays "$@"
echo "features: build/features.csv; overlay pictures: build/overlays/"

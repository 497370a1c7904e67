#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs cuda/features/vf_lk.cu's kernel on the CPU (32 threads a warp, in step at every shuffle and vote)
# and compares it with the CPU reference on TARGETS.md's birds warp, for machines without a GPU.
# Usage: scripts/lk_emulate/run.sh [features (200)] [1: first-observation templates, two passes]
# VF_EMU_PATCHES="12,11,10,8" sets the patch size of each level (default 16,16,8,8).
# Prints statuses, iterations and the worst differences. A divergent shuffle deadlocks it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${VF_EMU_DIR:-/tmp/vf_lk_emulate}
mkdir -p "$work"
cmake -S "$root" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DVF_ENABLE_CUDA=OFF \
  -DBUILD_SHARED_LIBS=OFF -DVF_BUILD_TESTS=OFF -DVF_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$work/build" -j2 >/dev/null
python3 - "$root/cuda/features/vf_lk.cu" "$work/lk_warp.inc" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = s.replace('#include <cuda_runtime.h>', 'struct uint4 { unsigned x, y, z, w; };')
s = s[:s.index('}  // namespace')] + '}  // namespace\n'
open(sys.argv[2], 'w').write(s)
PY
sed -n '/^static int bench_px/,/^static int bench_cmp_error/p' "$root/examples/vf_bench/bench_tracker.c" |
  grep -v "^static int bench_cmp_error" >"$work/bench_part.c"
inc="-I$root/include -I$work/build/include -I$root/src -I$work"
gcc -O2 -c $inc "$here/feat.c" -o "$work/feat.o"
g++ -O2 -std=c++14 $inc "$here/warp.cpp" "$work/feat.o" -o "$work/warp" "$work/build/libviofront.a" \
  -lpng -lyaml -lm -lpthread
"$work/warp" "$@"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# SASS instructions per trip of the CUDA kernels' inner loops (issue 35, docs/perf/sass_counts.md):
# each file is compiled to a cubin per architecture, disassembled (cuobjdump -sass, and
# nvdisasm -gi for the source lines that say which loop is which), and scripts/sass_loops.py
# prints the innermost loop that holds the row's anchor line: its instructions and their mix.
# No GPU is needed. Static counts: a loop's body is every instruction between its head and its
# backward branch (docs/perf/sass_counts.md says how to read the rows).
#
# Usage: scripts/sass_counts.sh [OUT_DIR]
#   NVCC, CUOBJDUMP, NVDISASM  the toolkit (default: nvcc on the PATH and the tools beside it);
#                              cuobjdump must be as new as nvcc (an older one cannot read the
#                              cubin), and CUDA 13 no longer disassembles sm_62
#   ARCHS                      default "62 87 90"; CUDA 13 has no sm_62 (75 is the nearest);
#                              CUDA 11.8 builds the project for 62, 72, 87 (scripts/ci_jetson.sh)
#   CCBIN                      host compiler for nvcc (CUDA 11.8: g++-11)
#   VF_NVCC_FLAGS              extra flags, e.g. -I for a toolkit's own headers
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-sass/sass}
nvcc=${NVCC:-nvcc}
bindir=$(dirname "$(command -v "$nvcc")")
cuobjdump=${CUOBJDUMP:-$bindir/cuobjdump}
nvdisasm=${NVDISASM:-$bindir/nvdisasm}
archs=${ARCHS:-62 87 90}
for tool in "$nvcc" "$cuobjdump" "$nvdisasm"; do
  command -v "$tool" >/dev/null || { echo "sass_counts: $tool not found (set NVCC, CUOBJDUMP, NVDISASM)"; exit 1; }
done
mkdir -p "$out"
# The project's device flags (cmake/VfCuda.cmake: C++14, Release, -lineinfo); -lineinfo also
# gives nvdisasm the source lines.
flags=(-std=c++14 -O3 -lineinfo -Isrc -Iinclude -DVF_HAVE_CUDA=1)
[ -z "${CCBIN:-}" ] || flags+=(-ccbin "$CCBIN")
# shellcheck disable=SC2206  # extra flags split on blanks on purpose
[ -z "${VF_NVCC_FLAGS:-}" ] || flags+=(${VF_NVCC_FLAGS})
"$nvcc" --version | tail -1

# name | source | kernel (regex on the mangled name) | anchor FILE:REGEX the loop holds | a line
# it must not hold | lines off the usual trip (;-separated) | units a trip handles per thread
# (sass_loops.py --units) | what a unit is.
# - sgm: D = 64 (16-lane groups, 4 disparities a lane; sgm_runs: the runs layout, 8-lane groups,
#   8 disparities a lane, what a GPU full of walks picks), cs 9x7 census (32-bit words), fixed P2
#   (config/euroc.yaml, jetson_tx2.yaml), the straight walk (4 paths are all straight; --not
#   drops the wrapping kinds). walk_three aggregates 3 pixels a trip, 3 x 4 cells a lane: one
#   POPC a cell.
# - lk: one Gauss-Newton iteration; the loop is instantiated for 2, 4 and 8 samples a lane, the
#   anchor's FFMA (sum e^2) counts them. Off the usual level-0 trip: the row reload (the patch's
#   integer corner moved), the refactorization (more samples saturated), the coarse levels'
#   reduction of 5 sums and moment step, the first iteration's copy.
# - fast_*: the chunk's loops, the SAD-arc score (the configs'): queue (the compass test of 4
#   pixels a trip in 16-bit halves, one band a chunk; queuing candidates is off the usual trip),
#   score (full test and score of a queued pixel, 2 arc-table loads each; queuing a corner is
#   off), nms (a queued corner's 3x3 maximum; a maximum's key to its cell is off).
# - pyramid: a level of four output pixels a thread (two words of two input rows, packed sums,
#   one 32-bit store; the byte stores of a level's edge are off), the 32x32 tile's kernel with a
#   thread a word (small GPUs' four words a thread run the same loop body; they save the idle
#   warps of the deeper levels, which no loop count shows).
# - census: straight-line code (no loop): from the barrier after the tile load to the end, 4
#   pixels a thread (cs 9x7).
# - match: the sparse matcher's cost sum over a window row, unrolled: one |x| a pixel (IABS;
#   Pascal: I2I): the searches of a prior's window. match_lanes: a whole-range search's round, a
#   lane a disparity, the window's 15 x 15 pixels unrolled (one VABSDIFF a pixel), the round's
#   column sums and the moving window's sum included.
# - select64 / select128: the SGM selection of 64 / 128 disparities, 4 paths, one thread a pixel
#   (the packed words, vf_sgm_packed.cuh): a pixel's trip of the row loop, the sums of 4 paths,
#   the winner, the best cost outside k +- 1, the sub-pixel fit and the 64 / 128 right-image
#   atomics; per cost (a disparity of the pixel).
st=cuda/stereo
ft=cuda/features
w=$ft/vf_lk_warp.cuh
r=src/features/kernels/vf_lk_rules.h
lk_off="$w:if \\(s.x0 != rows.x0;$w:if \\(!vf_warp_refactor;$w:vf_warp_sums<5>\\(sums\\)"
lk_off+=";$w:v\\[j\\] = v_first\\[j\\];$r:vf_lk_step_moments\\(h, m;$r:st->a = p->m[ia][nx]_gain"
# The runs' tested costs (a pixel left of min_disparity + D - 1 in some group of the warp) are off
# the usual trip since the warp's vote (357cb67).
runs_off="$st/vf_sgm_paths.cu:xbase - S \\* \\(2 \\* k\\) >= 0;$st/vf_sgm_paths.cu:const uint32_t b = xbase - S"
runs_off+=";$st/vf_sgm_paths.cu:const int xbase = px.x - p.min_disparity"
rows=(
  "sgm|$st/vf_sgm_paths.cu|vf_paths_kernelILb0ELi16ELi4ELb0ELb0E|$st/vf_sgm_warp.cuh:const uint32_t t = min3_u16x2|$st/vf_sgm_paths.cu:if \\(to.x >= lc.w\\)||POPC/1|cell"
  "sgm_runs|$st/vf_sgm_paths.cu|vf_paths_kernelILb1ELi8ELi8ELb0ELb0E|$st/vf_sgm_warp.cuh:const uint32_t t = min3_u16x2|$st/vf_sgm_paths.cu:if \\(to.x >= lc.w\\)|$runs_off|POPC/1|cell"
  "sgm_runs128|$st/vf_sgm_paths.cu|vf_paths_kernelILb1ELi16ELi8ELb0ELb0E|$st/vf_sgm_warp.cuh:const uint32_t t = min3_u16x2|$st/vf_sgm_paths.cu:if \\(to.x >= lc.w\\)|$runs_off|POPC/1|cell"
  "select64|$st/vf_sgm_select_pixel.cu|vf_select_pixel_kernelILb0ELi4ELi128E|$st/vf_sgm_select_pixel.cu:atomicMin\\(base - \\(int\\)\\(ks & 0xffffu\\)|||64|cost"
  "select128|$st/vf_sgm_select_pixel128.cu|vf_select_pixel128_kernelILb0ELi4E|$st/vf_sgm_select_pixel128.cu:atomicMin\\(base - k0|||128|cost"
  "lk|$ft/vf_lk.cu|vf_lk_kernel|$w:sums\\[4\\] = fmaf\\(e, e, sums\\[4\\]\\)||$lk_off|@FFMA/1|pixel-iteration"
  "fast_queue|$ft/vf_fast.cu|vf_fast_detect_kernelILi1E|$ft/vf_fast.cu:const unsigned bits = \\(f01 >> 15\\)|$ft/vf_fast.cu:gx = i.x - g0;|$ft/vf_fast.cu:int at = atomicAdd\\(s_count;$ft/vf_fast.cu:if \\(\\(m >> j\\) & 1u\\)|4|pixel"
  "fast_score|$ft/vf_fast.cu|vf_fast_detect_kernelILi1E|$ft/vf_fast.cu:const float r = vf_response<SCORE>||$ft/vf_fast.cu:s_corners\\[atomicAdd|LDG/2|candidate"
  "fast_nms|$ft/vf_fast.cu|vf_fast_detect_kernelILi1E|$ft/vf_fast.cu:const bool is_max = m > 0.0f||$ft/vf_fast.cu:atomicMax\\(s_key|1|corner"
  "pyramid|$ft/vf_pyramid.cu|vf_pyramid_kernelILi32ELb0E|$ft/vf_pyramid.cu:const unsigned v = vf_box4||$ft/vf_pyramid.cu:if \\(x \\+ j < end\\) row\\[x \\+ j\\]|4|pixel"
  "census|$st/vf_census.cu|vf_census_kernelILb0E|barrier|||4|pixel"
  "match|$ft/vf_stereo_match.cu|vf_match_kernel|$ft/vf_stereo_match.cu:c \\+= abs\\(n \\*|||IABS,I2I/1|pixel"
  "match_lanes|$ft/vf_stereo_match.cu|vf_match_kernel|$ft/vf_stereo_match.cu:c = __sad\\(av\\[e\\]|||VABSDIFF/1|pixel"
)

echo "loop arch start end body path units | per unit | mix of the path by class | by opcode"
for row in "${rows[@]}"; do
  IFS='|' read -r name src kernel anchor exclude off units unit <<<"$row"
  opts=(--units "$units")
  [ -z "$exclude" ] || opts+=(--not "$exclude")
  IFS=';' read -r -a offs <<<"$off"
  for o in "${offs[@]}"; do opts+=(--off "$o"); done
  for a in $archs; do
    # Before sm_70 the runs keep their tests (kRunsVote in vf_sgm_paths.cu): no trip skips them.
    aopts=("${opts[@]}")
    [[ $name != sgm_runs* || $a -ge 70 ]] || aopts=(--units "$units" --not "$exclude")
    base="$out/$(basename "$src" .cu).sm_$a"
    # Compiled again when any source is newer than the last disassembly.
    if [ ! -s "$base.sass" ] || [ -n "$(find cuda src include -newer "$base.sass" -print -quit)" ]; then
      "$nvcc" "${flags[@]}" -arch="sm_$a" -cubin -o "$base.cubin" "$src"
      "$cuobjdump" -sass "$base.cubin" >"$base.sass"
      "$nvdisasm" -gi -c "$base.cubin" >"$base.lines"
    fi
    # kernel arch start end body path units | per unit | mix
    python3 scripts/sass_loops.py "$base.sass" "$base.lines" "$kernel" "$anchor" "${aopts[@]}" |
      awk -v n="$name" -v a="sm_$a" -v u="$unit" \
        '{ $1 = n " " a; $7 = sprintf("%s %ss | %.1f per %s |", $6, u, $5 / $6, u); $6 = ""; print }'
  done
done

# What single packed or byte operations cost on each target (scripts/sass_probe.cu): the
# instructions each adds to a plain copy, and which.
for a in $archs; do
  base="$out/sass_probe.sm_$a"
  "$nvcc" "${flags[@]}" -arch="sm_$a" -cubin -o "$base.cubin" scripts/sass_probe.cu
  "$cuobjdump" -sass "$base.cubin" >"$base.sass"
  python3 scripts/sass_loops.py --probe "$base.sass" | sed "s/^/probe sm_$a /"
done

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The TX2 throughput profile, on a Jetson (JetPack 4.6 TX2, JetPack 5/6 Xavier or Orin): prints
# the clocks (nvpmodel mode, jetson_clocks state, CPU/GPU/EMC frequencies), builds for the local
# GPU, runs vf_bench with config/jetson_tx2.yaml's settings (detector; tracker 100/200/500
# features; SGM 64 disparities 4 paths at 752x480; the full stereo frame with host input) and
# writes a Markdown table and the JSON to post (docs/jetson.md, "Reporting numbers").
#   scripts/jetson_bench.sh [OUT_DIR]       (default jetson_out/; VF_JETSON_BUILD=build-jetson)
# Run `sudo jetson_clocks` first for stable numbers; the script reports, never changes, clocks.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-jetson_out}
build=${VF_JETSON_BUILD:-build-jetson}
runs=${VF_JETSON_RUNS:-200}
mkdir -p "$out"

clocks() {
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  [ -r /etc/nv_tegra_release ] && echo "l4t: $(head -1 /etc/nv_tegra_release)"
  [ -r /proc/device-tree/model ] && echo "model: $(tr -d '\0' </proc/device-tree/model)"
  command -v nvpmodel >/dev/null && echo "nvpmodel: $(nvpmodel -q 2>/dev/null | tr '\n' ' ')"
  if command -v jetson_clocks >/dev/null; then
    echo "jetson_clocks --show:"
    (jetson_clocks --show 2>/dev/null || sudo -n jetson_clocks --show 2>/dev/null ||
      echo "  (needs root: sudo jetson_clocks --show)") | sed 's/^/  /'
  fi
  local f
  for f in /sys/devices/gpu.0/devfreq/*/cur_freq /sys/devices/17000000.g*/devfreq/*/cur_freq \
    /sys/kernel/debug/bpmp/debug/clk/emc/rate /sys/kernel/debug/clk/emc/clk_rate; do
    [ -r "$f" ] && echo "$f: $(cat "$f")"
  done
  for f in /sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_cur_freq; do
    [ -r "$f" ] && echo "$f: $(cat "$f")"
  done
  command -v nvcc >/dev/null && nvcc --version | tail -1
  return 0
}
clocks | tee "$out/clocks.txt"

# CMake >= 3.18 (JetPack 4's Ubuntu 18.04 ships 3.10: pip3 install --user cmake).
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native \
  -DVF_BUILD_TESTS=OFF >"$out/configure.log" 2>&1 ||
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DVF_BUILD_TESTS=OFF \
    -DCMAKE_CUDA_ARCHITECTURES="${VF_CUDA_ARCH:-62}" >"$out/configure.log" 2>&1 ||
  { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target vf_bench >"$out/build.log" 2>&1 ||
  { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }

bench=("$build/examples/vf_bench" --backend cuda --runs "$runs" --warmup 20 --quiet)
"${bench[@]}" --stage detector --size 752x480 --json "$out/detector.json" 2>"$out/detector.txt"
VF_BENCH_FEATURES=100,200,500 "${bench[@]}" --stage tracker --json "$out/tracker.json" \
  2>"$out/tracker.txt"
"${bench[@]}" --stage stereo --size 752x480 --json "$out/stereo.json" 2>"$out/stereo.txt"
"${bench[@]}" --stage frontend --json "$out/frontend.json" 2>"$out/frontend.txt"

python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
rows, merged = [], {"clocks": open(os.path.join(out, "clocks.txt")).read(), "runs": {}}
for name in ("detector", "tracker", "stereo", "frontend"):
    with open(os.path.join(out, name + ".json")) as f:
        run = json.load(f)
    merged["runs"][name] = run
    for r in run["results"]:
        # The TX2 profile's rows only: SGM at 752x480 64/4, frontend with host input.
        if name == "stereo" and (r.get("method"), r.get("width"), r.get("disparities"),
                                 r.get("paths")) != ("sgm", 752, 64, 4):
            continue
        if name == "frontend" and r.get("input", "host") != "host":
            continue
        extra = ", ".join(f"{k} {r[k]}" for k in ("features", "method", "disparities", "paths", "subpixel", "results", "input")
                          if k in r)
        rows.append(f"| {r['stage']} | {extra} | {r['width']}x{r['height']} | "
                    f"{r['median_us']:.1f} | {r['min_us']:.1f} |")
dev = merged["runs"]["frontend"]
head = (f"viofront {dev['viofront']} on {dev['device']} (sm_{dev['compute_capability'].replace('.', '')}, "
        f"{dev['multiprocessors']} SMs, CUDA runtime {dev['cuda_runtime']})\n\n"
        "| stage | configuration | size | median us | min us |\n|---|---|---|---|---|\n")
with open(os.path.join(out, "jetson_bench.md"), "w") as f:
    f.write(head + "\n".join(rows) + "\n")
with open(os.path.join(out, "jetson_bench.json"), "w") as f:
    json.dump(merged, f, indent=1)
print(head + "\n".join(rows))
PY
echo "post $out/jetson_bench.md and $out/jetson_bench.json (docs/jetson.md)"

#!/usr/bin/env bash
# Tracker work (lkfast), one device call: gpu_check (build, GPU tests, bench, replay), then the
# new kernel's launch / I/O / prefetch variants and kernel-only times on the same build, then the
# old kernel (b138fb9, staged beside as ../lkbase) built and timed in the same session.
# Stage:  /work/tools/device_stage.sh /work/wt/lkfast lkfast
#         mkdir -p /work/main/.dev/lkbase && git -C /work/wt/lkfast archive b138fb9 |
#           tar -x -C /work/main/.dev/lkbase
# Run:    carry [".dev/lkfast", ".dev/lkbase", ".deps", ".gpu"], timeout_s 420, command
#         cd .dev/lkfast && ln -sfn ../../.deps .deps && ln -sfn ../../.gpu .gpu && scripts/lk_device_run.sh
# The switches it compares (VF_LK_IO, VF_LK_WPB, VF_LK_PF, VF_LK_KTIME) are read once by the
# library; keep the winners as the code's defaults and remove the switches once measured.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu_out}
mkdir -p "$out"
t0=$(date +%s)
VF_CPU_BENCH=0 VF_CUDA_ARCH=90 VF_GPU_REPLAY_FRAMES=100 scripts/gpu_check.sh --stage tracker \
  --runs 1000 --warmup 50 >"$out/gpu_check.txt" 2>&1
echo "gpu_check rc=$? ($(($(date +%s) - t0)) s)"
grep -E "tests passed|tests failed|Failed|\*\*\*|^tracker|rc=|same status|nvidia|H100" \
  "$out/gpu_check.txt" | cut -c1-260
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader
export CMAKE_PREFIX_PATH=/tmp/vfdeps/usr LD_LIBRARY_PATH=/tmp/vfdeps/usr/lib/x86_64-linux-gnu
row() {
  awk -v tag="$1" '/^tracker /{for(i=1;i<=NF;i++){if($i=="median")m=$(i+1); if($i=="min")n=$(i+1);
    if($i~/^features=/)f=substr($i,10)} printf "%s f=%s gpu %s/%s", tag, f, m, n}
    /^tracker_sync/{for(i=1;i<=NF;i++) if($i=="median") printf " sync %s\n", $(i+1)}
    /^kernel_only/{print tag, $0}'
}
bench="build-gpu/examples/vf_bench --backend cuda --stage tracker --data .gpu/data --json /dev/null"
echo "== variants: io (0 copy both, 1 copy requests, 2 mapped), warps per block, L1 prefetch =="
for io in 2 1 0; do
  for wpb in 1 2; do
    for pf in 1 0; do
      VF_LK_IO=$io VF_LK_WPB=$wpb VF_LK_PF=$pf $bench --runs 500 --warmup 50 2>&1 | row "io$io wpb$wpb pf$pf"
    done
  done
done
echo "== kernel only (events around the launch), defaults and no prefetch =="
VF_LK_KTIME=1 $bench --runs 500 --warmup 50 2>&1 | row "ktime pf1" | grep kernel_only
VF_LK_KTIME=1 VF_LK_PF=0 $bench --runs 500 --warmup 50 2>&1 | row "ktime pf0" | grep kernel_only
echo "== repeat of the defaults =="
$bench --runs 1000 --warmup 50 2>&1 | row "again io2 wpb1 pf1"
echo "== old kernel (b138fb9) =="
base=../lkbase
if [ -d "$base" ]; then
  (cmake -S "$base" -B build-base -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DVF_BUILD_TESTS=OFF -DVF_DATA_DIR="$PWD/.gpu/data" >"$out/base_cfg.log" 2>&1 &&
    cmake --build build-base -j"$(nproc)" --target vf_bench >"$out/base_build.log" 2>&1) ||
    tail -20 "$out/base_build.log"
  build-base/examples/vf_bench --backend cuda --stage tracker --data .gpu/data --json /dev/null \
    --runs 1000 --warmup 50 2>&1 | tee "$out/base_bench.txt" | row "old kernel"
fi
echo "total $(($(date +%s) - t0)) s"

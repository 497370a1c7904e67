#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""TX2 estimate per vf_bench stage from Nsight Compute counts taken on another GPU
(scripts/tx2_profile.sh). The model (docs/perf/tx2.md):

  per launch  t = max(t_issue, t_dram) + t_launch
  t_issue     = warp instructions / (SMs * issue rate * clock)
  t_dram      = bytes / (bandwidth * efficiency), bytes between the DRAM count (lower bound:
                the H100's 50 MB L2 keeps intermediates that the TX2's 512 KB L2 cannot) and
                the L2 traffic (upper bound: every L2 access misses)
  stage       = sum over its kernels' launches / timed iterations

TX2 (Jetson TX2, GP10B): 2 SMs, 1.30 GHz GPU clock, 59.7 GB/s LPDDR4 shared with the CPU.
Parameters marked ASSUMED are not measured; docs/perf/tx2.md says how to calibrate them.
Usage: tx2_model.py [--runs N] FILE.csv... [--json OUT] [--markdown OUT]
(FILE.out beside FILE.csv: vf_bench's JSON, which gives the timed iterations of the file.)
"""
import argparse
import csv
import json
import os
import sys
from collections import defaultdict

TX2 = {
    "sms": 2,
    "clock_hz": 1.30e9,
    "dram_bytes_per_s": 59.7e9,
    "issue_per_sm_per_cycle": 2.0,  # ASSUMED: of Pascal's 4 schedulers' peak of 4
    "dram_efficiency": 0.7,  # ASSUMED: fraction of the peak LPDDR4 bandwidth reached
    "launch_s": 10e-6,  # ASSUMED: launch + gap per kernel on L4T, not yet measured
}
METRICS = {
    "inst": "smsp__inst_executed.sum",
    "dram_read": "dram__bytes_read.sum",
    "dram_write": "dram__bytes_write.sum",
    "l2": "lts__t_bytes.sum",
    "time": "gpu__time_duration.sum",
}


def number(text):
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return 0.0


def scale(value, unit):
    factors = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6,
               "GB": 1e9, "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "ns": 1e-9,
               "us": 1e-6, "ms": 1e-3}
    return value * factors.get(unit, 1.0)


def kernels(path):
    per = defaultdict(lambda: defaultdict(float))
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]
    reader = csv.reader(lines)
    header = next(reader, [])
    units = next(reader, [])
    col = {name: i for i, name in enumerate(header)}
    for row in reader:
        if len(row) != len(header) or not row[col.get("ID", 0)].strip().isdigit():
            continue
        name = row[col["Kernel Name"]].split("(")[0]
        k = per[name]
        k["launches"] += 1
        for key, metric in METRICS.items():
            if metric in col:
                i = col[metric]
                k[key] += scale(number(row[i]), units[i] if i < len(units) else "")
    return per


def bench_iterations(path):
    """Timed iterations in a vf_bench JSON: every row's runs and the warm-up before it."""
    try:
        with open(path) as f:
            run = json.loads("".join(line for line in f if not line.startswith("==")))
    except (OSError, ValueError):
        return 0
    return sum(r.get("runs", 0) + run.get("warmup", 0) for r in run.get("results", []))


def estimate(k, p):
    issue = k["inst"] / (p["sms"] * p["issue_per_sm_per_cycle"] * p["clock_hz"])
    bw = p["dram_bytes_per_s"] * p["dram_efficiency"]
    dram_lo = (k["dram_read"] + k["dram_write"]) / bw
    dram_hi = max(k["l2"], k["dram_read"] + k["dram_write"]) / bw
    launch = k["launches"] * p["launch_s"]
    lo = max(issue, dram_lo) + launch
    hi = max(issue, dram_hi) + launch
    limits = {"issue": issue, "dram (L2 bytes)": dram_hi, "launches": launch}
    return lo, hi, max(limits, key=limits.get), issue, dram_hi, launch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--runs", type=int, default=5,
                    help="timed iterations per file when its vf_bench JSON (<stage>.out) is absent")
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    a = ap.parse_args()
    result = {"tx2": TX2, "stages": {}}
    md = ["| stage | kernel | launches/run | H100 us/run | TX2 us/run (low-high) | limit |",
          "|---|---|---|---|---|---|"]
    for path in a.csv:
        stage = os.path.basename(path).split(".")[0]
        if stage == "gpu":
            continue
        per = kernels(path)
        iterations = bench_iterations(os.path.splitext(path)[0] + ".out") or a.runs
        tot = [0.0, 0.0]
        rows = {}
        for name, k in sorted(per.items(), key=lambda kv: -kv[1]["inst"]):
            lo, hi, limit, issue, dram, launch = estimate(k, TX2)
            n = iterations
            rows[name] = {"launches": k["launches"] / n, "inst": k["inst"] / n,
                          "dram_bytes": (k["dram_read"] + k["dram_write"]) / n,
                          "l2_bytes": k["l2"] / n, "h100_s": k["time"] / n,
                          "tx2_low_s": lo / n, "tx2_high_s": hi / n, "limit": limit}
            tot[0] += lo / n
            tot[1] += hi / n
            md.append(f"| {stage} | {name} | {k['launches'] / n:.1f} | {k['time'] / n * 1e6:.1f} | "
                      f"{lo / n * 1e6:.0f}-{hi / n * 1e6:.0f} | {limit} |")
        result["stages"][stage] = {"kernels": rows, "tx2_low_s": tot[0], "tx2_high_s": tot[1]}
        md.append(f"| **{stage}** | all | | | **{tot[0] * 1e6:.0f}-{tot[1] * 1e6:.0f}** | |")
    text = "\n".join(md) + "\n"
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()

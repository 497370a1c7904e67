#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Side by side medians of vf_bench JSON files (e.g. before/after a change, from one device call).

Usage: scripts/bench_compare.py LABEL=FILE [LABEL=FILE ...]
Rows are matched by stage and every configuration field; the last column is the ratio of the
last file to the first.
"""
import json
import sys

TIMES = {"runs", "median_us", "min_us", "mean_us"}


def derived(name):
    """Fields computed from the time (rates, ratios, per-stage times): not part of a row's key."""
    return name in TIMES or name.endswith(("_ms", "_per_s")) or name.startswith("speedup")


def rows(path):
    data = json.load(open(path))
    out = {}
    for r in data["results"]:
        key = tuple(sorted((k, str(v)) for k, v in r.items() if not derived(k)))
        out[key] = r["median_us"]
    return out


def main(args):
    if not args:
        print(__doc__.strip())
        return 2
    labels, tables = [], []
    for a in args:
        label, _, path = a.partition("=")
        labels.append(label)
        tables.append(rows(path))
    keys = [k for k in tables[0] if all(k in t for t in tables)]
    print("| row | " + " | ".join(labels) + " | last / first |")
    print("|---|" + "---|" * (len(labels) + 1))
    for k in keys:
        desc = " ".join(f"{n}={v}" for n, v in k)
        vals = [t[k] for t in tables]
        print(f"| {desc} | " + " | ".join(f"{v:.2f}" for v in vals) + f" | {vals[-1] / vals[0]:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

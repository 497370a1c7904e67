#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""OpenCV's CPU calcOpticalFlowPyrLK on vf_bench's tracker setting, for docs/perf/tracker.md.

Usage: scripts/bench_opencv_lk.py [--data DIR] [--runs N] [--threads T] [--features 200,1000]
                                  [--points FILE]

Same input as `vf_bench --stage tracker` (examples/vf_bench/bench_tracker.c): birds_752x480.png
and the same image moved by (1.3, 0.7) px, gain 1.1, bias +5 (bilinear, clamped edges, rounded),
features = the strongest corner (smaller structure-tensor eigenvalue, 5x5 window) of each grid
cell, strongest cells first, 16 px from the edges. OpenCV: window 16x16, maxLevel 3 (4 levels),
criteria COUNT|EPS 30 / 0.01, cv2.setNumThreads(T). vf_bench times vf_tracker_submit on built
pyramids; OpenCV's Python binding takes no prebuilt pyramids (a list of levels is refused:
"prevImg is not a numerical tuple"), so the script times
  images:   calcOpticalFlowPyrLK on the plain images (pyramids and derivatives built inside),
  build:    what the call builds inside, alone: buildOpticalFlowPyramid of the first image with
            derivatives plus that of the second without (same window, levels and borders),
  tracking: images - build (min from the mins, median from the medians; the two are timed in
            turn, run after run): the estimate of the tracking alone that compares with
            vf_bench's figure.
Accuracy as vf_bench reports it: median error against the known motion over all features
(failures count as infinite) and the share within 0.1 px. --points FILE (lines "x y") checks
the numpy feature rule against a list written by the C rule.

Needs Debian's python3-opencv (run with /usr/bin/python3); OpenCV is no dependency of viofront.
"""
import argparse
import os
import statistics
import time

import cv2
import numpy as np

MOTION = (1.3, 0.7)
GAIN, BIAS = 1.1, 5.0
WIN, MAX_LEVEL = (16, 16), 3
CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 0.01)


def warp(img):
    """out(x) = 1.1 in(x - motion) + 5: bilinear with clamped edges, rounded, as bench_warp."""
    h, w = img.shape
    src = img.astype(np.float64)
    sx = np.arange(w, dtype=np.float64) - MOTION[0]
    sy = np.arange(h, dtype=np.float64) - MOTION[1]
    ix, iy = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
    fx, fy = (sx - ix)[None, :], (sy - iy)[:, None]

    def px(dy, dx):
        return src[np.clip(iy + dy, 0, h - 1)][:, np.clip(ix + dx, 0, w - 1)]

    # The terms in bench_warp's order, so that the doubles (and the rounding) agree.
    v = (1 - fx) * (1 - fy) * px(0, 0) + fx * (1 - fy) * px(0, 1)
    v = v + (1 - fx) * fy * px(1, 0) + fx * fy * px(1, 1)
    return np.clip(np.floor(GAIN * v + BIAS + 0.5), 0, 255).astype(np.uint8)


def corner_scores(img):
    """Smaller structure-tensor eigenvalue over 5x5 windows (central differences, no 1/2)."""
    p = np.pad(img.astype(np.float64), 3, mode="edge")
    gx = p[1:-1, 2:] - p[1:-1, :-2]
    gy = p[2:, 1:-1] - p[:-2, 1:-1]

    def box5(v):
        c = np.cumsum(np.cumsum(np.pad(v, ((1, 0), (1, 0))), axis=0), axis=1)
        return c[5:, 5:] - c[:-5, 5:] - c[5:, :-5] + c[:-5, :-5]

    # Integer-valued sums: exact in double whatever the order.
    a, b, c = box5(gx * gx), box5(gx * gy), box5(gy * gy)
    return 0.5 * (a + c - np.sqrt((a - c) * (a - c) + 4 * b * b))


def features(img, max_count):
    """bench_features: the first best corner (row-major) of each cell, strongest cells first."""
    border = 16
    h, w = img.shape[0] - 2 * border, img.shape[1] - 2 * border
    cell = max(int(np.sqrt(float(w) * h / max_count)), 2)
    while cell > 2 and (w // cell) * (h // cell) < max_count:
        cell -= 1
    cols, rows = w // cell, h // cell
    s = corner_scores(img)[border : border + rows * cell, border : border + cols * cell]
    s = s.reshape(rows, cell, cols, cell).transpose(0, 2, 1, 3).reshape(rows * cols, cell * cell)
    best = np.argmax(s, axis=1)
    score = s[np.arange(rows * cols), best]
    cell_y, cell_x = np.divmod(np.arange(rows * cols), cols)
    x = border + cell_x * cell + best % cell
    y = border + cell_y * cell + best // cell
    order = np.argsort(-score, kind="stable")[:max_count]
    return np.stack([x[order], y[order]], axis=1).astype(np.float32)


def elapsed_ms(fn):
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def timed_pair(call, build, runs, warmup):
    """Times call and build in turn, run after run, so that both see the same load of a shared
    machine; returns {name: (min, median)}, tracking = images - build (mins, medians)."""
    for _ in range(warmup):
        call()
        build()
    images, builds = [], []
    for _ in range(runs):
        images.append(elapsed_ms(call))
        builds.append(elapsed_ms(build))
    out = {name: (min(v), statistics.median(v)) for name, v in (("images", images), ("build", builds))}
    return {"tracking": tuple(a - b for a, b in zip(out["images"], out["build"])), **out}


def accuracy(pts, tracked, status):
    err = np.hypot(tracked[:, 0] - (pts[:, 0] + MOTION[0]), tracked[:, 1] - (pts[:, 1] + MOTION[1]))
    err = np.where(status.ravel() == 1, err, np.inf)
    return float(np.median(err)), float(np.mean(err <= 0.1)), float(np.mean(status))


def check_points(pts, path):
    ref = np.loadtxt(path, dtype=np.float32).reshape(-1, 2)
    n = min(len(ref), len(pts))
    same = len(ref) == len(pts) and bool(np.all(ref == pts))
    print(f"points vs {path}: {len(pts)} / {len(ref)}, identical: {same}"
          + ("" if same else f" (first {n}: {int(np.sum(np.all(ref[:n] == pts[:n], axis=1)))})"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data"),
                    help="folder holding images/birds_752x480.png (default: ../shared/data)")
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--features", default="200,1000,4000")
    ap.add_argument("--points", help="file of 'x y' lines to compare the first count's features with")
    args = ap.parse_args()
    cv2.setNumThreads(args.threads)
    img0 = cv2.imread(f"{args.data}/images/birds_752x480.png", cv2.IMREAD_GRAYSCALE)
    if img0 is None:
        raise SystemExit(f"no birds_752x480.png under {args.data}/images")
    img1 = warp(img0)

    def build():
        cv2.buildOpticalFlowPyramid(img0, WIN, MAX_LEVEL, withDerivatives=True)
        cv2.buildOpticalFlowPyramid(img1, WIN, MAX_LEVEL, withDerivatives=False)

    print(f"OpenCV {cv2.__version__}, {cv2.getNumThreads()} threads ({cv2.getNumberOfCPUs()} "
          f"CPUs), window {WIN}, maxLevel {MAX_LEVEL}, {args.runs} runs after {args.warmup}")
    for count in (int(c) for c in args.features.split(",")):
        pts = features(img0, count)
        if args.points:
            check_points(pts, args.points)
            args.points = None

        def call(p=pts.reshape(-1, 1, 2)):
            return cv2.calcOpticalFlowPyrLK(img0, img1, p, None, winSize=WIN, maxLevel=MAX_LEVEL,
                                            criteria=CRITERIA)

        ms = timed_pair(call, build, args.runs, args.warmup)
        tracked, status, _ = call()
        med, within, ok = accuracy(pts, tracked.reshape(-1, 2), status)
        times = "".join(f"  {name}: min {t[0]:.3f} ms median {t[1]:.3f} ms" for name, t in ms.items())
        print(f"features={len(pts)} threads={cv2.getNumThreads()}{times}"
              f"  found={ok:.4f} median_error_px={med:.4f} within_0.1px={within:.4f}")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""OpenCV's CPU StereoSGBM (MODE_SGBM_3WAY) beside viofront's CPU SGM, for docs/perf/stereo.md.

Usage: scripts/bench_opencv_sgm.py [--data DIR] [--tool PATH] [--rounds N] [--per-round N]
                                   [--threads T] [--paths 4,8] [--block-size B] [--raw]
                                   [--cpu-time]

Input: one EuRoC V1_01_easy pair (752x480, cam0/cam1 at 1403715273262142976), rectified here
with the calibration of the sensor.yaml files (OpenCV stereoRectify, alpha 0, bilinear remap)
and written as PNG to a temporary folder, so that both matchers see the same 8-bit pixels
(--raw: the pair as recorded, as vf_bench's hsgm rows use it). 64 disparities from 0.

OpenCV: StereoSGBM MODE_SGBM_3WAY, numDisparities 64, blockSize B (default 7: the largest
square window inside our 9x7 census window; OpenCV sums its per-pixel Birchfield-Tomasi costs
over the B x B block with running sums, so its time barely depends on B), P1 = 8 B^2 and
P2 = 32 B^2 (the values OpenCV's documentation recommends for one channel), uniquenessRatio 5
(our uniqueness 0.95), disp12MaxDiff 1 (our LR check of 1 px), no speckle filter,
cv2.setNumThreads(T). compute() always ends with a 3x3 median and returns 16 x disparity.
viofront: examples' vf_stereo with --backend cpu --threads T, SGM defaults (CS census 9x7,
P1 10, P2 120, uniqueness 0.95, LR check 1 px, sub-pixel, 3x3 median), --paths P; its
--repeat option times vf_stereo_compute (16-bit output, no float conversion) after one untimed
call.

The two are interleaved: each round times --per-round OpenCV calls in this process, then one
vf_stereo process per path count with --repeat --per-round (process start and PNG reading are
outside its timed calls); medians and minimums over all rounds. The ratio is viofront's median
over OpenCV's. Also printed: the share of pixels each returns valid, and where both are valid,
the share within 1 px of each other.

--cpu-time adds the processor time per frame (all threads), which a shared machine disturbs less
than the elapsed time: OpenCV's from time.process_time() around each call, viofront's from the
rusage of a vf_stereo process with --repeat N minus that of one with --repeat 0, over N.

Needs Debian's python3-opencv (run with /usr/bin/python3); OpenCV is no dependency of viofront.
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time

import cv2
import numpy as np

PAIR = "euroc/V1_01_easy_micro/mav0/cam{}/data/1403715273262142976.png"
DISPARITIES = 64
VF_INVALID = 0xFFFF


def sensor(path):
    """K, distortion and T_BS of an EuRoC sensor.yaml (plain numbers read with a pattern)."""
    text = open(path).read()

    def numbers(key):
        body = re.search(key + r"\s*:\s*\[([^\]]*)\]", text, re.S).group(1)
        return np.array([float(v) for v in body.replace("\n", " ").split(",")])

    fu, fv, cu, cv = numbers("intrinsics")
    k = np.array([[fu, 0, cu], [0, fv, cv], [0, 0, 1]])
    return k, numbers("distortion_coefficients"), numbers("data").reshape(4, 4)


def rectified_pair(data):
    """The pair rectified with the recorded calibration (cam0 left)."""
    imgs, cams = [], []
    for c in (0, 1):
        imgs.append(cv2.imread(os.path.join(data, PAIR.format(c)), cv2.IMREAD_GRAYSCALE))
        if imgs[-1] is None:
            raise SystemExit(f"no {PAIR.format(c)} under {data}")
        cams.append(sensor(os.path.join(data, os.path.dirname(os.path.dirname(PAIR.format(c))),
                                        "sensor.yaml")))
    (k0, d0, t0), (k1, d1, t1) = cams
    t10 = np.linalg.inv(t1) @ t0  # cam0 coordinates into cam1's
    size = imgs[0].shape[::-1]
    # The translation as a 3x1 column: OpenCV 5 refuses a flat array there (4.x takes both).
    r0, r1, p0, p1, _, _, _ = cv2.stereoRectify(k0, d0, k1, d1, size, t10[:3, :3],
                                                t10[:3, 3].reshape(3, 1),
                                                flags=cv2.CALIB_ZERO_DISPARITY, alpha=0)
    out = []
    for img, k, d, r, p in ((imgs[0], k0, d0, r0, p0), (imgs[1], k1, d1, r1, p1)):
        mx, my = cv2.initUndistortRectifyMap(k, d, r, p, size, cv2.CV_32FC1)
        out.append(cv2.remap(img, mx, my, cv2.INTER_LINEAR))
    return out


def raw_pair(data):
    return [cv2.imread(os.path.join(data, PAIR.format(c)), cv2.IMREAD_GRAYSCALE) for c in (0, 1)]


def vf_stereo(tool, left, right, paths, threads, runs, prefix):
    """Runs vf_stereo; returns its stdout and its processor time (s, all threads)."""
    cmd = [tool, left, right, "--backend", "cpu", "--threads", str(threads), "--paths",
           str(paths), "--disparities", str(DISPARITIES), "--repeat", str(runs), "--out", prefix,
           "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    text = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({status})")
    return text, usage.ru_utime + usage.ru_stime


def ours(tool, left, right, paths, threads, runs, prefix):
    """vf_stereo's times (ms) of `runs` computations after one untimed."""
    text, _ = vf_stereo(tool, left, right, paths, threads, runs, prefix)
    line = next(l for l in text.splitlines() if l.startswith("times_ms:"))
    return [float(v) for v in line.split()[1:]]


def ours_cpu(tool, left, right, paths, threads, runs, prefix):
    """vf_stereo's processor time (ms) per computation: runs and no runs after the first."""
    _, with_runs = vf_stereo(tool, left, right, paths, threads, runs, prefix)
    _, without = vf_stereo(tool, left, right, paths, threads, 0, prefix)
    return (with_runs - without) / runs * 1e3


def agreement(cv_disp, vf_disp):
    """Valid shares of both, and the share of the jointly valid pixels within 1 px."""
    cv_ok = cv_disp >= 0  # OpenCV marks invalid pixels (minDisparity - 1) * 16 = -16
    vf_ok = vf_disp != VF_INVALID
    both = cv_ok & vf_ok
    diff = np.abs(cv_disp.astype(np.float64) / 16 - vf_disp.astype(np.float64) / 16)
    return float(cv_ok.mean()), float(vf_ok.mean()), float((diff[both] <= 1.0).mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data"),
                    help="folder holding euroc/V1_01_easy_micro (default: ../shared/data)")
    ap.add_argument("--tool", default=os.path.join(here, "..", "build-rel", "examples", "vf_stereo"),
                    help="the vf_stereo example program (default: build-rel's)")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--per-round", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--paths", default="4,8")
    ap.add_argument("--block-size", type=int, default=7)
    ap.add_argument("--raw", action="store_true", help="the recorded pair, not rectified")
    ap.add_argument("--cpu-time", action="store_true", help="also processor time per frame")
    args = ap.parse_args()
    cv2.setNumThreads(args.threads)
    left, right = raw_pair(args.data) if args.raw else rectified_pair(args.data)
    b = args.block_size
    sgbm = cv2.StereoSGBM_create(minDisparity=0, numDisparities=DISPARITIES, blockSize=b,
                                 P1=8 * b * b, P2=32 * b * b, disp12MaxDiff=1, uniquenessRatio=5,
                                 speckleWindowSize=0, speckleRange=0,
                                 mode=cv2.STEREO_SGBM_MODE_SGBM_3WAY)
    paths = [int(p) for p in args.paths.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        lp, rp = os.path.join(tmp, "left.png"), os.path.join(tmp, "right.png")
        cv2.imwrite(lp, left)
        cv2.imwrite(rp, right)
        for _ in range(args.warmup):
            cv_disp = sgbm.compute(left, right)
        times = {"opencv": [], **{f"vf{p}": [] for p in paths}}
        cpu = {name: [] for name in times}
        for _ in range(args.rounds):
            c0 = time.process_time()
            for _ in range(args.per_round):
                t0 = time.perf_counter()
                cv_disp = sgbm.compute(left, right)
                times["opencv"].append((time.perf_counter() - t0) * 1e3)
            cpu["opencv"].append((time.process_time() - c0) / args.per_round * 1e3)
            for p in paths:
                prefix = os.path.join(tmp, f"vf{p}")
                times[f"vf{p}"] += ours(args.tool, lp, rp, p, args.threads, args.per_round, prefix)
                if args.cpu_time:
                    cpu[f"vf{p}"].append(ours_cpu(args.tool, lp, rp, p, args.threads,
                                                  args.per_round, prefix))
        vf_disp = {p: cv2.imread(os.path.join(tmp, f"vf{p}.png"), cv2.IMREAD_UNCHANGED)
                   for p in paths}
    print(f"OpenCV {cv2.__version__}, {cv2.getNumThreads()} threads ({cv2.getNumberOfCPUs()} "
          f"CPUs); {left.shape[1]}x{left.shape[0]} {'raw' if args.raw else 'rectified'} EuRoC "
          f"pair, {DISPARITIES} disparities; {args.rounds} rounds x {args.per_round} runs")
    cv_med = statistics.median(times["opencv"])
    print(f"opencv sgbm_3way block={b} P1={8 * b * b} P2={32 * b * b}: "
          f"median {cv_med:.2f} ms  min {min(times['opencv']):.2f} ms")
    if args.cpu_time:
        cv_cpu = statistics.median(cpu["opencv"])
        print(f"opencv processor time: median {cv_cpu:.2f} ms/frame")
    for p in paths:
        t = times[f"vf{p}"]
        med = statistics.median(t)
        cv_ok, vf_ok, close = agreement(cv_disp, vf_disp[p])
        print(f"viofront cpu sgm paths={p}: median {med:.2f} ms  min {min(t):.2f} ms  "
              f"ratio {med / cv_med:.2f}x  valid {vf_ok:.3f} (opencv {cv_ok:.3f})  "
              f"within_1px {close:.3f}")
        if args.cpu_time:
            c = statistics.median(cpu[f"vf{p}"])
            print(f"viofront processor time paths={p}: median {c:.2f} ms/frame  "
                  f"ratio {c / cv_cpu:.2f}x")


if __name__ == "__main__":
    main()

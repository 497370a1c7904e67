#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""How far stereo matchers agree on a real EuRoC sequence, where no ground truth exists.

Usage: scripts/stereo_agreement.py SEQUENCE --csv [NAME=]FEATURES.csv [--csv [NAME=]OTHER.csv ...]
                                   [--max-frames N] [--same-pixel PX] [--no-equalize] [--ransac]
                                   [--markdown]

SEQUENCE is a EuRoC (ASL layout) folder: mav0/cam0, mav0/cam1 with data/<t_ns>.png and
sensor.yaml (pinhole, radial-tangential). Each CSV is written by `vf_replay SEQUENCE --csv
FEATURES.csv` (README.md: rows t_ns,id,cam,u,v,...,disparity,...,u_rect,v_rect,flags) with
FEATURES.csv.rectification.yaml beside it (f, cx, cy, baseline_m, R1, R2; all the CSVs must
share one rectification).

Matchers compared:
  each CSV     a left feature (cam 0 row) is matched when the CSV has its cam 1 row (the
               accepted camera-1 record); its disparity is that row's `disparity` column and
               its vertical offset v_rect(cam 0) - v_rect(cam 1).
  opencv_lk    OpenCV's pyramidal LK, left to right, the way OpenVINS (ov_core TrackKLT,
               perform_detection_stereo) matches a new stereo feature: from the raw (distorted)
               left pixel of each cam 0 row of any CSV (the union of their left features: two
               modes of the frontend need not track the same corners) into the raw right image,
               starting at the left pixel itself (OPTFLOW_USE_INITIAL_FLOW), window 15x15,
               maxLevel 3, criteria COUNT|EPS 10 iterations / 0.01 (ov_core's TrackKLT of
               rpng/open_vins de9a281; its later releases default to maxLevel 5, which
               changes little here); accepted when the status
               is 1 and the right pixel lies inside the image (OpenVINS's checks). Both
               images are histogram-equalized first (cv2.equalizeHist), as OpenVINS does with
               its configs' histogram_method HISTOGRAM; --no-equalize tracks the plain images
               (on EuRoC the right camera is darker, which plain LK mistakes for motion).
               OpenVINS runs no RANSAC on this left-right match (only on its
               temporal tracks); --ransac adds its temporal check anyway: a fundamental matrix
               by RANSAC on the undistorted normalized points of the frame, threshold
               1 / max focal length, confidence 0.999, a frame with fewer than 10 matches
               losing all of them.
               Both raw pixels are then taken to the CSV's rectified images with
               cv2.undistortPointsIter (camera k's sensor.yaml intrinsics and distortion,
               R = Rk and P = [f 0 cx; 0 f cy] from the rectification YAML, iterated to
               1e-9 px: cv2.undistortPoints's 5 iterations miss the CSV's u_rect by up to
               0.26 px near V1_01's corners); disparity = u_rect left - u_rect right,
               vertical offset = v_rect left - v_rect right (the epipolar error of a 2-D
               search). The script first checks that this reproduces each CSV's cam 0
               u_rect, v_rect.

Printed: per matcher, left features and the share with a match, and the vertical offset
(median |offset|, median offset, share over 0.5 and 1 px); per pair of matchers, the left
features both hold (same t_ns, each the other's nearest left raw pixel within --same-pixel,
default 0.1 px: track ids differ between runs) and, over those both match, the median
|disparity difference|, the median signed difference (first minus second) and the shares over
0.5 px and 1 px. --markdown prints the tables as markdown.

Needs numpy and Debian's python3-opencv (run with /usr/bin/python3); OpenCV is no dependency of
viofront. The YAML readers are examples/gtsam/sequence.py's.
"""
import argparse
import os
import sys
from collections import namedtuple

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples", "gtsam"))
from sequence import Camera, Rectification  # noqa: E402  (EuRoC sensor.yaml, rectification YAML)

try:
    import cv2
except ImportError:
    cv2 = None

LK_WINDOW = (15, 15)
LK_MAX_LEVEL = 3
LK_CRITERIA = (3, 10, 0.01)  # cv2.TERM_CRITERIA_COUNT | EPS, 10 iterations, 0.01 px
UNDISTORT_CRITERIA = (3, 100, 1e-9)  # COUNT | EPS: up to 100 iterations, 1e-9 px
CSV_COLUMNS = ["t_ns", "id", "cam", "u", "v", "disparity", "u_rect", "v_rect"]

# One matcher's result, an entry per left feature, sorted by t_ns (id -1 for opencv_lk); disp
# and voff are NaN where the matcher gave no match.
Matches = namedtuple("Matches", "name t id u v disp voff")


class Failure(Exception):
    """A problem with the input, reported as one line without a traceback."""


# ---------------------------------------------------------------------------------------------
# Input


def parse_csv_arg(spec):
    """'NAME=PATH' -> (NAME, PATH); a bare PATH is named after its file."""
    name, sep, path = spec.partition("=")
    if not sep:
        path, name = spec, os.path.splitext(os.path.basename(spec))[0]
    if not name or not path:
        raise Failure(f"--csv {spec!r}: give NAME=PATH or PATH")
    return name, path


def read_csv(path):
    """vf_replay's CSV: a dict of the CSV_COLUMNS, found by the header's names."""
    if not os.path.isfile(path):
        raise Failure(f"{path}: no such CSV")
    with open(path) as f:
        names = f.readline().strip().split(",")
        empty = not f.readline().strip()
    missing = [c for c in CSV_COLUMNS if c not in names]
    if missing:
        raise Failure(f"{path}: not a vf_replay CSV (no column {', '.join(missing)})")
    if empty:
        raise Failure(f"{path}: no rows (an empty or failed replay?)")
    try:
        data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2,
                          usecols=[names.index(c) for c in CSV_COLUMNS], dtype=np.float64)
        # Timestamps do not fit a double exactly: that column again, as integers.
        t_ns = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=1,
                          usecols=names.index("t_ns"), dtype=np.int64)
    except ValueError as e:
        raise Failure(f"{path}: unreadable row ({e})")
    cols = {c: data[:, i] for i, c in enumerate(CSV_COLUMNS)}
    cols["t_ns"] = t_ns
    for c in ("id", "cam"):
        cols[c] = cols[c].astype(np.int64)
    if not np.any(cols["cam"] == 0):
        raise Failure(f"{path}: no cam 0 rows (an empty replay?)")
    return cols


def read_yaml(reader, path, hint):
    """reader(path) (sequence.py's Camera or Rectification), failing with `hint` when the file
    is missing."""
    if not os.path.isfile(path):
        raise Failure(f"{path}: missing ({hint})")
    try:
        return reader(path)
    except (KeyError, ValueError) as e:
        raise Failure(f"{path}: unreadable ({e})")


def read_rectification(csv_path):
    return read_yaml(Rectification, csv_path + ".rectification.yaml",
                     "vf_replay writes it beside its CSV")


def same_rectification(rects, paths):
    """Disparities of different rectifications do not compare: fail unless all agree."""
    def values(r):
        return np.concatenate([[r.f, r.cx, r.cy, r.baseline], r.R1.ravel(), r.R2.ravel()])
    for r, path in zip(rects[1:], paths[1:]):
        if not np.allclose(values(r), values(rects[0]), rtol=0, atol=1e-9):
            raise Failure(f"{path}: another rectification than {paths[0]}'s")


def read_camera(seq, k):
    return read_yaml(Camera, os.path.join(seq, "mav0", f"cam{k}", "sensor.yaml"),
                     f"is {seq} a EuRoC ASL folder?")


def read_image(seq, k, t_ns):
    """Camera k's 8-bit grey image at t_ns, or None when the file is missing or unreadable."""
    path = os.path.join(seq, "mav0", f"cam{k}", "data", f"{t_ns}.png")
    return cv2.imread(path, cv2.IMREAD_GRAYSCALE) if os.path.isfile(path) else None


def csv_matches(name, cols, frames):
    """A CSV's left features at the given timestamps and the disparity and vertical offset of
    their cam 1 rows (NaN where there is none)."""
    keep = np.isin(cols["t_ns"], frames)
    left = np.flatnonzero(keep & (cols["cam"] == 0))
    left = left[np.lexsort((cols["id"][left], cols["t_ns"][left]))]
    t, ids, v_rect_left = cols["t_ns"][left], cols["id"][left], cols["v_rect"][left]
    right_rows = np.flatnonzero(keep & (cols["cam"] == 1))
    right = dict(zip(zip(cols["t_ns"][right_rows].tolist(), cols["id"][right_rows].tolist()),
                     right_rows.tolist()))
    disp = np.full(len(t), np.nan)
    voff = np.full(len(t), np.nan)
    for j, key in enumerate(zip(t.tolist(), ids.tolist())):
        i = right.get(key)
        if i is not None:
            disp[j] = cols["disparity"][i]
            voff[j] = v_rect_left[j] - cols["v_rect"][i]
    return Matches(name, t, ids, cols["u"][left], cols["v"][left], disp, voff)


# ---------------------------------------------------------------------------------------------
# OpenCV LK, left to right


def camera_matrices(cam):
    K = np.array([[cam.fx, 0, cam.cx], [0, cam.fy, cam.cy], [0, 0, 1]], np.float64)
    return K, np.array([cam.k1, cam.k2, cam.p1, cam.p2], np.float64)


def to_rectified(pts, cam, R, rect):
    """Raw pixels (N, 2) of a camera -> pixels of its rectified image (R = R1 or R2)."""
    if len(pts) == 0:
        return np.zeros((0, 2))
    K, D = camera_matrices(cam)
    P = np.array([[rect.f, 0, rect.cx], [0, rect.f, rect.cy], [0, 0, 1]], np.float64)
    out = cv2.undistortPointsIter(pts.reshape(-1, 1, 2).astype(np.float64), K, D, R, P,
                                  UNDISTORT_CRITERIA)
    return out.reshape(-1, 2)


def to_normalized(pts, cam):
    """Raw pixels (N, 2) -> undistorted normalized coordinates (for the RANSAC check)."""
    K, D = camera_matrices(cam)
    return cv2.undistortPointsIter(pts.reshape(-1, 1, 2).astype(np.float64), K, D, None, None,
                                   UNDISTORT_CRITERIA).reshape(-1, 2)


def lk_left_to_right(left, right, pts):
    """OpenVINS's left-to-right LK from each raw left pixel, started at the pixel itself:
    the right pixels (N, 2) and whether each passed the status and in-image checks."""
    p0 = pts.reshape(-1, 1, 2).astype(np.float32)
    p1, status, _ = cv2.calcOpticalFlowPyrLK(left, right, p0, p0.copy(), winSize=LK_WINDOW,
                                             maxLevel=LK_MAX_LEVEL, criteria=LK_CRITERIA,
                                             flags=cv2.OPTFLOW_USE_INITIAL_FLOW)
    p1 = p1.reshape(-1, 2).astype(np.float64)
    h, w = right.shape
    inside = (p1[:, 0] >= 0) & (p1[:, 1] >= 0) & (p1[:, 0] < w) & (p1[:, 1] < h)
    return p1, (status.ravel() == 1) & inside


def ransac_inliers(pts0, pts1, cam0, cam1):
    """OpenVINS's fundamental-matrix RANSAC on normalized points: which pairs are inliers."""
    if len(pts0) < 10:
        return np.zeros(len(pts0), bool)
    max_f = max(cam0.fx, cam0.fy, cam1.fx, cam1.fy)
    _, mask = cv2.findFundamentalMat(to_normalized(pts0, cam0), to_normalized(pts1, cam1),
                                     cv2.FM_RANSAC, 1.0 / max_f, 0.999)
    return np.zeros(len(pts0), bool) if mask is None else mask.ravel() == 1


def union_left_features(matchers):
    """(t_ns, u, v) arrays of every left feature of the matchers, each pixel of a frame once."""
    keys = sorted({key for m in matchers
                   for key in zip(m.t.tolist(), m.u.tolist(), m.v.tolist())})
    t, u, v = (np.array(c) for c in zip(*keys))
    return t.astype(np.int64), u, v


def lk_matches(seq, features, cams, rect, equalize, ransac):
    """opencv_lk's result at the given left features (t_ns, u, v), and the frames it had to
    skip for a missing image."""
    t_all, u, v = features
    disp = np.full(len(t_all), np.nan)
    voff = np.full(len(t_all), np.nan)
    skipped = []
    for t in np.unique(t_all):
        rows = np.flatnonzero(t_all == t)
        left, right = read_image(seq, 0, t), read_image(seq, 1, t)
        if left is None or right is None:
            skipped.append(int(t))
            continue
        if equalize:
            left, right = cv2.equalizeHist(left), cv2.equalizeHist(right)
        pts0 = np.stack([u[rows], v[rows]], 1)
        pts1, ok = lk_left_to_right(left, right, pts0)
        if ransac:
            ok[ok] = ransac_inliers(pts0[ok], pts1[ok], cams[0], cams[1])
        rect0 = to_rectified(pts0[ok], cams[0], rect.R1, rect)
        rect1 = to_rectified(pts1[ok], cams[1], rect.R2, rect)
        disp[rows[ok]] = rect0[:, 0] - rect1[:, 0]
        voff[rows[ok]] = rect0[:, 1] - rect1[:, 1]
    no_id = np.full(len(t_all), -1, np.int64)
    return Matches("opencv_lk", t_all, no_id, u, v, disp, voff), skipped


def rectification_check(cols, frames, cam0, rect):
    """Largest and median |difference| between the CSV's cam 0 u_rect, v_rect and the raw
    pixel taken through to_rectified (the CSV prints 3 decimals: up to 5e-4 px from that)."""
    rows = (cols["cam"] == 0) & np.isin(cols["t_ns"], frames)
    raw = np.stack([cols["u"][rows], cols["v"][rows]], 1)
    ours = to_rectified(raw, cam0, rect.R1, rect)
    diff = np.abs(ours - np.stack([cols["u_rect"][rows], cols["v_rect"][rows]], 1))
    return int(rows.sum()), float(diff.max()), float(np.median(diff))


# ---------------------------------------------------------------------------------------------
# Statistics (numpy only)


def offset_stats(offsets):
    """Over the finite entries: count, median |x|, median x, share |x| > 0.5 and > 1."""
    x = offsets[np.isfinite(offsets)]
    if len(x) == 0:
        return 0, np.nan, np.nan, np.nan, np.nan
    a = np.abs(x)
    return (len(x), float(np.median(a)), float(np.median(x)), float(np.mean(a > 0.5)),
            float(np.mean(a > 1.0)))


def common_features(a, b, tolerance):
    """Index arrays into a and b of the left features both hold: at the same t_ns, each the
    other's nearest left pixel, at most `tolerance` px apart."""
    ia, ib = [], []
    for t in np.intersect1d(a.t, b.t):
        ra, rb = np.flatnonzero(a.t == t), np.flatnonzero(b.t == t)
        dist = np.hypot(a.u[ra, None] - b.u[None, rb], a.v[ra, None] - b.v[None, rb])
        nearest_b, nearest_a = dist.argmin(1), dist.argmin(0)
        own = np.arange(len(ra))
        keep = (nearest_a[nearest_b] == own) & (dist[own, nearest_b] <= tolerance)
        ia.append(ra[keep])
        ib.append(rb[nearest_b[keep]])
    if not ia:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(ia), np.concatenate(ib)


def pair_stats(disp_a, disp_b):
    """Disparities of the same features by two matchers (NaN = no match): offset_stats of
    a - b over the features both match."""
    both = np.isfinite(disp_a) & np.isfinite(disp_b)
    return offset_stats(disp_a[both] - disp_b[both])


# ---------------------------------------------------------------------------------------------
# Output


def fmt(x, digits=3):
    return "-" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{digits}f}"


def pct(x):
    return "-" if np.isnan(x) else f"{100 * x:.2f}%"


def matcher_table(matchers):
    head = ["matcher", "left features", "with a match", "share",
            "vert. offset: n", "median |dv| px", "median dv px", "|dv| > 0.5", "|dv| > 1"]
    rows = []
    for m in matchers:
        n_match = int(np.isfinite(m.disp).sum())
        n, med_abs, med, over_half, over_one = offset_stats(m.voff)
        rows.append([m.name, str(len(m.t)), str(n_match),
                     pct(n_match / len(m.t)) if len(m.t) else "-",
                     str(n), fmt(med_abs), fmt(med), pct(over_half), pct(over_one)])
    return head, rows


def pair_table(matchers, tolerance):
    head = ["pair (a - b)", "common features", "both match", "median |dd| px", "median dd px",
            "|dd| > 0.5", "|dd| > 1"]
    rows = []
    for i, a in enumerate(matchers):
        for b in matchers[i + 1:]:
            ia, ib = common_features(a, b, tolerance)
            n, med_abs, med, over_half, over_one = pair_stats(a.disp[ia], b.disp[ib])
            rows.append([f"{a.name} - {b.name}", str(len(ia)), str(n), fmt(med_abs), fmt(med),
                         pct(over_half), pct(over_one)])
    return head, rows


def render_markdown(head, rows):
    def line(cells):
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
    return "\n".join([line(head), "|" + "---|" * len(head)] + [line(r) for r in rows])


def render_text(head, rows):
    widths = [max(len(c) for c in col) for col in zip(head, *rows)]

    def line(cells):  # the first column to the left, the numbers to the right
        return "  ".join(c.rjust(w) if k else c.ljust(w)
                         for k, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in rows])


def render(table, markdown):
    return render_markdown(*table) if markdown else render_text(*table)


# ---------------------------------------------------------------------------------------------


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sequence", help="EuRoC ASL folder (mav0/cam0, mav0/cam1)")
    ap.add_argument("--csv", action="append", required=True, metavar="[NAME=]PATH",
                    help="a vf_replay CSV (repeat to compare several)")
    ap.add_argument("--max-frames", type=int, default=0, metavar="N",
                    help="only the first N frames of the first CSV (default: all)")
    ap.add_argument("--same-pixel", type=float, default=0.1, metavar="PX",
                    help="two CSVs' left features at most this far apart are the same feature "
                         "(default 0.1)")
    ap.add_argument("--no-equalize", dest="equalize", action="store_false",
                    help="LK on the plain images (default: both histogram-equalized, as "
                         "OpenVINS does)")
    ap.add_argument("--ransac", action="store_true",
                    help="add OpenVINS's fundamental-matrix RANSAC to opencv_lk's checks")
    ap.add_argument("--markdown", action="store_true", help="print markdown tables")
    return ap.parse_args(argv)


def load_inputs(args):
    """The cameras, the CSVs' column dicts by name and their (common) rectification."""
    if cv2 is None:
        raise Failure("needs OpenCV's Python module: apt-get install python3-opencv, "
                      "then run with /usr/bin/python3")
    if not os.path.isdir(args.sequence):
        raise Failure(f"{args.sequence}: no such sequence folder")
    if args.max_frames < 0 or args.same_pixel < 0:
        raise Failure("--max-frames and --same-pixel take values >= 0")
    specs = [parse_csv_arg(s) for s in args.csv]
    names = [n for n, _ in specs]
    if len(set(names + ["opencv_lk"])) != len(names) + 1:
        raise Failure(f"matcher names must differ (and not be opencv_lk): {', '.join(names)}")
    cams = [read_camera(args.sequence, 0), read_camera(args.sequence, 1)]
    tables = {name: read_csv(path) for name, path in specs}
    paths = [path for _, path in specs]
    rects = [read_rectification(path) for path in paths]
    same_rectification(rects, paths)
    return cams, tables, rects[0]


def run(args):
    cams, tables, rect = load_inputs(args)
    first = next(iter(tables.values()))
    frames = np.unique(first["t_ns"][first["cam"] == 0])
    if args.max_frames:
        frames = frames[:args.max_frames]
    matchers = [csv_matches(name, cols, frames) for name, cols in tables.items()]
    lk, skipped = lk_matches(args.sequence, union_left_features(matchers), cams, rect,
                             args.equalize, args.ransac)
    if len(skipped) == len(frames):
        raise Failure(f"{args.sequence} has none of the CSV's frames (another sequence?)")

    print(f"{args.sequence}: {len(frames)} frames"
          + (f", {len(skipped)} skipped by opencv_lk (image missing)" if skipped else ""))
    for name, cols in tables.items():
        n, worst, median = rectification_check(cols, frames, cams[0], rect)
        print(f"rectification check ({name}, cam 0): {n} raw pixels -> u_rect, v_rect "
              f"reproduced to max {worst:.2e} px, median {median:.2e} px")
    checks = "status, inside the image" + (", F-matrix RANSAC" if args.ransac else "")
    print(f"opencv_lk: OpenCV {cv2.__version__}, window {LK_WINDOW[0]}x{LK_WINDOW[1]}, maxLevel "
          f"{LK_MAX_LEVEL}, {LK_CRITERIA[1]} iterations / {LK_CRITERIA[2]}, initial guess = left "
          f"pixel, {'equalized' if args.equalize else 'plain'} images; checks: {checks}; at "
          f"the {len(lk.t)} left features of the CSVs")
    print(f"common features: same t_ns, mutually nearest left pixels within {args.same_pixel} px")
    print()
    print(render(matcher_table(matchers + [lk]), args.markdown))
    print()
    print(render(pair_table(matchers + [lk], args.same_pixel), args.markdown))


def main(argv=None):
    args = parse_args(argv)
    try:
        run(args)
    except Failure as e:
        print(f"{os.path.basename(sys.argv[0])}: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

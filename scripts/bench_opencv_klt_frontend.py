#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""An OpenVINS-style KLT stereo frontend made of OpenCV calls, timed frame by frame on a EuRoC
sequence, for issue 36 (docs/perf/sparse_stereo.md): "the frontend users run today" beside
`vf_replay --backend cpu --stereo sparse` on the same machine and frames.

Usage: scripts/bench_opencv_klt_frontend.py SEQUENCE [--max-frames N] [--features N]
                                            [--threads T] [--json FILE]

SEQUENCE is a EuRoC (ASL layout) folder, real or written by vf_synth: mav0/cam0 and mav0/cam1
with data.csv (or only data/<t_ns>.png) and sensor.yaml (pinhole intrinsics [fu, fv, cu, cv],
radial-tangential distortion [k1, k2, p1, p2], T_BS). Left and right frames are paired by equal
timestamps; rows of data.csv whose PNG is missing are counted and skipped.

What it models: ov_core's TrackKLT in stereo mode (rpng/open_vins; its public source as of commit
06cc895, TrackKLT.cpp and Grider_FAST.h), its default parameters. Per stereo frame:
  1. both images are histogram-equalized;
  2. OpenVINS builds each image's pyramid once (window 15x15, 3 levels above the image) and
     hands the pyramids to every LK call. This OpenCV's Python binding (4.6) refuses a pyramid
     for calcOpticalFlowPyrLK's images (the tuple from buildOpticalFlowPyramid, with or without
     derivatives, and a list of levels all fail: "prevImg is not a numerical tuple"; the
     SparsePyrLKOpticalFlow object likewise), so each LK call below gets the two images and
     builds both pyramids inside. The frame time is reported as run, and also "with pyramids
     built once": minus what the calls built inside (per call, the first image's pyramid with
     derivatives plus the second's without, timed each frame off its clock, at the run's
     median) plus the two pyramids with derivatives that OpenVINS builds;
  3. the previous frame is topped off before tracking (OpenVINS's order): in each camera the
     features are thinned to one per 10x10 px cell (min_px_dist 10; the oldest wins); when the
     left camera lacks more than min(75, 0.2 N) of its N features (N = --features, 200), FAST
     (threshold 20, non-max suppression) runs in each cell of a 5x5 grid, keeping the best
     N / 25 + 1 responses of each, refined by cornerSubPix (5x5 half-window, 20 iterations /
     0.001), and those whose 10 px cell is free become new left features; each is matched into
     the right image by pyramidal LK from the left pixel (10 iterations / 0.01) and, with
     status 1 and inside the image, becomes a stereo feature (one id in both cameras), else a
     left-only one. The right camera is then thinned the same way (a stereo feature is never
     dropped for its cell) and, when it lacks more than min(75, 0.2 N), gets right-only FAST
     features the same way (OpenVINS tracks them in the right camera alone);
  4. each camera's features are tracked previous -> current by pyramidal LK (window 15x15,
     maxLevel 3, 20 iterations / 0.01: ov_core's value, where issue 36 assumed 30 and older
     releases used 10), the
     matches undistorted to normalized points (cv2.undistortPoints, the camera's intrinsics and
     distortion) and checked by a RANSAC fundamental matrix (threshold 1 / the largest focal
     length, confidence 0.999; a camera with fewer than 10 features loses them all); a feature
     survives when LK's status, RANSAC and the image bounds agree. A stereo feature stays
     stereo while both its sides survive.
cv2.setNumThreads(T) (--threads, 2): OpenCV spreads each call's work over T threads.

What it leaves out: OpenVINS's C++ around the calls (its feature database update, keypoint
vectors, per-call allocations) and the mask images (no mask, so the rectangles it draws round
existing features into the detection mask are skipped: they only drop FAST corners that lie on
a rectangle's outline); its own threading of the two cameras (pyramids and temporal tracking run
as parallel_for_ over the cameras, here one after the other, each call on T threads). Python's
own cost is timed with it: small between the calls, but the binding turns every FAST corner
(a few thousand an image at threshold 20) into a Python object and each grid cell's best are
picked in Python, so detection costs somewhat more than in C++.

Printed: frames, per-frame milliseconds (median / mean / min, as run and with the pyramid
estimate), each step's share of the total time (equalize, temporal LK, RANSAC, detection with
its thinning, FAST and cornerSubPix, stereo LK; "other" is the bookkeeping between them), left
features per frame after tracking and how many have a right match, right-only features, and the
mean length of the left tracks (frames they were tracked into, as OpenVINS's feature database
records them: the frame a feature was born on is not one of them, where vf_replay counts it; the
tracks alive at the end count as they are). On a vf_synth sequence (SEQUENCE/groundtruth/depth0
present) also the stereo error: each left feature's true right pixel (docs/synth.md: depth0's
z-depth at the nearest raw left pixel, through cam0 -> body -> cam1 and cam1's distortion)
against its right match, for the new matches (on the frame they were made) and for all stereo
features after tracking; features on a depth edge (the 3x3 depths around it differ by more than
2%) are left out and counted. The truth chain is first checked on vf_synth's own landmark pixels
(groundtruth/tracks0.csv, tracks1.csv). On real frames accuracy is left to
scripts/stereo_agreement.py.

Needs numpy and Debian's python3-opencv (run with /usr/bin/python3); OpenCV is no dependency of
viofront.
"""
import argparse
import heapq
import json
import os
import re
import statistics
import sys
import time
from contextlib import contextmanager
from operator import attrgetter

import cv2
import numpy as np

WIN = (15, 15)
MAX_LEVEL = 3
TEMPORAL_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 0.01)
STEREO_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 10, 0.01)
FAST_THRESHOLD = 20
GRID_X, GRID_Y = 5, 5
MIN_PX_DIST = 10
SUBPIX_WIN = (5, 5)
SUBPIX_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 0.001)
RANSAC_CONFIDENCE = 0.999
MIN_RANSAC_POINTS = 10
STEPS = ("equalize", "temporal LK", "RANSAC", "detection", "stereo LK")
DEPTH_SCALE_M = 1.0 / 5000.0
DEPTH_EDGE = 0.02
RESPONSE = attrgetter("response")


def fail(message):
    sys.exit("bench_opencv_klt_frontend: " + message)


# ---------------------------------------------------------------- the sequence


def yaml_numbers(text, key):
    """The numbers of `key: [a, b, ...]`, or of the `data: [...]` under `key:` (EuRoC's T_BS).
    EuRoC's files start with OpenCV's `%YAML:1.0`, which PyYAML refuses, hence this reader."""
    m = re.search(r"^\s*" + re.escape(key) + r":\s*(\[[^\]]*\])?", text, re.M)
    if m is None:
        raise KeyError(key)
    block = m.group(1)
    if block is None:
        data = re.search(r"data:\s*(\[[^\]]*\])", text[m.end():])
        if data is None:
            raise KeyError(key + ".data")
        block = data.group(1)
    return np.array([float(x) for x in block.strip("[]").replace("\n", " ").split(",")])


class Camera:
    """A raw EuRoC camera: K, radial-tangential distortion, T_BS (camera to body)."""

    def __init__(self, cam_dir):
        path = os.path.join(cam_dir, "sensor.yaml")
        try:
            with open(path) as f:
                text = f.read()
            fu, fv, cu, cv = yaml_numbers(text, "intrinsics")
            self.dist = yaml_numbers(text, "distortion_coefficients")
            self.T_BS = yaml_numbers(text, "T_BS").reshape(4, 4)
        except (OSError, KeyError, ValueError) as e:
            fail("%s: cannot read the camera (%s)" % (path, e))
        self.K = np.array([[fu, 0, cu], [0, fv, cv], [0, 0, 1]])
        self.max_focal = max(fu, fv)

    def normalize(self, pts):
        """Raw pixels -> undistorted normalized coordinates (OpenCV's 5 iterations)."""
        return cv2.undistortPoints(pts.reshape(-1, 1, 2), self.K, self.dist).reshape(-1, 2)


def frame_files(cam_dir):
    """{t_ns: png path} of a camera, and the count of data.csv rows without their PNG."""
    data = os.path.join(cam_dir, "data")
    csv = os.path.join(cam_dir, "data.csv")
    names = {}
    if os.path.isfile(csv):
        with open(csv) as f:
            for line in f:
                fields = [x.strip() for x in line.split(",")]
                if len(fields) >= 2 and fields[0].isdigit():
                    names[int(fields[0])] = fields[1]
    else:
        names = {int(n[:-4]): n for n in os.listdir(data)
                 if n.endswith(".png") and n[:-4].isdigit()}
    found = {t: os.path.join(data, n) for t, n in names.items()
             if os.path.isfile(os.path.join(data, n))}
    return found, len(names) - len(found)


def stereo_pairs(seq, max_frames):
    """The first max_frames (t_ns, left png, right png) with the same timestamp in both cameras."""
    cams = [os.path.join(seq, "mav0", "cam%d" % k) for k in (0, 1)]
    for c in cams:
        if not os.path.isdir(os.path.join(c, "data")):
            fail("%s: no such folder (SEQUENCE must hold mav0/cam0 and mav0/cam1 of the EuRoC "
                 "layout)" % os.path.join(c, "data"))
    (left, miss0), (right, miss1) = frame_files(cams[0]), frame_files(cams[1])
    if miss0 or miss1:
        print("data.csv rows without their PNG: cam0 %d, cam1 %d (skipped)" % (miss0, miss1))
    times = sorted(set(left) & set(right))[:max_frames]
    if len(times) < 2:
        fail("%s: fewer than 2 stereo pairs with equal timestamps" % seq)
    return [(t, left[t], right[t]) for t in times], [Camera(c) for c in cams]


def load_images(pairs):
    """Every pair decoded before any timing, so that PNG decoding stays off the clock."""
    images = []
    for _, lp, rp in pairs:
        left, right = cv2.imread(lp, cv2.IMREAD_GRAYSCALE), cv2.imread(rp, cv2.IMREAD_GRAYSCALE)
        if left is None or right is None:
            fail("cannot decode %s or %s" % (lp, rp))
        images.append((left, right))
    return images


# ---------------------------------------------------------------- the frontend


class StepClock:
    """Per-frame time of each step, summed over the frame's calls to it."""

    def __init__(self):
        self.frame = dict.fromkeys(STEPS, 0.0)

    def reset(self):
        self.frame = dict.fromkeys(STEPS, 0.0)

    @contextmanager
    def step(self, name):
        t0 = time.perf_counter()
        yield
        self.frame[name] += time.perf_counter() - t0


class Features:
    """One camera's features: raw pixels (float32, n x 2) and track ids, in age order."""

    def __init__(self, pts=None, ids=None):
        self.pts = np.zeros((0, 2), np.float32) if pts is None else pts
        self.ids = np.zeros(0, np.int64) if ids is None else ids

    def keep(self, mask):
        return Features(self.pts[mask], self.ids[mask])

    def append(self, pts, ids):
        return Features(np.vstack([self.pts, pts]).astype(np.float32),
                        np.concatenate([self.ids, ids]))


def inside(pts, shape):
    h, w = shape
    x, y = pts[:, 0].astype(np.int64), pts[:, 1].astype(np.int64)
    return (pts[:, 0] >= 0) & (pts[:, 1] >= 0) & (x < w) & (y < h)


def cells(pts, shape):
    """Index of each point's MIN_PX_DIST cell (the occupancy grid OpenVINS thins with)."""
    gw = shape[1] // MIN_PX_DIST
    cx = (pts[:, 0] // MIN_PX_DIST).astype(np.int64)
    return (pts[:, 1] // MIN_PX_DIST).astype(np.int64) * gw + cx


def first_per_cell(pts, shape, protected=None):
    """Keep-mask: inside the grid, and the first point of each cell (the oldest feature); a
    protected point is kept even in a taken cell (OpenVINS never thins a right stereo feature)."""
    gh, gw = shape[0] // MIN_PX_DIST, shape[1] // MIN_PX_DIST
    ok = inside(pts, (gh * MIN_PX_DIST, gw * MIN_PX_DIST))
    keep = np.zeros(len(pts), bool)
    idx = np.flatnonzero(ok)
    _, first = np.unique(cells(pts[idx], shape), return_index=True)
    keep[idx[first]] = True
    if protected is not None:
        keep |= ok & protected
    return keep


def fast_grid(img, detector, num_features):
    """FAST's best N / 25 + 1 corners in each cell of a 5x5 grid, refined by cornerSubPix."""
    per_cell = num_features // (GRID_X * GRID_Y) + 1
    h, w = img.shape
    sx, sy = w // GRID_X, h // GRID_Y
    found = []
    for gy in range(GRID_Y):
        for gx in range(GRID_X):
            kps = detector.detect(img[gy * sy:(gy + 1) * sy, gx * sx:(gx + 1) * sx])
            kps = heapq.nlargest(per_cell, kps, key=RESPONSE)
            found.extend((k.pt[0] + gx * sx, k.pt[1] + gy * sy) for k in kps)
    if not found:
        return np.zeros((0, 2), np.float32)
    pts = np.array(found, np.float32).reshape(-1, 1, 2)
    return cv2.cornerSubPix(img, pts, SUBPIX_WIN, (-1, -1), SUBPIX_CRITERIA).reshape(-1, 2)


def free_cells(new_pts, old_pts, shape):
    """Keep-mask of the new points whose cell neither an old point nor an earlier new one holds
    (OpenVINS's one-by-one rule, in one pass: drop the taken cells, then the first of each)."""
    gh, gw = shape[0] // MIN_PX_DIST, shape[1] // MIN_PX_DIST
    ok = inside(new_pts, (gh * MIN_PX_DIST, gw * MIN_PX_DIST))
    ok[ok] = ~np.isin(cells(new_pts[ok], shape), cells(old_pts, shape))
    keep = np.zeros(len(new_pts), bool)
    idx = np.flatnonzero(ok)
    _, first = np.unique(cells(new_pts[idx], shape), return_index=True)
    keep[idx[first]] = True
    return keep


class KltStereoFrontend:
    """TrackKLT's stereo mode as OpenCV calls; see the file's docstring for the steps."""

    def __init__(self, cams, num_features, clock):
        self.cams, self.n, self.clock = cams, num_features, clock
        self.detector = cv2.FastFeatureDetector_create(FAST_THRESHOLD, True)
        self.needed = min(75, int(0.2 * num_features))
        self.feats = [Features(), Features()]
        self.prev = None
        self.next_id = 0
        self.lk_calls = 0
        self.births = None

    def new_ids(self, count):
        ids = np.arange(self.next_id, self.next_id + count, dtype=np.int64)
        self.next_id += count
        return ids

    def lk(self, img0, img1, pts, criteria):
        """LK from img0 to img1, starting at the same pixel; the status as bools."""
        self.lk_calls += 1
        moved, status, _ = cv2.calcOpticalFlowPyrLK(
            img0, img1, pts.reshape(-1, 1, 2), pts.reshape(-1, 1, 2).copy(), winSize=WIN,
            maxLevel=MAX_LEVEL, criteria=criteria, flags=cv2.OPTFLOW_USE_INITIAL_FLOW)
        return moved.reshape(-1, 2), status.reshape(-1).astype(bool)

    def top_off(self, left, right):
        """Thin both cameras, then new stereo features from the left and right-only ones."""
        shape = left.shape
        fl, fr = self.feats
        with self.clock.step("detection"):
            fl = fl.keep(first_per_cell(fl.pts, shape))
            new_l = np.zeros((0, 2), np.float32)
            if self.n - len(fl.ids) > self.needed:
                cand = fast_grid(left, self.detector, self.n)
                new_l = cand[free_cells(cand, fl.pts, shape)]
        new_r, matched = new_l, np.zeros(len(new_l), bool)
        if len(new_l):
            with self.clock.step("stereo LK"):
                new_r, status = self.lk(left, right, new_l, STEREO_CRITERIA)
                matched = status & inside(new_r, right.shape)
        ids = self.new_ids(len(new_l))
        self.births = (new_l[matched], new_r[matched])
        with self.clock.step("detection"):
            fl = fl.append(new_l, ids)
            fr = fr.append(new_r[matched], ids[matched])
            fr = fr.keep(first_per_cell(fr.pts, shape, np.isin(fr.ids, fl.ids)))
            if self.n - len(fr.ids) > self.needed:
                cand = fast_grid(right, self.detector, self.n)
                cand = cand[free_cells(cand, fr.pts, shape)]
                fr = fr.append(cand, self.new_ids(len(cand)))
        self.feats = [fl, fr]

    def track(self, k, prev, img):
        """Camera k's features previous -> current: LK, then RANSAC on normalized points."""
        f = self.feats[k]
        if len(f.ids) < MIN_RANSAC_POINTS:
            return Features()
        with self.clock.step("temporal LK"):
            moved, status = self.lk(prev, img, f.pts, TEMPORAL_CRITERIA)
        with self.clock.step("RANSAC"):
            cam = self.cams[k]
            _, inlier = cv2.findFundamentalMat(cam.normalize(f.pts), cam.normalize(moved),
                                               cv2.FM_RANSAC, 1.0 / cam.max_focal,
                                               RANSAC_CONFIDENCE)
            if inlier is None:
                return Features()  # no fundamental matrix: every match fails, as in OpenVINS
            ok = status & inside(moved, img.shape) & inlier.reshape(-1).astype(bool)
        return Features(moved[ok], f.ids[ok])

    def process(self, left_raw, right_raw):
        self.clock.reset()
        self.lk_calls = 0
        self.births = None
        self.births_on_previous = self.prev is not None
        with self.clock.step("equalize"):
            left, right = cv2.equalizeHist(left_raw), cv2.equalizeHist(right_raw)
        if self.prev is None or not (len(self.feats[0].ids) or len(self.feats[1].ids)):
            # The first frame (or all lost): features from this frame, nothing to track.
            self.births_on_previous = False
            self.top_off(left, right)
        else:
            self.top_off(*self.prev)
            self.feats = [self.track(0, self.prev[0], left), self.track(1, self.prev[1], right)]
        self.prev = (left, right)


# ---------------------------------------------------------------- ground truth (vf_synth)


def read_tracks(path):
    """groundtruth/tracksK.csv: {t_ns: {landmark id: (u, v)}}."""
    rows = {}
    with open(path) as f:
        for line in f:
            fields = line.strip().split(",")
            if len(fields) < 4 or not fields[0].isdigit():
                continue
            uv = (float(fields[2]), float(fields[3]))
            rows.setdefault(int(fields[0]), {})[int(fields[1])] = uv
    return rows



def undistort_exact(pts, K, dist):
    """Normalized coordinates of raw pixels (N x 2), iterated to 1e-12: OpenCV 4's
    undistortPointsIter where the binding has it (OpenCV 5's has not), else the same fixed-point
    iteration of the radial-tangential model written out here."""
    iterated = getattr(cv2, "undistortPointsIter", None)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)
    if iterated is not None:
        return iterated(pts.reshape(-1, 1, 2), K, dist, None, None, crit).reshape(-1, 2)
    k1, k2, p1, p2 = (float(v) for v in np.ravel(dist)[:4])
    x0 = (pts[:, 0] - K[0, 2]) / K[0, 0]
    y0 = (pts[:, 1] - K[1, 2]) / K[1, 1]
    x, y = x0.copy(), y0.copy()
    for _ in range(100):
        r2 = x * x + y * y
        radial = 1 + k1 * r2 + k2 * r2 * r2
        dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        dy = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        nx, ny = (x0 - dx) / radial, (y0 - dy) / radial
        done = max(np.max(np.abs(nx - x), initial=0), np.max(np.abs(ny - y), initial=0)) < 1e-12
        x, y = nx, ny
        if done:
            break
    return np.column_stack([x, y])

class StereoTruth:
    """The true right pixel of a raw left pixel of a vf_synth frame (depth0, then cam1)."""

    def __init__(self, seq, cams):
        self.root = os.path.join(seq, "groundtruth")
        self.cams = cams
        T = np.linalg.inv(cams[1].T_BS) @ cams[0].T_BS
        self.R, self.t = T[:3, :3], T[:3, 3]

    @staticmethod
    def present(seq):
        return os.path.isdir(os.path.join(seq, "groundtruth", "depth0"))

    def depth(self, t_ns):
        d = cv2.imread(os.path.join(self.root, "depth0", "%d.png" % t_ns), cv2.IMREAD_UNCHANGED)
        if d is None:
            fail("no depth0 ground truth for %d" % t_ns)
        return d.astype(np.float64) * DEPTH_SCALE_M

    def right_pixels(self, depth, left_pts):
        """(true right pixels, usable mask): off depth edges, with a depth, in front of cam1."""
        h, w = depth.shape
        x = np.clip(np.rint(left_pts[:, 0]).astype(np.int64), 1, w - 2)
        y = np.clip(np.rint(left_pts[:, 1]).astype(np.int64), 1, h - 2)
        around = np.stack([depth[y + dy, x + dx] for dy in (-1, 0, 1) for dx in (-1, 0, 1)])
        z = depth[y, x]
        usable = (around.min(0) > 0) & (around.max(0) - around.min(0) <= DEPTH_EDGE * z)
        cam0 = self.cams[0]
        n = undistort_exact(left_pts.astype(np.float64), cam0.K, cam0.dist)
        p0 = np.column_stack([n * z[:, None], z])
        p1 = p0 @ self.R.T + self.t
        usable &= p1[:, 2] > 0
        proj, _ = cv2.projectPoints(p1.reshape(-1, 1, 3), np.zeros(3), np.zeros(3),
                                    self.cams[1].K, self.cams[1].dist)
        return proj.reshape(-1, 2), usable

    def check_chain(self, t_ns):
        """Median error of the chain on vf_synth's landmark pixels seen by both cameras."""
        left, right = (read_tracks(os.path.join(self.root, "tracks%d.csv" % k)) for k in (0, 1))
        ids = sorted(set(left.get(t_ns, {})) & set(right.get(t_ns, {})))
        if not ids:
            return None, 0
        lp = np.array([left[t_ns][i] for i in ids])
        rp = np.array([right[t_ns][i] for i in ids])
        pred, usable = self.right_pixels(self.depth(t_ns), lp)
        err = np.linalg.norm(pred - rp, axis=1)[usable]
        return (float(np.median(err)) if len(err) else None), int(usable.sum())


class ErrorTally:
    """Stereo errors against the truth, and the matches left out on depth edges."""

    def __init__(self):
        self.errors, self.edges = [], 0

    def add(self, truth, t_ns, left_pts, right_pts):
        true_r, usable = truth.right_pixels(truth.depth(t_ns), left_pts.astype(np.float64))
        self.errors.extend(np.linalg.norm(true_r - right_pts, axis=1)[usable].tolist())
        self.edges += int((~usable).sum())

    def summary(self):
        if not self.errors:
            return {"count": 0, "on_depth_edges": self.edges}
        e = np.asarray(self.errors)
        return {"count": int(len(e)), "on_depth_edges": self.edges,
                "median_px": float(np.median(e)), "within_0.5px": float(np.mean(e <= 0.5)),
                "within_1px": float(np.mean(e <= 1.0)), "over_3px": float(np.mean(e > 3.0))}


# ---------------------------------------------------------------- the run


def pyramid_times(images):
    """Seconds to build an image's pyramid with and without derivatives (mean of the two)."""
    with_d, without = 0.0, 0.0
    for img in images:
        t0 = time.perf_counter()
        cv2.buildOpticalFlowPyramid(img, WIN, MAX_LEVEL, withDerivatives=True)
        t1 = time.perf_counter()
        cv2.buildOpticalFlowPyramid(img, WIN, MAX_LEVEL, withDerivatives=False)
        without += time.perf_counter() - t1
        with_d += t1 - t0
    return with_d / len(images), without / len(images)


def run(pairs, images, cams, num_features, truth):
    """The frontend over every pair: times, feature counts, track lengths, stereo errors."""
    clock = StepClock()
    fe = KltStereoFrontend(cams, num_features, clock)
    res = {"frame_ms": [], "lk_calls": [], "pyramid_s": [], "steps_s": dict.fromkeys(STEPS, 0.0),
           "left": [], "stereo": [], "right_only": [], "seen": {}}
    births, tracked = ErrorTally(), ErrorTally()
    prev_t = None
    for (t_ns, _, _), (left, right) in zip(pairs, images):
        t0 = time.perf_counter()
        fe.process(left, right)
        frame_s = time.perf_counter() - t0
        res["frame_ms"].append(frame_s * 1e3)
        res["lk_calls"].append(fe.lk_calls)
        # Off the clock: for the estimate of OpenVINS's pyramids built once (pyramids_once).
        res["pyramid_s"].append(pyramid_times(fe.prev))
        for s in STEPS:
            res["steps_s"][s] += clock.frame[s]
        fl, fr = fe.feats
        stereo = np.isin(fl.ids, fr.ids)
        res["left"].append(len(fl.ids))
        res["stereo"].append(int(stereo.sum()))
        res["right_only"].append(int((~np.isin(fr.ids, fl.ids)).sum()))
        for i in fl.ids.tolist():
            res["seen"][i] = res["seen"].get(i, 0) + 1
        if truth is not None:
            # Births were matched on the frame topped off (usually the previous one).
            if fe.births is not None and len(fe.births[0]):
                births.add(truth, prev_t if fe.births_on_previous else t_ns, *fe.births)
            _, li, ri = np.intersect1d(fl.ids, fr.ids, return_indices=True)
            if len(li):
                tracked.add(truth, t_ns, fl.pts[li], fr.pts[ri])
        prev_t = t_ns
    if truth is not None:
        res["stereo_error_births"] = births.summary()
        res["stereo_error_tracked"] = tracked.summary()
    return res


def pyramids_once(res):
    """Each frame's ms minus what its LK calls built inside (each the first image's pyramid with
    derivatives and the second's without) plus OpenVINS's two builds with derivatives, at the
    run's median build times (one frame's own are too noisy on a shared machine)."""
    with_d = statistics.median(p[0] for p in res["pyramid_s"])
    without = statistics.median(p[1] for p in res["pyramid_s"])
    return [ms - 1e3 * (calls * (with_d + without) - 2 * with_d)
            for ms, calls in zip(res["frame_ms"], res["lk_calls"])], with_d, without


def summarize(res, frames, args, load):
    total_s = sum(res["frame_ms"]) / 1e3
    shares = {s: res["steps_s"][s] / total_s for s in STEPS}
    shares["other"] = 1.0 - sum(shares.values())
    lengths = list(res["seen"].values())
    once, with_d, without = pyramids_once(res)
    out = {
        "frames": frames, "threads": args.threads, "features": args.features,
        "load_average": load,
        "frame_ms": {"median": statistics.median(res["frame_ms"]),
                     "mean": statistics.mean(res["frame_ms"]), "min": min(res["frame_ms"])},
        "frame_ms_pyramids_once": {"median": statistics.median(once),
                                   "mean": statistics.mean(once), "min": min(once)},
        "pyramid_ms": {"with_derivatives": 1e3 * with_d, "without": 1e3 * without},
        "lk_calls_per_frame": statistics.mean(res["lk_calls"]),
        "step_shares": shares,
        "left_features": statistics.mean(res["left"]),
        "stereo_features": statistics.mean(res["stereo"]),
        "right_only_features": statistics.mean(res["right_only"]),
        "mean_track_length": statistics.mean(lengths) if lengths else 0.0,
        "tracks": len(lengths),
        "per_frame_ms": res["frame_ms"],
    }
    for key in ("stereo_error_births", "stereo_error_tracked"):
        if key in res:
            out[key] = res[key]
    return out


def error_line(name, e):
    if not e["count"]:
        return "stereo error, %s: none usable (%d on depth edges)" % (name, e["on_depth_edges"])
    return ("stereo error, %s: %d (%d on depth edges left out), median %.3f px, within 0.5 px "
            "%.1f%%, within 1 px %.1f%%, over 3 px %.1f%%"
            % (name, e["count"], e["on_depth_edges"], e["median_px"], 100 * e["within_0.5px"],
               100 * e["within_1px"], 100 * e["over_3px"]))


def print_report(seq, s, chain):
    load = " ".join("%.2f" % x for x in s["load_average"])
    print("%s: %d stereo frames, %d features a camera, cv2.setNumThreads(%d), load average %s"
          % (seq, s["frames"], s["features"], s["threads"], load))
    for name, key in (("as run:             ", "frame_ms"),
                      ("pyramids built once:", "frame_ms_pyramids_once")):
        ms = s[key]
        print("frame ms, %s median %.2f  mean %.2f  min %.2f"
              % (name, ms["median"], ms["mean"], ms["min"]))
    print("  (estimate: %.2f LK calls a frame, each building two pyramids inside; one pyramid "
          "%.3f ms with derivatives, %.3f ms without)" % (s["lk_calls_per_frame"],
          s["pyramid_ms"]["with_derivatives"], s["pyramid_ms"]["without"]))
    print("share of the time: "
          + ", ".join("%s %.1f%%" % (k, 100 * v) for k, v in s["step_shares"].items()))
    left, stereo = s["left_features"], s["stereo_features"]
    print("features a frame after tracking: left %.1f, with a right match %.1f (%.1f%%), "
          "right-only %.1f" % (left, stereo, 100 * stereo / max(left, 1e-9),
                               s["right_only_features"]))
    print("left tracks: %d, mean length %.2f frames" % (s["tracks"], s["mean_track_length"]))
    if chain is not None:
        median = "-" if chain[0] is None else "%.4f" % chain[0]
        print("truth chain on vf_synth's landmarks (first frame): median %s px over %d"
              % (median, chain[1]))
    for key, name in (("stereo_error_births", "new stereo matches"),
                      ("stereo_error_tracked", "stereo features after tracking")):
        if key in s:
            print(error_line(name, s[key]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sequence", metavar="SEQUENCE")
    ap.add_argument("--max-frames", type=int, default=200)
    ap.add_argument("--features", type=int, default=200)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    if not os.path.isdir(args.sequence):
        fail("%s: no such folder" % args.sequence)
    if args.max_frames < 2 or args.features < 1 or args.threads < 1:
        fail("--max-frames must be >= 2, --features and --threads >= 1")
    cv2.setNumThreads(args.threads)
    pairs, cams = stereo_pairs(args.sequence, args.max_frames)
    images = load_images(pairs)
    truth, chain = None, None
    if StereoTruth.present(args.sequence):
        truth = StereoTruth(args.sequence, cams)
        chain = truth.check_chain(pairs[0][0])
    res = run(pairs, images, cams, args.features, truth)
    summary = summarize(res, len(pairs), args, list(os.getloadavg()))
    print_report(args.sequence, summary, chain)
    if args.json:
        summary["sequence"] = os.path.abspath(args.sequence)
        if chain is not None:
            summary["truth_chain_median_px"] = chain[0]
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: BSD-3-Clause
"""The observation sets the estimator is run on, each a list over frames of arrays
(key, u_left, v, u_right) in rectified pixels, u_right NaN where the frame has no right pixel:
ours (vf_replay's CSV, a stereo or a rig replay), perfect observations of our own tracks, and
perfect observations of the sequence's landmarks."""
import numpy as np

# vf_replay --rig's ids carry the rig frontend's unit from bit 56 up; a GTSAM symbol's index has
# 56 bits, so landmark keys carry the unit from bit 40 up instead (a unit's own ids stay far
# below 2^40).
RIG_ID_SHIFT = 56
KEY_UNIT_SHIFT = 40


class Frames:
    """Per frame: its time and its records. keys are int64, pix (N, 3) is uL, v, uR; units the
    rig unit of each record (None: all unit 0, a stereo replay)."""

    def __init__(self, t_ns, keys, pix, units=None):
        self.t_ns, self.keys, self.pix = t_ns, keys, pix
        self.units = units if units is not None else [np.zeros(len(k), np.int64) for k in keys]

    def count(self):
        stereo = sum(int(np.sum(np.isfinite(p[:, 2]))) for p in self.pix)
        return sum(len(k) for k in self.keys), stereo


def world_T_rect(seq, rect, rows):
    """Poses (4x4) of the rectified left camera in the world at ground-truth rows."""
    T_wb = np.tile(np.eye(4), (len(rows), 1, 1))
    T_wb[:, :3, :3] = seq.gt.R[rows]
    T_wb[:, :3, 3] = seq.gt.p[rows]
    return T_wb @ rect.body_T_rect(seq.cam0)


def project(T_wc, rect, X):
    """World points X (N, 3) seen by the rectified pair at pose T_wc: uL, v, uR and depth."""
    P = (X - T_wc[:3, 3]) @ T_wc[:3, :3]
    z = P[:, 2]
    uL = rect.f * P[:, 0] / z + rect.cx
    v = rect.f * P[:, 1] / z + rect.cy
    return np.stack([uL, v, uL - rect.f * rect.baseline / z], 1), z


def ours(csv, left_cams=(0,), right_cams=(1,)):
    """Left records (those of the tracked cameras, left_cams) give uL, v (u_rect, v_rect); the
    same track's record of a right camera (right_cams) in the same frame gives uR. A rig
    replay's ids are unique across its units, so one lookup serves every pair."""
    t_all = np.unique(csv["t_ns"])
    t_idx = np.searchsorted(t_all, csv["t_ns"])
    keys, pix, units = [], [], []
    order = np.argsort(t_idx, kind="stable")
    bounds = np.searchsorted(t_idx[order], np.arange(len(t_all) + 1))
    for i in range(len(t_all)):
        rows = order[bounds[i]:bounds[i + 1]]
        cam = csv["cam"][rows]
        left, right = rows[np.isin(cam, left_cams)], rows[np.isin(cam, right_cams)]
        left = left[np.isfinite(csv["u_rect"][left]) & np.isfinite(csv["v_rect"][left])]
        right_u = dict(zip(csv["id"][right].tolist(), csv["u_rect"][right].tolist()))
        ids = csv["id"][left]
        uR = np.array([right_u.get(k, np.nan) for k in ids.tolist()])
        unit = ids >> RIG_ID_SHIFT
        keys.append(ids & ((1 << RIG_ID_SHIFT) - 1) | unit << KEY_UNIT_SHIFT)
        units.append(unit)
        pix.append(np.stack([csv["u_rect"][left], csv["v_rect"][left], uR], 1))
    return Frames(t_all, keys, pix, units)


def sample_depth(depth, u, v):
    """Depth at raw pixel (u, v), pixel centres at integers: bilinear where the four
    neighbours lie on one surface (within 2%), else the nearest pixel's (a junction of two
    surfaces has no depth between them); 0 where there is none."""
    h, w = depth.shape
    x0, y0 = int(np.floor(u)), int(np.floor(v))
    if x0 < 0 or y0 < 0 or x0 + 1 >= w or y0 + 1 >= h:
        return 0.0
    quad = depth[y0:y0 + 2, x0:x0 + 2]
    if quad.min() > 0 and quad.max() < 1.02 * quad.min():
        a, b = u - x0, v - y0
        return float((1 - b) * ((1 - a) * quad[0, 0] + a * quad[0, 1]) +
                     b * ((1 - a) * quad[1, 0] + a * quad[1, 1]))
    return float(depth[int(round(v)), int(round(u))])


def first_points(seq, csv):
    """For every track: the ground-truth world point under its first left observation (the
    tracked raw pixel, the ground-truth depth map there, the undistorted ray x, y of the CSV,
    the ground-truth pose). Tracks with no depth there are left out."""
    left = np.flatnonzero(csv["cam"] == 0)
    ids, first = np.unique(csv["id"][left], return_index=True)
    first = left[first]
    points = {}
    T_bc = seq.cam0.T_BS
    for t in np.unique(csv["t_ns"][first]):
        rows = first[csv["t_ns"][first] == t]
        depth = seq.depth0(int(t))
        g = seq.gt.index(np.array([t]))[0]
        for r in rows:
            z = sample_depth(depth, csv["u"][r], csv["v"][r])
            if z <= 0:
                continue
            p_c = z * np.array([csv["x"][r], csv["y"][r], 1.0])
            p_b = T_bc[:3, :3] @ p_c + T_bc[:3, 3]
            points[int(csv["id"][r])] = seq.gt.R[g] @ p_b + seq.gt.p[g]
    return points


def perfect_tracks(seq, rect, frames, points):
    """Our frames and records, every pixel replaced by the exact projection of its track's
    first-observation point through the ground-truth pose (right pixel exact where we had
    one)."""
    T = world_T_rect(seq, rect, seq.gt.index(frames.t_ns))
    keys, pix = [], []
    for i in range(len(frames.t_ns)):
        k = frames.keys[i]
        keep = np.array([int(x) in points for x in k.tolist()], dtype=bool)
        k = k[keep]
        X = np.array([points[int(x)] for x in k.tolist()]).reshape(-1, 3)
        p, z = project(T[i], rect, X)
        ok = z > 0
        p[:, 2] = np.where(np.isfinite(frames.pix[i][keep, 2]), p[:, 2], np.nan)
        keys.append(k[ok])
        pix.append(p[ok])
    return Frames(frames.t_ns, keys, pix)


def perfect_landmarks(seq, rect, t_ns):
    """The sequence's landmarks at the frames t_ns, exact: stereo where cam0 and cam1 both see
    one (groundtruth/tracks0.csv, tracks1.csv), left only where cam0 alone does."""
    ids, X = seq.landmarks()
    lm = dict(zip(ids.tolist(), range(len(ids))))
    t0, i0 = seq.visible(0)
    t1, i1 = seq.visible(1)
    T = world_T_rect(seq, rect, seq.gt.index(t_ns))
    keys, pix = [], []
    for i, t in enumerate(t_ns):
        k = i0[t0 == t]
        both = np.isin(k, i1[t1 == t])
        p, z = project(T[i], rect, X[[lm[int(x)] for x in k.tolist()]].reshape(-1, 3))
        p[~both, 2] = np.nan
        ok = z > 0
        keys.append(k[ok])
        pix.append(p[ok])
    return Frames(t_ns, keys, pix)


def left_only(frames):
    """The same records without their right pixels."""
    pix = [p.copy() for p in frames.pix]
    for p in pix:
        p[:, 2] = np.nan
    return Frames(frames.t_ns, frames.keys, pix, frames.units)

# SPDX-License-Identifier: BSD-3-Clause
"""Readers for what the GTSAM example consumes: a vf_synth sequence (EuRoC ASL layout: state
ground truth, IMU, cam0/cam1 sensor.yaml; groundtruth/ depth maps, landmarks and their
per-frame visibility), a rig's camchain.yaml, and vf_replay's features CSV with its
rectification YAML. Formats: docs/synth.md, docs/rig.md and README.md (the CSV)."""
import os
import re
import struct
import zlib

import numpy as np


def _yaml_numbers(text, key):
    """The numbers of `key: [a, b, ...]` or of `key:` followed by a `data: [...]` block (OpenCV
    matrices, as EuRoC's T_BS), possibly over several lines."""
    m = re.search(r"^\s*" + re.escape(key) + r":[ \t]*(\[[^\]]*\]|[^\n#]*)", text, re.M)
    if m is None:
        raise KeyError(key)
    value = m.group(1)
    if not value.strip().startswith("["):
        if value.strip():
            return float(value)
        data = re.search(r"data:\s*\[([^\]]*)\]", text[m.end():])
        if data is None:
            raise KeyError(key + ".data")
        value = data.group(1)
    return np.array([float(x) for x in value.strip("[] \n").replace("\n", " ").split(",")])


def read_yaml_numbers(path, keys):
    with open(path) as f:
        text = f.read()
    return {k: _yaml_numbers(text, k) for k in keys}


class Camera:
    """A raw EuRoC camera: pinhole with radial-tangential distortion, and T_BS (camera to body)."""

    def __init__(self, sensor_yaml):
        v = read_yaml_numbers(sensor_yaml, ["T_BS", "intrinsics", "distortion_coefficients"])
        self.T_BS = v["T_BS"].reshape(4, 4)
        self.fx, self.fy, self.cx, self.cy = v["intrinsics"]
        self.k1, self.k2, self.p1, self.p2 = v["distortion_coefficients"]

    def distort(self, x, y):
        """Normalized undistorted coordinates -> raw pixel."""
        r2 = x * x + y * y
        radial = 1 + self.k1 * r2 + self.k2 * r2 * r2
        xd = x * radial + 2 * self.p1 * x * y + self.p2 * (r2 + 2 * x * x)
        yd = y * radial + self.p1 * (r2 + 2 * y * y) + 2 * self.p2 * x * y
        return self.fx * xd + self.cx, self.fy * yd + self.cy


class Rectification:
    """f, cx, cy, baseline_m, R1, R2 (raw camera k -> rectified camera k), as vf_replay writes
    them beside its CSV."""

    def __init__(self, path):
        v = read_yaml_numbers(path, ["f", "cx", "cy", "baseline_m", "R1", "R2"])
        self.f, self.cx, self.cy, self.baseline = v["f"], v["cx"], v["cy"], v["baseline_m"]
        self.R1 = v["R1"].reshape(3, 3)
        self.R2 = v["R2"].reshape(3, 3)

    def body_T_rect(self, cam0):
        """Pose of the rectified left camera in the body frame: T_BS of cam0, then R1^T."""
        T = np.eye(4)
        T[:3, :3] = cam0.T_BS[:3, :3] @ self.R1.T
        T[:3, 3] = cam0.T_BS[:3, 3]
        return T


class RigCamera:
    """A camera of a camchain file: its name (cam<k>) and T_BS (camera to body, the inverse of
    Kalibr's T_cam_imu), the attribute Rectification.body_T_rect reads."""

    def __init__(self, name, T_BS):
        self.name, self.T_BS = name, T_BS


def _camchain_blocks(text):
    """Top-level keys of a camchain file -> their lines (the key's own value first)."""
    blocks, key = {}, None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace() and ":" in line:
            key, rest = line.split(":", 1)
            blocks[key] = [rest]
        elif key is not None:
            blocks[key].append(line)
    return blocks


def _camchain_matrix(lines, key):
    """A 4x4 written as Kalibr does: `key:` then four `- [a, b, c, d]` rows; None if absent."""
    for i, line in enumerate(lines):
        if line.strip() == key + ":":
            rows = [l.strip().lstrip("-").strip(" []").split(",") for l in lines[i + 1:i + 5]]
            return np.array([[float(x) for x in r] for r in rows])
    return None


class Rig:
    """The cameras and stereo pairs of a Kalibr camchain file (docs/rig.md): cam0, cam1, ...
    with T_cam_imu (or T_cn_cnm1 from the camera before), and our key stereo_pairs. Only the
    layout Kalibr and vf_synth write is read: one key a line, 4x4s as lists of rows. units
    lists the rig frontend's units as vf_replay --rig numbers them: (camera, right camera) per
    stereo pair, then (camera, -1) per camera in no pair."""

    def __init__(self, path):
        with open(path) as f:
            blocks = _camchain_blocks(f.read())
        self.cameras = []
        while f"cam{len(self.cameras)}" in blocks:
            name = f"cam{len(self.cameras)}"
            T_ci = _camchain_matrix(blocks[name], "T_cam_imu")
            if T_ci is None:
                T_prev = _camchain_matrix(blocks[name], "T_cn_cnm1")
                if T_prev is None or not self.cameras:
                    raise ValueError(f"{path}: {name} has neither T_cam_imu nor T_cn_cnm1 from "
                                     "a camera placed before it")
                T_ci = T_prev @ np.linalg.inv(self.cameras[-1].T_BS)
            self.cameras.append(RigCamera(name, np.linalg.inv(T_ci)))
        pairs = re.findall(r"\[\s*(\d+)\s*,\s*(\d+)\s*\]", blocks.get("stereo_pairs", [""])[0])
        self.pairs = [(int(l), int(r)) for l, r in pairs]
        paired = {c for p in self.pairs for c in p}
        self.units = self.pairs + [(k, -1) for k in range(len(self.cameras)) if k not in paired]


def quat_to_matrix(q):
    """Hamilton quaternion (w, x, y, z) -> rotation matrices, q of shape (N, 4)."""
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    w, x, y, z = q.T
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], 1)


class GroundTruth:
    """The exact state at every IMU time: t_ns, p, R (body to world), v, gyro and acc biases."""

    def __init__(self, path):
        d = np.loadtxt(path, delimiter=",", comments="#", dtype=np.float64)
        self.t_ns = np.loadtxt(path, delimiter=",", comments="#", usecols=0, dtype=np.int64)
        self.p, self.R, self.v = d[:, 1:4], quat_to_matrix(d[:, 4:8]), d[:, 8:11]
        self.bg, self.ba = d[:, 11:14], d[:, 14:17]

    def index(self, t_ns):
        """Row of each exact timestamp (vf_synth's frames fall on IMU samples)."""
        i = np.searchsorted(self.t_ns, t_ns)
        if np.any(i >= len(self.t_ns)) or np.any(self.t_ns[np.minimum(i, len(self.t_ns) - 1)] != t_ns):
            raise ValueError("a frame time has no ground-truth row")
        return i


class Imu:
    def __init__(self, folder):
        self.t_ns = np.loadtxt(os.path.join(folder, "data.csv"), delimiter=",", comments="#",
                               usecols=0, dtype=np.int64)
        d = np.loadtxt(os.path.join(folder, "data.csv"), delimiter=",", comments="#")
        self.gyro, self.acc = d[:, 1:4], d[:, 4:7]
        v = read_yaml_numbers(os.path.join(folder, "sensor.yaml"), [
            "gyroscope_noise_density", "gyroscope_random_walk", "accelerometer_noise_density",
            "accelerometer_random_walk"])
        self.gyro_noise = v["gyroscope_noise_density"]
        self.gyro_walk = v["gyroscope_random_walk"]
        self.acc_noise = v["accelerometer_noise_density"]
        self.acc_walk = v["accelerometer_random_walk"]


def read_features_csv(path):
    """vf_replay's CSV as a dict of columns, found by the header's names (so columns added at
    the end do not matter). NaN marks unknown values."""
    with open(path) as f:
        names = f.readline().strip().split(",")
    want = {"t_ns": np.int64, "id": np.int64, "cam": np.int64}
    cols = {}
    for name in ["t_ns", "id", "cam", "u", "v", "x", "y", "u_rect", "v_rect"]:
        if name not in names:
            raise ValueError(f"{path}: no column '{name}' (a vf_replay older than u_rect?)")
        cols[name] = np.loadtxt(path, delimiter=",", skiprows=1, usecols=names.index(name),
                                dtype=want.get(name, np.float64))
    return cols


def read_png16(path):
    """A 16-bit grey PNG (vf_synth's depth and disparity maps) as a uint16 array. vf_synth writes
    them with the None or Sub filter only (examples/vf_synth/synth_png.c); other filters are
    refused rather than decoded wrong."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, width = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 16 or colour != 0 or interlace != 0:
                raise ValueError(f"{path}: not a 16-bit grey, non-interlaced PNG")
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    rows = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8).reshape(height, 1 + 2 * width)
    filters, raw = rows[:, 0], rows[:, 1:].astype(np.int64)
    if np.any(filters > 1):
        raise ValueError(f"{path}: PNG filter {filters.max()} not supported")
    sub = filters == 1
    # Sub: each byte adds the byte 2 before it (one pixel back); a running sum per byte lane.
    for lane in (0, 1):
        raw[sub, lane::2] = np.cumsum(raw[sub, lane::2], axis=1) % 256
    pix = raw.astype(np.uint16)
    return (pix[:, 0::2] << 8) | pix[:, 1::2]


class SynthSequence:
    """A vf_synth sequence folder."""

    def __init__(self, root):
        self.root = root
        mav = os.path.join(root, "mav0")
        self.gt = GroundTruth(os.path.join(mav, "state_groundtruth_estimate0", "data.csv"))
        self.imu = Imu(os.path.join(mav, "imu0"))
        self.cam0 = Camera(os.path.join(mav, "cam0", "sensor.yaml"))
        self.cam1 = Camera(os.path.join(mav, "cam1", "sensor.yaml"))

    def depth0(self, t_ns):
        """z-depth of each raw cam0 pixel in metres (0 = none)."""
        path = os.path.join(self.root, "groundtruth", "depth0", f"{t_ns}.png")
        return read_png16(path).astype(np.float64) / 5000.0

    def landmarks(self):
        d = np.loadtxt(os.path.join(self.root, "groundtruth", "landmarks.csv"), delimiter=",",
                       comments="#")
        return d[:, 0].astype(np.int64), d[:, 1:4]

    def visible(self, camera):
        """(t_ns, landmark id) pairs of groundtruth/tracks<camera>.csv."""
        path = os.path.join(self.root, "groundtruth", f"tracks{camera}.csv")
        d = np.loadtxt(path, delimiter=",", comments="#", usecols=(0, 1), dtype=np.int64)
        return d[:, 0], d[:, 1]

    def tracks(self, camera):
        """Raw pixels of the visible landmarks: t_ns, id, u, v."""
        path = os.path.join(self.root, "groundtruth", f"tracks{camera}.csv")
        t, i = self.visible(camera)
        uv = np.loadtxt(path, delimiter=",", comments="#", usecols=(2, 3))
        return t, i, uv

# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the GTSAM example's own pieces: the rigid alignment behind the ATE, the 16-bit PNG
reader, the estimator's settings, the camchain reader and a small rig (two stereo pairs and a
mono camera looking three ways) through the estimator, and (given a vf_synth sequence) the
geometry the perfect observations are made with, checked against the sequence's own ground
truth.
Usage: test_vf_gtsam.py [SEQUENCE]. Prints what it checked; exits 1 on the first failure."""
import os
import struct
import sys
import tempfile
import types
import zlib

import numpy as np

import align
import estimator
import observations
import sequence


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        sys.exit(1)


def random_rotation(rng):
    q = rng.normal(size=4)
    return sequence.quat_to_matrix(q[None, :])[0]


def test_align():
    rng = np.random.default_rng(3)
    ref = rng.uniform(-5, 5, size=(200, 3))
    R, t = random_rotation(rng), rng.normal(size=3)
    est = (ref - t) @ R  # est = R^T (ref - t): the alignment must find R, t
    Ra, ta = align.align_rigid(est, ref)
    check(np.allclose(Ra, R, atol=1e-12) and np.allclose(ta, t, atol=1e-12),
          "alignment recovers a random rotation and translation exactly")
    check(align.ate_rmse(est, ref) < 1e-12, "ATE of a rigidly moved copy is 0")
    noise = rng.normal(scale=0.01, size=ref.shape)
    ate = align.ate_rmse(est + noise, ref)
    check(0.8 * 0.01 * np.sqrt(3) < ate < 1.05 * 0.01 * np.sqrt(3),
          f"ATE of a copy with 1 cm noise per axis is the noise's RMS ({ate * 100:.2f} cm)")
    mirrored = ref * np.array([1.0, 1.0, -1.0])
    Rm, _ = align.align_rigid(mirrored, ref)
    check(abs(np.linalg.det(Rm) - 1) < 1e-9, "a mirrored copy still aligns by a rotation")


def png16(img, filters):
    """A 16-bit grey PNG with the given filter per row (0 None, 1 Sub, 2 Up)."""
    h, w = img.shape
    be = img.astype(">u2").view(np.uint8).reshape(h, 2 * w).astype(np.int64)
    rows = []
    for y in range(h):
        if filters[y] == 1:
            line = (be[y] - np.concatenate([[0, 0], be[y, :-2]])) % 256
        elif filters[y] == 2:
            line = (be[y] - (be[y - 1] if y > 0 else 0)) % 256
        else:
            line = be[y]
        rows.append(bytes([filters[y]]) + line.astype(np.uint8).tobytes())

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(
            ">I", zlib.crc32(kind + body))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b""))


def test_png():
    rng = np.random.default_rng(5)
    img = rng.integers(0, 65536, size=(9, 13), dtype=np.uint16)
    with tempfile.NamedTemporaryFile(suffix=".png") as f:
        f.write(png16(img, [y % 2 for y in range(9)]))
        f.flush()
        check(np.array_equal(sequence.read_png16(f.name), img),
              "16-bit PNG with None and Sub rows reads back exactly")
    with tempfile.NamedTemporaryFile(suffix=".png") as f:
        f.write(png16(img, [2] * 9))
        f.flush()
        try:
            sequence.read_png16(f.name)
            check(False, "a PNG with the Up filter is refused")
        except ValueError:
            check(True, "a PNG with the Up filter is refused")


def raw_pixel(cam, R, uv, rect):
    """Rectified pixel of rectified camera k (R = Rk) -> raw pixel of camera k."""
    ray = np.stack([(uv[:, 0] - rect.cx) / rect.f, (uv[:, 1] - rect.cy) / rect.f,
                    np.ones(len(uv))], 1) @ R  # R^T ray, row by row
    return np.stack(cam.distort(ray[:, 0] / ray[:, 2], ray[:, 1] / ray[:, 2]), 1)


def test_sequence(root):
    seq = sequence.SynthSequence(root)
    rect = sequence.Rectification(f"{root}/groundtruth/rectification.yaml")
    ids, X = seq.landmarks()
    lm = dict(zip(ids.tolist(), range(len(ids))))
    t_frames = np.unique(seq.visible(0)[0])[:5]
    worst = [0.0, 0.0]
    for cam_index, cam, R in [(0, seq.cam0, rect.R1), (1, seq.cam1, rect.R2)]:
        t, i, uv = seq.tracks(cam_index)
        T = observations.world_T_rect(seq, rect, seq.gt.index(t_frames))
        for f, tf in enumerate(t_frames):
            m = t == tf
            p, _ = observations.project(T[f], rect, X[[lm[k] for k in i[m].tolist()]])
            rect_uv = p[:, [0, 1]] if cam_index == 0 else p[:, [2, 1]]
            err = np.abs(raw_pixel(cam, R, rect_uv, rect) - uv[m]).max()
            worst[cam_index] = max(worst[cam_index], err)
    check(max(worst) < 1e-3, "landmarks projected through the rectified pair (ground-truth pose, "
          f"T_BS, R1/R2, distortion) land on tracks0/tracks1.csv (worst {max(worst):.1e} px)")
    t, i, uv = seq.tracks(0)
    m = t == t_frames[0]
    depth = seq.depth0(int(t_frames[0]))
    z_map = np.array([observations.sample_depth(depth, u, v) for u, v in uv[m]])
    T = observations.world_T_rect(seq, rect, seq.gt.index(t_frames[:1]))[0]
    T_wc = T @ np.linalg.inv(rect.body_T_rect(seq.cam0)) @ seq.cam0.T_BS
    z_true = ((X[[lm[k] for k in i[m].tolist()]] - T_wc[:3, 3]) @ T_wc[:3, :3])[:, 2]
    rel = np.abs(z_map - z_true) / z_true
    check(np.median(rel) < 2e-3 and np.mean(rel < 0.01) > 0.95,
          "ground-truth depth map at landmark pixels gives their depth (median rel. error "
          f"{np.median(rel):.1e}, {np.mean(rel < 0.01) * 100:.0f}% within 1%)")


def test_settings():
    s = estimator.Settings(pixel_sigma=0.5, relinearize_skip=1)
    d = estimator.Settings()
    check(s.pixel_sigma == 0.5 and s.relinearize_skip == 1 and
          s.relinearize_threshold == d.relinearize_threshold and d.pixel_sigma == 1.0,
          "estimator settings take overrides and keep the other defaults")
    try:
        estimator.Settings(pixel_sigmaa=0.5)
        refused = False
    except TypeError:
        refused = True
    check(refused, "an unknown estimator setting is refused")


def rigid(R, t):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, t
    return T


def rows4(T):
    return "".join(f"  - [{', '.join(repr(float(x)) for x in row)}]\n" for row in T)


def test_camchain():
    rng = np.random.default_rng(7)
    T_ci = [rigid(random_rotation(rng), rng.normal(size=3)) for _ in range(3)]
    T_10 = T_ci[1] @ np.linalg.inv(T_ci[0])
    text = ("# a comment\ncam0:\n  T_cam_imu:\n" + rows4(T_ci[0]) + "  intrinsics: [1, 2, 3, 4]\n"
            "cam1:\n  T_cn_cnm1:\n" + rows4(T_10) + "  rostopic: /cam1/image_raw\n"
            "cam2:\n  T_cam_imu:\n" + rows4(T_ci[2]) + "stereo_pairs: [[0, 1]]\n")
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
        f.write(text)
        f.flush()
        rig = sequence.Rig(f.name)
    err = max(np.abs(c.T_BS - np.linalg.inv(T)).max() for c, T in zip(rig.cameras, T_ci))
    check(len(rig.cameras) == 3 and err < 1e-12,
          f"camchain: T_BS = T_cam_imu^-1, cam1 placed through T_cn_cnm1 (worst {err:.0e})")
    check(rig.units == [(0, 1), (2, -1)] and [c.name for c in rig.cameras] == ["cam0", "cam1",
                                                                                "cam2"],
          "camchain: units are the stereo pairs, then the cameras in no pair")


def write_rig_sequence(root, t_ns, p, v):
    """A body moving at constant velocity without turning: ground truth and an exact IMU
    (accelerometer = -g in the body frame) in EuRoC's files."""
    os.makedirs(f"{root}/gt")
    os.makedirs(f"{root}/imu0")
    n = len(t_ns)
    q = np.tile([1.0, 0.0, 0.0, 0.0], (n, 1))
    gt = np.hstack([p, q, np.tile(v, (n, 1)), np.zeros((n, 6))])
    with open(f"{root}/gt/data.csv", "w") as f:
        for t, row in zip(t_ns, gt):
            f.write(f"{t}," + ",".join(repr(float(x)) for x in row) + "\n")
    with open(f"{root}/imu0/data.csv", "w") as f:
        for t in t_ns:
            f.write(f"{t},0,0,0,0,0,9.81\n")
    with open(f"{root}/imu0/sensor.yaml", "w") as f:
        f.write("gyroscope_noise_density: 1.7e-4\ngyroscope_random_walk: 1.9e-5\n"
                "accelerometer_noise_density: 2.0e-3\naccelerometer_random_walk: 3.0e-3\n")
    return types.SimpleNamespace(gt=sequence.GroundTruth(f"{root}/gt/data.csv"),
                                 imu=sequence.Imu(f"{root}/imu0"))


def test_rig_estimator():
    """Front pair (unit 0, cameras 0 and 1) looking along body x, back pair (unit 1, cameras 2
    and 3) along -x with a rectification turned 2 degrees, a mono camera (unit 2, camera 4)
    along y; each sees its own landmarks. Exact pixels must put every landmark on its ground
    truth, which only the right unit's calibration and body-to-camera pose do."""
    axes = {0: [[0, -1, 0], [0, 0, -1], [1, 0, 0]], 2: [[0, 1, 0], [0, 0, -1], [-1, 0, 0]],
            4: [[1, 0, 0], [0, 0, -1], [0, 1, 0]]}  # camera x, y, z in the body, per tracked camera
    centre = {0: [0.1, 0.05, 0.0], 2: [-0.1, -0.05, 0.0], 4: [0.0, 0.1, 0.02]}
    c, s = np.cos(np.radians(2)), np.sin(np.radians(2))
    R1 = {0: np.eye(3), 2: np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]), 4: np.eye(3)}
    units = [(0, 1), (2, 3), (4, -1)]
    f_px, cx, cy, baseline = 450.0, 376.0, 240.0, 0.11
    t_ns = np.arange(0, 101) * 5_000_000
    vel = np.array([1.0, 0.0, 0.0])
    pos = np.outer(t_ns * 1e-9, vel) + [0.0, 0.0, 1.0]
    rng = np.random.default_rng(11)
    # Landmarks 3-5 m out along each camera's axis, 8 per unit.
    world = {u: pos[0] + (np.array(axes[cam][2]) * rng.uniform(3, 5, (8, 1)) +
                          rng.uniform(-1, 1, (8, 3)) * (1 - np.abs(axes[cam][2])))
             for u, (cam, _) in enumerate(units)}
    with tempfile.TemporaryDirectory() as root:
        seq = write_rig_sequence(root, t_ns, pos, vel)
        views, cameras = [], {}
        for u, (cam, right) in enumerate(units):
            cameras[cam] = sequence.RigCamera(f"cam{cam}", rigid(np.array(axes[cam]).T,
                                                                  centre[cam]))
            path = f"{root}/cam{cam}.rectification.yaml"
            with open(path, "w") as f:
                f.write(f"f: {f_px}\ncx: {cx}\ncy: {cy}\nbaseline_m: "
                        f"{baseline if right >= 0 else 0}\nR1: {R1[cam].ravel().tolist()}\n"
                        f"R2: {R1[cam].ravel().tolist()}\n")
            views.append(estimator.View(sequence.Rectification(path), cameras[cam],
                                        stereo=right >= 0))
        csv = {k: [] for k in ["t_ns", "id", "cam", "u_rect", "v_rect"]}
        frames = t_ns[::40]
        for t in frames:
            p_body = pos[t_ns == t][0]
            for u, (cam, right) in enumerate(units):
                T_BS = cameras[cam].T_BS
                # World -> raw camera (body frame = world axes, moved by p_body) -> rectified.
                P = (world[u] - p_body - T_BS[:3, 3]) @ T_BS[:3, :3] @ R1[cam].T
                uL = f_px * P[:, 0] / P[:, 2] + cx
                vv = f_px * P[:, 1] / P[:, 2] + cy
                ids = (np.arange(1, 9) | u << observations.RIG_ID_SHIFT).tolist()
                for c_idx, uu in [(cam, uL), (right, uL - f_px * baseline / P[:, 2])]:
                    if c_idx >= 0:
                        csv["t_ns"] += [t] * 8
                        csv["id"] += ids
                        csv["cam"] += [c_idx] * 8
                        csv["u_rect"] += uu.tolist()
                        csv["v_rect"] += vv.tolist()
        csv = {k: np.array(v) for k, v in csv.items()}
        obs = observations.ours(csv, [0, 2, 4], [1, 3])
        check(obs.count() == (72, 48) and all(set(u.tolist()) == {0, 1, 2} for u in obs.units),
              "rig records: every unit's left records, the pairs' with their right pixel")
        sm = estimator.Smoother(seq, views, True)
        for t, k, u, p in zip(obs.t_ns, obs.keys, obs.units, obs.pix):
            sm.add_frame(int(t), k, u, p)
        est = sm.isam.calculateEstimate()
        for u, name in enumerate(["front pair", "back pair", "mono camera"]):
            keys = np.arange(1, 9) | u << observations.KEY_UNIT_SHIFT
            err = max(np.linalg.norm(est.atPoint3(estimator.L(int(k))) - x)
                      for k, x in zip(keys, world[u]))
            check(err < 1e-6, f"rig: the {name}'s landmarks are where the ground truth puts "
                  f"them (worst {err:.0e} m)")
        err = np.abs(sm.smoothed() - pos[np.isin(t_ns, frames)]).max()
        check(err < 1e-6, f"rig: the body follows the ground truth (worst {err:.0e} m)")


def main():
    test_align()
    test_png()
    test_settings()
    test_camchain()
    test_rig_estimator()
    if len(sys.argv) > 1:
        test_sequence(sys.argv[1])
    print("test_vf_gtsam: all passed")


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: BSD-3-Clause
"""Tests of the GTSAM example's own pieces: the rigid alignment behind the ATE, the 16-bit PNG
reader, the estimator's settings, and (given a vf_synth sequence) the geometry the perfect
observations are made with, checked against the sequence's own ground truth.
Usage: test_vf_gtsam.py [SEQUENCE]. Prints what it checked; exits 1 on the first failure."""
import struct
import sys
import tempfile
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


def main():
    test_align()
    test_png()
    test_settings()
    if len(sys.argv) > 1:
        test_sequence(sys.argv[1])
    print("test_vf_gtsam: all passed")


if __name__ == "__main__":
    main()

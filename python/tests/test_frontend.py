# SPDX-License-Identifier: BSD-3-Clause
"""The frontend with Python callbacks over a rendered rig with known answers (a plane at known
depth, 2 px of motion per frame): feature records, the disparity frame, predict and reject
(also from inside a callback), and exceptions raised by a callback."""
import numpy as np
import pytest

import viofront as vf
from conftest import Rig, frontend_config


def run(rig, fe, frames=None):
    for i in range(rig.frames if frames is None else frames):
        fe.process(rig.t_ns(i), *rig.pair(i))


def test_features_and_disparity_through_callbacks(ctx, rig):
    frames, maps = [], []

    def on_disparity(d):
        assert not d.disparity.flags.writeable
        maps.append((d.sequence, d.disparity.copy(), d.rectified_left.copy(), d.fractional_bits))

    fe = vf.Frontend(ctx, frontend_config(rig), on_features=frames.append, on_disparity=on_disparity)
    run(rig, fe)
    assert [f.sequence for f in frames] == list(range(rig.frames))
    assert [m[0] for m in maps] == list(range(rig.frames))
    first, last = frames[0], frames[-1]
    assert first.features.dtype == vf.FEATURE_DTYPE
    assert first.detected > 20 and first.tracked == 0
    assert last.tracked > 20
    assert first.f == pytest.approx(rig.f) and first.baseline_m == pytest.approx(rig.baseline_m)
    assert set(first.times) >= {"track_ms", "stereo_ms", "total_ms"}
    # every left record: depth of the plane, disparity 8 px
    left = last.features[last.features["camera"] == 0]
    ok = np.isfinite(left["depth_m"])
    assert ok.mean() > 0.8
    assert np.median(left["depth_m"][ok]) == pytest.approx(rig.depth_m, rel=0.03)
    assert np.median(left["disparity"][ok]) == pytest.approx(rig.disparity, abs=0.2)
    # camera-1 records: the same track ids, u shifted by the disparity
    right = last.features[last.features["camera"] == 1]
    assert len(right) > 0 and set(right["id"]) <= set(left["id"])
    # tracks move by -step px per frame
    prev = {r["id"]: r for r in frames[-2].features if r["camera"] == 0}
    du = [r["u"] - prev[r["id"]]["u"] for r in left if r["id"] in prev]
    assert len(du) > 20 and np.median(du) == pytest.approx(-rig.step, abs=0.1)
    # the disparity map: 8 px inside the valid region
    seq, disp, rect, bits = maps[-1]
    assert disp.shape == (rig.height, rig.width) and rect.dtype == np.uint8
    px = vf.disparity_to_pixels(disp, bits)[20:-20, 80:-20]
    assert np.nanmedian(px) == pytest.approx(rig.disparity, abs=0.25)


def test_reject_from_inside_a_callback(ctx, rig):
    seen, rejected = [], set()

    def on_features(frame):
        ids = frame.features["id"][frame.features["camera"] == 0]
        seen.append((frame.sequence, set(ids.tolist())))
        if frame.sequence == 2:
            drop = ids[::2]
            rejected.update(drop.tolist())
            fe.reject(drop)

    fe = vf.Frontend(ctx, frontend_config(rig), on_features=on_features)
    run(rig, fe)
    assert rejected
    for sequence, ids in seen[3:]:
        assert not (ids & rejected), f"frame {sequence} still has rejected tracks"


def test_predict_steers_the_next_frame(ctx):
    # 10 px per frame on a one-level pyramid: out of Lucas-Kanade's reach alone; the backend's
    # prediction (the true motion) brings the tracks through
    rig = Rig(frames=4, step=10)
    cfg = frontend_config(rig)
    cfg.pyramid_levels = 1
    cfg.tracker.levels = 1
    cfg.detector.max_level = 0
    cfg.features.fb_from_prediction = 1

    def tracked(predict):
        frames = []

        def on_features(frame):
            frames.append(frame)
            left = frame.features[frame.features["camera"] == 0]
            if predict:
                fe.predict(left["id"], np.stack([left["u"] - rig.step, left["v"]], 1))

        fe = vf.Frontend(ctx, cfg, on_features=on_features)
        run(rig, fe)
        return sum(f.tracked for f in frames[1:])

    with_prediction, without = tracked(True), tracked(False)
    assert with_prediction > 60 and with_prediction > 3 * without


def test_predict_and_reject_check_their_arguments(ctx, rig):
    fe = vf.Frontend(ctx, frontend_config(rig))
    fe.reject([12345])  # unknown ids are ignored
    fe.predict([1, 2], [[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(vf.InvalidArgumentError, match="same length"):
        fe.predict([1, 2], [[1.0, 2.0]])
    with pytest.raises(vf.InvalidArgumentError):
        fe.predict([1], [1.0, 2.0, 3.0])


def test_a_callback_exception_reaches_process(ctx, rig):
    calls = []

    def on_features(frame):
        calls.append(frame.sequence)
        if frame.sequence == 1:
            raise KeyError("from the callback")

    fe = vf.Frontend(ctx, frontend_config(rig), on_features=on_features)
    fe.process(rig.t_ns(0), *rig.pair(0))
    with pytest.raises(KeyError, match="from the callback"):
        fe.process(rig.t_ns(1), *rig.pair(1))
    fe.process(rig.t_ns(2), *rig.pair(2))  # the frontend goes on
    assert calls == [0, 1, 2]


def test_rectification_of_the_rig(ctx, rig):
    fe = vf.Frontend(ctx, frontend_config(rig))
    r = fe.rectification()
    assert r.f == pytest.approx(rig.f) and r.baseline_m == pytest.approx(rig.baseline_m)
    np.testing.assert_allclose(r.R1, np.eye(3), atol=1e-12)

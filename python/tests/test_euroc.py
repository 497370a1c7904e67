# SPDX-License-Identifier: BSD-3-Clause
"""The EuRoC reader on a short vf_synth sequence, and the whole frontend replaying it."""
import numpy as np
import pytest

import viofront as vf


def test_reader_info_calibration_and_stream(synth_seq):
    warnings = []
    log = vf.Context(backend="cpu", log=lambda level, msg: warnings.append(msg))
    r = vf.EurocReader(str(synth_seq), vf.EurocConfig(prefetch=2), log=log)
    info = r.info
    assert info["stereo_pairs"] == 6 and info["cam_missing"] == (0, 0)
    cam0 = r.camera(0)
    cam0.check()
    assert (cam0.width, cam0.height) == (752, 480) and cam0.distortion is vf.Distortion.RADTAN
    assert r.imu_calib().rate_hz == 200
    events = list(r)
    stereo = [e for e in events if isinstance(e, vf.StereoEvent)]
    imu = [e for e in events if isinstance(e, vf.ImuEvent)]
    assert [e.pair for e in stereo] == list(range(6))
    assert len(imu) == info["imu_replayed"]
    t = [e.t_ns for e in events]
    assert t == sorted(t)
    assert stereo[0].left.shape == (480, 752) and stereo[0].left.dtype == np.uint8
    assert stereo[0].left.flags.writeable  # copies by default
    r.rewind()
    first = r.next()
    assert first.t_ns == events[0].t_ns
    t_ns, left, right = r.load_pair(3)
    assert t_ns == stereo[3].t_ns
    np.testing.assert_array_equal(left, stereo[3].left)
    np.testing.assert_array_equal(right, stereo[3].right)
    n = r.groundtruth_count
    assert n > 0
    gt = r.groundtruth_at(stereo[2].t_ns)
    assert gt.t_ns == stereo[2].t_ns and np.linalg.norm(gt.q) == pytest.approx(1.0)
    with pytest.raises(vf.InvalidArgumentError):
        r.groundtruth(n)
    assert warnings == []


def test_missing_images_are_warned_about(synth_seq, tmp_path):
    import shutil

    seq = tmp_path / "seq"
    shutil.copytree(synth_seq, seq)
    victim = sorted((seq / "mav0" / "cam1" / "data").iterdir())[2]
    victim.unlink()
    warnings = []
    log = vf.Context(backend="cpu", log=lambda level, msg: warnings.append(msg))
    r = vf.EurocReader(str(seq), log=log)
    assert r.info["stereo_pairs"] == 5 and r.info["cam_missing"] == (0, 1)
    assert any(victim.name in w for w in warnings)


def test_frontend_replays_the_sequence(synth_seq, ctx):
    r = vf.EurocReader(str(synth_seq))
    cfg = vf.FrontendConfig()
    cfg.cam0, cfg.cam1 = r.camera(0), r.camera(1)
    frames, maps = [], []
    fe = vf.Frontend(ctx, cfg, on_features=frames.append,
                     on_disparity=lambda d: maps.append(np.isfinite(vf.disparity_to_pixels(d.disparity)).mean()))
    assert vf.replay(fe, r) == 6
    assert len(frames) == 6 and len(maps) == 6
    assert frames[-1].tracked > 50
    assert min(maps) > 0.5
    ids = frames[-1].features["id"]
    assert len(set(ids[frames[-1].features["camera"] == 0].tolist())) == int((frames[-1].features["camera"] == 0).sum())

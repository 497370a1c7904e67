# SPDX-License-Identifier: BSD-3-Clause
"""Camera rigs and the rig frontend: Kalibr camchain files written here (2 and 4 cameras, and
faulty ones whose errors name the file and the line), rigs built in code, and a RigFrontend over
two rendered stereo pairs (conftest's fronto-parallel plane, one texture per pair) whose every
pair gives what a lone Frontend gives on the same images; a pair and a mono camera, a camera
without an image, and image sets the rig frontend refuses."""
import numpy as np
import pytest

import viofront as vf
from conftest import Rig as Scene
from conftest import frontend_config

PINHOLE = """  camera_model: pinhole
  intrinsics: [300.0, 300.0, 159.5, 119.5]
  distortion_model: {model}
  distortion_coeffs: {coeffs}
  resolution: [320, 240]
  rostopic: /cam{i}/image_raw
"""


def block(key, T):
    rows = "".join(f"  - [{', '.join(repr(float(x)) for x in row)}]\n" for row in T)
    return f"  {key}:\n{rows}"


def translation(x, y=0.0, z=0.0):
    T = np.eye(4)
    T[:3, 3] = x, y, z
    return T


def camera_text(i, T_BS, model="none", coeffs="[]", chain=None):
    """Camera i as Kalibr writes it: T_cam_imu (the inverse of T_BS), or T_cn_cnm1 (`chain`)."""
    head = f"cam{i}:\n"
    pose = block("T_cn_cnm1", chain) if chain is not None else block("T_cam_imu", np.linalg.inv(T_BS))
    return head + pose + PINHOLE.format(model=model, coeffs=coeffs, i=i)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_camchain_with_two_cameras(tmp_path):
    # cam1 placed through T_cn_cnm1 (cam0's frame to cam1's: 0.1 m to the left of cam1)
    text = (camera_text(0, translation(0.0), "radtan", "[-0.28, 0.07, 0.0002, 1.8e-05]")
            + "  timeshift_cam_imu: 0.004\n"
            + camera_text(1, None, "equidistant", "[0.01, -0.002, 0.0, 0.0]", chain=translation(-0.1))
            + "  cam_overlaps: [0]\n")
    rig = vf.Rig.load_camchain(write(tmp_path, "camchain.yaml", text))
    assert len(rig) == 2 and rig.names == ["cam0", "cam1"]
    assert rig.pairs == [] and rig.imu_extrinsics
    cam0, cam1 = rig.cameras
    assert cam0.distortion == vf.Distortion.RADTAN and cam1.distortion == vf.Distortion.EQUIDISTANT
    assert cam0.fx == 300.0 and cam1.width == 320 and cam1.height == 240
    np.testing.assert_allclose(cam1.T_BS, translation(0.1), atol=1e-12)
    assert rig.timeshift_s == [0.004, 0.0]
    assert rig.overlaps == [[], [0]]
    rig.check()


def four_camera_text():
    cams = [translation(0.0), translation(0.1), translation(0.0, 0.3), translation(0.1, 0.3)]
    return "".join(camera_text(i, T) for i, T in enumerate(cams)) + "stereo_pairs: [[0, 1], [2, 3]]\n"


def test_camchain_with_four_cameras_and_two_pairs(tmp_path):
    rig = vf.Rig.load_camchain(write(tmp_path, "camchain.yaml", four_camera_text()))
    assert rig.names == ["cam0", "cam1", "cam2", "cam3"]
    assert rig.pairs == [(0, 1), (2, 3)]
    np.testing.assert_allclose(rig.cameras[3].T_BS, translation(0.1, 0.3), atol=1e-12)
    same = vf.Rig.parse_camchain(four_camera_text(), "text.yaml")
    assert repr(same) == repr(rig) == "Rig(names=['cam0', 'cam1', 'cam2', 'cam3'], pairs=[(0, 1), (2, 3)])"


def test_camchain_errors_name_the_file_and_the_line(tmp_path):
    text = four_camera_text().replace("intrinsics: [300.0, 300.0, 159.5, 119.5]\n  distortion_model: none\n"
                                      "  distortion_coeffs: []\n  resolution: [320, 240]\n"
                                      "  rostopic: /cam1",
                                      "intrinsics: [300.0, 300.0, 159.5]\n  distortion_model: none\n"
                                      "  distortion_coeffs: []\n  resolution: [320, 240]\n"
                                      "  rostopic: /cam1", 1)
    line = text.splitlines().index("  intrinsics: [300.0, 300.0, 159.5]") + 1
    with pytest.raises(vf.FormatError) as e:
        vf.Rig.load_camchain(write(tmp_path, "bad.yaml", text))
    assert f"bad.yaml:{line}: cam1.intrinsics" in e.value.message
    assert e.value.status == vf.Status.FORMAT
    omni = four_camera_text().replace("camera_model: pinhole", "camera_model: omni", 1)
    with pytest.raises(vf.UnsupportedError, match=r"omni.yaml:\d+: cam0.camera_model"):
        vf.Rig.load_camchain(write(tmp_path, "omni.yaml", omni))
    pairs = four_camera_text().replace("[[0, 1], [2, 3]]", "[[0, 1], [1, 2]]")
    with pytest.raises(vf.FormatError, match=r"pairs.yaml:\d+: stereo_pairs\[1\]"):
        vf.Rig.load_camchain(write(tmp_path, "pairs.yaml", pairs))
    with pytest.raises(vf.IOError):
        vf.Rig.load_camchain(str(tmp_path / "missing.yaml"))


def test_rig_of_a_euroc_sequence(synth_seq):
    reader = vf.EurocReader(str(synth_seq))
    rig = vf.Rig.from_euroc(reader)
    assert len(rig) == 2 and rig.pairs == [(0, 1)] and rig.imu_extrinsics
    np.testing.assert_array_equal(rig.cameras[1].T_BS, reader.camera(1).T_BS)


def test_unknown_keys_are_warned_about_through_the_log(tmp_path):
    messages = []
    log = vf.Context(backend="cpu", log=lambda level, m: messages.append(m))
    text = four_camera_text() + "favourite_colour: blue\n"
    vf.Rig.load_camchain(write(tmp_path, "extra.yaml", text), log=log)
    assert any("extra.yaml" in m and "favourite_colour" in m for m in messages)


def scene_rig(pairs=2, mono=0):
    """`pairs` pairs like conftest's scene, 0.3 m apart, then `mono` cameras in no pair."""
    rig = vf.Rig()
    cam0, cam1 = Scene().cameras()
    for p in range(pairs):
        for cam, x in ((cam0, 0.0), (cam1, Scene.baseline_m)):
            c = vf.Camera(cam.to_dict())
            c.T_BS = translation(x, 0.3 * p)
            rig.add_camera(c)
        rig.add_pair(2 * p, 2 * p + 1)
    for k in range(mono):
        c = vf.Camera(cam0.to_dict())
        c.T_BS = translation(0.0, -0.3 * (k + 1))
        assert rig.add_camera(c, f"mono{k}") == 2 * pairs + k
    return rig


def test_rig_in_code():
    rig = scene_rig(pairs=1, mono=1)
    assert rig.names == ["cam0", "cam1", "mono0"] and rig.pairs == [(0, 1)]
    assert not rig.imu_extrinsics
    rig.check()
    with pytest.raises(vf.InvalidArgumentError, match="mono0"):
        rig.add_camera(vf.Camera(), "mono0")
    with pytest.raises(vf.InvalidArgumentError, match="vf_rig_add_pair"):
        rig.add_pair(1, 2)  # camera 1 is in pair 0
    with pytest.raises(vf.InvalidArgumentError):
        rig.add_camera(vf.Camera(width=0))
    with pytest.raises(vf.InvalidArgumentError):
        vf.Rig().check()  # no cameras
    copy = rig.cameras[0]
    copy.fx = 1.0  # a copy: the rig keeps its own
    assert rig.cameras[0].fx == Scene.f


class Recorder:
    def __init__(self):
        self.features, self.maps = [], []

    def on_features(self, unit, frame):
        self.features.append((unit, frame))

    def on_disparity(self, pair, frame):
        self.maps.append((pair, frame.sequence, frame.disparity.copy()))


FRAMES = 4
SCENES = [Scene(frames=FRAMES, seed=3), Scene(frames=FRAMES, seed=7)]


def image_set(k, pairs=2, mono=0):
    images = [img for s in SCENES[:pairs] for img in s.pair(k)]
    return images + [SCENES[0].pair(k)[0]] * mono


def test_two_pairs_give_what_lone_frontends_give(ctx):
    rig = scene_rig()
    cfg = frontend_config(SCENES[0])
    got = Recorder()
    fe = vf.RigFrontend(ctx, rig, cfg, on_features=got.on_features, on_disparity=got.on_disparity)
    assert fe.units == [(0, 1, 0), (2, 3, 1)]
    assert fe.rig.names == rig.names
    alone = []
    for p in range(2):
        c = vf.FrontendConfig(cfg.to_dict())
        c.cam0, c.cam1 = rig.cameras[2 * p], rig.cameras[2 * p + 1]
        rec = Recorder()
        alone.append(rec)
        lone = vf.Frontend(ctx, c, on_features=lambda f, rec=rec: rec.on_features(None, f),
                           on_disparity=lambda d, rec=rec: rec.on_disparity(None, d))
        for k in range(FRAMES):
            lone.process(SCENES[0].t_ns(k), *SCENES[p].pair(k))
    for k in range(FRAMES):
        fe.process(SCENES[0].t_ns(k), image_set(k))
    # callbacks in unit order, every unit every frame
    assert [u for u, _ in got.features] == [0, 1] * FRAMES
    assert [(p, s) for p, s, _ in got.maps] == [(p, k) for k in range(FRAMES) for p in range(2)]
    mask = np.uint64((1 << vf.RIG_FRONTEND_ID_SHIFT) - 1)
    for p in range(2):
        mine = [f for u, f in got.features if u == p]
        lone = [f for _, f in alone[p].features]
        for a, b in zip(mine, lone):
            r, l = a.features, b.features
            assert len(r) == len(l) > 20 and a.tracked == b.tracked
            assert set(r["camera"]) == {2 * p, 2 * p + 1}  # right records of the pair's right camera
            np.testing.assert_array_equal(r["camera"], np.where(l["camera"] == 0, 2 * p, 2 * p + 1))
            assert (vf.rig_frontend_id_unit(r["id"]) == p).all()
            np.testing.assert_array_equal(r["id"] & mask, l["id"])
            for field in ("u", "v", "u_rect", "v_rect", "disparity", "depth_m", "age", "flags"):
                np.testing.assert_array_equal(r[field], l[field])
        for (_, _, a), (_, _, b) in zip([m for m in got.maps if m[0] == p], alone[p].maps):
            np.testing.assert_array_equal(a, b)
    # the tracked cameras' ids of the last frame are unique across the rig
    last = [f.features for _, f in got.features[-2:]]
    ids = np.concatenate([f["id"][f["camera"] % 2 == 0] for f in last])
    assert len(ids) > 40 and len(np.unique(ids)) == len(ids)
    assert vf.rig_frontend_id_unit(int(ids[-1])) == 1


def test_a_mono_camera_and_a_camera_without_an_image():
    warnings = []
    ctx = vf.Context(backend="cpu", log=lambda level, m: warnings.append(m))
    rig = scene_rig(pairs=1, mono=1)
    got = Recorder()
    fe = vf.RigFrontend(ctx, rig, frontend_config(SCENES[0]), on_features=got.on_features)
    assert fe.units == [(0, 1, 0), (2, -1, -1)]
    for k in range(FRAMES):
        images = image_set(k, pairs=1, mono=1)
        if k == 1:
            images[2] = None  # the mono camera has no image: its unit is skipped
        fe.process(SCENES[0].t_ns(k), images)
    assert [u for u, _ in got.features] == [0, 1, 0, 0, 1, 0, 1]
    assert any("camera 2 (mono0) has no image" in m for m in warnings)
    mono = [f for u, f in got.features if u == 1]
    assert all(set(f.features["camera"]) == {2} for f in mono)  # no camera-1 records
    assert all(f.baseline_m == 0 and np.isnan(f.features["depth_m"]).all() for f in mono)
    assert mono[1].tracked > 20  # its tracks went on over the missing frame
    pair = [f for u, f in got.features if u == 0]
    assert all(set(f.features["camera"]) == {0, 1} for f in pair)


def test_back_channel_reaches_each_tracks_unit(ctx):
    rig = scene_rig()
    got = Recorder()
    fe = vf.RigFrontend(ctx, rig, frontend_config(SCENES[0]), on_features=got.on_features)
    for k in range(2):
        fe.process(SCENES[0].t_ns(k), image_set(k))
    left = [f.features[f.features["camera"] == 2 * u] for u, f in got.features[-2:]]
    ended = np.array([left[0]["id"][0], left[1]["id"][0]], dtype=np.uint64)
    moved = np.array([left[0]["id"][1], left[1]["id"][1]], dtype=np.uint64)
    uv = np.array([[left[0]["u"][1] + 3, left[0]["v"][1]], [left[1]["u"][1], left[1]["v"][1] - 2]],
                  dtype=np.float32)
    fe.reject(ended)
    fe.predict(moved, uv)
    bad = np.array([moved[0], (7 << vf.RIG_FRONTEND_ID_SHIFT) | 1], dtype=np.uint64)
    with pytest.raises(vf.InvalidArgumentError, match="names unit 7"):
        fe.reject(bad)
    with pytest.raises(vf.InvalidArgumentError, match="same length"):
        fe.predict(moved, uv[:1])
    fe.process(SCENES[0].t_ns(2), image_set(2))
    ids = np.concatenate([f.features["id"] for _, f in got.features[-2:]])
    assert not np.isin(ended, ids).any()  # ended in both units
    assert np.isin(moved, ids).all()  # the refused list ended nothing


def test_refused_image_sets(ctx):
    rig = scene_rig()
    got = Recorder()
    fe = vf.RigFrontend(ctx, rig, frontend_config(SCENES[0]), on_features=got.on_features)
    fe.process(SCENES[0].t_ns(0), image_set(0))
    with pytest.raises(vf.InvalidArgumentError, match=r"one entry per camera of the rig \(4\), got 3"):
        fe.process(SCENES[0].t_ns(1), image_set(1)[:3])
    small = image_set(1)
    small[3] = small[3][:100]
    with pytest.raises(vf.InvalidArgumentError, match=r"camera 3 \(cam3\).*320x240, got 320x100"):
        fe.process(SCENES[0].t_ns(1), small)
    wrong = image_set(1)
    wrong[1] = wrong[1].astype(np.uint16)
    with pytest.raises(vf.InvalidArgumentError, match=r"images\[1\]"):
        fe.process(SCENES[0].t_ns(1), wrong)
    with pytest.raises(vf.TimestampError):
        fe.process(SCENES[0].t_ns(0), image_set(1))
    with pytest.raises(vf.InvalidArgumentError, match="no unit has its images"):
        fe.process(SCENES[0].t_ns(1), [None] * 4)
    assert len(got.features) == 2  # nothing ran for a refused set
    fe.process(SCENES[0].t_ns(1), np.stack(image_set(1)))  # a (cameras, height, width) array
    assert [f.sequence for _, f in got.features] == [0, 0, 1, 1]
    assert got.features[-1][1].tracked > 20


def test_imu_and_callback_exceptions(ctx):
    rig = scene_rig()
    calls = []

    def on_features(unit, frame):
        calls.append((unit, frame.sequence))
        if frame.sequence == 1 and unit == 0:
            raise KeyError("from the callback")

    fe = vf.RigFrontend(ctx, rig, frontend_config(SCENES[0]), on_features=on_features)
    fe.push_imu(SCENES[0].t_ns(0) - 1000, [0, 0, 0], [0, 0, 9.81])
    with pytest.raises(vf.TimestampError):
        fe.push_imu(SCENES[0].t_ns(0) - 1000, [0, 0, 0], [0, 0, 9.81])
    with pytest.raises(vf.InvalidArgumentError):
        fe.push_imu(SCENES[0].t_ns(0), [0, 0], [0, 0, 9.81])
    fe.process(SCENES[0].t_ns(0), image_set(0))
    with pytest.raises(KeyError, match="from the callback"):
        fe.process(SCENES[0].t_ns(1), image_set(1))
    fe.process(SCENES[0].t_ns(2), image_set(2))  # the rig frontend goes on
    assert calls == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]


def test_rig_frontend_refuses_a_bad_rig(ctx):
    with pytest.raises(vf.InvalidArgumentError, match="vf_rig_frontend_create"):
        vf.RigFrontend(ctx, vf.Rig(), vf.FrontendConfig())


def test_camera_time_shifts(ctx, tmp_path):
    # each unit reads the IMU on its camera's clock (t_imu = t_cam + timeshift_cam_imu): the
    # lead past a set's time is the largest shift; a pair must share one clock (1 ms)
    shifts = {0: 0.0025, 1: 0.0027, 2: -0.004, 3: -0.004}
    text = "".join(camera_text(i, T) + f"  timeshift_cam_imu: {shifts[i]}\n"
                   for i, T in enumerate([translation(0.0), translation(0.1),
                                          translation(0.0, 0.3), translation(0.1, 0.3)]))
    rig = vf.Rig.parse_camchain(text + "stereo_pairs: [[0, 1], [2, 3]]\n", "shifted.yaml")
    assert rig.timeshift_s == [0.0025, 0.0027, -0.004, -0.004]
    fe = vf.RigFrontend(ctx, rig, vf.FrontendConfig())
    assert fe.imu_lead_ns == 2500000
    skewed = vf.Rig.parse_camchain(text.replace("0.0027", "0.0045") + "stereo_pairs: [[0, 1]]\n",
                                   "skewed.yaml")
    with pytest.raises(vf.InvalidArgumentError, match=r"pair 0 \(cam0, cam1\).*differ by 2 ms"):
        vf.RigFrontend(ctx, skewed, vf.FrontendConfig())
    fc = frontend_config(Scene())
    assert vf.FrontendConfig().imu_timeshift_s == 0.0
    for shift, lead in ((0.0031, 3100000), (-0.002, 0), (0.0, 0)):
        fc.imu_timeshift_s = shift
        assert vf.Frontend(ctx, fc).imu_lead_ns == lead
    for bad in (float("nan"), 1.5):
        fc.imu_timeshift_s = bad
        with pytest.raises(vf.InvalidArgumentError, match="imu_timeshift_s"):
            vf.Frontend(ctx, fc)

# SPDX-License-Identifier: BSD-3-Clause
"""Each stage alone on small synthetic images with known answers (CPU backend)."""
import numpy as np
import pytest

import viofront as vf
from conftest import texture


def box_down(img):
    h, w = img.shape[0] // 2, img.shape[1] // 2
    a = img[:2 * h:2, :2 * w:2].astype(np.int32) + img[1:2 * h:2, :2 * w:2] + img[:2 * h:2, 1:2 * w:2] + img[1:2 * h:2, 1:2 * w:2]
    return ((a + 2) >> 2).astype(np.uint8)


def test_pyramid_levels_match_the_box_filter(ctx):
    img = texture(61, 90)
    p = vf.Pyramid(ctx, vf.PyramidConfig(width=90, height=61, levels=4))
    p.build(img)
    assert len(p) == 4
    ref = img
    np.testing.assert_array_equal(p.level(0), img)
    for k in range(1, 4):
        ref = box_down(ref)
        np.testing.assert_array_equal(p.level(k), ref)


def square_image():
    img = np.full((96, 128), 40, np.uint8)
    img[30:60, 40:80] = 200
    return img


def test_detector_finds_the_corners_of_a_square(ctx):
    cfg = vf.DetectorConfig(width=128, height=96, min_level=0, max_level=0)
    det = vf.Detector(ctx, cfg)
    pyr = vf.Pyramid(ctx, vf.PyramidConfig(width=128, height=96, levels=2))
    pyr.build(square_image())
    kp = det.detect(pyr)
    assert kp.dtype == vf.KEYPOINT_DTYPE and len(kp) >= 4
    corners = np.array([[40, 30], [79, 30], [40, 59], [79, 59]], np.float32)
    found = np.stack([kp["x"], kp["y"]], 1)
    for c in corners:
        assert np.min(np.linalg.norm(found - c, axis=1)) <= 2.0
    assert np.all(kp["score"] > 0) and np.all(kp["level"] == 0)
    grid = det.grid
    assert (grid.cols, grid.rows) == (4, 3)
    cells = det.cells()
    assert len(cells) == 12 and set(kp["cell"]) <= set(np.flatnonzero(cells["level"] >= 0))
    np.testing.assert_array_equal(det.keypoints(), kp)
    # occupied cells are skipped
    occ = np.zeros((grid.rows, grid.cols), np.uint8)
    occ.flat[kp["cell"]] = 1
    assert len(det.detect(pyr, occ)) == 0
    with pytest.raises(vf.InvalidArgumentError, match="occupancy"):
        det.detect(pyr, np.zeros(5, np.uint8))


def shifted(tex, dx, dy, gain=1.0, bias=0.0):
    """tex sampled at (x + dx, y + dy) bilinearly: content moves by (-dx, -dy)."""
    h, w = tex.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    x, y = np.clip(xs + dx, 0, w - 1.001), np.clip(ys + dy, 0, h - 1.001)
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = x - x0, y - y0
    t = tex.astype(np.float64)
    v = (t[y0, x0] * (1 - fx) * (1 - fy) + t[y0, x0 + 1] * fx * (1 - fy)
         + t[y0 + 1, x0] * (1 - fx) * fy + t[y0 + 1, x0 + 1] * fx * fy)
    return np.clip(gain * v + bias, 0, 255).round().astype(np.uint8)


@pytest.fixture
def tracked_pair(ctx):
    tex = texture(160, 200, seed=5)
    move = np.array([1.6, -0.9])  # content moves by this many pixels
    cfg = vf.PyramidConfig(width=200, height=160, levels=3)
    prev, cur = vf.Pyramid(ctx, cfg), vf.Pyramid(ctx, cfg)
    prev.build(tex)
    cur.build(shifted(tex, -move[0], -move[1], gain=1.1, bias=5))
    xs, ys = np.meshgrid(np.arange(40, 161, 20), np.arange(40, 121, 20))
    xy = np.stack([xs.ravel(), ys.ravel()], 1).astype(np.float32)
    return prev, cur, xy, move


def test_tracker_recovers_a_shift_and_gain(ctx, tracked_pair):
    prev, cur, xy, move = tracked_pair
    tracker = vf.Tracker(ctx, vf.TrackerConfig(levels=3, max_features=128))
    res = tracker.track(prev, cur, vf.track_requests(xy))
    assert res.dtype == vf.TRACK_RESULT_DTYPE and len(res) == len(xy)
    ok = res["status"] == vf.TrackStatus.CONVERGED.value
    assert ok.mean() >= 0.9
    err = np.hypot(res["x"][ok] - xy[ok, 0] - move[0], res["y"][ok] - xy[ok, 1] - move[1])
    assert np.median(err) < 0.1
    assert np.median(res["gain"][ok]) == pytest.approx(1.1, abs=0.03)
    assert np.all(res["flags"][ok] & vf.TRACK_REFINED == 0)
    # submit/collect gives the same
    tracker.submit(prev, cur, vf.track_requests(xy))
    np.testing.assert_array_equal(tracker.collect(), res)


def test_tracker_checked_matches_two_calls(ctx, tracked_pair):
    prev, cur, xy, move = tracked_pair
    tracker = vf.Tracker(ctx, vf.TrackerConfig(levels=3, max_features=128))
    req = vf.track_requests(xy)
    res, back = tracker.track_checked(prev, cur, req)
    np.testing.assert_array_equal(res, tracker.track(prev, cur, req))
    ok = res["status"] == vf.TrackStatus.CONVERGED.value
    assert ok.mean() >= 0.9
    # the backward pass by hand: from each converged result back to prev, template from cur
    back_req = vf.track_requests(np.stack([res["x"][ok], res["y"][ok]], 1), new_template=0)
    np.testing.assert_array_equal(back[ok], tracker.track(cur, prev, back_req))
    assert np.all(back["status"][~ok] == vf.TrackStatus.INVALID.value)
    # it comes back to where it started
    assert np.median(np.hypot(back["x"][ok] - xy[ok, 0], back["y"][ok] - xy[ok, 1])) < 0.05


def test_tracker_refinement_fields(ctx, tracked_pair):
    prev, cur, xy, move = tracked_pair
    cfg = vf.TrackerConfig(levels=3, max_features=128, refine=1, refine_patch=15,
                           template_mode=vf.TemplateMode.FIRST_OBSERVATION)
    tracker = vf.Tracker(ctx, cfg)
    req = vf.track_requests(xy, slot=np.arange(len(xy)), new_template=1)
    res = tracker.track(prev, cur, req)
    ok = res["status"] == vf.TrackStatus.CONVERGED.value
    assert ok.mean() >= 0.9
    assert np.all(res["flags"][ok] & vf.TRACK_REFINED)
    assert np.median(res["ncc"][ok]) > 0.95
    np.testing.assert_allclose(np.median(res["shape"][ok], axis=0), [1, 0, 0, 1], atol=0.02)
    err = np.hypot(res["x"][ok] - xy[ok, 0] - move[0], res["y"][ok] - xy[ok, 1] - move[1])
    assert np.median(err) < 0.1
    # the frame-to-frame result before refinement agrees within refine_max_shift
    step = np.hypot(res["frame_x"][ok] - res["x"][ok], res["frame_y"][ok] - res["y"][ok])
    assert np.all(step <= cfg.refine_max_shift + 1e-4)


def test_tracker_rotation_prediction():
    K = [300.0, 300.0, 160.0, 120.0]
    xy = np.array([[160.0, 120.0], [200.0, 100.0]], np.float32)
    np.testing.assert_allclose(vf.Tracker.predict_rotation(K, np.eye(3), xy), xy, atol=1e-4)
    a = 0.01  # yaw about the camera's y axis moves points along x by about f * a
    R = np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])
    out = vf.Tracker.predict_rotation(K, R, xy)
    assert abs(abs(out[0, 0] - 160.0) - 300 * np.tan(a)) < 0.01 and out[0, 1] == pytest.approx(120.0)


def test_imu_buffer_and_gyro_prediction():
    imu = vf.ImuBuffer(capacity=100, max_gap_ns=20_000_000)
    for i in range(21):
        imu.push(i * 5_000_000, [0.0, 0.0, 0.2], [0.0, 0.0, 9.81])
    assert len(imu) == 21
    R = imu.rotation(0, 100_000_000)  # 0.02 rad about z
    assert R[0, 1] == pytest.approx(-np.sin(0.02), abs=1e-6)
    K = [300.0, 300.0, 160.0, 120.0]
    xy = np.array([[160.0, 120.0]], np.float32)
    out = vf.Tracker.predict_gyro(imu, 0, 100_000_000, np.eye(3), K, xy)
    np.testing.assert_allclose(out, xy, atol=1e-3)  # a roll about the optical axis keeps the centre
    with pytest.raises(vf.StateError):
        imu.rotation(0, 200_000_000)
    with pytest.raises(vf.TimestampError):
        imu.push(0, [0, 0, 0], [0, 0, 0])


def test_remap_undistort_of_a_pinhole_is_the_identity(ctx):
    cam = vf.Camera(width=96, height=64, fx=80, fy=80, cx=47.5, cy=31.5)
    rm = vf.Remap(ctx, vf.RemapConfig.undistort(cam))
    img = texture(64, 96)
    out = rm.apply(img)
    np.testing.assert_array_equal(out, img)
    assert rm.lookup(10, 20) == (10 * 256, 20 * 256)
    assert rm.out_shape == (64, 96)


def test_stereo_rectification_of_the_euroc_rig(ctx):
    cam0, cam1, imu = vf.euroc_vi_sensor()
    rect = vf.stereo_rectify(cam0, cam1)
    assert rect.baseline_m == pytest.approx(0.110, abs=0.002)
    assert rect.P2[0, 3] == pytest.approx(-rect.f * rect.baseline_m)
    np.testing.assert_allclose(rect.R1 @ rect.R1.T, np.eye(3), atol=1e-9)
    R, T = cam0.relative_pose(cam1)
    rect2 = vf.stereo_rectify_pose(cam0, cam1, R, T)
    np.testing.assert_allclose(rect2.P1, rect.P1)
    uv = vf.rectify_point(cam0, rect.R1, rect.P1, [376.0, 240.0])
    assert uv.shape == (2,) and np.all(np.isfinite(uv))
    rm = vf.Remap(ctx, vf.RemapConfig.rectify(cam0, rect, 0))
    out = rm.apply(texture(480, 752))
    assert out.shape == (rect.height, rect.width) and out.dtype == np.uint8
    # a pixel of the rectified image maps back to where the point rectifies
    sx, sy = rm.lookup(int(round(uv[0])), int(round(uv[1])))
    assert abs(sx / 256 - 376.0) < 1.0 and abs(sy / 256 - 240.0) < 1.0
    assert imu.rate_hz == 200


def test_camera_point_functions():
    cam = vf.Camera(width=752, height=480, fx=458.0, fy=457.0, cx=367.0, cy=248.0,
                    distortion=vf.Distortion.RADTAN)
    cam.k = [-0.28, 0.07, 0.0002, 0.00002, 0.0]
    cam.check()
    xy = np.array([0.1, -0.2])
    np.testing.assert_allclose(cam.undistort(cam.distort(xy)), xy, atol=1e-9)
    uv = cam.project([0.3, -0.1, 2.0])
    ray = cam.unproject(uv)
    np.testing.assert_allclose(ray, [0.15, -0.05, 1.0], atol=1e-9)
    with pytest.raises(vf.InvalidArgumentError):
        cam.project([0.0, 0.0, -1.0])
    bad = vf.Camera(fx=-1.0)
    with pytest.raises(vf.InvalidArgumentError, match="focal"):
        bad.check()

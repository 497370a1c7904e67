# SPDX-License-Identifier: BSD-3-Clause
"""The CUDA backend with device arrays: CuPy and PyTorch arrays through DLPack and
__cuda_array_interface__, results on the device without a host copy, and agreement with the CPU
backend. Skips without a CUDA build and device, and per framework when CuPy/PyTorch is absent."""
import numpy as np
import pytest

import viofront as vf
from conftest import frontend_config, texture

pytestmark = pytest.mark.skipif(
    not vf.built_with_cuda() or vf.cuda_device_count() == 0, reason="no CUDA build or device"
)

W, H, D = 320, 240, 8


@pytest.fixture(scope="module")
def gctx():
    return vf.Context(backend="cuda", log=None)


@pytest.fixture(scope="module")
def pair():
    tex = texture(H, W + D, seed=11)
    return np.ascontiguousarray(tex[:, :W]), np.ascontiguousarray(tex[:, D:D + W])


class CaiOnly:
    """A device array known only through __cuda_array_interface__ (as Numba's)."""

    def __init__(self, arr):
        self.arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


def cpu_disparity(pair, cfg):
    return vf.Stereo(vf.Context(backend="cpu", log=None), cfg).compute(*pair)


def test_host_arrays_on_the_cuda_backend_match_the_cpu(gctx, pair):
    cfg = vf.StereoConfig(width=W, height=H)
    np.testing.assert_array_equal(vf.Stereo(gctx, cfg).compute(*pair), cpu_disparity(pair, cfg))


def test_cupy_stereo_stays_on_the_device(gctx, pair):
    cp = pytest.importorskip("cupy")
    left, right = cp.asarray(pair[0]), cp.asarray(pair[1])
    info = vf._viofront._image_view_info(left)
    assert info["location"] is vf.Memory.DEVICE and info["data"] == left.data.ptr
    cfg = vf.StereoConfig(width=W, height=H)
    stereo = vf.Stereo(gctx, cfg)
    disp = stereo.compute(left, right)
    assert isinstance(disp, cp.ndarray)
    np.testing.assert_array_equal(cp.asnumpy(disp), cpu_disparity(pair, cfg))
    out = cp.zeros((H, W), cp.uint16)
    assert stereo.compute(left, right, out=out) is out
    np.testing.assert_array_equal(cp.asnumpy(out), cp.asnumpy(disp))
    # strided device views with contiguous rows go in without a copy
    big = cp.zeros((H + 4, W + 16), cp.uint8)
    big[2:2 + H, 8:8 + W] = left
    view = big[2:2 + H, 8:8 + W]
    assert vf._viofront._image_view_info(view)["data"] == view.data.ptr
    np.testing.assert_array_equal(cp.asnumpy(stereo.compute(view, right)), cp.asnumpy(disp))
    # and through __cuda_array_interface__ alone
    np.testing.assert_array_equal(cp.asnumpy(stereo.compute(CaiOnly(left), CaiOnly(right))),
                                  cp.asnumpy(disp))
    with pytest.raises(vf.InvalidArgumentError):
        stereo.compute(left[:, ::2], right[:, ::2])


def test_cupy_pyramid_levels_are_device_views(gctx, pair):
    cp = pytest.importorskip("cupy")
    p = vf.Pyramid(gctx, vf.PyramidConfig(width=W, height=H, levels=3))
    p.build(cp.asarray(pair[0]))
    lv = p.level(1)
    assert isinstance(lv, vf.DeviceArray) and lv.shape == (H // 2, W // 2)
    a = cp.asarray(lv)
    assert a.data.ptr == lv.ptr
    b = cp.from_dlpack(lv)
    assert b.data.ptr == lv.ptr
    cpu = vf.Pyramid(vf.Context(backend="cpu", log=None), vf.PyramidConfig(width=W, height=H, levels=3))
    cpu.build(pair[0])
    np.testing.assert_array_equal(cp.asnumpy(a), cpu.level(1))
    np.testing.assert_array_equal(lv.get(), cpu.level(1))


def test_torch_tracker_and_remap(gctx, pair):
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(pair[0]).cuda()
    cfg = vf.PyramidConfig(width=W, height=H, levels=3)
    prev, cur = vf.Pyramid(gctx, cfg), vf.Pyramid(gctx, cfg)
    prev.build(t)
    cur.build(torch.from_numpy(pair[1]).cuda())  # content moved by -D px
    xs, ys = np.meshgrid(np.arange(60, 260, 25), np.arange(40, 200, 25))
    xy = np.stack([xs.ravel(), ys.ravel()], 1).astype(np.float32)
    res = vf.Tracker(gctx, vf.TrackerConfig(levels=3)).track(prev, cur, vf.track_requests(xy))
    ok = res["status"] == vf.TrackStatus.CONVERGED.value
    assert ok.mean() > 0.9
    assert np.median(res["x"][ok] - xy[ok, 0]) == pytest.approx(-D, abs=0.05)
    cam = vf.Camera(width=W, height=H, fx=300, fy=300, cx=159.5, cy=119.5)
    rm = vf.Remap(gctx, vf.RemapConfig.undistort(cam))
    out = rm.apply(t)
    assert isinstance(out, torch.Tensor) and out.is_cuda
    assert torch.equal(out.cpu(), t.cpu())
    given = torch.zeros((H, W), dtype=torch.uint8, device="cuda")
    assert rm.apply(t, out=given) is given and torch.equal(given, t)


def test_frontend_with_device_images_and_device_disparity(gctx):
    cp = pytest.importorskip("cupy")
    from conftest import Rig

    rig = Rig()
    cfg = frontend_config(rig)
    cfg.disparity_location = vf.Memory.DEVICE
    got = []

    def on_disparity(d):
        assert isinstance(d.disparity, vf.DeviceArray)
        got.append(cp.asnumpy(cp.asarray(d.disparity)))

    frames = []
    fe = vf.Frontend(gctx, cfg, on_features=frames.append, on_disparity=on_disparity)
    for i in range(rig.frames):
        left, right = rig.pair(i)
        fe.process(rig.t_ns(i), cp.asarray(left), cp.asarray(right))
    assert len(got) == rig.frames and frames[-1].tracked > 20
    px = vf.disparity_to_pixels(got[-1])[20:-20, 80:-20]
    assert np.nanmedian(px) == pytest.approx(rig.disparity, abs=0.25)

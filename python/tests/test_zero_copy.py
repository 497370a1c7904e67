# SPDX-License-Identifier: BSD-3-Clause
"""Arrays cross without copies where the layout allows: views of strided inputs, outputs
written in place, library buffers handed out as views."""
import numpy as np
import pytest

import viofront as vf
from conftest import texture


def data_ptr(a):
    return a.__array_interface__["data"][0]


def test_inputs_with_contiguous_rows_are_viewed_in_place():
    big = texture(100, 140)
    for view in (big, big[5:95, 7:130], big[::2, :], big[10:20, 30:31]):
        info = vf._viofront._image_view_info(view)
        assert not info["copied"]
        assert info["data"] == data_ptr(view)
        assert info["stride_bytes"] == view.strides[0]
        assert (info["height"], info["width"]) == view.shape
        assert info["location"] is vf.Memory.HOST


def test_other_layouts_are_copied_for_inputs_and_refused_for_outputs():
    big = texture(100, 140)
    for view in (big[:, ::2], big.T, big[::-1]):
        assert vf._viofront._image_view_info(view)["copied"]
        with pytest.raises(vf.InvalidArgumentError):
            vf._viofront._image_view_info(view, output=True)
    ro = big.copy()
    ro.flags.writeable = False
    with pytest.raises(vf.InvalidArgumentError, match="read-only"):
        vf._viofront._image_view_info(ro, output=True)


def test_strided_input_gives_the_same_result_as_a_copy(ctx):
    big = texture(130, 200)
    view = big[10:106, 20:148]
    p = vf.Pyramid(ctx, vf.PyramidConfig(width=128, height=96, levels=3))
    p.build(view)
    lv = p.level(2).copy()
    p.build(np.ascontiguousarray(view))
    np.testing.assert_array_equal(p.level(2), lv)
    np.testing.assert_array_equal(p.level(0), view)


def test_pyramid_levels_are_views_of_the_library_buffers(ctx):
    p = vf.Pyramid(ctx, vf.PyramidConfig(width=64, height=48, levels=2))
    p.build(np.full((48, 64), 7, np.uint8))
    a = p.level(1)
    assert not a.flags.writeable and not a.flags.owndata
    p.build(np.full((48, 64), 9, np.uint8))
    b = p.level(1)
    assert data_ptr(a) == data_ptr(b) and np.shares_memory(a, b)
    assert np.all(a == 9)  # the view shows the new build
    del p  # the view keeps the pyramid alive
    assert np.all(b == 9)


def test_outputs_are_written_in_place(ctx):
    cam = vf.Camera(width=64, height=48, fx=50, fy=50, cx=31.5, cy=23.5)
    rm = vf.Remap(ctx, vf.RemapConfig.undistort(cam))
    img = texture(48, 64)
    big = np.zeros((60, 100), np.uint8)
    out = big[4:52, 10:74]  # a strided window of a larger array
    assert rm.apply(img, out=out) is out
    np.testing.assert_array_equal(big[4:52, 10:74], img)
    assert np.all(big[:4] == 0)
    tracker = vf.Tracker(ctx, vf.TrackerConfig(levels=2, max_features=8))
    pyr = vf.Pyramid(ctx, vf.PyramidConfig(width=64, height=48, levels=2))
    pyr.build(img)
    res = np.zeros(8, vf.TRACK_RESULT_DTYPE)
    assert tracker.track(pyr, pyr, vf.track_requests([[30, 20], [20, 30]]), out=res) is res
    assert np.all(res["status"][:2] == vf.TrackStatus.CONVERGED.value)


def test_record_dtypes_have_the_c_layout():
    assert vf.FEATURE_DTYPE.itemsize == 80
    assert vf.KEYPOINT_DTYPE.itemsize == 20
    assert vf.TRACK_REQUEST_DTYPE.itemsize == 32
    assert vf.TRACK_RESULT_DTYPE.itemsize == 60
    assert vf.TRACK_RESULT_DTYPE["shape"].shape == (4,)


class FakeCudaArray:
    """Only __cuda_array_interface__ (as Numba's device arrays): the parser's view of it."""

    def __init__(self, shape, typestr="|u1", strides=None, ptr=0x7F0000001000, readonly=False):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (ptr, readonly),
                                         "strides": strides, "version": 3}


def test_cuda_array_interface_objects_become_device_views():
    info = vf._viofront._image_view_info(FakeCudaArray((48, 64)))
    assert info["location"] is vf.Memory.DEVICE and not info["copied"]
    assert (info["data"], info["height"], info["width"], info["stride_bytes"]) == (0x7F0000001000, 48, 64, 64)
    info = vf._viofront._image_view_info(FakeCudaArray((48, 64), strides=(256, 1)))
    assert info["stride_bytes"] == 256
    with pytest.raises(vf.InvalidArgumentError, match="contiguous rows"):
        vf._viofront._image_view_info(FakeCudaArray((48, 64), strides=(256, 2)))
    with pytest.raises(vf.InvalidArgumentError, match="uint8"):
        vf._viofront._image_view_info(FakeCudaArray((48, 64), typestr="<u2"))
    with pytest.raises(vf.InvalidArgumentError, match="read-only"):
        vf._viofront._image_view_info(FakeCudaArray((48, 64), readonly=True), output=True)
    with pytest.raises(vf.InvalidArgumentError, match="2-D"):
        vf._viofront._image_view_info(FakeCudaArray((48, 64, 3)))


def test_device_arrays_are_refused_by_the_cpu_backend(ctx):
    p = vf.Pyramid(ctx, vf.PyramidConfig(width=64, height=48, levels=2))
    with pytest.raises(vf.Error):
        p.build(FakeCudaArray((48, 64)))

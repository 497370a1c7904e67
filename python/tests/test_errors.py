# SPDX-License-Identifier: BSD-3-Clause
"""Failures raise viofront.Error subclasses carrying the vf_status and the library's message."""
import numpy as np
import pytest

import viofront as vf
from conftest import frontend_config


def test_every_status_has_its_class():
    expected = {
        vf.Status.INVALID_ARG: vf.InvalidArgumentError, vf.Status.NOMEM: vf.NoMemoryError,
        vf.Status.IO: vf.IOError, vf.Status.FORMAT: vf.FormatError, vf.Status.CUDA: vf.CudaError,
        vf.Status.NO_DEVICE: vf.NoDeviceError, vf.Status.UNSUPPORTED: vf.UnsupportedError,
        vf.Status.STATE: vf.StateError, vf.Status.TIMESTAMP: vf.TimestampError,
    }
    assert set(expected) == set(vf.Status) - {vf.Status.OK}
    for status, cls in expected.items():
        assert vf.error_class(status.value) is cls
        assert issubclass(cls, vf.Error)
        assert vf.status_str(status)


def test_invalid_argument_carries_status_and_message(ctx):
    with pytest.raises(vf.InvalidArgumentError) as info:
        vf.Pyramid(ctx, vf.PyramidConfig(width=64, height=48, levels=0))
    err = info.value
    assert isinstance(err, ValueError)
    assert err.status is vf.Status.INVALID_ARG
    assert "levels" in err.message
    assert err.message == vf.last_error_message()
    assert str(err).startswith("INVALID_ARG: ")


def test_handle_errors_name_the_argument(ctx):
    p = vf.Pyramid(ctx, vf.PyramidConfig(width=64, height=48, levels=2))
    with pytest.raises(vf.InvalidArgumentError, match="uint8"):
        p.build(np.zeros((48, 64), np.uint16))
    with pytest.raises(vf.InvalidArgumentError, match="2-D"):
        p.build(np.zeros((48, 64, 3), np.uint8))
    with pytest.raises(vf.InvalidArgumentError):
        p.build(np.zeros((40, 64), np.uint8))  # not the configured size: the library says so
    with pytest.raises(vf.InvalidArgumentError):
        p.level(5)


def test_io_error_for_a_missing_sequence(tmp_path):
    with pytest.raises(vf.IOError) as info:
        vf.EurocReader(str(tmp_path / "nowhere"))
    assert isinstance(info.value, OSError)
    assert info.value.status is vf.Status.IO


def test_timestamp_error_from_the_frontend(ctx, rig):
    fe = vf.Frontend(ctx, frontend_config(rig))
    left, right = rig.pair(0)
    fe.process(rig.t_ns(1), left, right)
    with pytest.raises(vf.TimestampError):
        fe.process(rig.t_ns(0), left, right)
    with pytest.raises(vf.TimestampError):
        fe.push_imu(5, [0, 0, 0], [0, 0, 9.81])
        fe.push_imu(5, [0, 0, 0], [0, 0, 9.81])


def test_cuda_without_a_device_is_an_error():
    if vf.cuda_device_count() > 0:
        pytest.skip("a CUDA device is present")
    with pytest.raises(vf.NoDeviceError):
        vf.Context(backend="cuda")


def test_bad_backend_name():
    with pytest.raises(vf.InvalidArgumentError, match="backend"):
        vf.Context(backend="gpu")

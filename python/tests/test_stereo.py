# SPDX-License-Identifier: BSD-3-Clause
"""Every stereo method on a textured pair whose right image is the left shifted by 8 px."""
import numpy as np
import pytest

import viofront as vf
from conftest import texture

W, H, D = 160, 120, 8


@pytest.fixture(scope="module")
def pair():
    tex = texture(H, W + D, seed=11)
    return np.ascontiguousarray(tex[:, :W]), np.ascontiguousarray(tex[:, D:D + W])


@pytest.mark.parametrize("method", list(vf.StereoMethod), ids=lambda m: m.name)
def test_every_method_finds_the_shift(pair, method):
    ctx = vf.Context(backend="cpu", log=None)
    cfg = vf.StereoConfig.for_method(method)
    cfg.width, cfg.height = W, H
    stereo = vf.Stereo(ctx, cfg)
    disp = stereo.compute(*pair)
    assert disp.dtype == np.uint16 and disp.shape == (H, W)
    px = vf.disparity_to_pixels(disp, vf.STEREO_SUBPIXEL_BITS if cfg.subpixel else 0)
    inner = px[12:H - 12, 72:W - 12]
    good = np.abs(inner - D) <= 1.0
    assert good.mean() > 0.9, f"{method.name}: {good.mean():.3f} within 1 px"


def test_float_output_and_given_outputs(pair, ctx):
    stereo = vf.Stereo(ctx, vf.StereoConfig(width=W, height=H))
    d16, d32 = stereo.compute(*pair, float_output=True)
    assert d32.dtype == np.float32
    valid = d16 != vf.STEREO_INVALID
    np.testing.assert_allclose(d32[valid], d16[valid] / 16.0)
    assert np.all(np.isnan(d32[~valid]))
    out = np.zeros((H, W), np.uint16)
    out32 = np.zeros((H, W), np.float32)
    a, b = stereo.compute(*pair, out=out, out_f32=out32)
    assert a is out and b is out32
    np.testing.assert_array_equal(out, d16)
    with pytest.raises(vf.InvalidArgumentError, match="out"):
        stereo.compute(*pair, out=np.zeros((H, W), np.float32))
    with pytest.raises(vf.InvalidArgumentError):
        stereo.compute(pair[0][:, :100], pair[1][:, :100])


def test_config_checks_name_the_field(ctx):
    with pytest.raises(vf.InvalidArgumentError, match="disparities"):
        vf.Stereo(ctx, vf.StereoConfig(width=W, height=H, disparities=100))

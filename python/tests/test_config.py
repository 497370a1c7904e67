# SPDX-License-Identifier: BSD-3-Clause
"""Config objects: C defaults, attribute access (nested and arrays), dict round trips, the
configs a stage reports back, and vf_frontend_config_load with its warnings."""
import copy
import logging

import numpy as np
import pytest

import viofront as vf


def test_defaults_are_the_c_defaults():
    t = vf.TrackerConfig()
    assert (t.levels, t.max_features, t.max_iterations, t.coarse_iterations) == (4, 1024, 16, 3)
    assert list(t.patch_size[:4]) == [16, 16, 8, 8]
    assert t.template_mode is vf.TemplateMode.PREVIOUS_FRAME
    # the refinement fields (tuned often: their documented ranges, not their values)
    assert t.refine == 0 and t.refine_patch % 2 == 1 and 7 <= t.refine_patch <= 31
    assert 1 <= t.refine_iterations <= 100 and 0 <= t.refine_min_ncc <= 1
    assert t.refine_max_scale > 1 and t.refine_max_shift > 0 and t.refine_shape_prior >= 0
    assert t.refine_one_launch == 1
    s = vf.StereoConfig()
    assert (s.method, s.disparities, s.p1, s.p2, s.paths) == (vf.StereoMethod.SGM, 64, 10, 120, 4)
    d = vf.DetectorConfig()
    assert (d.width, d.height, d.threshold, d.arc_length, d.cell_width) == (752, 480, 10, 10, 32)
    fc = vf.FrontendConfig()
    assert fc.pyramid_levels == 4 and fc.features.max_features == 400
    assert fc.tracker.template_mode is vf.TemplateMode.PREVIOUS_FRAME and fc.tracker.refine
    assert fc.stereo_mode is vf.StereoMode.DENSE and fc.dense_every == 0
    assert fc.sparse_edge_max_step == 4.0 and fc.sparse_birth_max_loss == 2.0
    assert vf.EurocConfig().prefetch == 8
    assert vf.Camera().fx == 458 and vf.Camera().T_BS.shape == (4, 4)


def test_defaults_agree_with_the_yaml_loader(tmp_path):
    # an empty file read by the C loader gives the C defaults through another path: every
    # field of the nested frontend config must match the constructor's
    path = tmp_path / "empty.yaml"
    path.write_text("{}\n")
    loaded, has_cameras = vf.load_frontend_config(str(path))
    assert not has_cameras
    assert loaded.to_dict() == vf.FrontendConfig().to_dict()
    assert loaded == vf.FrontendConfig()


def test_method_defaults():
    z = vf.StereoConfig.for_method(vf.StereoMethod.ZNCC_FASTDT)
    assert z.method is vf.StereoMethod.ZNCC_FASTDT
    assert z.zncc.window == 5 and z.fastdt.enabled and z.subpixel == 0 and z.lr_check == 0
    h = vf.StereoConfig.for_method(vf.StereoMethod.HSGM)
    assert (h.paths, h.hsgm.levels, h.hsgm.window, h.hsgm.margin) == (8, 3, 7, 2)
    c = vf.StereoConfig.for_method(vf.StereoMethod.CYCLOPS2)
    assert c.cyclops.weight is vf.CyclopsWeight.MNS and c.median == 1


def test_nested_and_array_fields_write_through():
    fc = vf.FrontendConfig()
    fc.tracker.levels = 3
    fc.tracker.patch_size[2] = 12
    fc.cam0.k[0] = -0.25
    fc.stereo.hsgm.window = 5
    assert fc.tracker.levels == 3 and fc.tracker.patch_size[2] == 12
    assert fc.cam0.k[0] == -0.25 and fc.stereo.hsgm.window == 5
    fc.cam1.T_BS = np.diag([1.0, 1.0, 1.0, 1.0]) + np.eye(4, k=3) * 0.1
    assert fc.cam1.T_BS[0, 3] == pytest.approx(0.1)
    with pytest.raises(vf.InvalidArgumentError):
        fc.cam0.k = [1, 2, 3]
    with pytest.raises(AttributeError):
        vf.TrackerConfig(levles=3)


def test_dict_round_trip():
    fc = vf.FrontendConfig()
    fc.update({"tracker": {"refine": 1, "refine_patch": 15}, "stereo": {"paths": 8}},
              right_features=0)
    d = fc.to_dict()
    assert d["tracker"]["refine"] == 1 and d["stereo"]["paths"] == 8 and d["right_features"] == 0
    again = vf.FrontendConfig(d)
    assert again == fc
    again.stereo.p1 = 11
    assert again != fc
    assert copy.deepcopy(fc) == fc and copy.copy(fc) is not fc
    assert "refine_patch=15" in repr(fc.tracker)


def test_a_stage_reports_the_config_it_was_given(ctx):
    cfg = vf.TrackerConfig(levels=3, max_features=64, refine=1, refine_patch=11,
                           refine_min_ncc=0.7, template_mode=vf.TemplateMode.FIRST_OBSERVATION)
    cfg.patch_size = [12, 10, 8, 8, 8, 8, 8, 8]
    tracker = vf.Tracker(ctx, cfg)
    assert tracker.config == cfg
    stereo = vf.Stereo(ctx, vf.StereoConfig(width=96, height=64, paths=8))
    assert stereo.config.paths == 8 and stereo.config.width == 96


def test_frontend_config_load_warns_about_typos(tmp_path):
    path = tmp_path / "vf.yaml"
    path.write_text("features: {max_featurs: 5, max_features: 120}\ntracker: {levels: 3}\n")
    messages = []
    log = vf.Context(backend="cpu", log=lambda level, msg: messages.append((level, msg)))
    cfg, has_cameras = vf.load_frontend_config(str(path), log)
    assert cfg.features.max_features == 120 and cfg.tracker.levels == 3
    assert has_cameras is False
    assert any(level is vf.LogLevel.WARN and "max_featurs" in msg for level, msg in messages)
    base = vf.FrontendConfig({"cam0": {"fx": 400.0}}, stereo_enabled=0)
    cfg2, _ = vf.load_frontend_config(str(path), None, base)
    # the file goes over the defaults; only the cameras of `config` are kept
    assert cfg2.cam0.fx == 400.0 and cfg2.stereo_enabled == 1 and cfg2.tracker.levels == 3


def test_frontend_config_load_errors_name_the_key(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("tracker:\n  levels: 99\n")
    with pytest.raises(vf.Error) as info:
        vf.load_frontend_config(str(path))
    assert "levels" in info.value.message and "bad.yaml" in info.value.message


def test_start_radius_loads_and_is_checked(tmp_path):
    assert vf.FrontendConfig().features.start_radius == pytest.approx(1.0)
    path = tmp_path / "vf.yaml"
    path.write_text("features: {start_radius: 2.5}\n")
    cfg, _ = vf.load_frontend_config(str(path))
    assert cfg.features.start_radius == pytest.approx(2.5)
    path.write_text("features: {start_radius: -1}\n")
    with pytest.raises(vf.Error) as info:
        vf.load_frontend_config(str(path))
    assert "start_radius" in info.value.message


def test_default_log_goes_to_python_logging(tmp_path, caplog):
    path = tmp_path / "typo.yaml"
    path.write_text("nosuchsection: {a: 1}\n")
    with caplog.at_level(logging.WARNING, logger="viofront"):
        vf.load_frontend_config(str(path), vf.Context(backend="cpu"))
    assert any("nosuchsection" in r.getMessage() for r in caplog.records)

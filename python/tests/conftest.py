# SPDX-License-Identifier: BSD-3-Clause
"""Shared fixtures: a CPU context, smooth textures with corners, a synthetic stereo rig whose
answers are known (fronto-parallel plane, integer disparity, integer motion per frame), and a
vf_synth sequence when the C build's vf_synth is at hand."""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import viofront as vf

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def ctx():
    return vf.Context(backend="cpu", log=None)


def texture(height: int, width: int, seed: int = 1) -> np.ndarray:
    """Smooth value noise (bilinear upsampling of coarse noise) plus rectangles: gradients for
    Lucas-Kanade, corners for FAST, unique texture for stereo."""
    rng = np.random.default_rng(seed)
    coarse = rng.uniform(40, 215, size=(height // 6 + 2, width // 6 + 2))
    ys = np.arange(height) / 6.0
    xs = np.arange(width) / 6.0
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
    c = coarse
    img = (c[y0][:, x0] * (1 - fy) * (1 - fx) + c[y0 + 1][:, x0] * fy * (1 - fx)
           + c[y0][:, x0 + 1] * (1 - fy) * fx + c[y0 + 1][:, x0 + 1] * fy * fx)
    for _ in range(width * height // 900):
        y, x = rng.integers(0, height - 8), rng.integers(0, width - 8)
        h, w = rng.integers(4, 12), rng.integers(4, 12)
        img[y:y + h, x:x + w] = rng.uniform(0, 255)
    return np.ascontiguousarray(np.clip(img, 0, 255).astype(np.uint8))


class Rig:
    """A pinhole stereo pair (no distortion, identical intrinsics, baseline along x) looking at a
    fronto-parallel textured plane: disparity `disparity` px everywhere; the rig moves along x
    by `step` px per frame, so every point moves by -step px in both images."""

    width, height = 320, 240
    f = 300.0
    baseline_m = 0.1
    disparity = 8
    step = 2

    def __init__(self, frames: int = 8, seed: int = 3, step: int = 2) -> None:
        self.frames = frames
        self.step = step
        self.tex = texture(self.height, self.width + self.disparity + self.step * frames + 8, seed)

    @property
    def depth_m(self) -> float:
        return self.f * self.baseline_m / self.disparity

    def cameras(self):
        cam0 = vf.Camera(width=self.width, height=self.height, fx=self.f, fy=self.f,
                         cx=(self.width - 1) / 2, cy=(self.height - 1) / 2, distortion=vf.Distortion.NONE)
        cam1 = vf.Camera(cam0.to_dict())
        T = np.eye(4)
        T[0, 3] = self.baseline_m
        cam1.T_BS = T
        return cam0, cam1

    def pair(self, frame: int):
        o = self.step * frame
        left = self.tex[:, o:o + self.width]
        right = self.tex[:, o + self.disparity:o + self.disparity + self.width]
        return np.ascontiguousarray(left), np.ascontiguousarray(right)

    def t_ns(self, frame: int) -> int:
        return 1_000_000_000 + frame * 50_000_000


@pytest.fixture
def rig():
    return Rig()


def frontend_config(rig: Rig) -> vf.FrontendConfig:
    fc = vf.FrontendConfig()
    fc.cam0, fc.cam1 = rig.cameras()
    fc.gyro_seeding = 0
    return fc


def find_synth():
    env = os.environ.get("VF_SYNTH")
    if env:
        return env if os.access(env, os.X_OK) else None
    for build in ("build-tests", "build"):
        p = REPO / build / "examples" / "vf_synth"
        if os.access(p, os.X_OK):
            return str(p)
    return shutil.which("vf_synth")


@pytest.fixture(scope="session")
def synth_seq(tmp_path_factory):
    """A 6-frame vf_synth sequence (EuRoC layout with ground truth); skips without vf_synth."""
    exe = find_synth()
    if exe is None:
        pytest.skip("vf_synth not built (set VF_SYNTH or run scripts/run_tests.sh)")
    out = tmp_path_factory.mktemp("synth") / "seq"
    subprocess.run([exe, "--out", str(out), "--frames", "6", "--seed", "2", "--depth", "off"],
                   check=True, stdout=subprocess.DEVNULL)
    return out

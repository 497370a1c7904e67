#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Replays a EuRoC sequence (e.g. one vf_synth wrote) through the viofront frontend and plots
the tracks over the last rectified left image beside its disparity map (matplotlib, PNG).

Usage: replay_plot.py SEQUENCE [--frames N] [--backend auto|cpu|cuda] [--out tracks.png]
"""
from __future__ import annotations

import argparse
import collections

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import viofront as vf  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sequence", help="folder holding mav0")
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--out", default="tracks.png")
    args = ap.parse_args()

    ctx = vf.Context(backend=args.backend)  # library warnings go to the 'viofront' logger
    reader = vf.EurocReader(args.sequence, log=ctx)
    cfg = vf.FrontendConfig()
    cfg.cam0, cfg.cam1 = reader.camera(0), reader.camera(1)
    cfg.disparity_location = vf.Memory.HOST

    tracks: dict[int, list[tuple[float, float]]] = collections.defaultdict(list)
    last = {}

    def on_features(frame: vf.FeatureFrame) -> None:
        left = frame.features[frame.features["camera"] == 0]
        for rec in left:
            tracks[int(rec["id"])].append((float(rec["u_rect"]), float(rec["v_rect"])))
        last["alive"] = set(int(i) for i in left["id"])
        last["counts"] = (frame.tracked, frame.detected, frame.lost)

    def on_disparity(frame: vf.DisparityFrame) -> None:
        # the views are valid during the callback only: keep copies
        last["image"] = np.array(frame.rectified_left)
        last["disparity"] = vf.disparity_to_pixels(frame.disparity, frame.fractional_bits)

    fe = vf.Frontend(ctx, cfg, on_features=on_features, on_disparity=on_disparity)
    frames = vf.replay(fe, reader, args.frames)

    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(14, 4.8))
    ax0.imshow(last["image"], cmap="gray")
    for tid in last["alive"]:
        uv = np.array(tracks[tid])
        ax0.plot(uv[:, 0], uv[:, 1], "-", lw=1)
        ax0.plot(uv[-1, 0], uv[-1, 1], ".", ms=3, color="yellow")
    tracked, detected, lost = last["counts"]
    ax0.set_title(f"{len(last['alive'])} tracks after {frames} frames "
                  f"(last frame: {tracked} tracked, {detected} new, {lost} lost)")
    im = ax1.imshow(last["disparity"], cmap="turbo")
    ax1.set_title("disparity (px), rectified left")
    fig.colorbar(im, ax=ax1, fraction=0.046)
    for ax in (ax0, ax1):
        ax.set_axis_off()
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"{frames} frames, {len(tracks)} tracks; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

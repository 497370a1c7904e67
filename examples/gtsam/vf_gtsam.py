# SPDX-License-Identifier: BSD-3-Clause
"""viofront's features in a real estimator: vf_replay's CSV (rectified pixels) and a vf_synth
sequence's IMU go into a GTSAM stereo-inertial smoother (estimator.py) started from the
ground-truth state, and the position ATE against the ground truth is reported four ways:
  ours             our observations (left u_rect, v_rect; the camera-1 record's u_rect)
  perfect tracks   the same records, every pixel the exact projection of the ground-truth point
                   under the track's first observation (what our tracks would give if they did
                   not drift and the stereo pair were exact)
  left only        our observations, the left camera's projection factors alone
  perfect lmks     the sequence's landmarks, exactly projected where the camera sees them
Usage: vf_gtsam.py SEQUENCE CSV [--frames N] [--max-ratio R] [--require-stereo-better]
                   [--pixel-sigma PX] [--relinearize-threshold T] [--relinearize-skip N]
                   [--extra-updates N]
The bars exit 1 when missed; docs/estimator.md has the measured tables."""
import argparse
import json
import sys
import time

import numpy as np

import align
import estimator
import observations
import sequence


def evaluate(seq, rect, frames, stereo, settings):
    t0 = time.time()
    online, smoothed, relinearized = estimator.run(seq, rect, frames, stereo, settings)
    ref = seq.gt.p[seq.gt.index(frames.t_ns)]
    n_obs, n_stereo = frames.count()
    return {"ate_online_m": align.ate_rmse(online, ref),
            "ate_smoothed_m": align.ate_rmse(smoothed, ref),
            "observations": n_obs, "stereo": n_stereo if stereo else 0,
            "relinearized": relinearized,
            "seconds": time.time() - t0}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sequence", help="vf_synth sequence folder (holding mav0 and groundtruth)")
    ap.add_argument("csv", help="vf_replay --csv output; CSV.rectification.yaml beside it")
    ap.add_argument("--frames", type=int, default=0, help="use the first N frames (0: all)")
    ap.add_argument("--max-ratio", type=float, default=0.0,
                    help="fail unless ATE(ours) <= R x ATE(perfect tracks) (0: report only)")
    ap.add_argument("--require-stereo-better", action="store_true",
                    help="fail unless ATE(ours) < ATE(left only)")
    ap.add_argument("--json", help="write the results here")
    # The estimator's settings on the command line, the same for every observation set: each
    # --name-with-dashes sets estimator.Settings.name_with_underscores.
    tuning = [
        ("pixel_sigma", float, "px, on each pixel coordinate, every observation set"),
        ("relinearize_threshold", float,
         "iSAM2: variables whose update exceeds this (rad, m, m/s, bias units) are relinearized"),
        ("relinearize_skip", int, "iSAM2: the threshold is checked every this many updates"),
        ("extra_updates", int, "iSAM2 updates without new factors after each frame's"),
    ]
    d = estimator.Settings()
    for name, kind, text in tuning:
        ap.add_argument("--" + name.replace("_", "-"), type=kind, default=getattr(d, name),
                        help=text + " (default %(default)s)")
    a = ap.parse_args()
    settings = estimator.Settings(**{name: getattr(a, name) for name, _, _ in tuning})

    seq = sequence.SynthSequence(a.sequence)
    rect = sequence.Rectification(a.csv + ".rectification.yaml")
    csv = sequence.read_features_csv(a.csv)
    if a.frames > 0:
        t_keep = np.unique(csv["t_ns"])[:a.frames]
        csv = {k: v[np.isin(csv["t_ns"], t_keep)] for k, v in csv.items()}
    ours = observations.ours(csv)
    points = observations.first_points(seq, csv)
    variants = [
        ("ours", ours, True),
        ("perfect obs. of our tracks", observations.perfect_tracks(seq, rect, ours, points), True),
        ("ours, left camera only", observations.left_only(ours), False),
        ("perfect obs. of the landmarks",
         observations.perfect_landmarks(seq, rect, ours.t_ns), True),
    ]
    n_tracks = len(np.unique(csv["id"][csv["cam"] == 0]))
    duration = (ours.t_ns[-1] - ours.t_ns[0]) * 1e-9
    print(f"vf_gtsam: {a.sequence}, {len(ours.t_ns)} frames ({duration:.1f} s), {n_tracks} tracks "
          f"({len(points)} with a ground-truth point)")
    print(f"estimator: pixel sigma {settings.pixel_sigma} px, iSAM2 relinearization threshold "
          f"{settings.relinearize_threshold} every {settings.relinearize_skip} updates, "
          f"{settings.extra_updates} extra updates a frame")
    print(f"{'observations':32s} {'ATE online':>11s} {'smoothed':>9s} {'records':>8s} "
          f"{'stereo':>8s} {'relin.':>8s} {'time':>7s}")
    results = {}
    for name, frames, stereo in variants:
        r = evaluate(seq, rect, frames, stereo, settings)
        results[name] = r
        print(f"{name:32s} {r['ate_online_m'] * 100:8.3f} cm {r['ate_smoothed_m'] * 100:6.3f} cm "
              f"{r['observations']:8d} {r['stereo']:8d} {r['relinearized']:8d} "
              f"{r['seconds']:6.1f}s", flush=True)
    ours_ate = results["ours"]["ate_online_m"]
    ratio = ours_ate / results["perfect obs. of our tracks"]["ate_online_m"]
    print(f"ATE(ours) / ATE(perfect obs. of our tracks) = {ratio:.2f} (online)")
    failed = []
    if a.max_ratio > 0 and ratio > a.max_ratio:
        failed.append(f"ratio {ratio:.2f} > {a.max_ratio}")
    if a.require_stereo_better and ours_ate >= results["ours, left camera only"]["ate_online_m"]:
        failed.append("stereo not better than left only")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"frames": len(ours.t_ns), "ratio": ratio, "settings": vars(settings),
                       "results": results}, f, indent=1)
    for msg in failed:
        print(f"vf_gtsam: FAILED: {msg}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

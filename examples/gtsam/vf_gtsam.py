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
With --rig, CSV is a vf_replay --rig replay of the camchain file's cameras: every stereo pair's
records go in as stereo factors through that pair's rectification and pose on the body, every
mono camera's as projection factors through its own; --units picks the rig frontend's units
(e.g. 0: the first pair alone; repeated, one row each). The rig is reported on our observations
only.
Usage: vf_gtsam.py SEQUENCE CSV [--frames N] [--max-ratio R] [--require-stereo-better]
                   [--pixel-sigma PX] [--relinearize-threshold T] [--relinearize-skip N]
                   [--extra-updates N] [--rig [CAMCHAIN]] [--units U,U,...|all]...
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


def evaluate(seq, views, frames, stereo, settings):
    t0 = time.time()
    online, smoothed, relinearized = estimator.run(seq, views, frames, stereo, settings)
    ref = seq.gt.p[seq.gt.index(frames.t_ns)]
    n_obs, n_stereo = frames.count()
    return {"ate_online_m": align.ate_rmse(online, ref),
            "ate_smoothed_m": align.ate_rmse(smoothed, ref),
            "observations": n_obs, "stereo": n_stereo if stereo else 0,
            "relinearized": relinearized,
            "seconds": time.time() - t0}


def print_header(name, frames, tracks, settings):
    duration = (frames.t_ns[-1] - frames.t_ns[0]) * 1e-9
    print(f"vf_gtsam: {name}, {len(frames.t_ns)} frames ({duration:.1f} s), {tracks}")
    print(f"estimator: pixel sigma {settings.pixel_sigma} px, iSAM2 relinearization threshold "
          f"{settings.relinearize_threshold} every {settings.relinearize_skip} updates, "
          f"{settings.extra_updates} extra updates a frame")
    print(f"{'observations':32s} {'ATE online':>11s} {'smoothed':>9s} {'records':>8s} "
          f"{'stereo':>8s} {'relin.':>8s} {'time':>7s}")


def run_variants(seq, views, variants, settings):
    results = {}
    for name, frames, stereo in variants:
        r = evaluate(seq, views, frames, stereo, settings)
        results[name] = r
        print(f"{name:32s} {r['ate_online_m'] * 100:8.3f} cm {r['ate_smoothed_m'] * 100:6.3f} cm "
              f"{r['observations']:8d} {r['stereo']:8d} {r['relinearized']:8d} "
              f"{r['seconds']:6.1f}s", flush=True)
    return results


def run_rig(a, seq, csv, settings):
    """Our observations of a rig replay, one row per --units selection, one View per unit (its
    rectification <csv>.<camera>.rectification.yaml and its camera's T_BS)."""
    rig = sequence.Rig(a.rig or f"{a.sequence}/camchain.yaml")
    every = list(range(len(rig.units)))
    selections = []
    for text in a.units or ["all"]:
        chosen = every if text == "all" else [int(u) for u in text.split(",")]
        if not chosen or any(u not in every for u in chosen):
            print(f"vf_gtsam: --units {text}: the rig has units 0..{len(rig.units) - 1}")
            return 2
        selections.append(chosen)
    views = []
    for left, right in rig.units:
        camera = rig.cameras[left]
        rect = sequence.Rectification(f"{a.csv}.{camera.name}.rectification.yaml")
        views.append(estimator.View(rect, camera, stereo=right >= 0))
    unit_of = csv["id"] >> observations.RIG_ID_SHIFT
    variants = []
    for chosen in selections:
        rows = np.isin(unit_of, chosen)
        frames = observations.ours({k: v[rows] for k, v in csv.items()},
                                   [rig.units[u][0] for u in chosen],
                                   [rig.units[u][1] for u in chosen])
        variants.append((f"ours, units {','.join(map(str, chosen))}", frames, True))
    units = "; ".join(f"unit {u}: " + "+".join(rig.cameras[c].name for c in cams if c >= 0)
                      for u, cams in enumerate(rig.units))
    tracks = len(np.unique(csv["id"][np.isin(csv["cam"], [c for c, _ in rig.units])]))
    print_header(a.sequence, variants[0][1], f"{tracks} tracks, rig ({units})", settings)
    results = run_variants(seq, views, variants, settings)
    names = [name for name, _, _ in variants]
    for name in names[1:]:
        ratio = results[names[0]]["ate_online_m"] / results[name]["ate_online_m"]
        print(f"ATE({names[0]}) / ATE({name}) = {ratio:.2f} (online)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"frames": len(variants[0][1].t_ns), "units": units,
                       "settings": vars(settings), "results": results}, f, indent=1)
    return 0


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
    ap.add_argument("--rig", nargs="?", const="", metavar="CAMCHAIN",
                    help="CSV is a vf_replay --rig replay of this camchain file's cameras "
                         "(default SEQUENCE/camchain.yaml)")
    ap.add_argument("--units", action="append",
                    help="with --rig: a row on these units, comma-separated, or all (the "
                         "default); repeat for more rows. Units as vf_replay --rig numbers "
                         "them: the stereo pairs, then the cameras in no pair")
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
    csv = sequence.read_features_csv(a.csv)
    if a.frames > 0:
        t_keep = np.unique(csv["t_ns"])[:a.frames]
        csv = {k: v[np.isin(csv["t_ns"], t_keep)] for k, v in csv.items()}
    if a.rig is not None:
        return run_rig(a, seq, csv, settings)
    rect = sequence.Rectification(a.csv + ".rectification.yaml")
    views = [estimator.View(rect, seq.cam0)]
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
    print_header(a.sequence, ours, f"{n_tracks} tracks ({len(points)} with a ground-truth point)",
                 settings)
    results = run_variants(seq, views, variants, settings)
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

# SPDX-License-Identifier: BSD-3-Clause
"""Absolute trajectory error: positions aligned by the rigid motion (rotation and translation,
no scale) that minimises the squared distances, in closed form (Umeyama, "Least-squares
estimation of transformation parameters between two point patterns", PAMI 1991, with s = 1;
Horn's solution by SVD), then the RMSE of the remaining distances."""
import numpy as np


def align_rigid(est, ref):
    """R, t with R @ est_i + t closest to ref_i (both (N, 3))."""
    mu_e, mu_r = est.mean(0), ref.mean(0)
    cov = (ref - mu_r).T @ (est - mu_e) / len(est)
    U, _, Vt = np.linalg.svd(cov)
    # The sign fix keeps R a rotation when the best orthogonal matrix would be a reflection.
    S = np.diag([1.0, 1.0, np.sign(np.linalg.det(U) * np.linalg.det(Vt))])
    R = U @ S @ Vt
    return R, mu_r - R @ mu_e


def ate_rmse(est, ref):
    R, t = align_rigid(est, ref)
    err = est @ R.T + t - ref
    return float(np.sqrt(np.mean(np.sum(err * err, axis=1))))

# SPDX-License-Identifier: BSD-3-Clause
"""A stereo-inertial (or left-camera-inertial) smoother in GTSAM: one state (pose, velocity,
IMU biases) per frame, CombinedImuFactor between frames (Forster et al., "On-Manifold
Preintegration", RSS 2015), GenericStereoFactor3D on the rectified pair or
GenericProjectionFactorCal3_S2 on the left image, Huber-robust, solved incrementally by iSAM2
(Kaess et al., IJRR 2012) over the whole sequence, started from the ground-truth state. A rig
gives one View per unit of its frontend: each stereo pair and each mono camera has its own
calibration and body-to-camera pose."""
import numpy as np
import gtsam
from gtsam.symbol_shorthand import B, L, V, X


class Settings:
    pixel_sigma = 1.0    # px, on each of uL, uR, v
    huber_k = 1.345      # in sigmas: the usual 95%-efficiency constant
    min_disparity = 0.5  # px: nearer to infinity a stereo pair is no triangulation
    mono_min_views = 3   # left-only landmarks are triangulated from this many views
    mono_min_parallax_deg = 1.0  # between the first and the latest view's ray
    prior_sigmas = (1e-3, 1e-3, 1e-2, 1e-3)  # rad, m, m/s, bias (acc and gyro) at the start
    relinearize_threshold = 0.1  # iSAM2 (its defaults): variables that moved more are relinearized
    relinearize_skip = 10        # ... checked every this many updates
    extra_updates = 0            # iSAM2 updates without new factors after each frame's

    def __init__(self, **overrides):
        for name, value in overrides.items():
            if not hasattr(self, name):
                raise TypeError(f"unknown setting {name}")
            setattr(self, name, value)


def imu_params(imu):
    """The sequence's IMU noise (continuous-time densities, EuRoC's sensor.yaml), gravity -z."""
    p = gtsam.PreintegrationCombinedParams.MakeSharedU(9.81)
    p.setGyroscopeCovariance(np.eye(3) * imu.gyro_noise ** 2)
    p.setAccelerometerCovariance(np.eye(3) * imu.acc_noise ** 2)
    p.setIntegrationCovariance(np.eye(3) * 1e-8)
    p.setBiasOmegaCovariance(np.eye(3) * imu.gyro_walk ** 2)
    p.setBiasAccCovariance(np.eye(3) * imu.acc_walk ** 2)
    return p


class View:
    """One unit's camera: the rectified calibration (rect, as vf_replay writes it) and the pose
    of the rectified left camera in the body (camera's T_BS, then R1^T). A mono unit
    (stereo=False) has projection factors only, its landmarks triangulated from views."""

    def __init__(self, rect, camera, stereo=True):
        self.stereo = stereo
        self.K = gtsam.Cal3_S2Stereo(rect.f, rect.f, 0.0, rect.cx, rect.cy, rect.baseline)
        self.K_mono = gtsam.Cal3_S2(rect.f, rect.f, 0.0, rect.cx, rect.cy)
        self.body_P_cam = gtsam.Pose3(rect.body_T_rect(camera))


class Smoother:
    """Frames are fed in order with their observations (keys, rig units, pixels uL, v, uR; uR
    NaN for a left-only record), each unit's through its View. stereo=False uses the left
    pixels only."""

    def __init__(self, seq, views, stereo, settings=Settings()):
        self.seq, self.views, self.stereo, self.s = seq, views, stereo, settings
        huber = gtsam.noiseModel.mEstimator.Huber.Create(settings.huber_k)
        self.noise3 = gtsam.noiseModel.Robust.Create(
            huber, gtsam.noiseModel.Isotropic.Sigma(3, settings.pixel_sigma))
        self.noise2 = gtsam.noiseModel.Robust.Create(
            huber, gtsam.noiseModel.Isotropic.Sigma(2, settings.pixel_sigma))
        self.params = imu_params(seq.imu)
        isam_params = gtsam.ISAM2Params()
        isam_params.setRelinearizeThreshold(settings.relinearize_threshold)
        isam_params.relinearizeSkip = settings.relinearize_skip
        self.isam = gtsam.ISAM2(isam_params)
        self.landmarks = set()
        self.pending = {}  # left-only or mono: key -> [(frame, uL, v)] until triangulated
        self.frame = -1
        self.online = []   # each frame's position right after its update (causal)
        self.relinearized = 0  # variables relinearized, summed over the updates

    def _state(self, row):
        gt = self.seq.gt
        pose = gtsam.Pose3(gtsam.Rot3(gt.R[row]), gt.p[row])
        return pose, gt.v[row], gtsam.imuBias.ConstantBias(gt.ba[row], gt.bg[row])

    def _preintegrate(self, t0, t1, bias):
        """IMU samples between two frame times; each interval takes the mean of its two end
        samples (the frames fall on IMU samples in vf_synth sequences)."""
        imu = self.seq.imu
        a, b = np.searchsorted(imu.t_ns, [t0, t1])
        pim = gtsam.PreintegratedCombinedMeasurements(self.params, bias)
        for k in range(a, b):
            dt = (imu.t_ns[k + 1] - imu.t_ns[k]) * 1e-9
            acc = 0.5 * (imu.acc[k] + imu.acc[k + 1])
            gyro = 0.5 * (imu.gyro[k] + imu.gyro[k + 1])
            pim.integrateMeasurement(acc, gyro, dt)
        return pim

    def _vision(self, graph, values, pose, keys, units, pix):
        cam_poses = [pose.compose(view.body_P_cam) for view in self.views]
        for key, unit, (uL, v, uR) in zip(keys.tolist(), units.tolist(), pix):
            lk = L(key)
            view, cam_pose = self.views[unit], cam_poses[unit]
            stereo = self.stereo and view.stereo
            has_right = stereo and np.isfinite(uR) and uL - uR > self.s.min_disparity
            if lk not in self.landmarks:
                if stereo:
                    if not has_right:
                        continue
                    point = gtsam.StereoCamera(cam_pose, view.K).backproject(
                        gtsam.StereoPoint2(uL, uR, v))
                    values.insert(lk, point)
                    self.landmarks.add(lk)
                else:
                    self.pending.setdefault(key, []).append((self.frame, uL, v))
                    self._triangulate(graph, values, key, view, cam_pose)
                    continue
            if has_right:
                graph.add(gtsam.GenericStereoFactor3D(gtsam.StereoPoint2(uL, uR, v), self.noise3,
                                                      X(self.frame), lk, view.K,
                                                      view.body_P_cam))
            else:
                graph.add(gtsam.GenericProjectionFactorCal3_S2(
                    np.array([uL, v]), self.noise2, X(self.frame), lk, view.K_mono,
                    view.body_P_cam))

    def _triangulate(self, graph, values, key, view, cam_pose):
        """Left-only or a mono unit: a landmark enters once its views meet at a wide enough
        angle; its earlier observations come with it."""
        obs = self.pending[key]
        if len(obs) < self.s.mono_min_views:
            return
        poses = [cam_pose if f == self.frame else
                 self.isam.calculateEstimatePose3(X(f)).compose(view.body_P_cam)
                 for f, _, _ in obs]
        try:
            point = gtsam.triangulatePoint3(poses, view.K_mono, [np.array([u, v]) for _, u, v in obs],
                                            1e-9, True)
        except RuntimeError:
            return
        for p, (_, u, v) in zip(poses, obs):
            depth = p.transformTo(point)[2]
            if depth <= 0.1 or np.linalg.norm(
                    gtsam.PinholeCameraCal3_S2(p, view.K_mono).project(point) - [u, v]) > 3.0:
                return
        # Rays that meet at a tiny angle leave the depth free: iSAM2 would find the system
        # (nearly) indeterminate.
        ray0 = point - poses[0].translation()
        ray1 = point - poses[-1].translation()
        cos = ray0 @ ray1 / (np.linalg.norm(ray0) * np.linalg.norm(ray1))
        if cos > np.cos(np.radians(self.s.mono_min_parallax_deg)):
            return
        lk = L(key)
        values.insert(lk, point)
        self.landmarks.add(lk)
        for f, u, v in obs:
            graph.add(gtsam.GenericProjectionFactorCal3_S2(
                np.array([u, v]), self.noise2, X(f), lk, view.K_mono, view.body_P_cam))
        del self.pending[key]

    def add_frame(self, t_ns, keys, units, pix):
        graph, values = gtsam.NonlinearFactorGraph(), gtsam.Values()
        self.frame += 1
        i = self.frame
        if i == 0:
            row = self.seq.gt.index(np.array([t_ns]))[0]
            pose, vel, bias = self._state(row)
            rs, ps, vs, bs = self.s.prior_sigmas
            graph.add(gtsam.PriorFactorPose3(X(0), pose, gtsam.noiseModel.Diagonal.Sigmas(
                np.array([rs, rs, rs, ps, ps, ps]))))
            graph.add(gtsam.PriorFactorVector(V(0), vel, gtsam.noiseModel.Isotropic.Sigma(3, vs)))
            graph.add(gtsam.PriorFactorConstantBias(B(0), bias,
                                                    gtsam.noiseModel.Isotropic.Sigma(6, bs)))
        else:
            prev_pose = self.isam.calculateEstimatePose3(X(i - 1))
            prev_vel = self.isam.calculateEstimateVector(V(i - 1))
            bias = self.isam.calculateEstimateConstantBias(B(i - 1))
            pim = self._preintegrate(self.t_prev, t_ns, bias)
            graph.add(gtsam.CombinedImuFactor(X(i - 1), V(i - 1), X(i), V(i), B(i - 1), B(i), pim))
            nav = pim.predict(gtsam.NavState(prev_pose, prev_vel), bias)
            pose, vel = nav.pose(), nav.velocity()
        values.insert(X(i), pose)
        values.insert(V(i), vel)
        values.insert(B(i), bias)
        self._vision(graph, values, pose, keys, units, pix)
        result = self.isam.update(graph, values)
        self.relinearized += result.getVariablesRelinearized()
        for _ in range(self.s.extra_updates):
            self.relinearized += self.isam.update().getVariablesRelinearized()
        self.t_prev = t_ns
        self.online.append(self.isam.calculateEstimatePose3(X(i)).translation())

    def smoothed(self):
        """Every frame's position in the final estimate."""
        est = self.isam.calculateEstimate()
        return np.array([est.atPose3(X(i)).translation() for i in range(self.frame + 1)])


def run(seq, views, frames, stereo, settings=Settings()):
    """Runs the smoother over Frames, unit u's records through views[u]; returns (online,
    smoothed) positions, one row a frame, and the number of variable relinearizations."""
    sm = Smoother(seq, views, stereo, settings)
    for t, k, u, p in zip(frames.t_ns, frames.keys, frames.units, frames.pix):
        sm.add_frame(int(t), k, u, p)
    return np.array(sm.online), sm.smoothed(), sm.relinearized

# SPDX-License-Identifier: BSD-3-Clause
"""viofront: the visual frontend of a visual-inertial odometry system (C11 + CUDA), in Python.

A :class:`Context` picks the backend (CPU or CUDA); every stage is made from one: the whole
:class:`Frontend` (callbacks get :class:`FeatureFrame` / :class:`DisparityFrame`), or each stage
alone (:class:`Pyramid`, :class:`Detector`, :class:`Tracker`, :class:`Stereo`, :class:`Remap`).
A :class:`Rig` holds calibrated cameras and their stereo pairs (read from a Kalibr camchain file
or built in code); a :class:`RigFrontend` runs one frontend unit per pair and per camera in no
pair over it, with the same frame classes in its callbacks.
Images are NumPy arrays (uint8, 2-D), viewed in place when their rows are contiguous; on the
CUDA backend, CuPy/PyTorch device arrays go in and out through DLPack or
``__cuda_array_interface__`` without a host copy. Config structs are classes whose attributes
start at the C defaults. Failures raise :class:`Error` subclasses carrying the status and the
library's message.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _config, _viofront
from ._errors import (
    CudaError,
    Error,
    FormatError,
    InvalidArgumentError,
    IOError,
    NoDeviceError,
    NoMemoryError,
    StateError,
    TimestampError,
    UnsupportedError,
    error_class,
)
from ._viofront import (
    FEATURE_DTYPE,
    KEYPOINT_DTYPE,
    RIG_FRONTEND_ID_SHIFT,
    RIG_MAX_CAMERAS,
    STEREO_INVALID,
    STEREO_SUBPIXEL_BITS,
    TRACK_REQUEST_DTYPE,
    TRACK_RESULT_DTYPE,
    Backend,
    Camera,
    CensusType,
    Context,
    ContextConfig,
    CyclopsConfig,
    CyclopsMemory,
    CyclopsWeight,
    DetectorConfig,
    Detector,
    DeviceArray,
    DisparityFrame,
    Distortion,
    EurocConfig,
    EurocReader,
    EurocState,
    FastdtConfig,
    FastScore,
    FeatureFrame,
    FeatureSetConfig,
    FocalRule,
    Frontend,
    FrontendConfig,
    Grid,
    HsgmConfig,
    ImuBuffer,
    ImuCalib,
    ImuEvent,
    LogLevel,
    Memory,
    Pyramid,
    PyramidConfig,
    RectifyConfig,
    Remap,
    RemapConfig,
    RightMissing,
    Rig,
    RigFrontend,
    Status,
    Stereo,
    StereoConfig,
    StereoEvent,
    StereoMethod,
    StereoMode,
    StereoRectification,
    TemplateMode,
    Tracker,
    TrackerConfig,
    TrackStatus,
    ZnccConfig,
    ZnccSums,
    backend_name,
    built_with_cuda,
    cuda_device_count,
    euroc_vi_sensor,
    last_error_message,
    load_frontend_config,
    rectify_point,
    status_str,
    stereo_rectify,
    stereo_rectify_pose,
    track_status_str,
    version,
)

__version__ = version()

#: vf_feature.flags bits
FEATURE_DEPTH_EDGE = 0x1
FEATURE_DEPTH_HOLES = 0x2
FEATURE_RIGHT_OCCLUDED = 0x4
#: vf_track_result.flags bits
TRACK_REFINED = 0x1
TRACK_REANCHOR = 0x2

_CONFIG_CLASSES = (
    ContextConfig,
    PyramidConfig,
    DetectorConfig,
    TrackerConfig,
    HsgmConfig,
    ZnccConfig,
    FastdtConfig,
    CyclopsConfig,
    StereoConfig,
    RectifyConfig,
    Camera,
    StereoRectification,
    RemapConfig,
    Grid,
    FeatureSetConfig,
    FrontendConfig,
    EurocConfig,
    ImuCalib,
    EurocState,
)
for _cls in _CONFIG_CLASSES:
    _config.install(_cls)
to_dict = _config.to_dict
update = _config.update


def track_requests(
    xy: Any,
    guess: Any = None,
    *,
    gain: float = 1.0,
    bias: float = 0.0,
    slot: Any = -1,
    new_template: Any = 1,
) -> np.ndarray:
    """Track requests (TRACK_REQUEST_DTYPE) for points xy (n, 2) of the previous image: the
    initial guess in the current image (default: xy), starting gain/bias, template slots (-1:
    none; an int or one per point) and whether to (re)take the slot's template."""
    xy = np.asarray(xy, dtype=np.float32).reshape(-1, 2)
    g = xy if guess is None else np.asarray(guess, dtype=np.float32).reshape(-1, 2)
    req = np.zeros(len(xy), dtype=TRACK_REQUEST_DTYPE)
    req["x"], req["y"] = xy[:, 0], xy[:, 1]
    req["guess_x"], req["guess_y"] = g[:, 0], g[:, 1]
    req["gain"], req["bias"] = gain, bias
    req["slot"] = slot
    req["new_template"] = new_template
    return req


def disparity_to_pixels(disparity: np.ndarray, fractional_bits: int = STEREO_SUBPIXEL_BITS) -> np.ndarray:
    """uint16 disparity -> float32 pixels, NaN where invalid (host arrays)."""
    d = np.asarray(disparity)
    out = d.astype(np.float32) / float(1 << fractional_bits)
    out[d == STEREO_INVALID] = np.nan
    return out


def rig_frontend_id_unit(ids: Any) -> Any:
    """The unit whose track a RigFrontend record's id names (an int, or an array of ids)."""
    if isinstance(ids, (int, np.integer)):
        return int(ids) >> RIG_FRONTEND_ID_SHIFT
    return (np.asarray(ids, dtype=np.uint64) >> np.uint64(RIG_FRONTEND_ID_SHIFT)).astype(np.int64)


def replay(frontend: Frontend, reader: EurocReader, max_frames: Optional[int] = None) -> int:
    """Feeds a EuRoC stream into a frontend (IMU samples and stereo frames in time order);
    returns the number of frames processed."""
    frames = 0
    while max_frames is None or frames < max_frames:
        event = reader.next(copy=False)
        if event is None:
            break
        if isinstance(event, ImuEvent):
            frontend.push_imu(event.t_ns, event.gyro, event.acc)
        else:
            frontend.process(event.t_ns, event.left, event.right)
            frames += 1
    return frames


__all__ = [n for n in dir() if not n.startswith("_") and n not in ("annotations", "Any", "Optional", "np")]

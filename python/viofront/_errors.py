# SPDX-License-Identifier: BSD-3-Clause
"""Exceptions: every failing viofront call raises Error, or its subclass for the vf_status."""
from __future__ import annotations


class Error(Exception):
    """A viofront call failed. ``status`` is the :class:`viofront.Status`, ``message`` the
    library's message (vf_last_error_message or the handle's last error)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        from ._viofront import Status

        self.status = Status(status)
        self.message = message

    def __str__(self) -> str:
        return f"{self.status.name}: {self.message}"


class InvalidArgumentError(Error, ValueError):
    """VF_ERR_INVALID_ARG: NULL, out-of-range parameter, bad size or array layout."""


class NoMemoryError(Error, MemoryError):
    """VF_ERR_NOMEM: host allocation failed."""


class IOError(Error, OSError):  # noqa: A001 - the status is named IO
    """VF_ERR_IO: file missing or unreadable/unwritable."""


class FormatError(Error, ValueError):
    """VF_ERR_FORMAT: file content malformed (CSV, YAML, PNG)."""


class CudaError(Error, RuntimeError):
    """VF_ERR_CUDA: CUDA runtime error."""


class NoDeviceError(Error, RuntimeError):
    """VF_ERR_NO_DEVICE: CUDA asked for, but no device or no CUDA build."""


class UnsupportedError(Error, NotImplementedError):
    """VF_ERR_UNSUPPORTED: a valid request this build or backend cannot serve."""


class StateError(Error, RuntimeError):
    """VF_ERR_STATE: call out of order."""


class TimestampError(Error, ValueError):
    """VF_ERR_TIMESTAMP: timestamp repeats or goes backwards."""


_BY_NAME = {
    "INVALID_ARG": InvalidArgumentError,
    "NOMEM": NoMemoryError,
    "IO": IOError,
    "FORMAT": FormatError,
    "CUDA": CudaError,
    "NO_DEVICE": NoDeviceError,
    "UNSUPPORTED": UnsupportedError,
    "STATE": StateError,
    "TIMESTAMP": TimestampError,
}


def error_class(status: int) -> type[Error]:
    """The exception class raised for a vf_status value."""
    from ._viofront import Status

    try:
        return _BY_NAME.get(Status(status).name, Error)
    except ValueError:
        return Error

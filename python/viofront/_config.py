# SPDX-License-Identifier: BSD-3-Clause
"""Config objects as data: to_dict, update (also used by every config constructor), equality
and repr, over the attributes the extension defines (one per C struct field)."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np


def fields(cls: type) -> list[str]:
    """The field names of a config class (its properties), in declaration order."""
    return [n for n, v in vars(cls).items() if isinstance(v, property) and not n.startswith("_")]


def is_config(value: Any) -> bool:
    return getattr(type(value), "__module__", "").startswith("viofront") and hasattr(value, "to_dict")


def _plain(value: Any) -> Any:
    if is_config(value):
        return to_dict(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def to_dict(config: Any) -> dict:
    """A config as a nested dict (enums stay enums, arrays become lists)."""
    return {name: _plain(getattr(config, name)) for name in fields(type(config))}


def update(config: Any, values: Optional[dict] = None, **kwargs: Any) -> Any:
    """Sets fields from a (nested) dict and keywords; a dict given for a nested config updates
    it field by field. Unknown names raise AttributeError. Returns the config."""
    merged = dict(values or {})
    merged.update(kwargs)
    names = set(fields(type(config)))
    for name, value in merged.items():
        if name not in names:
            raise AttributeError(f"{type(config).__name__} has no field '{name}'")
        current = getattr(config, name)
        if isinstance(value, dict) and is_config(current):
            update(current, value)
        else:
            setattr(config, name, value)
    return config


def _same(x: Any, y: Any) -> bool:
    if isinstance(x, dict):
        return isinstance(y, dict) and x.keys() == y.keys() and all(_same(x[k], y[k]) for k in x)
    if isinstance(x, list):
        return isinstance(y, list) and len(x) == len(y) and all(_same(a, b) for a, b in zip(x, y))
    if isinstance(x, float) and isinstance(y, float) and x != x and y != y:
        return True  # a NaN field equals itself
    return x == y


def equal(a: Any, b: Any) -> Any:
    if type(a) is not type(b):
        return NotImplemented
    return _same(to_dict(a), to_dict(b))


def _repr(self: Any) -> str:
    inner = ", ".join(f"{k}={v!r}" for k, v in to_dict(self).items())
    return f"{type(self).__name__}({inner})"


def install(cls: type) -> None:
    """Adds to_dict, update, ==, repr to an extension config class."""
    cls.to_dict = to_dict
    cls.update = update
    cls.__eq__ = equal
    cls.__hash__ = None
    cls.__repr__ = _repr

# SPDX-License-Identifier: BSD-3-Clause
"""The default log callback of a Context: library messages to the 'viofront' logger."""
from __future__ import annotations

import logging

logger = logging.getLogger("viofront")

_LEVELS = {1: logging.ERROR, 2: logging.WARNING, 3: logging.INFO, 4: logging.DEBUG}


def to_logging(level: int, message: str) -> None:
    """Passes one library message to the 'viofront' logger at the matching level."""
    logger.log(_LEVELS.get(getattr(level, "value", level), logging.INFO), "%s", message)

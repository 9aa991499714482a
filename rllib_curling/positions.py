"""How a position is written, the same on either ice: a ``(16, 2)`` float array of stone centres
in throwing order, ``(0, 0)`` for a stone not in play (thrown and removed, or not thrown yet).

The platform's rules (``rules``) and Digital Curling's (``dc_rules``) both read positions so;
what differs between them (the frame, the sheet, the rules) lives in their own modules.
"""

from __future__ import annotations

import numpy as np


def in_play(xy: np.ndarray) -> np.ndarray:
    """True where a stone is in play, i.e. not ``(0, 0)``."""
    xy = np.asarray(xy, dtype=np.float64)
    played: np.ndarray = (xy[..., 0] != 0.0) | (xy[..., 1] != 0.0)
    return played

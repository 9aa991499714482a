"""Hand-made positions for the rules and game tests."""

from __future__ import annotations

import numpy as np

from rllib_curling import sheet

TX, TY = sheet.TEE
GUARD = (TX + 0.6, 7.5)  # in the free guard zone, off the centre line
CENTRE_GUARD = (TX, 7.5)  # in the free guard zone, on the centre line


def pos(**stones: tuple[float, float]) -> np.ndarray:
    """Position from keyword rows: ``pos(s0=(x, y), s3=(x, y))``."""
    out = np.zeros((16, 2))
    for name, xy in stones.items():
        out[int(name[1:])] = xy
    return out


def at(d: float, angle: float = 0.0) -> tuple[float, float]:
    """A point at distance ``d`` from the tee (angle 0 = toward the thrower, +y)."""
    return (TX + d * np.sin(angle), TY + d * np.cos(angle))

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


def random_layouts(rng: np.random.Generator, n: int) -> np.ndarray:
    """Positions mixing house stones, guards (many on the centre line), stones outside the
    playing area and stones exactly on the rule boundaries, with empty rows."""
    r = sheet.HOUSE_SCORE_RADIUS
    special = np.array([
        at(r), at(r, 1.0), at(r - 1e-6), (TX + sheet.STONE_RADIUS, 7.0),
        (TX - sheet.STONE_RADIUS, 7.5), CENTRE_GUARD, GUARD, (TX, sheet.FGZ_Y_MAX),
        (sheet.PLAY_X_MIN, 5.0), (TX, TY), (TX + 0.3, TY), (TX - 0.3, TY),
    ])  # fmt: skip
    out = np.zeros((n, 16, 2))
    for layout in out:
        for k in range(16):
            kind = rng.integers(5)
            if kind == 0:
                continue  # empty row
            if kind == 1:
                layout[k] = special[rng.integers(len(special))]
            elif kind == 2:
                layout[k] = (rng.uniform(1.5, 3.2), rng.uniform(3.0, 6.8))  # house area
            elif kind == 3:
                layout[k] = (TX + rng.choice([0.0, rng.normal(0, 0.2)]), rng.uniform(5.0, 10.6))
            else:
                layout[k] = (rng.uniform(-0.2, 5.0), rng.uniform(2.0, 11.0))
    return out

"""Levels 0–2: the dumb robot, random throws, draws to the button."""

from __future__ import annotations

import numpy as np

from rllib_curling import sheet
from rllib_curling.aiming.tables import shot_tables
from rllib_curling.bots.base import DUMB_THROW, Bot, Throw, clamped_throw
from rllib_curling.game import GameState

#: Level 1 draws each throw uniformly from these ranges; the spin's sign is random too.
RANDOM_V = (2.4, 5.0)
RANDOM_H = (-1.2, 1.2)
RANDOM_W = (0.5, np.pi)
#: Level 2's curl (either sign).
BUTTON_SPIN = np.pi / 2


class DumbBot(Bot):
    """Level 0, the platform's debug robot: every stone stops short of the hog line (removed)."""

    level = 0
    name = "dumb robot"

    def choose(self, state: GameState, rng: np.random.Generator) -> Throw:
        return DUMB_THROW


class RandomBot(Bot):
    """Level 1: speed, offset and spin uniform over ``RANDOM_V``, ``RANDOM_H``, ``±RANDOM_W``."""

    level = 1
    name = "random"

    def choose(self, state: GameState, rng: np.random.Generator) -> Throw:
        v, h, w, sign = rng.uniform(
            (RANDOM_V[0], RANDOM_H[0], RANDOM_W[0], -1.0),
            (RANDOM_V[1], RANDOM_H[1], RANDOM_W[1], 1.0),
        )
        return clamped_throw(v, h, w if sign >= 0 else -w)


class ButtonBot(Bot):
    """Level 2: draws to the button, curling either way at random (two precomputed throws)."""

    level = 2
    name = "draw to the button"

    def __init__(self) -> None:
        self._throws: tuple[Throw, Throw] | None = None

    def throws(self) -> tuple[Throw, Throw]:
        """The two button draws (spin +, spin −), computed once from the shot tables."""
        if self._throws is None:
            tables = shot_tables()
            plus, minus = (
                clamped_throw(*tables.draw(sheet.TEE_X, sheet.TEE_Y, s * BUTTON_SPIN))
                for s in (1, -1)
            )
            self._throws = (plus, minus)
        return self._throws

    def choose(self, state: GameState, rng: np.random.Generator) -> Throw:
        plus, minus = self.throws()
        return plus if rng.random() < 0.5 else minus

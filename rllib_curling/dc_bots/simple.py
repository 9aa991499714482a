"""DC levels 0–2: the dumb robot, random shots, draws to the button."""

from __future__ import annotations

import numpy as np

from rllib_curling.dc_aiming import dc_shot_tables
from rllib_curling.dc_bots.base import DUMB_SHOT, TX, TY, DCBot, DCShot, bot_rng, clamped_shot
from rllib_curling.dc_game import DCGameState

#: Level 1 draws each release speed (m/s) and bearing (rad from +y) uniformly from these.
RANDOM_SPEED = (2.2, 3.6)
RANDOM_BEARING = (-0.06, 0.06)


class DumbDCBot(DCBot):
    """Level 0: every stone stops far short of the hog line (removed)."""

    level = 0
    name = "dc dumb robot"

    def choose(self, state: DCGameState, rng: np.random.Generator | None = None) -> DCShot:
        return DUMB_SHOT


class RandomDCBot(DCBot):
    """Level 1: release speed and bearing uniform over ``RANDOM_SPEED``, ``RANDOM_BEARING``;
    random rotation."""

    level = 1
    name = "dc random"

    def choose(self, state: DCGameState, rng: np.random.Generator | None = None) -> DCShot:
        speed, bearing, sign = bot_rng(rng).uniform(
            (RANDOM_SPEED[0], RANDOM_BEARING[0], -1.0), (RANDOM_SPEED[1], RANDOM_BEARING[1], 1.0)
        )
        rotation = 1.0 if sign >= 0 else -1.0
        return clamped_shot((speed * np.sin(bearing), speed * np.cos(bearing), rotation))


class ButtonDCBot(DCBot):
    """Level 2: draws to the button, rotating either way at random."""

    level = 2
    name = "dc draw to the button"

    def choose(self, state: DCGameState, rng: np.random.Generator | None = None) -> DCShot:
        rotation = 1.0 if bot_rng(rng).random() < 0.5 else -1.0
        return clamped_shot(dc_shot_tables().draw(TX, TY, rotation))

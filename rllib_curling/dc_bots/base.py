"""The interface of the built-in opponents on Digital Curling's ice, and what the levels share.

A DC bot picks the shot of the team to throw next (``state.next_team``) in DC's shot frame::

    bot = make_dc_bot(5)                          # rllib_curling.dc_bots.levels
    vx, vy, rotation = bot.choose(state, rng)     # state: dc_game.DCGameState

Shots are fcv1's throws ``(vx, vy, rotation)``: the release velocity in m/s and +1 (ccw, curls
toward −x) or −1 (cw). Positions are ``(16, 2)`` in throwing order; the thrower owns the rows of
parity ``state.shot % 2``. Bots are pure: all randomness comes from the Generator passed in
(``None``: a fixed seed), and DC's execution noise is added by the ice, not by the bot.
"""

from __future__ import annotations

import numpy as np

from rllib_curling import dc_rules, dc_sheet
from rllib_curling.dc_game import DCGameState
from rllib_curling.physics.fcv1 import clamp_speed
from rllib_curling.positions import StoneView

__all__ = ["DUMB_SHOT", "DCBot", "DCShot", "DCStones", "signed_score", "thrower_parity"]

DCShot = tuple[float, float, float]
#: A stone thrown this softly stops far short of the hog line (removed, touches nothing).
DUMB_SHOT: DCShot = (0.0, 1.0, 1.0)
TX, TY = dc_sheet.TEE


class DCBot:
    """A player on DC's ice that chooses in process. The built-in opponents set ``level`` (their
    place on the ladder, ``dc_bots.levels``); other players (an agent) leave it None. Subclasses
    set ``name`` and implement ``choose``."""

    level: int | None = None
    name: str = "dc bot"

    def choose(self, state: DCGameState, rng: np.random.Generator | None = None) -> DCShot:
        """The shot ``(vx, vy, rotation)`` of stone ``state.shot`` for ``state.next_team``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        if self.level is None:
            return f"{type(self).__name__}(name={self.name!r})"
        return f"{type(self).__name__}(level={self.level})"


def bot_rng(rng: np.random.Generator | None) -> np.random.Generator:
    """``rng``, or a fixed-seed Generator when none is given (the bot stays deterministic)."""
    return rng if rng is not None else np.random.default_rng(0)


def thrower_parity(state: DCGameState) -> int:
    """Row parity of the stones of the team about to throw (even rows throw first)."""
    return state.shot % 2


def signed_score(positions: np.ndarray, parity: int) -> np.ndarray:
    """Points of the end if it ended now, ``(..., 16, 2) -> (...)``, from the view of rows
    ``parity`` (positive: they score)."""
    both = dc_rules.score_end_batch(positions)
    return np.asarray(both[..., parity] - both[..., 1 - parity])


def clamped_shot(shot: object) -> DCShot:
    """``(vx, vy, rotation)`` as plain floats, the speed clamped as DC clamps a release
    (``physics.fcv1.clamp_speed``) and the rotation's sign kept (±1)."""
    vx, vy, rotation = (float(a) for a in np.asarray(shot, dtype=np.float64))
    vx, vy = clamp_speed((vx, vy)).tolist()
    return vx, vy, 1.0 if rotation >= 0 else -1.0


class DCStones(StoneView):
    """The thrower's and the opponent's stones in play (row numbers) on DC's sheet, nearest the
    tee first (``positions.StoneView`` with DC's rules)."""

    def __init__(self, position: np.ndarray, parity: int) -> None:
        position = np.asarray(position, dtype=np.float64)
        dist, house = dc_rules.distance_to_tee(position), dc_rules.in_house(position)
        super().__init__(position, parity, dist, house)

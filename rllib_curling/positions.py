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


class StoneView:
    """A position as a bot sees it from one team (rows of ``parity``): its stones and the
    opponent's in play, nearest the tee first, and which of them are in the house. The ice's
    geometry comes in: ``dist`` (16,) each stone's distance to the tee and ``house`` (16,) whether
    it is in the house, from that ice's rules (``rules.Stones``, ``dc_bots.base.DCStones``)."""

    def __init__(
        self, position: np.ndarray, parity: int, dist: np.ndarray, house: np.ndarray
    ) -> None:
        self.position = np.asarray(position, dtype=np.float64)
        self.dist = dist
        rows = np.arange(len(self.position))
        on = in_play(self.position)
        self.mine = sorted(rows[on & (rows % 2 == parity)], key=lambda k: dist[k])
        self.theirs = sorted(rows[on & (rows % 2 != parity)], key=lambda k: dist[k])
        self.my_house = [int(k) for k in self.mine if house[k]]
        self.their_house = [int(k) for k in self.theirs if house[k]]

    def best(self, rows: list[int]) -> float:
        """The distance of the first of ``rows`` (the nearest), infinity for none."""
        return float(self.dist[rows[0]]) if rows else np.inf

    @property
    def they_lie_shot(self) -> bool:
        return self.best(self.their_house) < self.best(self.my_house)

    @property
    def we_lie_shot(self) -> bool:
        return self.best(self.my_house) < self.best(self.their_house)

    def xy(self, k: int) -> tuple[float, float]:
        return float(self.position[k, 0]), float(self.position[k, 1])

    def others(self, *skip: int) -> np.ndarray:
        """(K, 2) the stones in play other than rows ``skip``."""
        rows = [k for k in self.mine + self.theirs if k not in skip]
        return self.position[rows].reshape(-1, 2)

"""The platform's win table: the chance to win by score difference × ends left × hammer under the
platform's rules (a blank end passes the hammer, ``game.GameConfig.blank_end = "swap"``; a game
tied after its last end is a draw), from how often the hammer team scores each number of points
in an end over this package's own games (``measurements/build_win_table.py``).

The model is ``win_odds`` (re-exported here: ``WinTable``, ``END_SCORES``, …); this module adds
the platform's facts: ``hammer_scores`` of a platform game and the package's table, ``load()``.
``table.json`` of an agent folder (or ``rllib_curling/data/win_table.json``) holds
``end_scores`` and the games it was counted from. DC's table is ``dc_win_table``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from rllib_curling.game import GameConfig, first_seat_after
from rllib_curling.win_odds import (
    DIFF_MAX,
    END_SCORES,
    ENDS_MAX,
    N_SCORES,
    SCORE_MAX,
    WinTable,
    count_end_scores,
    from_counts,
)

__all__ = [
    "DEFAULT_FILE", "DIFF_MAX", "END_SCORES", "ENDS_MAX", "N_SCORES", "SCORE_MAX", "WinTable",
    "count_end_scores", "from_counts", "hammer_scores", "load",
]  # fmt: skip
DEFAULT_FILE = Path(__file__).parent / "data" / "win_table.json"


def hammer_scores(end_scores: Iterable[tuple[int, int]], config: GameConfig) -> list[int]:
    """The hammer team's score in each end of a game (``(p1, p2)`` per end; Player1 throws
    first in the first end)."""
    first, out = 0, []
    for p1, p2 in end_scores:
        out.append(p2 - p1 if first == 0 else p1 - p2)
        first = first_seat_after(first, (p1, p2), config)
    return out


def load(path: str | Path = DEFAULT_FILE) -> WinTable:
    """The table in a ``win_table.json`` (default: the package's)."""
    data = json.loads(Path(path).read_text())
    return WinTable(np.asarray(data["end_scores"], dtype=np.float64))

"""Digital Curling's win table: the chance to win by score difference × ends left × hammer under
DC's rules: ``win_odds.WinTable`` (the model under the platform's ``win_table`` too) with
``blank_end="keep"`` (after a blank end the same team throws first, ``dc_game.first_team_after``)
and ``extra_ends=True`` (a game tied after its standard ends plays extra ends until one team
scores).

The one measured fact is how often DC's hammer team scores each number of points in an end
(``win_odds.END_SCORES``), counted over DC games of our own bots on the fcv1 ice with DC's noise
(``measurements/build_win_table.py --ice dc``); ``data/dc_win_table.json`` holds it and says which
games it came from. DC level 8 (``dc_bots.search``) values positions with it::

    table = dc_win_table.load()
    table.win(diff=-1, ends=1, hammer=1)  # one down with the hammer, one end to play
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import numpy as np

from rllib_curling.dc_game import Score, Team, first_team_after
from rllib_curling.win_odds import WinTable, count_end_scores

DEFAULT_FILE = Path(__file__).parent / "data" / "dc_win_table.json"

__all__ = ["DEFAULT_FILE", "count_end_scores", "dc_table", "hammer_scores", "load"]


def dc_table(end_scores: np.ndarray) -> WinTable:
    """A table under DC's rules from the hammer team's end-score probabilities."""
    return WinTable(np.asarray(end_scores, dtype=np.float64), blank_end="keep", extra_ends=True)


def hammer_scores(end_scores: Iterable[Score], first_team: Team = 0) -> list[int]:
    """The hammer team's score in each end of a DC game (``(team0, team1)`` per end, as
    ``DCGameState.end_scores``; ``first_team`` throws first in end 0)."""
    out = []
    for t0, t1 in end_scores:
        out.append(t1 - t0 if first_team == 0 else t0 - t1)
        first_team = first_team_after(first_team, (t0, t1))
    return out


def load(path: str | Path = DEFAULT_FILE) -> WinTable:
    """DC's table from a ``dc_win_table.json`` (default: the package's, read once)."""
    return _load(str(Path(path).resolve()))


@cache
def _load(path: str) -> WinTable:
    data = json.loads(Path(path).read_text())
    return dc_table(np.asarray(data["end_scores"], dtype=np.float64))

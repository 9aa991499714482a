"""The chance to win from the score, the ends left and the hammer, for any game of ends: the model
under the platform's table (``win_table``) and DC's (``dc_win_table``); it knows no sheet or game.

Strong curling programs judge a position by the distribution of the end's score, turned into a
chance to win by a table of score difference × ends left × hammer. A table here comes from one
measured fact: how often the team with the hammer scores ``s`` points in an end (``END_SCORES`` =
−8 … +8; ``end_scores``, a probability per score). The rest is exact under the game's rules, two
of which the table takes as fields: the team that scores throws first in the next end (loses the
hammer); after a blank end the hammer passes (``blank_end = "swap"``, the platform's course
template) or stays (``"keep"``, Digital Curling); a game still tied after its last end is a draw
(½), or goes to extra ends until one team scores (``extra_ends = True``, Digital Curling).

``WinTable.win(diff, ends, hammer)``: the chance to win (draws ½) of a team ``diff`` points
ahead with ``ends`` ends still to play, holding the hammer in the next one or not (``ends = 0``:
the game is over). ``WinTable.after_end(diff, score, ends_after, hammer)``: the same once the
current end finishes with ``score`` (the team's view).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

#: End scores counted, from the hammer team's view: −8 … +8 (a team throws 8 stones an end on the
#: platform's and on DC's sheet: ``sheet.STONES_PER_TEAM``, ``dc_sheet.STONES_PER_TEAM``; a test
#: holds them equal).
SCORE_MAX = 8
END_SCORES = np.arange(-SCORE_MAX, SCORE_MAX + 1)
N_SCORES = len(END_SCORES)
#: Score differences the table covers (further ahead or behind is clamped: decided anyway).
DIFF_MAX = 30
#: Ends the table covers; more ends left count as this many (unlimited games too).
ENDS_MAX = 16


@dataclass(frozen=True)
class WinTable:
    """Chance to win by score difference, ends left and hammer (module docstring)."""

    #: (N_SCORES,) probability that the hammer team scores ``END_SCORES[i]`` in an end.
    end_scores: np.ndarray
    #: After a blank end the hammer passes ("swap") or stays with the same team ("keep").
    blank_end: Literal["swap", "keep"] = "swap"
    #: A game tied after its last end: a draw (False) or extra ends until one team scores (True).
    extra_ends: bool = False
    #: ``value[n, DIFF_MAX + d, h]``: the chance to win with ``n`` ends to play, ``d`` ahead,
    #: hammer ``h`` (1: ours) in the next end.
    value: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        p = np.asarray(self.end_scores, dtype=np.float64)
        if p.shape != (N_SCORES,) or (p < 0).any() or not np.isclose(p.sum(), 1.0):
            raise ValueError(f"end_scores must be {N_SCORES} probabilities summing to 1")
        if self.blank_end not in ("swap", "keep"):
            raise ValueError(f'blank_end must be "swap" or "keep", got {self.blank_end!r}')
        p = p / p.sum()  # exactly 1 (a file rounds them)
        object.__setattr__(self, "end_scores", p)
        object.__setattr__(self, "value", _solve(p, self.blank_end == "keep", self.extra_ends))

    def win(self, diff: Any, ends: Any, hammer: Any) -> np.ndarray:
        """Chance to win (draws ½): ``diff`` ahead, ``ends`` ends to play (0: over), ``hammer``
        in the next end (all broadcast)."""
        d = np.clip(np.asarray(diff, dtype=np.int64), -DIFF_MAX, DIFF_MAX) + DIFF_MAX
        n = np.clip(np.asarray(ends, dtype=np.int64), 0, ENDS_MAX)
        h = np.asarray(hammer, dtype=np.int64)
        return np.asarray(self.value[n, d, h])

    def after_end(self, diff: Any, score: Any, ends_after: Any, hammer: Any) -> np.ndarray:
        """Chance to win once the current end finishes with ``score`` (our view): ``diff``
        ahead before it, ``ends_after`` ends after it, ``hammer`` ours in it."""
        score, hammer = np.asarray(score), np.asarray(hammer, dtype=np.int64)
        blank = hammer if self.blank_end == "keep" else 1 - hammer
        next_hammer = np.where(score > 0, 0, np.where(score < 0, 1, blank))
        return self.win(np.asarray(diff) + score, ends_after, next_hammer)

    def to_json(self, games: int, source: str) -> str:
        return json.dumps({
            "end_scores": [round(float(x), 6) for x in self.end_scores],
            "scores": END_SCORES.tolist(), "games": games, "source": source,
        }, indent=1) + "\n"  # fmt: skip


def _solve(p: np.ndarray, keep: bool, extra_ends: bool) -> np.ndarray:
    """``WinTable.value`` by backward induction over the ends (``keep``: a blank end keeps the
    hammer; ``extra_ends``: a tie after the last end plays on until one team scores)."""
    diffs = np.arange(-DIFF_MAX, DIFF_MAX + 1)
    value = np.zeros((ENDS_MAX + 1, len(diffs), 2))
    value[0] = ((diffs > 0) + 0.5 * (diffs == 0))[:, None]
    if extra_ends:  # tied, no end left: the first end that is not blank decides
        win, blank, lose = (
            p[END_SCORES > 0].sum(),
            p[END_SCORES == 0].sum(),
            p[END_SCORES < 0].sum(),
        )
        if keep:  # V1 = win + blank V1, V0 = lose + blank V0
            tied = (lose / (1 - blank), win / (1 - blank))
        else:  # V1 = win + blank V0, V0 = lose + blank V1
            tied = ((lose + blank * win) / (1 - blank**2), (win + blank * lose) / (1 - blank**2))
        value[0, DIFF_MAX] = tied
    for n in range(1, ENDS_MAX + 1):
        before = value[n - 1]
        for d_i, d in enumerate(diffs):
            # With the hammer the end's score s is ours; without, it is theirs (we get -s).
            for h, sign in ((1, 1), (0, -1)):
                ours = sign * END_SCORES
                nxt = np.clip(d + ours, -DIFF_MAX, DIFF_MAX) + DIFF_MAX
                next_h = np.where(ours > 0, 0, np.where(ours < 0, 1, h if keep else 1 - h))
                value[n, d_i, h] = float(p @ before[nxt, next_h])
    return value


def count_end_scores(hammer_scores: Iterable[int]) -> np.ndarray:
    """(N_SCORES,) counts of the hammer team's end scores (clamped to ±SCORE_MAX)."""
    counts = np.zeros(N_SCORES)
    for s in hammer_scores:
        counts[int(np.clip(s, -SCORE_MAX, SCORE_MAX)) + SCORE_MAX] += 1
    return counts


def from_counts(counts: np.ndarray, prior: float = 0.5) -> WinTable:
    """A table from counts of end scores (``prior`` added to each, so no score is impossible)."""
    c = np.asarray(counts, dtype=np.float64) + prior
    return WinTable(c / c.sum())

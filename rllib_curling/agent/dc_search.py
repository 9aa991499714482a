"""The DC agent's search: DC level 8's search (``dc_bots.search``) judging positions by the chance
to win blended with the network's, the parallel room of ``agent.search``.

``DCValueSearch(chance, value_weight)`` is a ``SearchDCBot`` of level 8 (its candidates, noisy
re-throws and the opponent's replies) whose value of a position after stone ``k`` of the end is

    (1 − w) · win_judge + w · learned,

where ``win_judge`` is the chance to win were the end over now (DC's win table) and ``learned``
the network's chance to win for the team to throw stone ``k + 1``, read from our side. After the
end's last stone the end's score is known and ``win_judge`` alone decides. The network's chance
comes from one of its heads (``dc_env.spaces.encode_positions`` makes its observations, one batch
per call):

| ``chance``                    | the head           | the mover's chance to win                   |
|-------------------------------|--------------------|---------------------------------------------|
| ``end_score_chance(f)``       | end-score head     | ``Σ_s p(s) · table.after_end(diff, s, …)``: |
|                               | (``f(obs)``: B×17) | the end's score distribution through DC's   |
|                               |                    | win table, as strong curling programs judge |
| ``result_chance(f)``          | value head         | ``(1 + V) / 2``: the head learns ±1 game    |
|                               | (``f(obs)``: B)    | results                                     |

``chance_of(policy)`` takes the end-score head when the network has one, else the value head.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from rllib_curling import dc_sheet, dc_win_table
from rllib_curling.dc_bots.candidates import DCSearchSpec, win_judge
from rllib_curling.dc_bots.search import DC_SEARCH_SPECS, SearchDCBot
from rllib_curling.dc_game import DCGameState
from rllib_curling.errors import ConfigError
from rllib_curling.win_odds import END_SCORES, WinTable

if TYPE_CHECKING:
    from rllib_curling.agent.policy import LoadedPolicy

#: ``values(obs)``: ``(B, OBS_SIZE)`` DC observations -> ``(B,)`` value-head estimates.
Values = Callable[[np.ndarray], np.ndarray]
#: ``end_scores(obs)``: ``(B, OBS_SIZE)`` -> ``(B, len(END_SCORES))`` probabilities of the end's
#: score for the team to throw.
EndScores = Callable[[np.ndarray], np.ndarray]
#: ``chance(state, obs)``: the mover's ``(B,)`` chance to win in ``state`` (the team to throw
#: ``state.shot`` is the mover) with the positions ``obs`` encode.
Chance = Callable[[DCGameState, np.ndarray], np.ndarray]


def result_chance(values: Values) -> Chance:
    """The value head's chance to win: ``(1 + V) / 2``, clipped to [0, 1]."""

    def chance(state: DCGameState, obs: np.ndarray) -> np.ndarray:
        v = np.asarray(values(obs), np.float64).reshape(len(obs))
        return np.clip(0.5 + 0.5 * v, 0.0, 1.0)

    return chance


def end_score_chance(end_scores: EndScores, table: WinTable | None = None) -> Chance:
    """The end-score head's chance to win: its probabilities of each score of the end, weighted
    by the chance to win after it (``table``, default DC's: ``dc_win_table``)."""

    wins = table or dc_win_table.load()

    def chance(state: DCGameState, obs: np.ndarray) -> np.ndarray:
        mover = state.next_team
        assert mover is not None  # a position is judged only while a team is to throw
        p = np.asarray(end_scores(obs), np.float64).reshape(len(obs), len(END_SCORES))
        totals = state.totals
        ends_after = max(state.config.standard_end_count - state.end - 1, 0)
        hammer = int(mover == state.hammer_team)
        after = wins.after_end(
            totals[mover] - totals[1 - mover], END_SCORES, ends_after, hammer
        )  # (len(END_SCORES),)
        return np.asarray(p @ after)

    return chance


def chance_of(policy: LoadedPolicy) -> Chance:
    """A loaded DC policy's chance: its end-score head's when it has one, else its value
    head's; ``ConfigError`` when it has neither."""
    if policy.has_end_scores:
        return end_score_chance(policy.end_scores)
    if policy.has_values:
        return result_chance(policy.values)
    raise ConfigError(
        "this DC network has neither an end-score head nor a value head to search with"
    )


class DCValueSearch(SearchDCBot):
    """DC level 8's search with ``value_weight`` of the network's ``chance`` in its judgement.
    ``value`` replaces level 8's, so ``spec``'s ``win_prob`` and ``win_from_shot`` play no part:
    every stone is valued on the chance-to-win scale the blend needs."""

    def __init__(
        self, chance: Chance, value_weight: float, spec: DCSearchSpec = DC_SEARCH_SPECS[8]
    ) -> None:
        if not 0.0 <= value_weight <= 1.0:
            raise ConfigError(f"value_weight must be in [0, 1], got {value_weight!r}")
        super().__init__(8, spec)
        self.chance = chance
        self.value_weight = value_weight
        self.name = "dc agent search"

    def value(
        self, state: DCGameState, positions: np.ndarray, after: int | None = None
    ) -> np.ndarray:
        after = state.shot if after is None else after
        judged = win_judge(state, positions)
        if self.value_weight == 0.0 or after >= dc_sheet.SHOTS_PER_END - 1:
            return judged
        learned = self.learned(state, positions, after)
        return (1.0 - self.value_weight) * judged + self.value_weight * learned

    def learned(self, state: DCGameState, positions: np.ndarray, after: int) -> np.ndarray:
        """(N,) the network's chance to win, for the thrower of stone ``state.shot``, of
        ``positions`` after stone ``after`` (< 15) of this end."""
        from rllib_curling.dc_env.spaces import encode_positions

        us = state.next_team
        seen = dataclasses.replace(state, shot=after + 1)
        mover = seen.next_team
        assert us is not None and mover is not None  # a bot is asked only when a team throws
        p_mover = self.chance(seen, encode_positions(seen, positions, mover))
        return p_mover if mover == us else 1.0 - p_mover

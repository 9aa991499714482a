"""The DC agent's search: DC level 8's search (``dc_bots.search``) judging positions by the chance
to win blended with the network's learned value, the parallel room of ``agent.search``.

``DCValueSearch(values, value_weight)`` is a ``SearchDCBot`` of level 8 (its candidates, noisy
re-throws and the opponent's replies) whose value of a position after stone ``k`` of the end is

    (1 − w) · win_judge + w · learned,      learned = the thrower's (1 + V) / 2 or 1 − that,

where ``win_judge`` is the chance to win were the end over now (DC's win table) and ``V`` the
value head's estimate for the team to throw stone ``k + 1`` (``dc_env.spaces.encode_positions``,
one batch per call). After the end's last stone the end's score is known and ``win_judge``
alone decides. The value head learns ±1 game results (``curling dataset --ice dc``, BC with
``value_coeff``), so ``(1 + V) / 2`` reads as a chance to win.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from rllib_curling import dc_sheet
from rllib_curling.dc_bots.candidates import DCSearchSpec, win_judge
from rllib_curling.dc_bots.search import DC_SEARCH_SPECS, SearchDCBot
from rllib_curling.dc_game import DCGameState
from rllib_curling.errors import ConfigError

#: ``values(obs)``: ``(B, OBS_SIZE)`` DC observations -> ``(B,)`` value-head estimates.
Values = Callable[[np.ndarray], np.ndarray]


class DCValueSearch(SearchDCBot):
    """DC level 8's search with ``value_weight`` of the learned ``values`` in its judgement.
    ``value`` replaces level 8's, so ``spec``'s ``win_prob`` and ``win_from_shot`` play no part:
    every stone is valued on the chance-to-win scale the blend needs."""

    def __init__(
        self, values: Values, value_weight: float, spec: DCSearchSpec = DC_SEARCH_SPECS[8]
    ) -> None:
        if not 0.0 <= value_weight <= 1.0:
            raise ConfigError(f"value_weight must be in [0, 1], got {value_weight!r}")
        super().__init__(8, spec)
        self.values = values
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
        """(N,) the learned chance to win, for the thrower of stone ``state.shot``, of
        ``positions`` after stone ``after`` (< 15) of this end."""
        from rllib_curling.dc_env.spaces import encode_positions

        us = state.next_team
        seen = dataclasses.replace(state, shot=after + 1)
        mover = seen.next_team
        assert us is not None and mover is not None  # a bot is asked only when a team throws
        v = np.asarray(self.values(encode_positions(seen, positions, mover)), np.float64)
        p_mover = np.clip(0.5 + 0.5 * v.reshape(len(positions)), 0.0, 1.0)
        return p_mover if mover == us else 1.0 - p_mover

"""Decision-time search (``--search K``): the policy proposes, level 8's search judges.

At each turn:

1. the policy proposes its ``K`` most likely actions (Discrete: the ``K`` highest logits or
   Q-values; Box: the Gaussian's mean and ``K - 1`` draws from it), turned into throws exactly
   as in training (``env.spaces.throw_for``);
2. level 8's search (``bots.search``) ranks those throws instead of its own candidates: each
   once without noise, its best 12 again ``samples`` times under the platform's execution noise,
   then its best 6 by the opponent's best answer; outcomes are judged by the chance to win the
   game (``bots.evaluation``), the rules applied (free guard zone, centre line);
3. the best is played (ties keep the policy's order).

``K = 1`` plays the policy's own choice. The engine moves stones like the platform's server
(``physics.md``), so the search judges shots as they will run, on our server or the platform's.
Cost: about ``6 × 250`` noise-free answers plus ``12 × samples`` noisy throws per turn
(≈ 0.1–0.2 s here, level 8 itself ≈ 0.23 s).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rllib_curling.aiming.tables import ShotTables
from rllib_curling.bots.levels import MAX_LEVEL
from rllib_curling.bots.search import SPECS, SearchBot
from rllib_curling.client import CurlingClient
from rllib_curling.env.spaces import throw_for
from rllib_curling.game import GameConfig, GameState

#: Noisy throws per re-judged candidate unless told otherwise: level 8's.
DEFAULT_SAMPLES = SPECS[MAX_LEVEL].samples


def game_state(client: CurlingClient) -> GameState:
    """The game as the client sees it, as a ``GameState`` (the match score is carried by the
    first end's entry; the search needs only the totals)."""
    assert client.state is not None and client.seat is not None, "no SETSTATE received yet"
    shot, end, total, next_seat = client.state
    mine, theirs = client.totals
    first = (mine, theirs) if client.seat == 0 else (theirs, mine)
    scores = (first,) + ((0, 0),) * (end - 1) if end > 0 else ()
    return GameState(
        position=client.position,
        shot=shot,
        end=end,
        first_seat=next_seat if shot % 2 == 0 else 1 - next_seat,
        end_scores=scores,
        config=GameConfig(ends=total if total > 0 else -1),
    )


class _ProposalSearch(SearchBot):
    """Level 8's judgement (noise re-judging, the opponent's best reply) over given throws."""

    def __init__(self, throws: np.ndarray, samples: int) -> None:
        super().__init__(MAX_LEVEL, dataclasses.replace(SPECS[MAX_LEVEL], samples=samples))
        self.throws = throws

    def candidates(self, state: GameState, tables: ShotTables) -> np.ndarray:
        return self.throws


@dataclass
class PolicySearch:
    """Re-ranks a policy's top ``k`` actions by simulation (see the module docstring)."""

    k: int
    samples: int = DEFAULT_SAMPLES
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.k < 1 or self.samples < 1:
            raise ValueError(f"search needs k >= 1 and samples >= 1, got {self.k}, {self.samples}")
        self.rng = np.random.default_rng(self.seed)

    def choose(
        self,
        propose: Callable[[np.ndarray, int, np.random.Generator], list[Any]],
        obs: np.ndarray,
        client: CurlingClient,
        mode: str,
        tables: ShotTables,
    ) -> Any:
        """The action to play: the best of ``propose(obs, k, rng)`` by mean simulated value."""
        candidates = propose(obs, self.k, self.rng)
        if len(candidates) == 1:
            return candidates[0]
        throws = np.array([throw_for(a, client, mode, tables) for a in candidates])
        _, order = _ProposalSearch(throws, self.samples).rank(game_state(client), self.rng)
        return candidates[int(order[0])]

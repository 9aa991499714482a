"""DC games and matches between DC bots on ``DCGame`` and the fcv1 ice (``dc_ice.Fcv1Simulator``,
DC's noise), with no clock (bots think in-process).

``play_dc_game(bots, config, rng)``: ``bots[0]`` is team 0 (throws first in end 0);
``play_dc_match(a, b, games, ...)``: ``a`` plays team 0 in even games, team 1 in odd ones; each
game's seed comes from the match seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from rllib_curling.dc_bots.base import DCBot, DCShot
from rllib_curling.dc_game import DCGame, DCGameConfig, DCGameState
from rllib_curling.dc_ice import Fcv1Simulator


@dataclass(frozen=True)
class DCGameResult:
    """One finished DC game: ``players`` (team 0's, team 1's names), the final state's
    ``end_scores`` (team0, team1) per end, ``winner`` (None: a draw), ``shots`` thrown, and
    ``final``, the last state."""

    players: tuple[str, str]
    end_scores: tuple[tuple[int, int], ...]
    winner: int | None
    shots: int
    final: DCGameState | None = field(default=None, compare=False, repr=False)

    @property
    def totals(self) -> tuple[int, int]:
        return (sum(s[0] for s in self.end_scores), sum(s[1] for s in self.end_scores))


def play_dc_game(
    bots: Sequence[DCBot],
    config: DCGameConfig | None = None,
    rng: np.random.Generator | None = None,
    on_shot: Callable[[DCGameState, DCShot], None] | None = None,
) -> DCGameResult:
    """Play one DC game on the fcv1 ice with DC's noise: ``bots[0]`` is team 0 (any object
    with ``name`` and ``choose(state, rng)``: a ``DCBot``, a trained agent's ``AgentDCBot``).
    ``on_shot(state, shot)`` is called with each shot chosen, before it is thrown."""
    rng = rng if rng is not None else np.random.default_rng()
    bot_rngs = rng.spawn(2)
    simulate = Fcv1Simulator(rng.spawn(1)[0])
    state: DCGameState = DCGame.init(config)
    shots = 0
    while not state.is_terminal:
        team = state.next_team
        assert team is not None  # DCGame.step moves past shot 16 to the next end
        shot = bots[team].choose(state, bot_rngs[team])
        if on_shot is not None:
            on_shot(state, shot)
        state = DCGame.step(state, shot, simulate).state
        shots += 1
    return DCGameResult(
        players=(bots[0].name, bots[1].name),
        end_scores=state.end_scores,
        winner=state.winner,
        shots=shots,
        final=state,
    )


@dataclass(frozen=True)
class DCMatchResult:
    """Games of ``a`` against ``b``; ``a_teams[g]`` is a's team in game g."""

    a: str
    b: str
    games: tuple[DCGameResult, ...]
    a_teams: tuple[int, ...]

    @property
    def wins(self) -> tuple[int, int, int]:
        """(a's wins, b's wins, draws)."""
        a = sum(g.winner == t for g, t in zip(self.games, self.a_teams, strict=True))
        draws = sum(g.winner is None for g in self.games)
        return a, len(self.games) - a - draws, draws

    @property
    def a_score(self) -> float:
        """a's share of the games, draws counting half."""
        a, _, draws = self.wins
        return (a + 0.5 * draws) / len(self.games) if self.games else 0.0

    @property
    def points(self) -> tuple[int, int]:
        """Points scored over all games (a's, b's)."""
        a = sum(g.totals[t] for g, t in zip(self.games, self.a_teams, strict=True))
        b = sum(g.totals[1 - t] for g, t in zip(self.games, self.a_teams, strict=True))
        return a, b


def play_dc_match(
    a: DCBot,
    b: DCBot,
    games: int,
    config: DCGameConfig | None = None,
    seed: int = 0,
    progress: Callable[[int, int, DCGameResult], None] | None = None,
) -> DCMatchResult:
    """``games`` DC games of ``a`` against ``b``, alternating teams, seeded from ``seed``;
    ``progress(g, a_team, result)`` after each game."""
    results, teams = [], []
    for g, rng in enumerate(np.random.default_rng(seed).spawn(games)):
        a_team = g % 2
        bots = (a, b) if a_team == 0 else (b, a)
        results.append(play_dc_game(bots, config, rng))
        teams.append(a_team)
        if progress is not None:
            progress(g, a_team, results[-1])
    return DCMatchResult(a=a.name, b=b.name, games=tuple(results), a_teams=tuple(teams))

"""Headless games between bots, in-process: one game, a match, and the ladder of levels.

No server and no sockets: the engine (``Game.step``) throws the stones and the bots answer the
centre-line choice themselves. Seat 0 = Player1 throws first in end 1 (Player2 holds the hammer).

Randomness: ``play_game`` spawns three streams from its generator (seat 0's bot, seat 1's bot, the
ice), so a game is a pure function of the bots and the seed. ``play_match`` plays game ``g`` with
``numpy.random.default_rng([seed, g])`` and swaps seats every game: in even games bot ``a`` is
Player1 (throws first, no hammer in end 1), in odd games it is Player2.

Counting: a match is counted from ``a``'s view. ``win_rate`` counts a draw as half a win
(``game.score_rate``; NaN for a match of no games).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rllib_curling.bots.base import Bot
from rllib_curling.bots.levels import make_bot
from rllib_curling.game import (
    DEFAULT_ENDS,
    Game,
    GameConfig,
    GameState,
    Result,
    Transition,
    result_of,
    score_rate,
)

#: ``on_throw(transition, after, throw, ice)``: called after each throw with the state after it
#: (any centre-line choice applied) and a copy of the ice generator as it was before the throw
#: (``Game.step(transition.before, throw, ice)`` throws the same stone again, bit for bit).
OnThrow = Callable[[Transition, GameState, tuple[float, ...], np.random.Generator], None]

#: A ladder pair passes when the stronger level scores at least this (draws half).
LADDER_TARGET = 0.6


@dataclass(frozen=True)
class GameResult:
    """One finished game: ``players`` (names of seat 0, seat 1), ``(p1, p2)`` per end, totals."""

    players: tuple[str, str]
    end_scores: tuple[tuple[int, int], ...]
    shots: int
    centre_line_choices: tuple[str, ...] = ()

    @property
    def totals(self) -> tuple[int, int]:
        return (sum(s[0] for s in self.end_scores), sum(s[1] for s in self.end_scores))

    def result_for(self, seat: int) -> Result:
        """``Result.WIN``, ``LOSE`` or ``DRAW`` (``"WIN"``, ...) for ``seat``."""
        mine, theirs = self.totals if seat == 0 else self.totals[::-1]
        return result_of(mine, theirs)


def play_game(
    players: Sequence[Bot],
    config: GameConfig | None = None,
    rng: np.random.Generator | None = None,
    *,
    max_ends: int | None = None,
    on_shot: Callable[[GameState, tuple[float, ...]], None] | None = None,
    on_throw: OnThrow | None = None,
) -> GameResult:
    """Play one game: ``players[0]`` is Player1 (throws first in end 1), ``players[1]`` Player2.

    ``max_ends`` stops an unlimited game (``ends=-1``, required there) after that many ends.
    ``on_shot(state, throw)`` is called before each throw, ``on_throw`` (``OnThrow``) after it
    (``curling match --watch`` shows the game with it); neither changes the game.
    """
    config = config if config is not None else GameConfig()
    if config.unlimited and max_ends is None:
        raise ValueError("an unlimited game (ends=-1) needs max_ends")
    rng = rng if rng is not None else np.random.default_rng()
    bot_rngs = rng.spawn(2)
    ice = rng.spawn(1)[0]
    state = Game.init(config)
    shots, choices = 0, []
    while not state.is_terminal and (max_ends is None or len(state.end_scores) < max_ends):
        seat = state.next_seat
        throw = players[seat].choose(state, bot_rngs[seat])
        if on_shot is not None:
            on_shot(state, throw)
        ice_before = copy.deepcopy(ice) if on_throw is not None else None
        t = Game.step(state, throw, ice)
        shots += 1
        if t.centre_line_violation and t.fouled_seat is not None:
            choice = players[t.fouled_seat].centerline_choice(t)
            choices.append(choice)
            state = t.resolve(choice)
        else:
            state = t.state
        if on_throw is not None and ice_before is not None:
            on_throw(t, state, tuple(float(x) for x in throw), ice_before)
    return GameResult(
        players=(players[0].name, players[1].name),
        end_scores=state.end_scores,
        shots=shots,
        centre_line_choices=tuple(choices),
    )


@dataclass(frozen=True)
class MatchResult:
    """Games of ``a`` against ``b``, counted from ``a``'s view; ``a_seats[g]`` = a's seat in g."""

    a: str
    b: str
    ends: int
    seed: int
    games: tuple[GameResult, ...]
    a_seats: tuple[int, ...]

    @property
    def points(self) -> tuple[tuple[int, int], ...]:
        """(a's points, b's points) of each game."""
        pairs = zip((game.totals for game in self.games), self.a_seats, strict=True)
        return tuple(t if seat == 0 else (t[1], t[0]) for t, seat in pairs)

    @property
    def n(self) -> int:
        return len(self.games)

    @property
    def results(self) -> tuple[Result, ...]:
        """``a``'s result in each game."""
        return tuple(result_of(a, b) for a, b in self.points)

    @property
    def wins(self) -> int:
        return self.results.count(Result.WIN)

    @property
    def draws(self) -> int:
        return self.results.count(Result.DRAW)

    @property
    def losses(self) -> int:
        return self.results.count(Result.LOSE)

    @property
    def win_rate(self) -> float:
        """(wins + draws / 2) / games (``game.score_rate``: NaN for no games)."""
        return score_rate(self.wins, self.draws, self.n)

    @property
    def stderr(self) -> float:
        """Standard error of ``win_rate`` (per-game ``Result.points``: 1, 1/2, 0)."""
        if self.n < 2:
            return math.nan
        per_game = [r.points for r in self.results]
        return float(np.std(per_game, ddof=1) / math.sqrt(self.n))

    @property
    def mean_points(self) -> tuple[float, float]:
        """Mean points per game of ``a`` and of ``b``."""
        if not self.n:
            return (math.nan, math.nan)
        return tuple(float(np.mean([p[i] for p in self.points])) for i in (0, 1))  # type: ignore

    @property
    def mean_diff(self) -> float:
        """Mean of (a's points − b's points) per game."""
        pa, pb = self.mean_points
        return pa - pb

    def as_dict(self) -> dict[str, Any]:
        pa, pb = self.mean_points
        return {
            "a": self.a,
            "b": self.b,
            "games": self.n,
            "ends": self.ends,
            "seed": self.seed,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": self.win_rate,
            "win_rate_stderr": self.stderr,
            "mean_points_a": pa,
            "mean_points_b": pb,
            "mean_diff": self.mean_diff,
            "points": [list(p) for p in self.points],
            "a_seats": list(self.a_seats),
        }


def play_match(
    a: Bot,
    b: Bot,
    games: int,
    ends: int = DEFAULT_ENDS,
    seed: int = 0,
    *,
    start: int = 0,
    progress: Callable[[int, GameResult], None] | None = None,
    on_throw: Callable[[int], OnThrow | None] | None = None,
) -> MatchResult:
    """``games`` games of ``a`` against ``b``, numbered from ``start``; game ``g`` is seeded
    ``[seed, g]``, and ``a`` is Player1 in even games, Player2 in odd (so a long match can be
    played in slices, each with its own ``start``, and come out the same).

    ``progress(g, result)`` is called after each game; ``on_throw(g)`` gives game ``g``'s
    ``OnThrow`` (see ``play_game``).
    """
    config = GameConfig(ends=ends)
    results, seats = [], []
    for g in range(start, start + games):
        a_seat = g % 2
        players = (a, b) if a_seat == 0 else (b, a)
        hook = on_throw(g) if on_throw is not None else None
        result = play_game(players, config, np.random.default_rng([seed, g]), on_throw=hook)
        results.append(result)
        seats.append(a_seat)
        if progress is not None:
            progress(g, result)
    return MatchResult(
        a=a.name, b=b.name, ends=ends, seed=seed, games=tuple(results), a_seats=tuple(seats)
    )


@dataclass(frozen=True)
class LadderRow:
    """Level ``level`` against ``level - 1``."""

    level: int
    result: MatchResult
    seconds: float

    @property
    def passed(self) -> bool:
        return self.result.win_rate >= LADDER_TARGET

    def as_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "below": self.level - 1,
            "passed": self.passed,
            "seconds": self.seconds,
            **self.result.as_dict(),
        }


def run_ladder(
    levels: Iterable[int] = range(1, 9),
    games: int = 10,
    ends: int = DEFAULT_ENDS,
    seed: int = 0,
    *,
    progress: Callable[[int, int, GameResult, MatchResult | None], None] | None = None,
) -> list[LadderRow]:
    """Play each level ``n`` in ``levels`` against ``n - 1`` (``games`` games, seats alternating).

    ``progress(level, g, game, None)`` after each game, ``progress(level, games, game, match)``
    (with the finished match) after each pair.
    """
    import time

    rows = []
    for level in levels:
        start = time.perf_counter()

        def report(g: int, game: GameResult, level: int = level) -> None:
            if progress is not None:
                progress(level, g, game, None)

        upper, lower = make_bot(level), make_bot(level - 1)
        result = play_match(upper, lower, games, ends, seed, progress=report)
        rows.append(LadderRow(level=level, result=result, seconds=time.perf_counter() - start))
        if progress is not None and result.games:
            progress(level, games, result.games[-1], result)
    return rows

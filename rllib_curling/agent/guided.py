"""The search the network guides: noisy successive halving over the shot network's likeliest
shots, the opponent answering with the network's likeliest shots, positions judged by the
network's end-score head through the win table.

One turn (``GuidedSearch.judge``), for a network of the env's ``action="shots"``:

1. **Candidates**: the network's ``candidates`` likeliest legal shots (its prior).
2. **Visits**: a candidate is thrown with execution noise drawn afresh on every visit. After
   it, the opponent throws each of the network's ``replies`` likeliest answers (from its view,
   noise drawn afresh too) and keeps the one worst for us; the position after that answer is
   judged by the network (the chance to win of the end's score distribution, ``ShotJudge``).
   Where the end is over (our stone or the answer was its 16th) the end's score is exact and
   the win table turns it into the chance to win; a centre-line foul of ours counts as the
   worse of KEEP and RESET for us, as the opponent chooses.
3. **Halving**: every surviving candidate gets ``samples`` visits in the first round, the better
   half by mean value survives, the next round gives each twice as many, until one is left
   (16 candidates, 2 samples: 128 visits) or ``time_limit`` is spent (the best mean then).

``GuidedSearch`` is a ``Bot`` (``curling match``-style games in-process; ``agent.player`` for
a client on a server).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rllib_curling import observation, rules, sheet
from rllib_curling.aiming import shots
from rllib_curling.aiming.tables import ShotTables, shot_tables
from rllib_curling.bots.base import Bot, Throw, clamped_throw
from rllib_curling.errors import ConfigError
from rllib_curling.game import GameState
from rllib_curling.win_table import END_SCORES, ENDS_MAX, WinTable

LAST_STONE = sheet.STONES_PER_END - 1

#: ``judge(positions, view) -> (logits, win)``: the network over positions (M, 16, 2) seen by
#: ``view``'s player, who throws next: (M, N_SHOTS) logits and (M,) that player's chance to win.
Judge = Callable[[np.ndarray, "View"], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class GuidedSpec:
    """How hard the guided search looks (module docstring).

    | field          | what                                                                |
    |----------------|---------------------------------------------------------------------|
    | ``candidates`` | the network's likeliest legal shots searched                        |
    | ``samples``    | noisy visits of each candidate in the first round (doubled each     |
    |                | round as the candidates are halved)                                 |
    | ``replies``    | the opponent's likeliest answers thrown after each visit (0: the    |
    |                | position after our stone is judged by the network directly)         |
    | ``time_limit`` | seconds a turn; None: every round (reproducible for evaluation)     |
    """

    candidates: int = 16
    samples: int = 2
    replies: int = 4
    time_limit: float | None = None

    def __post_init__(self) -> None:
        if self.candidates < 1 or self.samples < 1 or self.replies < 0:
            raise ConfigError(f"guided search: candidates and samples must be at least 1 and "
                             f"replies at least 0, got {self}")  # fmt: skip
        if self.time_limit is not None and not self.time_limit > 0:
            raise ConfigError(f"guided search: time_limit must be positive, got {self.time_limit}")


@dataclass(frozen=True)
class View:
    """One player's view of positions in the current end, that player to throw stone ``shot``
    next: what the network's observation and the win table need."""

    shot: int
    end: int
    ends: int
    parity: int
    diff: int
    hammer: bool

    @classmethod
    def of(cls, state: GameState, seat: int, shot: int) -> View:
        mine, theirs = state.totals if seat == 0 else state.totals[::-1]
        return cls(shot, state.end, state.config.ends, state.seat_parity(seat), mine - theirs,
                   seat == state.hammer_seat)  # fmt: skip

    @property
    def ends_after(self) -> int:
        """Ends still to play after this one (unlimited games: the table's most)."""
        return self.ends - self.end - 1 if self.ends > 0 else ENDS_MAX

    def at(self, shot: int) -> View:
        """The same player's view, to throw ``shot``."""
        return View(shot, self.end, self.ends, self.parity, self.diff, self.hammer)

    def other(self, shot: int) -> View:
        """The opponent's view, the opponent to throw ``shot``."""
        return View(shot, self.end, self.ends, 1 - self.parity, -self.diff, not self.hammer)

    def win_by_score(self, table: WinTable) -> np.ndarray:
        """(N_SCORES,) this player's chance to win if the end scores ``END_SCORES[i]`` for it."""
        return table.after_end(self.diff, END_SCORES, self.ends_after, self.hammer)

    def end_over(self, positions: np.ndarray, table: WinTable) -> np.ndarray:
        """(M,) this player's chance to win once the end is over in ``positions``: exact."""
        score = rules.score_for_batch(positions, self.parity)
        return table.after_end(self.diff, score, self.ends_after, self.hammer)


class ShotJudge:
    """The shot network of a loaded policy (``agent.policy.LoadedPolicy``, ``action="shots"``)
    as a ``Judge``: one forward pass gives the logits and the end-score distribution, which
    the win table turns into the chance to win."""

    def __init__(self, net: object, table: WinTable) -> None:
        self.net = net
        self.table = table
        self.calls = 0
        self.rows = 0

    def __call__(self, positions: np.ndarray, view: View) -> tuple[np.ndarray, np.ndarray]:
        import torch

        obs = observation.encode_observations(
            positions, view.shot, view.end, view.ends, view.parity, view.diff
        )
        with torch.no_grad():
            logits, g = self.net(torch.from_numpy(obs.astype(np.float32)))  # type: ignore[operator]
            probs = torch.softmax(self.net.scores(g), -1).numpy()  # type: ignore[attr-defined]
        self.calls += 1
        self.rows += len(positions)
        win = probs.astype(np.float64) @ view.win_by_score(self.table)
        return logits.numpy().astype(np.float64), win


@dataclass(frozen=True)
class GuidedJudgement:
    """What the guided search found for one turn; values are the thrower's chances to win.

    | field        | shape | what                                                  |
    |--------------|-------|-------------------------------------------------------|
    | ``shots``    | (N,)  | the candidates (shot indices), likeliest first        |
    | ``throws``   | (N,4) | their throws                                          |
    | ``visits``   | (N,)  | noisy visits each got                                 |
    | ``mean``     | (N,)  | mean value over its visits                            |
    | ``best``     |       | the index into ``shots`` played                       |
    | ``rounds``   |       | halving rounds done                                   |
    """

    shots: np.ndarray
    throws: np.ndarray
    visits: np.ndarray
    mean: np.ndarray
    best: int
    rounds: int


class GuidedSearch(Bot):
    """The guided search (module docstring) with ``judge`` (``ShotJudge`` of a shot network)."""

    def __init__(
        self,
        judge: Judge,
        table: WinTable,
        spec: GuidedSpec | None = None,
        *,
        name: str = "guided search",
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.judge_positions = judge
        self.table = table
        self.spec = spec if spec is not None else GuidedSpec()
        self.name = name
        self.clock = clock

    def choose(self, state: GameState, rng: np.random.Generator) -> Throw:
        found = self.judge(state, rng)
        return clamped_throw(*found.throws[found.best])

    def judge(self, state: GameState, rng: np.random.Generator) -> GuidedJudgement:
        """Steps 1–3 of the module docstring for the player to throw ``state.shot``."""
        started = self.clock()
        spec, tables = self.spec, shot_tables()
        view = View.of(state, state.next_seat, state.shot)
        logits, _ = self.judge_positions(state.position[None], view)
        cands = _likeliest(logits[0], shots.legal_shots(state.position), spec.candidates)
        throws = shots.throws_of(cands, state.position, tables)
        sums, visits = np.zeros(len(cands)), np.zeros(len(cands), np.int64)
        alive, n, rounds = np.arange(len(cands)), spec.samples, 0
        while len(alive) > 1:
            reps = np.repeat(alive, n)
            np.add.at(sums, reps, self.visit(state, view, throws[reps], rng, tables))
            np.add.at(visits, reps, 1)
            rounds += 1
            mean = sums[alive] / visits[alive]
            alive = alive[np.argsort(-mean, kind="stable")[: math.ceil(len(alive) / 2)]]
            n *= 2
            if spec.time_limit is not None and self.clock() - started > spec.time_limit:
                break
        mean = np.divide(sums, np.maximum(visits, 1))
        best = int(alive[np.argmax(mean[alive])]) if rounds else 0
        return GuidedJudgement(np.asarray(cands), throws, visits, mean, best, rounds)

    def visit(
        self,
        state: GameState,
        view: View,
        throws: np.ndarray,
        rng: np.random.Generator,
        tables: ShotTables,
    ) -> np.ndarray:
        """(M,) our chance to win after each of ``throws`` (M, 4), thrown with fresh noise."""
        from rllib_curling import physics

        shot = state.shot
        result = physics.simulate_batch(state.position, shot, throws, rng, noise=True)
        positions, _, centre = rules.resolve_shot_batch(state.position, result.positions, shot)
        value = self.after_our_stone(view, positions, rng, tables)
        if centre.any():  # the opponent picks the worse of KEEP and RESET for us
            reset = rules.restored_position(state.position, shot)[None]
            worst = self.after_our_stone(view, reset, rng, tables)[0]
            value = np.where(centre, np.minimum(value, worst), value)
        return value

    def after_our_stone(
        self, view: View, positions: np.ndarray, rng: np.random.Generator, tables: ShotTables
    ) -> np.ndarray:
        """(M,) our chance to win in ``positions`` (M, 16, 2), our stone ``view.shot`` just
        thrown: exact at the end's last stone, else after the opponent's worst answer for us
        (or the network's judgement of the opponent's turn, without replies)."""
        from rllib_curling import physics

        shot = view.shot
        if shot >= LAST_STONE:
            return view.end_over(positions, self.table)
        theirs = view.other(shot + 1)
        logits, their_win = self.judge_positions(positions, theirs)
        r = self.spec.replies
        if r == 0:
            return 1.0 - their_win
        legal = shots.legal_shots(positions)  # (M, N_SHOTS)
        answers = np.concatenate([
            shots.throws_of(_likeliest(lg, ok, r, pad=True), p, tables)
            for p, lg, ok in zip(positions, logits, legal, strict=True)
        ])  # fmt: skip
        before = np.repeat(positions, r, axis=0)
        result = physics.simulate_batch(before, shot + 1, answers, rng, noise=True)
        after, _, _ = rules.resolve_shot_batch(before, result.positions, shot + 1)
        if shot + 1 >= LAST_STONE:
            ours = view.end_over(after, self.table)
        else:
            ours = self.judge_positions(after, view.at(shot + 2))[1]
        worst: np.ndarray = ours.reshape(len(positions), r).min(axis=1)
        return worst


def _likeliest(logits: np.ndarray, legal: np.ndarray, k: int, *, pad: bool = False) -> np.ndarray:
    """The indices of the ``k`` highest ``logits`` among the ``legal`` actions, highest first
    (``pad``: exactly ``k``, repeating the last when fewer are legal)."""
    masked = np.where(legal, logits, -np.inf)
    order = np.argsort(-masked, kind="stable")[: min(k, int(legal.sum()))]
    if pad and len(order) < k:
        order = np.concatenate([order, np.full(k - len(order), order[-1])])
    return order

"""Search bots, levels 5–8: simulate many candidate throws with the batch engine and keep the best.

One decision:

1. **Candidates** ``(N, 4)``: level 5 takes the 38 basic shot templates
   (``aiming.templates.BASIC_TEMPLATES``);
   levels 6–8 generate draws to a grid of points in the house, guards in the free guard zone,
   and hits on every stone in play (tap weight and firmer, straight on and thin on either side),
   each with both curls. A throw-away (``bots.DUMB_THROW``) is always among them.
2. **Screen**: every candidate once, noise off; outcomes go through ``rules.resolve_shot_batch``
   (free guard zone restore; a centre-line foul counts as the worse of KEEP and RESET for us).
3. **Re-judge** (level 8): the best ``top_k`` again with ``samples`` noisy throws each; the
   mean value decides.
4. **Reply** (levels 7, 8; a two-ply search): the best ``reply`` candidates are judged by the
   opponent's best answer among its own candidates (``REPLY_SPEC``, about 250 throws, noise
   off), each answer judged from the opponent's view; on our last stone before the opponent's
   hammer this is exact.

Values come from ``evaluation``: the heuristic expected end score (levels 5–7), or the chance to
win the game over its two branches (level 8).

| level | candidates                          | screen | re-judge   | replies     | ~sims/shot |
|-------|-------------------------------------|--------|------------|-------------|------------|
| 5     | every basic shot template           | yes    | —          | —           | 38         |
| 6     | ~120 draws, ~10 guards, 12 hits/stone, 2 spins | yes | —     | —           | ~250       |
| 7     | as 6                                | yes    | —          | best 3      | ~1000      |
| 8     | ~270 draws/guards, 40 hits/stone    | yes    | 12 × 6     | best 6      | ~2200      |
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rllib_curling import physics, rules, sheet
from rllib_curling.aiming.shots import legal_shots, shot_throws
from rllib_curling.aiming.tables import ShotTables, shot_tables
from rllib_curling.bots.base import DUMB_THROW, Bot, Throw, clamped_throw
from rllib_curling.bots.candidates import (
    SearchSpec,
    draw_candidates,
    hit_candidates,
    hit_candidates_batch,
    template_candidates,
)
from rllib_curling.bots.evaluation import EvalContext, end_branches, evaluate, win_value
from rllib_curling.game import GameState

SPECS: dict[int, SearchSpec] = {
    5: SearchSpec(templates=True),
    6: SearchSpec(),
    7: SearchSpec(reply=3),
    8: SearchSpec(
        draw_step=0.3,
        guard_ys=(6.8, 7.6, 8.6),
        hit_speeds=(0.0, 3.8, 4.6, 5.6),
        hit_offsets=(-0.2, -0.1, 0.0, 0.1, 0.2),
        top_k=12,
        samples=6,
        win_prob=True,
        reply=6,
    ),
}
#: The opponent's answers that levels 7 and 8 try against each of their best candidates.
REPLY_SPEC = SearchSpec()

#: ``leaf_value(state, positions, shot)``: (M,) chance to win (draws half) of the player who threw
#: stone ``shot`` (``state.shot`` or the next one) from ``state``, for positions ``(M, 16, 2)``
#: right after that stone stopped; a learned value (``agent.search``) the search blends in.
LeafValue = Callable[[GameState, np.ndarray, int], np.ndarray]
NAMES = {5: "template search", 6: "search", 7: "search with replies", 8: "deep search"}


@dataclass(frozen=True)
class Judgement:
    """What a search found for one turn (``SearchBot.judge``); values are the thrower's.

    | field         | shape  | what                                                         |
    |---------------|--------|--------------------------------------------------------------|
    | ``throws``    | (N, 4) | the candidates                                               |
    | ``screen``    | (N,)   | each candidate's value, thrown once without noise            |
    | ``top``       | (K,)   | the candidates re-judged under noise (step 3; empty without) |
    | ``top_mean``  | (K,)   | their mean value over ``samples`` noisy throws               |
    | ``top_se``    | (K,)   | the standard error of that mean                              |
    | ``order``     | (M,)   | the best candidates, best first: ``order[0]`` is played      |
    | ``replied``   | (R,)   | the value of ``order[:R]`` after the opponent's best answer  |
    |               |        | (step 4; empty without replies)                              |
    """

    throws: np.ndarray
    screen: np.ndarray
    top: np.ndarray
    top_mean: np.ndarray
    top_se: np.ndarray
    order: np.ndarray
    replied: np.ndarray


def outcomes(
    state: GameState, throws: np.ndarray, rng: np.random.Generator | None
) -> tuple[np.ndarray, np.ndarray]:
    """Positions after ``throws`` from ``state`` (rules applied) and their centre-line fouls."""
    from rllib_curling import physics

    noise = rng is not None
    result = physics.simulate_batch(state.position, state.shot, throws, rng, noise=noise)
    positions, _, centre = rules.resolve_shot_batch(state.position, result.positions, state.shot)
    return positions, centre


class SearchBot(Bot):
    """Levels 5–8 (``SPECS``)."""

    def __init__(
        self,
        level: int,
        spec: SearchSpec | None = None,
        *,
        leaf_value: LeafValue | None = None,
        value_weight: float = 0.0,
    ) -> None:
        if spec is None and level not in SPECS:
            raise ValueError(f"SearchBot levels are {sorted(SPECS)}, got {level!r}")
        if not 0.0 <= value_weight <= 1.0 or (value_weight > 0 and leaf_value is None):
            raise ValueError(
                f"value_weight must be in [0, 1] with a leaf_value, got {value_weight}"
            )
        self.level = level
        self.spec = spec if spec is not None else SPECS[level]
        self.name = NAMES.get(level, "search")
        self.leaf_value = leaf_value
        self.value_weight = value_weight
        self._draws: np.ndarray | None = None
        self._reply_draws: np.ndarray | None = None

    def candidates(self, state: GameState, tables: ShotTables) -> np.ndarray:
        """(N, 4) candidate throws for ``state`` (see the module docstring)."""
        spec = self.spec
        parity = state.seat_parity(state.next_seat)
        if spec.shots:  # the shot set: its throw-away is its last action
            every: np.ndarray = shot_throws(state.position, tables)
            legal: np.ndarray = every[legal_shots(state.position)]
            return legal
        if spec.templates:
            found = template_candidates(tables, state.position, parity)
        else:
            if self._draws is None:
                self._draws = draw_candidates(tables, spec)
            found = np.concatenate([self._draws, hit_candidates(tables, state.position, spec)])
        found = np.concatenate([found, np.array([DUMB_THROW])])
        return physics.clamp_throws(found)

    def values(
        self, state: GameState, throws: np.ndarray, rng: np.random.Generator | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Value of each throw's outcome (one noisy or noise-free sample) and the outcomes."""
        ctx = EvalContext.of(state)
        positions, centre = outcomes(state, throws, rng)
        value = evaluate(positions, ctx, simple=self.spec.simple, win_prob=self.spec.win_prob)
        value = self._blend(value, state, positions, state.shot)
        if centre.any():  # the opponent (fouled) picks the worse of KEEP and RESET for us
            reset = rules.restored_position(state.position, state.shot)[None]
            worst = evaluate(reset, ctx, simple=self.spec.simple, win_prob=self.spec.win_prob)
            value = np.where(centre, np.minimum(value, worst[0]), value)
        return value, positions

    def choose(self, state: GameState, rng: np.random.Generator) -> Throw:
        throws, order = self.rank(state, rng)
        return clamped_throw(*throws[order[0]])

    def rank(self, state: GameState, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """The candidates and the indices of the best ones, best first (steps 1–4 above)."""
        found = self.judge(state, rng)
        return found.throws, found.order

    def judge(self, state: GameState, rng: np.random.Generator) -> Judgement:
        """Steps 1–4 above, with every value the search computed on the way (``Judgement``)."""
        tables = shot_tables()
        spec = self.spec
        throws = self.candidates(state, tables)
        value, positions = self.values(state, throws, None)
        order = np.argsort(-value, kind="stable")
        top: np.ndarray = np.zeros(0, np.int64)
        mean: np.ndarray = np.zeros(0)
        se: np.ndarray = np.zeros(0)
        if spec.top_k and spec.samples:
            top = order[: spec.top_k]
            noisy, _ = self.values(state, np.repeat(throws[top], spec.samples, axis=0), rng)
            noisy = noisy.reshape(len(top), spec.samples)
            mean = noisy.mean(axis=1)
            se = noisy.std(axis=1, ddof=1) / np.sqrt(spec.samples) if spec.samples > 1 else 0 * mean
            order = top[np.argsort(-mean, kind="stable")]
        replied: np.ndarray = np.zeros(0)
        if spec.reply and state.shot < sheet.STONES_PER_END - 1:
            order, replied = self._by_replies(state, tables, order[: spec.reply], positions, rng)
        return Judgement(throws, value, top.astype(np.int64), mean, se, order, replied)

    def _blend(
        self, value: np.ndarray, state: GameState, positions: np.ndarray, shot: int
    ) -> np.ndarray:
        """``value`` (the thrower of ``shot``'s) blended with the learned ``leaf_value``; the end's
        last stone keeps the hand-written value (the end's score is known there)."""
        if self.value_weight == 0.0 or shot >= sheet.STONES_PER_END - 1:
            return value
        assert self.leaf_value is not None
        learned = self.leaf_value(state, positions, shot)
        return (1.0 - self.value_weight) * value + self.value_weight * learned

    def _by_replies(
        self,
        state: GameState,
        tables: ShotTables,
        top: np.ndarray,
        positions: np.ndarray,
        rng: np.random.Generator,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``top`` re-ordered by their value after the opponent's best answer (noise off; with
        ``reply_samples``, its best ``reply_top`` answers judged again under noise), and those
        values in the new order."""
        from rllib_curling import physics

        ctx = EvalContext.of(state)
        theirs = dataclasses.replace(
            ctx, parity=1 - ctx.parity, n_left=ctx.n_left - 1, hammer=not ctx.hammer, diff=-ctx.diff
        )
        ours = dataclasses.replace(ctx, n_left=ctx.n_left - 1)
        if self._reply_draws is None:
            self._reply_draws = draw_candidates(tables, REPLY_SPEC)
        befores: list[np.ndarray] = []
        throws: list[np.ndarray] = []
        owners: list[np.ndarray] = []
        hits = hit_candidates_batch(tables, positions[top], REPLY_SPEC)
        for i, k in enumerate(top):
            answers = np.concatenate([self._reply_draws, hits[i], [DUMB_THROW]])
            befores.append(np.broadcast_to(positions[k], (len(answers), 16, 2)))
            throws.append(answers)
            owners.append(np.full(len(answers), i))
        before, owner = np.concatenate(befores), np.concatenate(owners)
        answers = np.concatenate(throws)

        def after_answers(before: np.ndarray, answers: np.ndarray, noisy: bool) -> np.ndarray:
            """Our value after each answer (``answers[i]`` thrown on ``before[i]``)."""
            after = physics.simulate_batch(
                before, state.shot + 1, answers, rng if noisy else None, noise=noisy
            )
            final, _, _ = rules.resolve_shot_batch(before, after.positions, state.shot + 1)
            values, probs = end_branches(final, theirs)
            if not self.spec.win_prob:
                points: np.ndarray = -(values * probs).sum(-1)
                return points
            ours_now = win_value(-values, probs, ours)
            if self.value_weight == 0.0:
                return ours_now
            return 1.0 - self._blend(1.0 - ours_now, state, final, state.shot + 1)

        value = after_answers(before, answers, noisy=False)
        worst = np.full(len(top), np.inf)
        spec = self.spec
        if spec.reply_top and spec.reply_samples:
            # Each candidate's best answers by the noise-free value, then judged under noise.
            picked = np.concatenate(
                [
                    np.flatnonzero(owner == i)[np.argsort(value[owner == i], kind="stable")][
                        : spec.reply_top
                    ]
                    for i in range(len(top))
                ]
            )
            reps = spec.reply_samples
            noisy = after_answers(
                np.repeat(before[picked], reps, axis=0), np.repeat(answers[picked], reps, axis=0),
                noisy=True,
            ).reshape(len(picked), reps).mean(axis=1)  # fmt: skip
            np.minimum.at(worst, owner[picked], noisy)
        else:
            np.minimum.at(worst, owner, value)
        ranked = np.argsort(-worst, kind="stable")
        return top[ranked], worst[ranked]

"""Search DC bots, levels 5–8: simulate candidate shots on the fcv1 ice and keep the best.

1. **Screen**: every candidate (``candidates``: draws over a grid of the house, guards, hits on
   each stone, both rotations, a throw-away) is thrown once with noise off (``physics.fcv1
   .simulate_batch``), DC's rules applied (``dc_rules.resolve_shot_batch``), and valued.
2. **Re-judge** (levels 6–8): the best ``top_k`` are thrown again ``samples`` times each under
   DC's noise (``NORMAL_DIST``); the mean value decides.
3. **Reply** (levels 7, 8; a second ply): the best ``reply`` candidates (as they lie after the
   noise-free throw) are each judged by the opponent's best answer among its own candidates
   (``REPLY_SPEC``, level 5's, ~135 + 4 a stone, noise off): the value after the answer that is
   worst for us. Skipped on the end's last stone; on the stone before it the answer is the hammer.
   A spec with ``reply_top`` and ``reply_samples`` (no level's; the agent's wider searches)
   throws the opponent's best ``reply_top`` answers again ``reply_samples`` times under noise,
   and the worst mean value decides: an answer that needs a perfect throw counts as it lands.

Values (the thrower's): ``candidates.judge``, the end's score if it ended now plus a little per
stone in the house (levels 5–7, and level 8 before the end's last two stones), or
``candidates.win_judge``, the chance to win the game if the end ended so, from DC's win table
(``dc_win_table``; level 8 on stones 14 and 15, where with the reply the end's score is known).
Level 8 valuing every stone by the chance to win tied level 7 5–5 (10 games); the score now is a
poor guess of the end's score early in the end, and the chance to win flattens the house stones
that ``judge`` counts.

| level | draw grid | guards | hit weights (m/s) | offsets (m)    | re-judge | replies | value |
|-------|-----------|--------|-------------------|----------------|----------|---------|-------|
| 5     | 0.45 m    | 6      | 0.6, 3.0          | 0              | —        | —       | score |
| 6     | 0.3 m     | 10     | 0.6, 1.8, 3.0     | −0.08, 0, 0.08 | 8 × 8    | —       | score |
| 7     | as 6      | as 6   | as 6              | as 6           | 8 × 8    | best 3  | score |
| 8     | 0.25 m    | 21     | 0.6, 1.2, 1.8, 3  | −0.1 … 0.1 (5) | 12 × 10  | best 6  | win¹  |

¹ the chance to win on the end's last two stones, the score before them. Hit weights are speeds
at contact. Both rotations of each; a throw-away too. Level 5 throws about
135 + 4 per stone in play, level 6 about 295 + 18 per stone, then 64 noisy throws; level 7 as 6,
then about 3 × (135 + 4 a stone); level 8 about 380 + 40 per stone, 120 noisy throws, then about
6 × (135 + 4 a stone).

Every candidate is a shot of a ``DCShotLayout`` (``candidates.shot_layout(spec)``), so a search
says which layout index it threw: ``judge(state, rng)`` gives a ``DCJudgement`` (the index, the
noise-free value of every legal shot, the release). ``over_layout(spec)`` is the same level
searching another layout, e.g. the DC env's (``dc_env.config.DC_SHOTS_SPEC``): its choice is then
an action of that env, which is how ``curling dataset --ice dc`` labels its rows.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from rllib_curling import dc_sheet
from rllib_curling.dc_aiming import DCShotTables, dc_shot_tables
from rllib_curling.dc_bots.base import TY, DCBot, DCShot, bot_rng, clamped_shot
from rllib_curling.dc_bots.candidates import (
    DCSearchSpec,
    candidates,
    judge,
    outcomes,
    shot_layout,
    win_judge,
)
from rllib_curling.dc_game import DCGameState

_LEVEL_6 = DCSearchSpec(
    draw_step=0.3,
    guard_xs=(-0.8, -0.3, 0.0, 0.3, 0.8),
    guard_ys=(TY - 4.2, TY - 3.0),
    hit_speeds=(0.6, 1.8, 3.0),
    hit_offsets=(-0.08, 0.0, 0.08),
    top_k=8,
    samples=8,
)
DC_SEARCH_SPECS: dict[int, DCSearchSpec] = {
    5: DCSearchSpec(),
    6: _LEVEL_6,
    7: dataclasses.replace(_LEVEL_6, reply=3),
    8: DCSearchSpec(
        draw_step=0.25,
        guard_xs=(-0.9, -0.6, -0.3, 0.0, 0.3, 0.6, 0.9),
        guard_ys=(TY - 4.8, TY - 4.0, TY - 3.0),
        hit_speeds=(0.6, 1.2, 1.8, 3.0),
        hit_offsets=(-0.1, -0.05, 0.0, 0.05, 0.1),
        top_k=12,
        samples=10,
        reply=6,
        win_prob=True,
        win_from_shot=dc_sheet.SHOTS_PER_END - 2,
    ),
}
#: The opponent's answers that levels 7 and 8 try against each of their best candidates.
REPLY_SPEC = DC_SEARCH_SPECS[5]
NAMES = {
    5: "dc search",
    6: "dc search under noise",
    7: "dc search with replies",
    8: "dc deep search",
}


@dataclasses.dataclass(frozen=True)
class DCJudgement:
    """What a search decided: ``index`` (the layout index of the shot it threw), ``values``
    (``(n,)`` float32: every legal shot's noise-free value, ``SearchDCBot.value``; NaN where
    illegal) and ``shot`` (the release, ``clamped_shot``)."""

    index: int
    values: np.ndarray
    shot: DCShot


class SearchDCBot(DCBot):
    """Levels 5–8 (``DC_SEARCH_SPECS``); ``spec`` replaces the level's (``over_layout``)."""

    level: int

    def __init__(self, level: int, spec: DCSearchSpec | None = None) -> None:
        if level not in DC_SEARCH_SPECS:
            raise ValueError(f"SearchDCBot levels are {sorted(DC_SEARCH_SPECS)}, got {level!r}")
        self.level = level
        self.spec = DC_SEARCH_SPECS[level] if spec is None else spec
        self.name = NAMES[level]

    def over_layout(self, layout: DCSearchSpec) -> SearchDCBot:
        """This level searching the shots of ``layout`` (how it searches kept: its re-judging
        under noise, its replies, its values)."""
        own = self.spec
        spec = dataclasses.replace(
            layout, top_k=own.top_k, samples=own.samples, reply=own.reply,
            reply_top=own.reply_top, reply_samples=own.reply_samples,
            win_prob=own.win_prob, win_from_shot=own.win_from_shot,
        )  # fmt: skip
        return SearchDCBot(self.level, spec)

    def value(
        self, state: DCGameState, positions: np.ndarray, after: int | None = None
    ) -> np.ndarray:
        """(N,) values for the thrower of stone ``state.shot`` of positions after stone
        ``after`` of this end (default ``state.shot``; ``state.shot + 1`` for the opponent's
        replies). These values read the stones alone; a learned value needs ``after``."""
        spec = self.spec
        if spec.win_prob and state.shot >= spec.win_from_shot:
            return win_judge(state, positions)
        return judge(state, positions)

    def choose(self, state: DCGameState, rng: np.random.Generator | None = None) -> DCShot:
        return self.judge(state, rng).shot

    def judge(self, state: DCGameState, rng: np.random.Generator | None = None) -> DCJudgement:
        """The search of this turn: the shot it throws and its layout index (``DCJudgement``)."""
        shots, order, values = self._rank(state, rng)
        best = int(order[0])
        layout = shot_layout(self.spec)
        legal = np.flatnonzero(layout.legal(state.position))  # candidate i is index legal[i]
        screen = np.full(layout.n, np.nan, np.float32)
        screen[legal] = values
        return DCJudgement(int(legal[best]), screen, clamped_shot(shots[best]))

    def rank(
        self, state: DCGameState, rng: np.random.Generator | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The candidates ``(N, 3)`` and the indices of the best ones, best first (steps 1–3)."""
        shots, order, _ = self._rank(state, rng)
        return shots, order

    def _rank(
        self, state: DCGameState, rng: np.random.Generator | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``rank``, and the candidates' noise-free values."""
        spec, tables = self.spec, dc_shot_tables()
        noise = bot_rng(rng)
        shots = candidates(tables, state.position, spec)
        positions = outcomes(state, shots)
        values = self.value(state, positions)
        order = np.argsort(-values, kind="stable")
        if spec.top_k and spec.samples:
            top = order[: spec.top_k]
            repeated = np.repeat(shots[top], spec.samples, axis=0)
            noisy = self.value(state, outcomes(state, repeated, noise))
            mean = noisy.reshape(len(top), spec.samples).mean(axis=1)
            order = top[np.argsort(-mean, kind="stable")]
        if spec.reply and state.shot < dc_sheet.SHOTS_PER_END - 1:
            order = self._by_replies(state, tables, order[: spec.reply], positions, noise)
        return shots, order, values

    def _by_replies(
        self, state: DCGameState, tables: DCShotTables, top: np.ndarray, positions: np.ndarray,
        noise: np.random.Generator,
    ) -> np.ndarray:  # fmt: skip
        """``top`` re-ordered by our value after the opponent's best answer (noise off; with
        ``reply_top`` and ``reply_samples``, its best answers judged again under noise)."""
        spec = self.spec
        worst = np.empty(len(top))
        for i, k in enumerate(top):
            theirs = dataclasses.replace(state, position=positions[k], shot=state.shot + 1)
            answers = candidates(tables, positions[k], REPLY_SPEC)
            ours = self.value(state, outcomes(theirs, answers), state.shot + 1)
            if spec.reply_top and spec.reply_samples:
                best = answers[np.argsort(ours, kind="stable")[: spec.reply_top]]
                repeated = np.repeat(best, spec.reply_samples, axis=0)
                noisy = self.value(state, outcomes(theirs, repeated, noise), state.shot + 1)
                ours = noisy.reshape(len(best), spec.reply_samples).mean(axis=1)
            worst[i] = ours.min()
        return top[np.argsort(-worst, kind="stable")]

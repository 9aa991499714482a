"""Search DC bots, levels 5 and 6: simulate candidate shots on the fcv1 ice and keep the best.

One ply: every candidate (``candidates``: draws over a grid of the house, guards, hits on each
stone, both rotations, a throw-away) is thrown once with noise off (``physics.fcv1
.simulate_batch``), DC's rules applied (``dc_rules.resolve_shot_batch``), and valued by
``candidates.judge`` (the end's score if it ended now, from the thrower's view, plus a little
per stone in the house). Level 6 then throws its best ``top_k`` again ``samples`` times each under
DC's noise (``NORMAL_DIST``) and keeps the best mean.

| level | draw grid | guards | hit weights (m/s at contact) | offsets (m)    | noise re-judge |
|-------|-----------|--------|------------------------------|----------------|----------------|
| 5     | 0.45 m    | 6      | 0.6, 3.0                     | 0              | —              |
| 6     | 0.3 m     | 10     | 0.6, 1.8, 3.0                | −0.08, 0, 0.08 | best 8 × 8     |

Both rotations of each; a throw-away too. Level 5 throws about 135 + 4 per stone in play, level 6
about 295 + 18 per stone, then 64 noisy throws.

Every candidate is a shot of a ``DCShotLayout`` (``candidates.shot_layout(spec)``), so a search
says which layout index it threw: ``judge(state, rng)`` gives a ``DCJudgement`` (the index, the
noise-free value of every legal shot, the release). ``over_layout(spec)`` is the same level
searching another layout, e.g. the DC env's (``dc_env.config.DC_SHOTS_SPEC``): its choice is then
an action of that env, which is how ``curling dataset --ice dc`` labels its rows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from rllib_curling.dc_aiming import dc_shot_tables
from rllib_curling.dc_bots.base import TY, DCBot, DCShot, bot_rng, finish
from rllib_curling.dc_bots.candidates import (
    DCSearchSpec,
    candidates,
    judge,
    outcomes,
    shot_layout,
)
from rllib_curling.dc_game import DCGameState

DC_SEARCH_SPECS: dict[int, DCSearchSpec] = {
    5: DCSearchSpec(),
    6: DCSearchSpec(
        draw_step=0.3,
        guard_xs=(-0.8, -0.3, 0.0, 0.3, 0.8),
        guard_ys=(TY - 4.2, TY - 3.0),
        hit_speeds=(0.6, 1.8, 3.0),
        hit_offsets=(-0.08, 0.0, 0.08),
        top_k=8,
        samples=8,
    ),
}


@dataclass(frozen=True)
class DCJudgement:
    """What a search decided: ``index`` (the layout index of the shot it threw), ``values``
    (``(n,)`` float32: every legal shot's noise-free value, ``candidates.judge``; NaN where
    illegal) and ``shot`` (the release, ``finish``ed)."""

    index: int
    values: np.ndarray
    shot: DCShot


class SearchDCBot(DCBot):
    """Levels 5 and 6 (``DC_SEARCH_SPECS``); ``spec`` replaces the level's (``over_layout``)."""

    def __init__(self, level: int, spec: DCSearchSpec | None = None) -> None:
        if level not in DC_SEARCH_SPECS:
            raise ValueError(f"SearchDCBot levels are {sorted(DC_SEARCH_SPECS)}, got {level!r}")
        self.level = level
        self.spec = DC_SEARCH_SPECS[level] if spec is None else spec
        self.name = "dc search" if self.spec.samples == 0 else "dc search under noise"

    def over_layout(self, layout: DCSearchSpec) -> SearchDCBot:
        """This level searching the shots of ``layout`` (its re-judge under noise kept)."""
        spec = replace(layout, top_k=self.spec.top_k, samples=self.spec.samples)
        return SearchDCBot(self.level, spec)

    def choose(self, state: DCGameState, rng: np.random.Generator | None = None) -> DCShot:
        return self.judge(state, rng).shot

    def judge(self, state: DCGameState, rng: np.random.Generator | None = None) -> DCJudgement:
        """The search of this turn: the shot it throws and its layout index (``DCJudgement``)."""
        spec = self.spec
        shots = candidates(dc_shot_tables(), state.position, spec)
        values = judge(state, outcomes(state, shots))
        if spec.top_k and spec.samples:
            top = np.argsort(-values, kind="stable")[: spec.top_k]
            repeated = np.repeat(shots[top], spec.samples, axis=0)
            noisy = judge(state, outcomes(state, repeated, bot_rng(rng)))
            best = top[int(np.argmax(noisy.reshape(len(top), spec.samples).mean(axis=1)))]
        else:
            best = int(np.argmax(values))
        layout = shot_layout(spec)
        legal = np.flatnonzero(layout.legal(state.position))  # candidate i is index legal[i]
        screen = np.full(layout.n, np.nan, np.float32)
        screen[legal] = values
        return DCJudgement(int(legal[best]), screen, finish(shots[best]))

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
"""

from __future__ import annotations

import numpy as np

from rllib_curling.dc_aiming import dc_shot_tables
from rllib_curling.dc_bots.base import TY, DCBot, DCShot, bot_rng, finish
from rllib_curling.dc_bots.candidates import DCSearchSpec, candidates, judge, outcomes
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


class SearchDCBot(DCBot):
    """Levels 5 and 6 (``DC_SEARCH_SPECS``)."""

    def __init__(self, level: int) -> None:
        if level not in DC_SEARCH_SPECS:
            raise ValueError(f"SearchDCBot levels are {sorted(DC_SEARCH_SPECS)}, got {level!r}")
        self.level = level
        self.spec = DC_SEARCH_SPECS[level]
        self.name = "dc search" if self.spec.samples == 0 else "dc search under noise"

    def choose(self, state: DCGameState, rng: np.random.Generator | None = None) -> DCShot:
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
        return finish(shots[best])

"""Candidate shots of the searching DC bots (level 4's last stone, levels 5–8): draws to a
grid of house points, guards, hits on every stone in play at a few weights and offsets, both
rotations, and a throw-away; and how they are judged, from the thrower's view with DC's rules
applied: ``judge`` (the end's score after the shot, levels 4–7) or ``win_judge`` (the chance to
win the game once the end scores that, from DC's win table, level 8).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rllib_curling import dc_rules, dc_sheet, dc_win_table
from rllib_curling.dc_aiming import DCShotTables
from rllib_curling.dc_bots.base import DUMB_SHOT, TX, TY, signed_score, thrower_parity
from rllib_curling.dc_game import DCGameState
from rllib_curling.physics.fcv1 import NORMAL_DIST, NoiseModel, simulate_batch

ROTATIONS = (1.0, -1.0)
#: Value of one more stone of the thrower's (minus the opponent's) in the house, beside the score.
HOUSE_STONE_VALUE = 0.1
#: Weight of ``judge`` beside the chance to win in ``win_judge`` (prefers points once decided).
WIN_TIEBREAK = 0.01


@dataclass(frozen=True)
class DCSearchSpec:
    """How many candidates: the draw grid's spacing (m) over the house, the guard points, the hit
    weights (speed at contact, m/s) and sideways offsets (m) of the aim on the target."""

    draw_step: float = 0.45
    guard_xs: tuple[float, ...] = (-0.8, 0.0, 0.8)
    guard_ys: tuple[float, ...] = (TY - 4.2, TY - 3.0)
    hit_speeds: tuple[float, ...] = (0.6, 3.0)
    hit_offsets: tuple[float, ...] = (0.0,)
    #: Re-judge the best ``top_k`` under DC's noise with ``samples`` throws each (0: no).
    top_k: int = 0
    samples: int = 0
    #: Judge the best ``reply`` by the opponent's best answer (a second ply, noise off; 0: no).
    reply: int = 0
    #: Values are the chance to win the game (``dc_win_table``), not the end's score, for the
    #: stones from ``win_from_shot`` on (before it the end's score now says little of the end's).
    win_prob: bool = False
    win_from_shot: int = 0


def draw_candidates(tables: DCShotTables, spec: DCSearchSpec) -> np.ndarray:
    """(N, 3) draws to the house grid and the guard points, each rotation."""
    r = np.arange(-1.8, 1.8 + 1e-9, spec.draw_step)
    gx, gy = np.meshgrid(r, r)
    keep = np.hypot(gx, gy) < dc_sheet.HOUSE_SCORE_RADIUS
    xs = np.concatenate([TX + gx[keep], np.repeat(spec.guard_xs, len(spec.guard_ys))])
    ys = np.concatenate([TY + gy[keep], np.tile(spec.guard_ys, len(spec.guard_xs))])
    return np.concatenate([tables.draws(xs, ys, rot) for rot in ROTATIONS])


def hit_candidates(tables: DCShotTables, position: np.ndarray, spec: DCSearchSpec) -> np.ndarray:
    """(N, 3) hits on every stone in play: each weight, offset and rotation."""
    stones = np.asarray(position)[dc_rules.in_play(position)]
    if len(stones) == 0:
        return np.zeros((0, 3))
    out = []
    for dx in spec.hit_offsets:
        for s in spec.hit_speeds:
            for rot in ROTATIONS:
                out.append(tables.hits(stones[:, 0] + dx, stones[:, 1], s, rot))
    return np.concatenate(out)


def candidates(tables: DCShotTables, position: np.ndarray, spec: DCSearchSpec) -> np.ndarray:
    """All candidates of ``spec``: draws, guards, hits and the throw-away."""
    return np.concatenate(
        [draw_candidates(tables, spec), hit_candidates(tables, position, spec), [DUMB_SHOT]]
    )


def outcomes(
    state: DCGameState,
    shots: np.ndarray,
    rng: np.random.Generator | None = None,
    noise: NoiseModel = NORMAL_DIST,
) -> np.ndarray:
    """(N, 16, 2) positions after each shot from ``state``, DC's rules applied (out of play
    removed, guard-rule fouls restored); with ``rng``, DC's noise on each shot."""
    team = state.next_team
    assert team is not None  # a bot is asked only when a team throws
    bodies = np.concatenate(dc_rules.to_teams(state.position, state.first_team))
    slot = team * dc_sheet.STONES_PER_TEAM + state.shot // 2
    batch = simulate_batch(bodies, slot, shots, rng, noise=noise)
    rows = dc_rules.from_teams(batch.positions[:, :8], batch.positions[:, 8:], state.first_team)
    positions, _ = dc_rules.resolve_shot_batch(state.position, rows, state.shot, state.config.rule)
    return positions


def judge(state: DCGameState, positions: np.ndarray) -> np.ndarray:
    """(N,) values of positions after the shot for the thrower: the end's score if it ended now,
    plus ``HOUSE_STONE_VALUE`` per stone of the thrower's in the house (minus the opponent's)."""
    parity = thrower_parity(state)
    house = dc_rules.in_house(positions)
    mine = house[..., parity::2].sum(axis=-1)
    theirs = house[..., 1 - parity :: 2].sum(axis=-1)
    return signed_score(positions, parity) + HOUSE_STONE_VALUE * (mine - theirs)


def win_judge(state: DCGameState, positions: np.ndarray) -> np.ndarray:
    """(N,) chance to win for the thrower (draws ½) if the end ended with positions as they lie
    (``dc_win_table``: the match score, the ends after this one, who had the hammer), plus
    ``WIN_TIEBREAK`` × ``judge``."""
    team = state.next_team
    assert team is not None  # a bot is asked only when a team throws
    totals = state.totals
    diff = totals[team] - totals[1 - team]
    ends_after = max(state.config.standard_end_count - state.end - 1, 0)
    score = signed_score(positions, thrower_parity(state))
    table = dc_win_table.load()
    win = table.after_end(diff, score, ends_after, team == state.hammer_team)
    return np.asarray(win + WIN_TIEBREAK * judge(state, positions))

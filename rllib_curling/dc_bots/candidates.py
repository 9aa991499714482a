"""Candidate shots of the searching DC bots (level 4's last stone, levels 5–8): draws to a
grid of house points, guards, hits on every stone in play at a few weights and offsets, both
rotations, and a throw-away; and how they are judged, from the thrower's view with DC's rules
applied: ``judge`` (the end's score after the shot, levels 4–7) or ``win_judge`` (the chance to
win the game once the end scores that, from DC's win table, level 8).

``DCShotLayout`` lays a ``DCSearchSpec``'s shots out at fixed indices (hits on each of the 16
stone rows, legal only when that stone is in play): the searching bots throw its legal shots
(``candidates``), and the DC env's ``action="shots"`` (``rllib_curling.dc_env``) takes its
indices as actions. Layout order, index 0 first:

| block      | entries                                                                   |
|------------|---------------------------------------------------------------------------|
| draws      | each rotation (+1 then −1): the house grid (``draw_step``), then the      |
|            | guard points (``guard_xs`` × ``guard_ys``)                                |
| hits       | each offset, weight, rotation (+1 then −1): stone rows 0–15               |
| throw-away | ``DUMB_SHOT`` (the last index)                                            |
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
    #: With ``reply``: the opponent's best ``reply_top`` answers (noise off) are judged again from
    #: ``reply_samples`` noisy throws each, and the worst mean decides (0: the noise-free best).
    reply_top: int = 0
    reply_samples: int = 0
    #: Values are the chance to win the game (``dc_win_table``), not the end's score, for the
    #: stones from ``win_from_shot`` on (before it the end's score now says little of the end's).
    win_prob: bool = False
    win_from_shot: int = 0


def draw_targets(spec: DCSearchSpec) -> tuple[np.ndarray, np.ndarray]:
    """``(xs, ys)`` of the draws of one rotation: the house grid, then the guard points."""
    r = np.arange(-1.8, 1.8 + 1e-9, spec.draw_step)
    gx, gy = np.meshgrid(r, r)
    keep = np.hypot(gx, gy) < dc_sheet.HOUSE_SCORE_RADIUS
    xs = np.concatenate([TX + gx[keep], np.repeat(spec.guard_xs, len(spec.guard_ys))])
    ys = np.concatenate([TY + gy[keep], np.tile(spec.guard_ys, len(spec.guard_xs))])
    return xs, ys


def draw_candidates(tables: DCShotTables, spec: DCSearchSpec) -> np.ndarray:
    """(N, 3) draws to the house grid and the guard points, each rotation."""
    xs, ys = draw_targets(spec)
    return np.concatenate([tables.draws(xs, ys, rot) for rot in ROTATIONS])


class DCShotLayout:
    """The shots of a ``DCSearchSpec`` at fixed indices (module table): ``n`` of them.

    ``throws(tables, position)`` gives all of them for a position (hits on stones not in play
    are the throw-away there), ``legal(position)`` which are legal (every draw, guard and the
    throw-away; a hit only when its stone is in play), ``throw(index, tables, position)`` one.
    ``describe(index)`` names a shot; ``mirror`` maps each index to its left-right mirror image
    (x → −x: the other rotation, the opposite offset).
    """

    def __init__(self, spec: DCSearchSpec) -> None:
        self.spec = spec
        xs, ys = draw_targets(spec)
        self.draw_xy = np.stack([xs, ys], axis=1)
        n_draw = len(xs)
        #: (D, 3) per draw: x, y, rotation (rotations in ``ROTATIONS`` order, blocks of n_draw).
        self.draws = np.concatenate([np.column_stack([xs, ys, np.full(n_draw, r)])
                                     for r in ROTATIONS])  # fmt: skip
        hits = [(dx, s, rot, row) for dx in spec.hit_offsets for s in spec.hit_speeds
                for rot in ROTATIONS for row in range(dc_sheet.SHOTS_PER_END)]  # fmt: skip
        #: (H, 4) per hit: offset dx, weight (m/s at contact), rotation, stone row.
        self.hits = np.asarray(hits, dtype=np.float64).reshape(-1, 4)
        self.n_draws, self.n_hits = len(self.draws), len(self.hits)
        self.n = self.n_draws + self.n_hits + 1
        self.throw_away = self.n - 1
        self._draw_throws: np.ndarray | None = None
        self.mirror = self._mirror()

    def _mirror(self) -> np.ndarray:
        """(n,) index of each shot's mirror image; draws and offsets without one map to
        themselves (a grid symmetric about x = 0 has them all)."""
        out = np.arange(self.n)
        keys = {(round(x, 6), round(y, 6), r): k for k, (x, y, r) in enumerate(self.draws)}
        for k, (x, y, r) in enumerate(self.draws):
            out[k] = keys.get((round(-x + 2 * TX, 6), round(y, 6), -r), k)
        hit_keys = {(round(dx, 6), s, r, int(row)): k
                    for k, (dx, s, r, row) in enumerate(self.hits)}  # fmt: skip
        for k, (dx, s, r, row) in enumerate(self.hits):
            twin = hit_keys.get((round(-dx, 6), s, -r, int(row)), k)
            out[self.n_draws + k] = self.n_draws + twin
        return out

    def draw_throws(self, tables: DCShotTables) -> np.ndarray:
        """(D, 3) releases of the draws (the same in every position; computed once)."""
        if self._draw_throws is None:
            xs, ys = self.draw_xy[:, 0], self.draw_xy[:, 1]
            self._draw_throws = np.concatenate([tables.draws(xs, ys, rot) for rot in ROTATIONS])
        return self._draw_throws

    def legal(self, position: np.ndarray) -> np.ndarray:
        """(n,) bool: the shots that make sense in ``position`` (a hit needs its stone in play)."""
        on = dc_rules.in_play(np.asarray(position, dtype=np.float64))
        hits = on[self.hits[:, 3].astype(int)]
        return np.concatenate([np.ones(self.n_draws, bool), hits, [True]])

    def throws(
        self, tables: DCShotTables, position: np.ndarray, only_legal: bool = False
    ) -> np.ndarray:
        """(n, 3) releases of every shot in ``position`` (a hit on an absent stone: the
        throw-away); with ``only_legal``, the legal ones alone, in layout order."""
        position = np.asarray(position, dtype=np.float64)
        legal = self.legal(position)
        hits = np.tile(np.asarray(DUMB_SHOT, dtype=np.float64), (self.n_hits, 1))
        for k in np.flatnonzero(legal[self.n_draws : self.n_draws + self.n_hits]):
            hits[k] = self._hit(int(k), tables, position)
        out = np.concatenate([self.draw_throws(tables), hits, [DUMB_SHOT]])
        return out[legal] if only_legal else out

    def throw(self, index: int, tables: DCShotTables, position: np.ndarray) -> np.ndarray:
        """(3,) the release of shot ``index`` in ``position`` (an absent stone's hit: the
        throw-away)."""
        if not 0 <= index < self.n:
            raise IndexError(f"shot index must be in 0..{self.n - 1}, got {index}")
        if index < self.n_draws:
            return np.asarray(self.draw_throws(tables)[index], dtype=np.float64)
        if index == self.throw_away or not self.legal(position)[index]:
            return np.asarray(DUMB_SHOT, dtype=np.float64)
        return self._hit(index - self.n_draws, tables, np.asarray(position, dtype=np.float64))

    def _hit(self, k: int, tables: DCShotTables, position: np.ndarray) -> np.ndarray:
        dx, speed, rot, row = self.hits[k]
        x, y = position[int(row)]
        return np.asarray(tables.hits(x + dx, y, speed, rot)[0], dtype=np.float64)

    def describe(self, index: int) -> str:
        """A shot in words, e.g. ``"draw to (0.25, 38.41) ccw"`` or ``"hit row 3 at 3.0 m/s
        offset -0.08 cw"``."""
        if index == self.throw_away:
            return "throw-away"
        if index < self.n_draws:
            x, y, r = self.draws[index]
            return f"draw to ({x:.2f}, {y:.2f}) {'ccw' if r > 0 else 'cw'}"
        dx, s, r, row = self.hits[index - self.n_draws]
        return f"hit row {int(row)} at {s:g} m/s offset {dx:+g} {'ccw' if r > 0 else 'cw'}"


_LAYOUTS: dict[DCSearchSpec, DCShotLayout] = {}


def shot_layout(spec: DCSearchSpec) -> DCShotLayout:
    """The ``DCShotLayout`` of ``spec`` (one per spec and process: its draws are aimed once)."""
    if spec not in _LAYOUTS:
        _LAYOUTS[spec] = DCShotLayout(spec)
    return _LAYOUTS[spec]


def candidates(tables: DCShotTables, position: np.ndarray, spec: DCSearchSpec) -> np.ndarray:
    """All candidates of ``spec`` in ``position``: draws, guards, hits on every stone in play
    and the throw-away (``DCShotLayout``'s legal shots)."""
    return shot_layout(spec).throws(tables, position, only_legal=True)


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
    return np.asarray(signed_score(positions, parity) + HOUSE_STONE_VALUE * (mine - theirs))


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

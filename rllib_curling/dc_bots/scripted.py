"""Rule-based DC bots, levels 3 and 4: a few curling rules of thumb, aimed with the fcv1 tables.

A path is "open" when the free path of a shot passes every stone in play in front of its target
by at least ``BLOCK_DX`` (``DCShotTables.clearance``). Level 3 never simulates; level 4 only for
the hammer's last stone.

Level 3: when the opponent lies shot, take its shot stone out (``TAKEOUT_SPEED`` at contact,
the rotation whose path is open); otherwise draw to the button, or to the top of the four-foot
when we already lie near the button.

Level 4 adds:

| situation                                  | shot                                          |
|--------------------------------------------|-----------------------------------------------|
| guard-rule shots (0–4), no hammer          | a centre guard, then draws to the button      |
| guard-rule shots (0–4), hammer             | draws to the sides of the house               |
| we lie shot, stones to come, unguarded     | guard our shot stone                          |
| the hammer's last stone                    | the draw or hit that scores most: a small     |
|                                            | noise-free search (``LAST_STONE_SPEC``)       |
"""

from __future__ import annotations

import numpy as np

from rllib_curling import dc_rules, dc_sheet
from rllib_curling.dc_aiming import DCShotTables, dc_shot_tables
from rllib_curling.dc_bots.base import (
    TX,
    TY,
    DCBot,
    DCShot,
    DCStones,
    bot_rng,
    clamped_shot,
    thrower_parity,
)
from rllib_curling.dc_bots.candidates import DCSearchSpec, candidates, judge, outcomes
from rllib_curling.dc_game import DCGameState

#: A free path passing a stone's centre nearer than this (m) is blocked by it.
BLOCK_DX = 2 * dc_sheet.STONE_RADIUS - 0.01
TAKEOUT_SPEED = 3.0
CENTRE_GUARD = (TX, TY - 4.2)
#: A guard stands this far (m) in front of the stone it covers.
GUARD_GAP = 2.8
SIDE_DRAW = 0.8
LAST_STONE_SPEC = DCSearchSpec(draw_step=0.3, guard_xs=(), guard_ys=(), hit_speeds=(0.6, 3.0))


def path_open(
    tables: DCShotTables, stones: DCStones, shot: object, target: tuple[float, float],
    skip: tuple[int, ...] = (),
) -> bool:  # fmt: skip
    """True when the free path of ``shot`` passes every stone in front of ``target``."""
    others = stones.others(*skip)
    reach = np.hypot(*target) - 0.05
    others = others[np.hypot(others[:, 0], others[:, 1]) < reach]
    return bool(np.all(tables.clearance(shot, others) >= BLOCK_DX)) if len(others) else True


def open_draw(
    tables: DCShotTables, stones: DCStones, x: float, y: float, rng: np.random.Generator
) -> tuple[DCShot, bool]:
    """A draw to (x, y) with an open path if either rotation has one (random first choice)."""
    first = 1.0 if rng.random() < 0.5 else -1.0
    options = [tables.draw(x, y, s) for s in (first, -first)]
    for shot in options:
        if path_open(tables, stones, shot, (x, y)):
            return clamped_shot(shot), True
    return clamped_shot(options[0]), False


def open_hit(
    tables: DCShotTables, stones: DCStones, k: int, speed: float, rng: np.random.Generator
) -> tuple[DCShot, bool]:
    """A hit on stone row ``k`` at ``speed`` with an open path if either rotation has one."""
    x, y = stones.xy(k)
    first = 1.0 if rng.random() < 0.5 else -1.0
    options = [tables.hit(x, y, speed, s) for s in (first, -first)]
    for shot in options:
        if path_open(tables, stones, shot, (x, y), skip=(k,)):
            return clamped_shot(shot), True
    return clamped_shot(options[0]), False


def free_spot(stones: DCStones, x: float, y: float) -> bool:
    """No stone in play within two stone radii (plus a margin) of (x, y)."""
    others = stones.others()
    d = np.hypot(others[:, 0] - x, others[:, 1] - y)
    return bool(np.all(d > 2 * dc_sheet.STONE_RADIUS + 0.1))


def last_stone(tables: DCShotTables, state: DCGameState) -> DCShot:
    """The hammer's last stone: the candidate that scores most, noise off."""
    shots = candidates(tables, state.position, LAST_STONE_SPEC)
    return clamped_shot(shots[int(np.argmax(judge(state, outcomes(state, shots))))])


class RulesDCBot(DCBot):
    """Levels 3 (takeout or draw) and 4 (rules of thumb with guards and open paths)."""

    def __init__(self, level: int) -> None:
        if level not in (3, 4):
            raise ValueError(f"RulesDCBot levels are 3 and 4, got {level!r}")
        self.level = level
        self.name = "dc takeout or draw" if level == 3 else "dc rules of thumb"

    def choose(self, state: DCGameState, rng: np.random.Generator | None = None) -> DCShot:
        rng = bot_rng(rng)
        tables = dc_shot_tables()
        stones = DCStones(state.position, thrower_parity(state))
        if self.level == 3:
            return self._simple(tables, stones, rng)
        return self._rules(tables, stones, state, rng)

    def _simple(self, tables: DCShotTables, stones: DCStones, rng: np.random.Generator) -> DCShot:
        if stones.they_lie_shot:
            return open_hit(tables, stones, stones.their_house[0], TAKEOUT_SPEED, rng)[0]
        if stones.my_house and stones.best(stones.my_house) < 0.4:
            return open_draw(tables, stones, TX, TY - 1.0, rng)[0]
        return open_draw(tables, stones, TX, TY, rng)[0]

    def _rules(
        self, tables: DCShotTables, stones: DCStones, state: DCGameState, rng: np.random.Generator
    ) -> DCShot:
        hammer = state.next_team == state.hammer_team
        if state.shot == dc_sheet.SHOTS_PER_END - 1:
            return last_stone(tables, state)
        if state.shot < dc_rules.GUARD_SHOTS and not stones.they_lie_shot:
            return self._early(tables, stones, hammer, rng)
        if stones.they_lie_shot:  # drawing inside instead lost 15-5 to level 3 (20 games)
            return open_hit(tables, stones, stones.their_house[0], TAKEOUT_SPEED, rng)[0]
        if stones.we_lie_shot:
            return self._protect(tables, stones, rng)
        return open_draw(tables, stones, TX, TY, rng)[0]

    def _early(
        self, tables: DCShotTables, stones: DCStones, hammer: bool, rng: np.random.Generator
    ) -> DCShot:
        if not hammer:
            mine = stones.position[stones.mine].reshape(-1, 2)
            centre_guards = dc_rules.in_guard_zone(mine) & (np.abs(mine[:, 0] - TX) < 0.5)
            if not centre_guards.any():
                return clamped_shot(tables.draw(*CENTRE_GUARD, 1.0 if rng.random() < 0.5 else -1.0))
            return open_draw(tables, stones, TX, TY, rng)[0]
        for side in rng.permutation([-1.0, 1.0]):
            x, y = TX + SIDE_DRAW * side, TY - 0.2
            shot, ok = open_draw(tables, stones, x, y, rng)
            if ok and free_spot(stones, x, y):
                return shot
        return open_draw(tables, stones, TX, TY, rng)[0]

    def _protect(self, tables: DCShotTables, stones: DCStones, rng: np.random.Generator) -> DCShot:
        bx, by = stones.xy(stones.my_house[0])
        others = stones.others(stones.my_house[0])
        covered = (np.abs(others[:, 0] - bx) < 0.25) & (others[:, 1] < by - 0.3)
        if not covered.any():
            shot, ok = open_draw(tables, stones, bx, min(by - GUARD_GAP, TY - 2.3), rng)
            if ok:
                return shot
        return open_draw(tables, stones, TX, TY - 0.9, rng)[0]

"""Rule-based bots, levels 3 and 4: a few curling rules of thumb, aimed with the shot tables.

A throw is aimed with ``aiming.tables.shot_tables()`` and a path is "open" when the free path of
the throw passes no stone in play in front of its target by less than ``BLOCK_DX`` (``path_x``).
Level 3 never simulates; level 4 only for the hammer's last stone.

Level 3 (simple): when the opponent lies shot, take its shot stone out (curl chosen so the path is
open); otherwise draw to the button, or to the top of the four-foot when we already lie on it.

Level 4 adds, by situation of the thrower:

| situation                      | throw                                                         |
|--------------------------------|---------------------------------------------------------------|
| free guard zone phase, no hammer | a centre guard, then draws around it                        |
| free guard zone phase, hammer  | draws to the sides of the house (keeps the centre open)       |
| opponent shot, path open       | take it out (4.5 m/s); else draw around the guard to the tee  |
| opponent shot, > 0.9 m out     | draw to the button when the path is open                      |
| opponent shot, guarded, no draw| a raise: tap the guard onto it                                 |
| we lie shot                    | guard it when it is open and stones remain; else a second stone |
|                                | on the open side                                               |
| our (the hammer's) last stone  | the draw, hit or throw-away that scores most: a small search   |
|                                | (~300 throws, noise off); the only simulation level 4 does     |
"""

from __future__ import annotations

import numpy as np

from rllib_curling import rules, sheet
from rllib_curling.aiming.tables import ShotTables, path_x, shot_tables
from rllib_curling.bots.base import DUMB_THROW, Bot, Throw, clamped_throw, my_parity
from rllib_curling.bots.candidates import SearchSpec, draw_candidates, hit_candidates
from rllib_curling.game import GameState
from rllib_curling.positions import StoneView

TX, TY = sheet.TEE
#: A free path passing a stone's centre closer than this (m) is blocked by it.
BLOCK_DX = 0.28
SPIN = np.pi / 2
TAKEOUT_V = 4.5
#: A raise is thrown at the speed of a draw stopping this far (m) behind the shot stone, plus
#: RAISE_EXTRA_SPEED to carry the guard onto it.
RAISE_DEPTH = 1.2
RAISE_EXTRA_SPEED = 0.6
CENTRE_GUARD = (TX, 7.8)
GUARD_GAP = 2.6
#: When the opponent's shot stone is farther than this from the tee, draw inside it instead.
DRAW_INSIDE = 0.9


#: Level 4's last stone tries these draws and hits, noise off (see ``bots_search``).
LAST_STONE_SPEC = SearchSpec(draw_step=0.3, guard_xs=(), guard_ys=(), hit_speeds=(0.0, 4.5))


class Stones(StoneView):
    """The thrower's and the opponent's stones in play on the platform's sheet, nearest to the
    tee first (``positions.StoneView`` with the platform's rules)."""

    def __init__(self, position: np.ndarray, parity: int) -> None:
        position = np.asarray(position, dtype=np.float64)
        dist, house = rules.distance_to_tee(position), rules.in_house(position)
        super().__init__(position, parity, dist, house)


def path_open(
    tables: ShotTables,
    stones: Stones,
    throw: tuple[float, float, float],
    y_end: float,
    skip: tuple[int, ...] = (),
) -> bool:
    """True when the free path of ``throw`` passes every stone in front of ``y_end``."""
    pos = stones.position
    rows = [k for k in stones.mine + stones.theirs if k not in skip and pos[k, 1] > y_end + 0.05]
    if not rows:
        return True
    v, h, w = throw
    px = path_x(tables, v, h, w, pos[rows, 1])
    return bool(np.all(np.abs(px - pos[rows, 0]) >= BLOCK_DX))


def open_draw(
    tables: ShotTables, stones: Stones, x: float, y: float, rng: np.random.Generator
) -> tuple[Throw, bool]:
    """A draw to (x, y) with an open path if either curl has one (random first choice)."""
    first = 1.0 if rng.random() < 0.5 else -1.0
    options = [tables.draw(x, y, s * SPIN) for s in (first, -first)]
    for throw in options:
        if path_open(tables, stones, throw, y):
            return clamped_throw(*throw), True
    return clamped_throw(*options[0]), False


def open_hit(
    tables: ShotTables, stones: Stones, k: int, v: float, rng: np.random.Generator
) -> tuple[Throw, bool]:
    """A hit on stone ``k`` at speed ``v`` with an open path if either curl has one."""
    x, y = stones.xy(k)
    first = 1.0 if rng.random() < 0.5 else -1.0
    options = [tables.hit(x, y, v, s * SPIN) for s in (first, -first)]
    for throw in options:
        if path_open(tables, stones, throw, y, skip=(k,)):
            return clamped_throw(*throw), True
    return clamped_throw(*options[0]), False


def free_spot(stones: Stones, x: float, y: float) -> bool:
    """No stone in play within two stone radii (plus a margin) of (x, y)."""
    rows = stones.mine + stones.theirs
    if not rows:
        return True
    d = np.hypot(stones.position[rows, 0] - x, stones.position[rows, 1] - y)
    return bool(np.all(d > 2 * sheet.STONE_RADIUS + 0.1))


class RulesBot(Bot):
    """Levels 3 (simple rules) and 4 (rules with guards and open-path checks)."""

    def __init__(self, level: int) -> None:
        if level not in (3, 4):
            raise ValueError(f"RulesBot levels are 3 and 4, got {level!r}")
        self.level = level
        self.name = "takeout or draw" if level == 3 else "rules of thumb"

    def choose(self, state: GameState, rng: np.random.Generator) -> Throw:
        tables = shot_tables()
        stones = Stones(state.position, my_parity(state))
        if self.level == 3:
            return self._simple(tables, stones, rng)
        return self._rules(tables, stones, state, rng)

    def _simple(self, tables: ShotTables, stones: Stones, rng: np.random.Generator) -> Throw:
        if stones.they_lie_shot:
            return open_hit(tables, stones, stones.their_house[0], TAKEOUT_V, rng)[0]
        if stones.my_house and stones.best(stones.my_house) < 0.4:
            return open_draw(tables, stones, TX, TY + 1.0, rng)[0]
        return open_draw(tables, stones, TX, TY, rng)[0]

    def _rules(
        self, tables: ShotTables, stones: Stones, state: GameState, rng: np.random.Generator
    ) -> Throw:
        hammer = state.next_seat == state.hammer_seat
        if state.shot == sheet.STONES_PER_END - 1:
            return last_stone(tables, state)
        if state.shot <= sheet.RULE_LAST_SHOT - 1 and not stones.they_lie_shot:
            return self._early(tables, stones, hammer, rng)
        if stones.they_lie_shot:
            return self._attack(tables, stones, rng)
        if stones.we_lie_shot:
            return self._protect(tables, stones, state.shot, rng)
        return open_draw(tables, stones, TX, TY, rng)[0]

    def _early(
        self, tables: ShotTables, stones: Stones, hammer: bool, rng: np.random.Generator
    ) -> Throw:
        if not hammer:
            pos = stones.position[stones.mine]
            has_guard = np.any(rules.in_free_guard_zone(pos) & (np.abs(pos[:, 0] - TX) < 0.5))
            if not has_guard:
                return clamped_throw(
                    *tables.draw(*CENTRE_GUARD, SPIN * (1 if rng.random() < 0.5 else -1))
                )
            return open_draw(tables, stones, TX, TY, rng)[0]
        for side in rng.permutation([-1.0, 1.0]):
            x, y = TX + 0.75 * side, TY + 0.2
            throw, ok = open_draw(tables, stones, x, y, rng)
            if ok and free_spot(stones, x, y):
                return throw
        return open_draw(tables, stones, TX, TY, rng)[0]

    def _attack(self, tables: ShotTables, stones: Stones, rng: np.random.Generator) -> Throw:
        """They lie shot: take it out, or draw inside a shot stone far from the tee."""
        target = stones.their_house[0]
        d_them = stones.best(stones.their_house)
        draw, draw_ok = open_draw(tables, stones, TX, TY, rng)
        if draw_ok and d_them > DRAW_INSIDE:
            return draw
        throw, ok = open_hit(tables, stones, target, TAKEOUT_V, rng)
        if ok:
            return throw
        if draw_ok and d_them > 0.3:
            return draw
        tx, ty = stones.xy(target)
        guards = [k for k in stones.mine + stones.theirs if abs(stones.position[k, 0] - tx) < 0.3]
        guards = [k for k in guards if stones.position[k, 1] > ty + 0.2]
        if guards:  # raise the nearest guard onto the shot stone
            k = min(guards, key=lambda g: stones.position[g, 1])
            gx, gy = stones.xy(k)
            v = tables.draw_speed(ty - RAISE_DEPTH, SPIN) + RAISE_EXTRA_SPEED
            return clamped_throw(*tables.hit(gx, gy, min(v, 5.0), SPIN))
        return throw

    def _protect(
        self, tables: ShotTables, stones: Stones, shot: int, rng: np.random.Generator
    ) -> Throw:
        best = stones.my_house[0]
        bx, by = stones.xy(best)
        covered = np.abs(stones.position[stones.mine + stones.theirs, 0] - bx) < 0.25
        covered &= stones.position[stones.mine + stones.theirs, 1] > by + 0.3
        if not covered.any():
            gy = float(np.clip(by + GUARD_GAP, TY + 2.3, 9.8))
            throw, ok = open_draw(tables, stones, bx, gy, rng)
            if ok:
                return throw
        for side in (1.0, -1.0) if bx < TX else (-1.0, 1.0):
            x, y = TX + 0.55 * side, TY + 0.3
            if free_spot(stones, x, y):
                throw, ok = open_draw(tables, stones, x, y, rng)
                if ok:
                    return throw
        return open_draw(tables, stones, TX, TY + 0.9, rng)[0]


def last_stone(tables: ShotTables, state: GameState) -> Throw:
    """The hammer's last stone: the draw, hit or throw-away that scores most (noise off)."""
    from rllib_curling import physics

    spec = LAST_STONE_SPEC
    throws = np.concatenate(
        [draw_candidates(tables, spec), hit_candidates(tables, state.position, spec), [DUMB_THROW]]
    )
    after = physics.simulate_batch(state.position, state.shot, throws, None, noise=False)
    mine = rules.score_for_batch(rules.remove_out_of_play(after.positions), my_parity(state))
    return clamped_throw(*throws[int(np.argmax(mine))])

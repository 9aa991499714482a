"""Built-in opponents: a ladder of bots, levels 0–8 (protocol.md §2, keys ``:0`` … ``:8``).

A bot picks the throw of the seat to play next, ``state.next_seat``; it is pure (all randomness
comes from the ``numpy.random.Generator`` passed in), so the server calls it in-process::

    bot = make_bot(5)
    v, h, w, sweep = bot.choose(state, rng)

| level | module        | what it does                                                          |
|-------|---------------|-----------------------------------------------------------------------|
| 0     | bots          | the platform's "dumb robot": every stone stops short of the hog line  |
| 1     | bots          | random throws over useful ranges (speed, offset, spin)                |
| 2     | bots          | draws to the button with a random curl (two precomputed throws)       |
| 3     | bots_rules    | takes out the opponent's shot stone, otherwise draws to the button    |
| 4     | bots_rules    | rules: guards, draws around guards, open-path checks, raises, guarding |
|       |               | its shot stone; searches its last stone with the hammer (noise off)   |
| 5     | bots_search   | tries the env's 52 shot templates (noise off), position heuristic     |
| 6     | bots_search   | ~250 generated draws, guards and hits (noise off), position heuristic |
| 7     | bots_search   | as 6, then its best 3 against the opponent's best reply (two-ply)     |
| 8     | bots_search   | ~600 candidates, best 12 re-judged under noise (6 samples each), best |
|       |               | 6 against the opponent's best reply; values = chance to win the game  |

Throws are ``(v, h, w, sweep)`` (architecture.md): speed m/s, release offset m, spin rad/s
(positive curls toward +x), sweep metres (the bots never sweep: 0). Positions are ``(16, 2)`` in
throwing order; the thrower owns the rows of parity ``state.seat_parity(state.next_seat)``.

Aiming uses the lead's free-path tables (``shots.shot_tables()``, built once per process);
``path_x`` below is their vectorised form (many throws and lines at once).
"""

from __future__ import annotations

import numpy as np

from rllib_curling import sheet, shots
from rllib_curling.game import GameState, Transition
from rllib_curling.shots import ShotTables

Throw = tuple[float, float, float, float]

#: A stone stopping here (short of the far hog line) is removed: the dumb robot's throw.
DUMB_THROW: Throw = (1.5, 0.0, 0.0, 0.0)
#: Level 1 draws each throw uniformly from these ranges; the spin's sign is random too.
RANDOM_V = (2.4, 5.0)
RANDOM_H = (-1.2, 1.2)
RANDOM_W = (0.5, np.pi)
#: Level 2's curl (either sign).
BUTTON_SPIN = np.pi / 2
LEVELS = tuple(range(9))


class Bot:
    """A built-in opponent. Subclasses set ``level`` and ``name`` and implement ``choose``."""

    level: int = -1
    name: str = "bot"

    def choose(self, state: GameState, rng: np.random.Generator) -> Throw:
        """The throw ``(v, h, w, sweep)`` of stone ``state.shot`` for ``state.next_seat``."""
        raise NotImplementedError

    def centerline_choice(self, transition: Transition) -> str:
        """``"RESET"`` or ``"KEEP"`` after the opponent broke the centre-line rule against us.

        The default compares the two positions by the score they would give now (from the fouled
        seat's view) and resets on a tie: the foul removed or moved our guard, so RESET (which
        also removes the opponent's stone) is rarely worse.
        """
        if transition.reset_state is None or transition.fouled_seat is None:
            return "RESET"
        parity = transition.before.seat_parity(transition.fouled_seat)
        keep = signed_score(transition.state.position, parity)
        reset = signed_score(transition.reset_state.position, parity)
        return "KEEP" if keep > reset else "RESET"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(level={self.level})"


# --- helpers shared by the levels ----------------------------------------------------------------


def my_parity(state: GameState) -> int:
    """Row parity of the stones of the seat about to throw."""
    return state.seat_parity(state.next_seat)


def signed_score(position: np.ndarray, parity: int) -> int:
    """Points of the end if it ended now, from the view of the team owning rows ``parity``."""
    from rllib_curling import rules

    even, odd = rules.score_end(position)
    return (even - odd) if parity == 0 else (odd - even)


def finish(v: float, h: float, w: float, sweep: float = 0.0) -> Throw:
    """Clamp to the platform's ranges and return plain floats."""
    return (
        float(np.clip(v, 0.0, sheet.V_MAX)),
        float(np.clip(h, -sheet.H_MAX, sheet.H_MAX)),
        float(np.clip(w, -sheet.W_MAX, sheet.W_MAX)),
        float(np.clip(sweep, 0.0, 12.0)),
    )


def _grid_index(grid: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower cell index and fraction of ``value`` on a regular ``grid`` (clamped)."""
    value = np.clip(value, grid[0], grid[-1])
    i = np.clip(np.searchsorted(grid, value) - 1, 0, len(grid) - 2)
    return i, (value - grid[i]) / (grid[i + 1] - grid[i])


def path_x(
    tables: ShotTables, v: np.ndarray, h: np.ndarray, w: np.ndarray, y: np.ndarray
) -> np.ndarray:
    """x of the free path of throws (v, h, w) where its centre crosses line ``y`` (broadcast).

    Where the stone stops before the line, its resting x. Vectorised ``shots.ShotTables.lateral``.
    """
    v, h, w, y = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (v, h, w, y)))
    iv, fv = _grid_index(shots.V_GRID, v)
    iw, fw = _grid_index(shots.W_GRID, w)
    iy, fy = _grid_index(shots.Y_GRID, y)
    rest_y = np.where(np.isfinite(tables.rest_y), tables.rest_y, -100.0)

    def bilinear(table: np.ndarray, *tail: np.ndarray) -> np.ndarray:
        out = 0.0
        for dv, wv in ((0, 1 - fv), (1, fv)):
            for dw, ww in ((0, 1 - fw), (1, fw)):
                out = out + wv * ww * table[(iv + dv, iw + dw, *tail)]
        return out

    path = (1 - fy) * bilinear(tables.drift, iy) + fy * bilinear(tables.drift, iy + 1)
    stops_before = y < bilinear(rest_y)
    lateral = np.where(stops_before, bilinear(tables.rest_drift), path)
    return sheet.RELEASE_X + h + lateral


def aim_h(
    tables: ShotTables, x: np.ndarray, y: np.ndarray, v: np.ndarray, w: np.ndarray
) -> np.ndarray:
    """Offsets ``h`` whose free paths (v, w) pass through (x, y) (vectorised ``aim``)."""
    drift = path_x(tables, v, 0.0, w, y) - sheet.RELEASE_X
    return np.clip(np.asarray(x) - sheet.RELEASE_X - drift, -sheet.H_MAX, sheet.H_MAX)


# --- levels 0-2 ----------------------------------------------------------------------------------


class DumbBot(Bot):
    """Level 0, the platform's debug robot: every stone stops short of the hog line (removed)."""

    level = 0
    name = "dumb robot"

    def choose(self, state: GameState, rng: np.random.Generator) -> Throw:
        return DUMB_THROW


class RandomBot(Bot):
    """Level 1: speed, offset and spin uniform over ``RANDOM_V``, ``RANDOM_H``, ``±RANDOM_W``."""

    level = 1
    name = "random"

    def choose(self, state: GameState, rng: np.random.Generator) -> Throw:
        v, h, w, sign = rng.uniform(
            (RANDOM_V[0], RANDOM_H[0], RANDOM_W[0], -1.0),
            (RANDOM_V[1], RANDOM_H[1], RANDOM_W[1], 1.0),
        )
        return finish(v, h, w if sign >= 0 else -w)


class ButtonBot(Bot):
    """Level 2: draws to the button, curling either way at random (two precomputed throws)."""

    level = 2
    name = "draw to the button"

    def __init__(self) -> None:
        self._throws: tuple[Throw, Throw] | None = None

    def throws(self) -> tuple[Throw, Throw]:
        """The two button draws (spin +, spin −), computed once from the shot tables."""
        if self._throws is None:
            tables = shots.shot_tables()
            self._throws = tuple(
                finish(*tables.draw(sheet.TEE_X, sheet.TEE_Y, s * BUTTON_SPIN)) for s in (1, -1)
            )
        return self._throws

    def choose(self, state: GameState, rng: np.random.Generator) -> Throw:
        plus, minus = self.throws()
        return plus if rng.random() < 0.5 else minus


def make_bot(level: int) -> Bot:
    """The built-in bot of ``level`` (0–8); ``ValueError`` listing the valid levels otherwise."""
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or level not in LEVELS:
        raise ValueError(f"bot level must be one of {list(LEVELS)}, got {level!r}")
    level = int(level)
    if level <= 2:
        return (DumbBot, RandomBot, ButtonBot)[level]()
    if level <= 4:
        from rllib_curling.bots_rules import RulesBot

        return RulesBot(level)
    from rllib_curling.bots_search import SearchBot

    return SearchBot(level)

"""Action maps of ``CurlingEnv``: from an agent's action to a throw ``(v, h, w, sweep)``.

Both maps aim with ``shots.shot_tables()`` (free-path tables built with the engine), so an action
means a place on the sheet rather than raw release numbers.

**Continuous** (``Box(-1, 1, (3,))``, or ``(4,)`` with sweep):

| index | name   | map                                                                        |
|-------|--------|----------------------------------------------------------------------------|
| 0     | weight | a ≤ 0.6: a draw that stops at y = 10.0 (a = −1, a long guard) … 2.9 (a = 0.6, |
|       |        | back of the house), linear in y; a > 0.6: hit weight, v linear from the     |
|       |        | back-of-house draw speed (≈ 3.3 m/s) to 6.0 m/s at a = 1                    |
| 1     | aim x  | x = 2.375 + 2.0 · a: where the path crosses y_aim (the stopping line of a   |
|       |        | draw, the tee line for hit weights); h follows from the free-path table     |
| 2     | spin   | w = π · a rad/s (positive curls toward +x; ±π curls about 0.8 m)           |
| 3     | sweep  | (only with ``sweep=True``) sweep distance (a + 1) / 2 · 12 m               |

**Discrete** (``Discrete(len(TEMPLATES))``): shot templates, each with both curls (``w+`` curls
toward +x, ``w-`` toward −x; |w| = π/2). "opp k" is the k-th nearest opponent stone in play to
the tee (0 = nearest); when it does not exist the template draws to the button instead.

| names                                          | what it does                                  |
|------------------------------------------------|-----------------------------------------------|
| draw button, draw 4ft front/back/left/right,   | draw to that point of the house               |
| draw 8ft front/left/right, draw 12ft front     |                                               |
| guard centre, long guard centre,               | stop in the free guard zone                   |
| corner guard left/right                        |                                               |
| takeout opp 0..3                               | hit opp k at 4.5 m/s (removes it, usually)    |
| tap opp 0..1                                   | a draw-weight hit nudging opp k about 1 m back |
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rllib_curling import sheet
from rllib_curling.shots import ShotTables

Throw = tuple[float, float, float, float]

DRAW_Y_LONG = 10.0
DRAW_Y_BACK = 2.9
WEIGHT_SPLIT = 0.6
AIM_X_RANGE = 2.0
SPIN_SCALE = float(np.pi)
SWEEP_MAX = 12.0
TEMPLATE_SPIN = float(np.pi / 2)
TAKEOUT_SPEED = 4.5
TAP_DEPTH = 1.0


def continuous_throw(action: np.ndarray, tables: ShotTables) -> Throw:
    """Map a continuous action in [-1, 1]^3 (or ^4 with sweep) to a throw (v, h, w, sweep)."""
    a = np.clip(np.asarray(action, dtype=np.float64).ravel(), -1.0, 1.0)
    w = SPIN_SCALE * a[2]
    x = sheet.CENTRE_X + AIM_X_RANGE * a[1]
    if a[0] <= WEIGHT_SPLIT:
        y_stop = DRAW_Y_LONG + (a[0] + 1.0) / (WEIGHT_SPLIT + 1.0) * (DRAW_Y_BACK - DRAW_Y_LONG)
        v = tables.draw_speed(y_stop, w)
        y_aim = y_stop
    else:
        v_back = tables.draw_speed(DRAW_Y_BACK, w)
        v = v_back + (a[0] - WEIGHT_SPLIT) / (1.0 - WEIGHT_SPLIT) * (sheet.V_MAX - v_back)
        y_aim = sheet.TEE_Y
    sweep = (a[3] + 1.0) / 2.0 * SWEEP_MAX if a.size > 3 else 0.0
    return float(v), tables.aim(x, y_aim, v, w), float(w), float(sweep)


@dataclass(frozen=True)
class Template:
    """One discrete action: a name and how to turn a position into a throw."""

    name: str
    make: Callable[[np.ndarray, int, ShotTables], Throw]


def _draw(x: float, y: float, w: float) -> Callable[[np.ndarray, int, ShotTables], Throw]:
    def make(position: np.ndarray, my_parity: int, tables: ShotTables) -> Throw:
        return (*tables.draw(x, y, w), 0.0)

    return make


def opponent_stones(position: np.ndarray, my_parity: int) -> np.ndarray:
    """Opponent stones in play, nearest to the tee first: (k, 2)."""
    rows = np.arange(sheet.STONES_PER_END) % 2 != my_parity
    on = np.any(position != 0.0, axis=1)
    stones = position[rows & on]
    order = np.argsort(np.hypot(stones[:, 0] - sheet.TEE_X, stones[:, 1] - sheet.TEE_Y))
    return stones[order]


def _hit(rank: int, w: float, tap: bool) -> Callable[[np.ndarray, int, ShotTables], Throw]:
    def make(position: np.ndarray, my_parity: int, tables: ShotTables) -> Throw:
        targets = opponent_stones(position, my_parity)
        if rank >= len(targets):
            return (*tables.draw(sheet.TEE_X, sheet.TEE_Y, w), 0.0)
        x, y = targets[rank]
        v = tables.draw_speed(y - TAP_DEPTH, w) if tap else TAKEOUT_SPEED
        return (*tables.hit(float(x), float(y), v, w), 0.0)

    return make


_POINTS = {
    "button": (sheet.TEE_X, sheet.TEE_Y),
    "4ft front": (sheet.TEE_X, sheet.TEE_Y + 0.6),
    "4ft back": (sheet.TEE_X, sheet.TEE_Y - 0.6),
    "4ft left": (sheet.TEE_X - 0.6, sheet.TEE_Y),
    "4ft right": (sheet.TEE_X + 0.6, sheet.TEE_Y),
    "8ft front": (sheet.TEE_X, sheet.TEE_Y + 1.2),
    "8ft left": (sheet.TEE_X - 1.2, sheet.TEE_Y),
    "8ft right": (sheet.TEE_X + 1.2, sheet.TEE_Y),
    "12ft front": (sheet.TEE_X, sheet.TEE_Y + 1.75),
}
_GUARDS = {
    "guard centre": (sheet.TEE_X, 7.6),
    "long guard centre": (sheet.TEE_X, 9.2),
    "corner guard left": (sheet.TEE_X - 0.85, 7.4),
    "corner guard right": (sheet.TEE_X + 0.85, 7.4),
}


def _build_templates() -> tuple[Template, ...]:
    out: list[Template] = []
    for spin_name, w in (("w+", TEMPLATE_SPIN), ("w-", -TEMPLATE_SPIN)):
        for name, (x, y) in {**_POINTS, **_GUARDS}.items():
            label = name if name.startswith(("guard", "long", "corner")) else f"draw {name}"
            out.append(Template(f"{label} {spin_name}", _draw(x, y, w)))
        for k in range(4):
            out.append(Template(f"takeout opp {k} {spin_name}", _hit(k, w, tap=False)))
        for k in range(2):
            out.append(Template(f"tap opp {k} {spin_name}", _hit(k, w, tap=True)))
    return tuple(out)


TEMPLATES: tuple[Template, ...] = _build_templates()
TEMPLATE_NAMES: tuple[str, ...] = tuple(t.name for t in TEMPLATES)


def discrete_throw(index: int, position: np.ndarray, my_parity: int, tables: ShotTables) -> Throw:
    """Map a template index to a throw for the given position (throwing-order rows)."""
    if not 0 <= int(index) < len(TEMPLATES):
        raise ValueError(f"discrete action {index!r} is not in 0..{len(TEMPLATES) - 1}")
    pos = np.asarray(position, dtype=np.float64).reshape(sheet.STONES_PER_END, 2)
    return TEMPLATES[int(index)].make(pos, my_parity, tables)

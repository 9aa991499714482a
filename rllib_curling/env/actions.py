"""Action maps of ``CurlingEnv``: from an agent's action to a throw ``(v, h, w, sweep)``.

Both maps aim with ``aiming.tables.shot_tables()`` (free-path tables built with the engine), so
an action means a place on the sheet rather than raw release numbers.

**Continuous** (``Box(-1, 1, (3,))``, or ``(4,)`` with sweep):

| index | name   | map                                                                        |
|-------|--------|----------------------------------------------------------------------------|
| 0     | weight | a ≤ 0.6: a draw that stops at y = 10.0 (a = −1, a long guard) … 2.9 (a = 0.6, |
|       |        | back of the house), linear in y; a > 0.6: hit weight, v linear from the     |
|       |        | back-of-house draw speed (≈ 3.3 m/s) to 6.0 m/s at a = 1                    |
| 1     | aim x  | x = 2.375 + 2.0 · a: where the path crosses y_aim (the stopping line of a   |
|       |        | draw, the tee line for hit weights); h follows from the free-path table     |
| 2     | spin   | w = π · a rad/s (positive curls toward +x; ±π curls about 0.8 m)           |
| 3     | sweep  | (only with ``sweep=True``) sweep distance (a + 1) / 2 · ``sheet.SWEEP_MAX`` |

**Discrete** (``Discrete(len(TEMPLATES))``): the shot templates of ``aiming.templates``; action
``i`` is template ``i`` (the table is in ``CurlingEnv``'s docstring).

**Throw** (``Box(low=(0, -H_MAX, -W_MAX), high=(V_MAX, H_MAX, W_MAX))``, or with the sweep
distance ``[0, SWEEP_MAX]`` as a fourth number): the protocol's own ``BESTSHOT v h w``, clipped to
the platform's limits (``sheet``); for players that aim themselves (a search, a bot).
"""

from __future__ import annotations

import numpy as np

from rllib_curling import physics, sheet
from rllib_curling.aiming.tables import ShotTables
from rllib_curling.aiming.templates import Throw, template_throw

DRAW_Y_LONG = 10.0
DRAW_Y_BACK = 2.9
WEIGHT_SPLIT = 0.6
AIM_X_RANGE = 2.0
SPIN_SCALE = float(np.pi)


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
    sweep = (a[3] + 1.0) / 2.0 * sheet.SWEEP_MAX if a.size > 3 else 0.0
    return float(v), tables.aim(x, y_aim, v, w), float(w), float(sweep)


def raw_throw(action: np.ndarray) -> Throw:
    """A ``throw`` action ``(v, h, w[, sweep])`` as a throw, clipped to the platform's limits."""
    v, h, w, sweep = physics.clamp_throw(np.asarray(action, dtype=np.float64).ravel()).tolist()
    return v, h, w, sweep


def discrete_throw(
    index: int, position: np.ndarray, my_parity: int, tables: ShotTables, shot: int | None = None
) -> Throw:
    """Map a template index to a throw for the given position (throwing-order rows) and the
    number of the stone about to be thrown (``shot``; it decides what the free guard zone
    protects)."""
    return template_throw(index, position, my_parity, tables, shot)

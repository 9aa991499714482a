"""Free flight on the fcv1 ice: the exact per-step update and a closed-form jump of many steps.

The speed recurrence ``v' = v + a(v) dt`` does not depend on where the stone is or where it
heads, so every stone's speeds follow one *master* sequence ``v_k`` (from :data:`V_TOP` down to
0), entered at the index whose speed equals its own. The table holds, per master step ``k``:

====  ==============================================================================
row   meaning (sums over the master steps before ``k``)
====  ==============================================================================
0     ``v_k``, m/s (0 from the stopping step on)
1     ``theta_k``: curl angle, sum of ``CURL_K v_j**CURL_POW dt`` (rad)
2, 3  ``Z_k``: x, y of the path of a stone starting at the origin heading +x and curling
      counter-clockwise: sum of ``dt v_(j+1) (cos theta_(j+1), sin theta_(j+1))`` (m)
4     ``D_k``: path length, sum of ``dt v_(j+1)`` (m): the path of a stone without spin
5     ``omega_k``: spin lost, sum of ``SPIN_DECAY / max(v_j, SPIN_V_MIN) dt`` (rad/s)
====  ==============================================================================

A stone entering at a fractional index ``m + f`` reads rows linearly interpolated between
``m`` and ``m + 1``; the error is of second order in one step's change of speed (~1e-4 m/s),
far below a micrometre over a whole throw. :func:`jump` moves a stone ``n`` steps at once;
the kernel uses it only where no contact, removal, stop or end of spin can fall inside the
jump, and the exact :func:`free_step` elsewhere.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit

from rllib_curling.physics.fcv1 import params as p

#: The fastest speed in the table (m/s): DC clamps throws to 4 m/s before its noise.
V_TOP = 5.0
ROWS = 6
#: Width of the speed grid's cells (m/s): a cell spans a few master steps.
GRID_DV = 1e-3


@njit(cache=True)
def _build(v_top: float, dt: float) -> np.ndarray:
    n = 2
    v = v_top
    while v > 0.0:  # count the steps to the stop
        v = v - p.G * (p.DECEL_A / (v + p.DECEL_B) + p.DECEL_C) * dt
        n += 1
    t = np.zeros((ROWS, n))
    t[0, 0] = v_top
    for k in range(n - 1):
        v = t[0, k]
        vn = v - p.G * (p.DECEL_A / (v + p.DECEL_B) + p.DECEL_C) * dt if v > 0.0 else 0.0
        turn = p.CURL_K * v**p.CURL_POW * dt if vn > 0.0 else 0.0
        vn = max(vn, 0.0)
        t[0, k + 1] = vn
        t[1, k + 1] = t[1, k] + turn
        t[2, k + 1] = t[2, k] + dt * vn * math.cos(t[1, k + 1])
        t[3, k + 1] = t[3, k] + dt * vn * math.sin(t[1, k + 1])
        t[4, k + 1] = t[4, k] + dt * vn
        t[5, k + 1] = t[5, k] + p.SPIN_DECAY / max(v, p.SPIN_V_MIN) * dt
    return t


@njit(cache=True)
def _grid(t: np.ndarray, dv: float) -> np.ndarray:
    cells = int(t[0, 0] / dv) + 1
    g = np.zeros(cells, dtype=np.int64)
    m = t.shape[1] - 2
    for c in range(cells):  # g[c]: the last index whose speed is >= the cell's upper speed
        while m > 0 and t[0, m] < (c + 1) * dv:
            m -= 1
        g[c] = m
    return g


@functools.lru_cache(maxsize=1)
def table() -> tuple[np.ndarray, np.ndarray, int]:
    """The master table (rows in the module docstring), built once per process (~45,000 steps),
    its speed grid (cell c of width GRID_DV: the last index at or above the cell's speeds) and
    the stopping index (the first speed of 0)."""
    t = _build(V_TOP, p.DT)
    return t, _grid(t, GRID_DV), int(np.argmax(t[0] == 0.0))


@njit(cache=True, inline="always")
def free_step(vel: np.ndarray, w: np.ndarray, i: int) -> None:
    """One fcv1 step of stone ``i`` before the Box2D step (speed, curl, spin; params docstring):
    the velocity ``vel[i]`` and spin ``w[i]`` change in place."""
    vx, vy = vel[i, 0], vel[i, 1]
    v = math.sqrt(vx * vx + vy * vy)
    vn = v - p.G * (p.DECEL_A / (v + p.DECEL_B) + p.DECEL_C) * p.DT
    if vn <= 0.0:
        vel[i, 0] = 0.0
        vel[i, 1] = 0.0
    else:
        turn = p.CURL_K * v**p.CURL_POW * p.DT
        turn = turn if w[i] > 0.0 else (-turn if w[i] < 0.0 else 0.0)
        c, s = math.cos(turn), math.sin(turn)
        k = vn / v
        vel[i, 0] = k * (c * vx - s * vy)
        vel[i, 1] = k * (s * vx + c * vy)
    spin = abs(w[i]) - p.SPIN_DECAY / max(v, p.SPIN_V_MIN) * p.DT
    w[i] = 0.0 if spin <= 0.0 else math.copysign(spin, w[i])


@njit(cache=True, inline="always")
def locate(t: np.ndarray, grid: np.ndarray, v: float) -> tuple[int, float]:
    """(m, f): the master index whose speeds bracket ``v`` (t[0, m] >= v > t[0, m + 1]) and the
    fraction ``f`` of the way from m to m + 1. ``v`` must be in (0, V_TOP). ``grid``
    (from :func:`table`) gives a start a few steps before it."""
    m = grid[int(v / GRID_DV)]
    while t[0, m + 1] >= v:
        m += 1
    return m, (t[0, m] - v) / (t[0, m] - t[0, m + 1])


@njit(cache=True, inline="always")
def at(t: np.ndarray, row: int, k: int, f: float) -> float:
    """Row ``row`` of the table at the fractional index ``k + f``."""
    return float(t[row, k] + f * (t[row, k + 1] - t[row, k]))


@njit(cache=True, inline="always")
def spin_steps(t: np.ndarray, m: int, f: float, spin: float) -> int:
    """Steps from index ``m + f`` after which the spin lost reaches ``spin`` (|w|), at least."""
    target = at(t, 5, m, f) + spin
    lo, hi = m, t.shape[1] - 1
    if t[5, hi] < target:  # the spin outlasts the stone (the usual case)
        return int(hi - m)
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if t[5, mid] < target:
            lo = mid
        else:
            hi = mid
    return lo - m


@njit(cache=True, inline="always")
def jump(
    t: np.ndarray, pos: np.ndarray, vel: np.ndarray, w: np.ndarray, i: int, m: int, f: float,
    n: int,
) -> None:  # fmt: skip
    """Move stone ``i`` (at master index ``m + f``) ``n`` steps of free flight in place: no stop,
    and its spin keeps its sign (or stays 0) throughout (the caller checks both)."""
    vx, vy = vel[i, 0], vel[i, 1]
    v = math.sqrt(vx * vx + vy * vy)
    hx, hy = vx / v, vy / v
    k = m + n
    vn = at(t, 0, k, f)
    if w[i] == 0.0:
        d = at(t, 4, k, f) - at(t, 4, m, f)
        pos[i, 0] += d * hx
        pos[i, 1] += d * hy
        vel[i, 0] = vn * hx
        vel[i, 1] = vn * hy
        return
    sgn = 1.0 if w[i] > 0.0 else -1.0
    th0 = at(t, 1, m, f)
    dth = at(t, 1, k, f) - th0
    zx = at(t, 2, k, f) - at(t, 2, m, f)
    zy = at(t, 3, k, f) - at(t, 3, m, f)
    c0, s0 = math.cos(th0), math.sin(th0)
    lx = c0 * zx + s0 * zy  # the path rotated back by theta_m: in the stone's own frame
    ly = (c0 * zy - s0 * zx) * sgn
    pos[i, 0] += hx * lx - hy * ly
    pos[i, 1] += hy * lx + hx * ly
    c, s = math.cos(dth), sgn * math.sin(dth)
    vel[i, 0] = vn * (c * hx - s * hy)
    vel[i, 1] = vn * (s * hx + c * hy)
    spin = abs(w[i]) - (at(t, 5, k, f) - at(t, 5, m, f))
    w[i] = sgn * spin

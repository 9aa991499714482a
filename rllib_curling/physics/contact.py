"""Stone-stone contacts for the compiled tick loop (numba). Internal: use :mod:`.engine`.

Stones are rigid discs of equal mass and radius ``Rc`` (``IceModel.collider_radius``). Within a
tick every moving stone travels in a straight line; :func:`advance` finds the earliest time of
impact (TOI) among the pairs that can touch, moves every moving stone to it, applies the contact
impulse, and repeats until the tick is used up. Hence no tunnelling at any speed and no overlap:
stones touch at exactly ``2 Rc``.

Contact impulse (per unit mass, ``n`` from stone i to stone j, ``t = (-n_y, n_x)``):

- normal: ``Jn = (1 + e) / 2 * vn`` with closing speed ``vn = (v_i - v_j) . n``; ``e`` is the
  restitution, 0 below the bounce threshold;
- tangential: the slip of the contact points ``ut = (v_i - v_j) . t + Rc (w_i + w_j)`` is
  opposed by ``Jt = clamp(ut / (2 + 2 / f), -mu Jn, mu Jn)`` (stick or Coulomb slide) where
  ``I = f m Rc^2``; both spins change by ``-Jt / (f Rc)``.

Linear momentum is conserved exactly; energy is conserved by the normal impulse when ``e = 1``
and lost only to tangential friction.

Layout of the parameter vector (``engine.pack_params``) and the stone modes live here too.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# Indices into the float64 parameter vector.
P_DT, P_MAX_TICKS, P_MU, P_MU_NOISE, P_MU_SWEPT, P_BAND_R = 0, 1, 2, 3, 4, 5
P_FAST, P_SLOW, P_DAMP, P_STOP, P_TRIG_Y, P_TRIG_DELAY = 6, 7, 8, 9, 10, 11
P_SWEEP_ORIGIN, P_SWEEP_END, P_RC, P_REST, P_BOUNCE, P_CFRIC = 12, 13, 14, 15, 16, 17
P_CINERTIA, P_CDECEL, P_MAXSPIN, P_X_MIN, P_X_MAX, P_Y_MIN = 18, 19, 20, 21, 22, 23
P_Y_MAX, P_REL_X, P_REL_Y, P_SWEEP_DELAY, P_SPIN_ZERO, P_SPIN_FLOOR = 24, 25, 26, 27, 28, 29
N_PARAMS = 30

# Stone modes.
OUT, REST, BAND, RIGID = 0, 1, 2, 3

_MAX_EVENTS = 64


@njit(cache=True, inline="always")
def time_of_impact(dx: float, dy: float, ux: float, uy: float, dist: float) -> float:
    """Time until two discs at relative position (dx, dy) with relative velocity (ux, uy) reach
    centre distance ``dist``; ``inf`` if they do not approach. 0 if already within it."""
    b = dx * ux + dy * uy
    if b >= 0.0:
        return math.inf
    c = dx * dx + dy * dy - dist * dist
    if c <= 0.0:
        return 0.0
    a = ux * ux + uy * uy
    disc = b * b - a * c
    if disc < 0.0:
        return math.inf
    return c / (-b + math.sqrt(disc))


@njit(cache=True)
def collide(
    i: int, j: int, pos: np.ndarray, vel: np.ndarray, spin: np.ndarray, prm: np.ndarray
) -> None:
    """Apply the contact impulse between touching stones i and j (see module docstring)."""
    nx = pos[j, 0] - pos[i, 0]
    ny = pos[j, 1] - pos[i, 1]
    d = math.sqrt(nx * nx + ny * ny)
    if d == 0.0:
        return
    nx /= d
    ny /= d
    rx = vel[i, 0] - vel[j, 0]
    ry = vel[i, 1] - vel[j, 1]
    vn = rx * nx + ry * ny
    if vn <= 0.0:
        return
    e = prm[P_REST] if vn > prm[P_BOUNCE] else 0.0
    jn = 0.5 * (1.0 + e) * vn
    rc = prm[P_RC]
    f = prm[P_CINERTIA]
    tx = -ny
    ty = nx
    ut = rx * tx + ry * ty + rc * (spin[i] + spin[j])
    lim = prm[P_CFRIC] * jn
    jt = min(max(ut / (2.0 + 2.0 / f), -lim), lim)
    ix = jn * nx + jt * tx
    iy = jn * ny + jt * ty
    vel[i, 0] -= ix
    vel[i, 1] -= iy
    vel[j, 0] += ix
    vel[j, 1] += iy
    dw = jt / (f * rc)
    wmax = prm[P_MAXSPIN]
    spin[i] = min(max(spin[i] - dw, -wmax), wmax)
    spin[j] = min(max(spin[j] - dw, -wmax), wmax)


@njit(cache=True, inline="always")
def gap(i: int, pos: np.ndarray, mode: np.ndarray, dist: float) -> float:
    """Smallest surface gap between stone i and any other stone in play (inf if none)."""
    best = math.inf
    xi = pos[i, 0]
    yi = pos[i, 1]
    for j in range(16):
        if j == i or mode[j] == OUT:
            continue
        dx = xi - pos[j, 0]
        dy = yi - pos[j, 1]
        d2 = dx * dx + dy * dy
        if d2 < best:
            best = d2
    return math.sqrt(best) - dist


@njit(cache=True)
def advance(
    mov: np.ndarray, nm: int, speed: np.ndarray, pos: np.ndarray, vel: np.ndarray,
    spin: np.ndarray, mode: np.ndarray, budget: np.ndarray, prm: np.ndarray,
) -> None:  # fmt: skip
    """Move every moving stone by one tick, resolving contacts at their time of impact.

    ``mov[:nm]`` are the moving stones, ``speed[i]`` an upper bound of stone i's speed this
    tick; ``budget`` is updated (see kernel.py).
    """
    dt = prm[P_DT]
    dist = 2.0 * prm[P_RC]
    vmax = 0.0
    for k in range(nm):
        vmax = max(vmax, speed[mov[k]])
    # Culling: a moving stone whose budget covers its own travel plus the fastest other
    # stone's travel this tick cannot touch anything.
    need = False
    for k in range(nm):
        i = mov[k]
        reach = (speed[i] + vmax) * dt
        budget[i] -= reach
        if budget[i] < 0.0:
            g = gap(i, pos, mode, dist) - reach
            budget[i] = g
            if g < 0.0:
                need = True
    if not need:
        for k in range(nm):
            i = mov[k]
            pos[i, 0] += vel[i, 0] * dt
            pos[i, 1] += vel[i, 1] * dt
        return
    _resolve(pos, vel, spin, mode, budget, prm, dt, dist)


@njit(cache=True)
def _resolve(
    pos: np.ndarray, vel: np.ndarray, spin: np.ndarray, mode: np.ndarray, budget: np.ndarray,
    prm: np.ndarray, left: float, dist: float,
) -> None:  # fmt: skip
    """Advance ``left`` seconds event by event: earliest time of impact, move, collide."""
    for _ in range(_MAX_EVENTS):
        best = left
        bi = -1
        bj = -1
        for i in range(16):
            if mode[i] < BAND:
                continue
            for j in range(16):
                if j == i or mode[j] == OUT or (mode[j] >= BAND and j < i):
                    continue
                t = time_of_impact(
                    pos[i, 0] - pos[j, 0], pos[i, 1] - pos[j, 1],
                    vel[i, 0] - vel[j, 0], vel[i, 1] - vel[j, 1], dist,
                )  # fmt: skip
                if t < best:
                    best = t
                    bi = i
                    bj = j
        for k in range(16):
            if mode[k] >= BAND:
                pos[k, 0] += vel[k, 0] * best
                pos[k, 1] += vel[k, 1] * best
        left -= best
        if bi < 0:
            return
        collide(bi, bj, pos, vel, spin, prm)
        mode[bi] = RIGID
        mode[bj] = RIGID
        budget[bi] = -1.0
        budget[bj] = -1.0
    for k in range(16):
        if mode[k] >= BAND:
            pos[k, 0] += vel[k, 0] * left
            pos[k, 1] += vel[k, 1] * left

"""The thrown stone's running-band motion, one tick or many ticks at once (numba). Internal.

One tick is the platform's step: the velocity and spin change by the band's friction
(:func:`band_velocity`: the ``band`` tables, interpolated), then the position moves by the new
velocity. A shot is 1,500-2,500 such ticks, most of them while the stone slides alone.

Many ticks at once (:func:`band_ticks`): the ticks of a regime are the explicit Euler steps of
the ODE ``s' = g(s)``, ``g = (tick(s) - s) / dt`` for the velocity and spin ``s``, so ``m`` of
them are integrated as one classical Runge-Kutta step of ``m * dt`` on the ODE Euler actually
follows (backward error analysis):

- velocity and spin: ``s' = g(s) - dt/2 * dg/dt``. Along the path ``dg/dt`` integrates to the
  change of ``g`` over the step, so the step ends with ``- dt/2 * (g(end) - g(start))`` (``g``
  at the end before the correction), and the stages are moved by the same correction at their
  times, with ``dg/dt`` of the previous step (``slope``). Without it the ticks' velocity lags
  the ODE by ``dt/2 * (g - g(0))``: 17 mm of landing error on a draw.
- position: ``x_{n+1} = x_n + v_{n+1} dt`` sums the velocity half a tick ahead, so the position
  follows ``x' = v + dt/2 * g``.

The caller (``kernel._free_flight``) keeps each step inside one regime (speed band of the table,
swept or not, one friction coefficient) and ends it before the ticks where something happens
(regime change, the mid-sheet trigger, sweeping's start and end, a side or the back line, the
stone's possible first contact), which then run tick by tick, so every event falls on the tick
the platform's loop gives it; frames inside a step are interpolated. With steps of at most 32
ticks and 30 % of the speed (about 5 friction evaluations a step, 50-80 steps a shot), noise
off, against the ticks of the engine before it (``tests/engine_reference.py``): free draws rest
within 0.02 mm (median), 0.11 mm (worst); of 10,000 mid-end throws, 99.94 % rest every stone
within 5 mm (the ticks themselves, their release moved by 1 µm: 99.91 %). Steps of 64 ticks
kept only 97.9 %.

Noise: the platform draws ``mu``'s noise (uniform, +-``mu_noise``) every tick; a step of ``m``
ticks uses their mean: a draw with the same mean and variance (``mu_noise**2 / (3 m)``), the
sum of four uniforms (``kernel._normal``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rllib_curling.physics import contact as c


@njit(cache=True, inline="always")
def regime(sp: float, prm: np.ndarray) -> int:
    """Index of the friction table's speed regime (band.SLOW, MID, FAST) at speed ``sp``."""
    return 2 if sp >= prm[c.P_FAST] else (1 if sp >= prm[c.P_SLOW] else 0)


@njit(cache=True, inline="always")
def band_parts(
    vx: float, vy: float, w: float, sp: float, reg: int, prm: np.ndarray, table: np.ndarray
) -> tuple[float, float, float, float, float, float]:
    """The change of (vx, vy, w) per second under running-band friction as ``mu * dry + wet``
    (speed ``sp`` > 0, table regime ``reg``): returns (dry x, dry y, dry w, wet x, wet y,
    wet w); the spin's angular damping is in the wet part. ``w`` is the spin the band sees
    (near zero the platform uses ``spin_floor``, see :func:`band_velocity`)."""
    dt = prm[c.P_DT]
    damp = prm[c.P_DAMP]
    wr = abs(w) * prm[c.P_BAND_R]
    last = table.shape[1] - 1
    fi = wr / (sp + wr) * last  # the table's s = rho / (1 + rho), rho = |w| r / v
    k = min(int(fi), last - 1)
    fr = fi - k
    q = sp * sp + wr * wr
    sg = 1.0 if w > 0.0 else -1.0
    inv = 1.0 / sp  # two divisions an evaluation: they, and the square root, set its latency
    ex = vx * inv
    ey = vy * inv
    # table[reg, k, :] interpolated (indexed one number at a time: a row view costs more)
    d_lat = sg * (table[reg, k, 0] + fr * (table[reg, k + 1, 0] - table[reg, k, 0]))
    d_dec = table[reg, k, 1] + fr * (table[reg, k + 1, 1] - table[reg, k, 1])
    d_dom = sg * (table[reg, k, 2] + fr * (table[reg, k + 1, 2] - table[reg, k, 2]))
    w_lat = sg * q * (table[reg, k, 3] + fr * (table[reg, k + 1, 3] - table[reg, k, 3]))
    w_dec = q * (table[reg, k, 4] + fr * (table[reg, k + 1, 4] - table[reg, k, 4]))
    w_dom = sg * q * (table[reg, k, 5] + fr * (table[reg, k + 1, 5] - table[reg, k, 5]))
    return (
        -d_dec * ex - d_lat * ey, -d_dec * ey + d_lat * ex, damp * d_dom,
        -w_dec * ex - w_lat * ey, -w_dec * ey + w_lat * ex, damp * w_dom + w * (damp - 1.0) / dt,
    )  # fmt: skip


@njit(cache=True, inline="always")
def band_velocity(
    vx: float, vy: float, w: float, sp: float, reg: int, mu: float, prm: np.ndarray,
    table: np.ndarray,
) -> tuple[float, float, float]:  # fmt: skip
    """Velocity and spin after one tick of running-band friction (speed ``sp`` > 0, table
    regime ``reg``)."""
    dt = prm[c.P_DT]
    if abs(w) <= prm[c.P_SPIN_ZERO]:
        w = prm[c.P_SPIN_FLOOR]  # the platform never runs the band model without spin
    ax, ay, aw, bx, by, bw = band_parts(vx, vy, w, sp, reg, prm, table)
    return vx + (mu * ax + bx) * dt, vy + (mu * ay + by) * dt, w + (mu * aw + bw) * dt


@njit(cache=True, inline="always")
def band_accel(
    vx: float, vy: float, w: float, sp: float, mu: float, prm: np.ndarray, table: np.ndarray
) -> tuple[float, float, float]:
    """Velocity and spin after one tick of running-band friction (speed ``sp`` > 0)."""
    return band_velocity(vx, vy, w, sp, regime(sp, prm), mu, prm, table)


@njit(cache=True, inline="always")
def _rate(
    vx: float, vy: float, w: float, reg: int, mu: float, prm: np.ndarray, table: np.ndarray
) -> tuple[float, float, float]:
    """``g``: the change of (vx, vy, w) per second that one tick makes (``w`` away from 0)."""
    sp = math.sqrt(vx * vx + vy * vy)
    ax, ay, aw, bx, by, bw = band_parts(vx, vy, w, sp, reg, prm, table)
    return mu * ax + bx, mu * ay + by, mu * aw + bw


# Layout of a free flight's state vector (band_ticks): position, velocity and spin, g at the
# state (and its dry part, for a change of mu), the slope dg/dt of the last step.
S_X, S_Y, S_VX, S_VY, S_W = 0, 1, 2, 3, 4
S_G, S_DRY, S_SLOPE = 5, 8, 11
N_STATE = 14


@njit(cache=True, inline="always")
def set_rate(state: np.ndarray, reg: int, mu: float, prm: np.ndarray, table: np.ndarray) -> None:
    """Set ``g`` and its dry part at the state, for regime ``reg`` and friction ``mu``."""
    vx, vy, w = state[S_VX], state[S_VY], state[S_W]
    sp = math.sqrt(vx * vx + vy * vy)
    ax, ay, aw, bx, by, bw = band_parts(vx, vy, w, sp, reg, prm, table)
    state[S_DRY], state[S_DRY + 1], state[S_DRY + 2] = ax, ay, aw
    state[S_G], state[S_G + 1], state[S_G + 2] = mu * ax + bx, mu * ay + by, mu * aw + bw


@njit(cache=True)
def band_ticks(
    state: np.ndarray, m: int, reg: int, mu: float, prm: np.ndarray, table: np.ndarray
) -> None:
    """Advance ``state`` (layout ``S_*``) by ``m`` ticks of regime ``reg`` and friction ``mu``
    in one step (module docstring). ``g`` must be that of the state at friction ``mu``
    (:func:`set_rate`); ``g``, its dry part and the slope are updated."""
    dt = prm[c.P_DT]
    h = m * dt
    x, y, vx, vy, w = state[S_X], state[S_Y], state[S_VX], state[S_VY], state[S_W]
    k1x, k1y, k1w = state[S_G], state[S_G + 1], state[S_G + 2]
    shift = -0.25 * dt * h  # the stages' correction at h/2: -dt/2 * slope * h/2
    cx, cy, cw = shift * state[S_SLOPE], shift * state[S_SLOPE + 1], shift * state[S_SLOPE + 2]
    half = 0.5 * h
    v2x, v2y, w2 = vx + half * k1x + cx, vy + half * k1y + cy, w + half * k1w + cw
    k2x, k2y, k2w = _rate(v2x, v2y, w2, reg, mu, prm, table)
    v3x, v3y, w3 = vx + half * k2x + cx, vy + half * k2y + cy, w + half * k2w + cw
    k3x, k3y, k3w = _rate(v3x, v3y, w3, reg, mu, prm, table)
    v4x, v4y, w4 = vx + h * k3x + 2.0 * cx, vy + h * k3y + 2.0 * cy, w + h * k3w + 2.0 * cw
    k4x, k4y, k4w = _rate(v4x, v4y, w4, reg, mu, prm, table)
    sixth = h / 6.0
    hd = 0.5 * dt
    # position: x' = v + dt/2 g at the four stages
    state[S_X] = x + sixth * (
        (vx + hd * k1x) + 2.0 * (v2x + hd * k2x) + 2.0 * (v3x + hd * k3x) + (v4x + hd * k4x)
    )
    state[S_Y] = y + sixth * (
        (vy + hd * k1y) + 2.0 * (v2y + hd * k2y) + 2.0 * (v3y + hd * k3y) + (v4y + hd * k4y)
    )
    state[S_VX] = vx + sixth * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
    state[S_VY] = vy + sixth * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
    state[S_W] = w + sixth * (k1w + 2.0 * k2w + 2.0 * k3w + k4w)
    set_rate(state, reg, mu, prm, table)
    dgx, dgy, dgw = state[S_G] - k1x, state[S_G + 1] - k1y, state[S_G + 2] - k1w
    state[S_VX] -= hd * dgx
    state[S_VY] -= hd * dgy
    state[S_W] -= hd * dgw
    state[S_SLOPE], state[S_SLOPE + 1], state[S_SLOPE + 2] = dgx / h, dgy / h, dgw / h

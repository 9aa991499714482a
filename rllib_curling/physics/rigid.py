"""Closed-form advance of stones moving as rigid bodies (after a contact). Internal.

After a contact the platform moves stones with PhysX: Coulomb friction of constant
deceleration ``a = contact_mu * g``, no curl, spin decaying by the angular drag. A stone that
cannot reach any other stone, a side or the back line within ``n`` ticks can therefore be
moved ``n`` ticks at once: its speed after ``k`` ticks is ``s - k a dt``, so it travels
``dt (n s - a dt n (n + 1) / 2)`` along its unchanged direction. This is what the tick loop
would do, up to rounding, and keeps the cost of long slides (takeouts, raises) small.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rllib_curling.physics.contact import (
    BAND,
    OUT,
    P_CDECEL,
    P_DAMP,
    P_DT,
    P_RC,
    P_STOP,
    P_X_MAX,
    P_X_MIN,
    P_Y_MIN,
    gap,
)


@njit(cache=True)
def rigid_jump(
    pos: np.ndarray, vel: np.ndarray, spin: np.ndarray, mode: np.ndarray, budget: np.ndarray,
    prm: np.ndarray, limit: int, traj: np.ndarray, stride: int, tick: int, frames: int,
) -> tuple[int, int]:  # fmt: skip
    """Advance every moving stone (all rigid) by the largest safe number of ticks, at most
    ``limit``. Returns (that number, trajectory frames): 0 when fewer than 2 ticks are safe
    (nothing changed). With ``stride > 0`` the frames of the skipped ticks (multiples of
    ``stride`` after ``tick``) are written to ``traj`` from the closed form, so recording a
    trajectory does not change the result."""
    dt = prm[P_DT]
    dv = prm[P_CDECEL] * dt
    floor_speed = max(prm[P_STOP], dv)
    dist = 2.0 * prm[P_RC]
    vmax = 0.0
    moving = 0
    for i in range(16):
        if mode[i] >= BAND:
            moving += 1
            vmax = max(vmax, math.sqrt(vel[i, 0] * vel[i, 0] + vel[i, 1] * vel[i, 1]))
    if moving == 0:
        return 0, frames
    n = limit
    for i in range(16):
        if mode[i] < BAND:
            continue
        s = math.sqrt(vel[i, 0] * vel[i, 0] + vel[i, 1] * vel[i, 1])
        if s <= floor_speed:
            return 0, frames
        # Ticks before the speed can fall to the stop threshold ...
        n = min(n, int((s - floor_speed) / dv) - 1)
        # ... before it can reach any other stone (which may move at vmax) ...
        n = min(n, int(gap(i, pos, mode, dist) / ((s + vmax) * dt)) - 1)
        # ... or a side or the back line.
        edge = min(pos[i, 0] - prm[P_X_MIN], prm[P_X_MAX] - pos[i, 0], pos[i, 1] - prm[P_Y_MIN])
        n = min(n, int(edge / (s * dt)) - 1)
        if n < 2:
            return 0, frames
    if stride > 0:
        frames = _jump_frames(pos, vel, mode, dt, dv, n, traj, stride, tick, frames)
    damp = prm[P_DAMP] ** n
    for i in range(16):
        if mode[i] < BAND:
            continue
        s = math.sqrt(vel[i, 0] * vel[i, 0] + vel[i, 1] * vel[i, 1])
        ex = vel[i, 0] / s
        ey = vel[i, 1] / s
        d = dt * (n * s - dv * n * (n + 1) * 0.5)
        pos[i, 0] += ex * d
        pos[i, 1] += ey * d
        s_end = s - n * dv
        vel[i, 0] = ex * s_end
        vel[i, 1] = ey * s_end
        spin[i] *= damp
        budget[i] = -1.0
    return n, frames


@njit(cache=True)
def _jump_frames(
    pos: np.ndarray, vel: np.ndarray, mode: np.ndarray, dt: float, dv: float, n: int,
    traj: np.ndarray, stride: int, tick: int, frames: int,
) -> int:  # fmt: skip
    """Write the frames of ticks tick+1 .. tick+n that are multiples of ``stride``."""
    first = (tick // stride + 1) * stride
    for t in range(first, tick + n + 1, stride):
        if frames >= traj.shape[0]:
            break
        k = t - tick
        for i in range(16):
            if mode[i] == OUT:
                traj[frames, i, 0] = 0.0
                traj[frames, i, 1] = 0.0
            elif mode[i] < BAND:
                traj[frames, i, 0] = pos[i, 0]
                traj[frames, i, 1] = pos[i, 1]
            else:
                s = math.sqrt(vel[i, 0] * vel[i, 0] + vel[i, 1] * vel[i, 1])
                d = dt * (k * s - dv * k * (k + 1) * 0.5)
                traj[frames, i, 0] = pos[i, 0] + vel[i, 0] / s * d
                traj[frames, i, 1] = pos[i, 1] + vel[i, 1] / s * d
        frames += 1
    return frames

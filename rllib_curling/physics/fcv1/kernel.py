"""The fcv1 shot loop, compiled: free flight jumped in closed form while stones are apart, the
exact step (fcv1 update, then Box2D's step) while they are close, removals, the stop test.

Each pass of the loop either *jumps* every stone ``n`` steps (:func:`flight.jump`), when within
those steps no two stones can touch, no stone can reach a wall or line, stop or lose its spin,
and no trajectory frame falls, or takes one *exact* step:

1. every stone that moves or spins gets the fcv1 update (:func:`flight.free_step`);
2. Box2D's step (:func:`contacts.box2d_step`);
3. removal in motion (DC3's test after every step): a stone touching a side wall
   (``|x| + r >= SIDE_X``: out_side), entirely beyond the back line (``y - r >= BACK_LINE_Y``:
   out_back) or reaching the board behind the hack (``y - r <= NEAR_BOARD_Y``: out_back);
4. the stop test: every stone in play has ``v^2 <= STOP_EPS`` and ``w <= STOP_EPS`` (w itself,
   as DC3 compares it: a clockwise stone at rest counts as stopped).

After the loop stones not fully past the hog line (``y - r <= HOG_Y``) are out_hog.

Arrays: ``pos`` (16, 2) DC shot frame, (0, 0) = no stone; ``status`` (16,) int8 codes of
:data:`params.STATUS_NAMES`; ``rest`` (16, 2) where each stone ended (for a stone removed in
motion: its last position in play); ``traj`` (F, 16, 2) positions every ``FRAME_STEPS`` steps
from the release, then the final one, NaN for a stone not in play.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rllib_curling import dc_sheet as dc
from rllib_curling.physics.fcv1 import params as p
from rllib_curling.physics.fcv1.contacts import N, box2d_step, drop, workspace
from rllib_curling.physics.fcv1.flight import V_TOP, free_step, jump, locate, spin_steps

#: A jump shorter than this many steps is taken as exact steps instead.
MIN_JUMP = 4
_REST_SPIN_STEP = p.SPIN_DECAY / p.SPIN_V_MIN * p.DT  # |w| lost per step by a stone at rest
#: Half the largest change of a free stone's velocity per second (m/s^2): the deceleration at
#: rest, |a(0)| = 0.370, with the curl's sideways 0.0082 v^0.2 <= 0.012, rounded up. A free
#: stone's path strays less than _HALF * t * (t + dt) from the straight line at its velocity.
_HALF = 0.5 * 0.40


@njit(cache=True, inline="always")
def _safe_steps(gap: float, approach: float, speed: float, acc: float) -> int:
    """Steps in which a free stone (or a pair) surely closes less than ``gap`` m: at most
    ``speed`` m/s, and at most ``approach`` m/s (its velocity toward the obstacle now) plus
    ``acc`` * t * (t + dt) m of bending by friction and curl; one step less, for safety."""
    if gap <= 0.0:
        return -1
    by_speed = gap / (speed * p.DT)
    b = max(approach, 0.0) + acc * p.DT  # acc t^2 + b t < gap
    tau = (2.0 * gap) / (b + math.sqrt(b * b + 4.0 * acc * gap))
    by_path = tau / p.DT
    return int(min(max(by_speed, by_path), 1e9)) - 1


@njit(cache=True)
def _jump_length(
    t: np.ndarray, grid: np.ndarray, stop: int, pos: np.ndarray, vel: np.ndarray,
    w: np.ndarray, live: np.ndarray, speed: np.ndarray, index: np.ndarray, frac: np.ndarray,
    limit: int,
) -> int:  # fmt: skip
    """Steps all stones may jump at once (module docstring); fills ``speed``, ``index``,
    ``frac`` of each moving stone."""
    n = limit
    for i in range(N):
        speed[i] = 0.0
        if not live[i]:
            continue
        v = math.sqrt(vel[i, 0] ** 2 + vel[i, 1] ** 2)
        speed[i] = v
        if v == 0.0:
            if w[i] != 0.0:
                n = min(n, int(abs(w[i]) / _REST_SPIN_STEP) - 1)
            continue
        if v >= V_TOP:
            return 0
        m, f = locate(t, grid, v)
        index[i], frac[i] = m, f
        n = min(n, stop - m - 3)
        if w[i] != 0.0:
            n = min(n, spin_steps(t, m, f, abs(w[i])) - 2)
        side = vel[i, 0] if pos[i, 0] >= 0.0 else -vel[i, 0]
        n = min(n, _safe_steps(dc.SIDE_X - dc.STONE_RADIUS - abs(pos[i, 0]), side, v, _HALF))
        n = min(n, _safe_steps(dc.BACK_LINE_Y + dc.STONE_RADIUS - pos[i, 1], vel[i, 1], v, _HALF))
        n = min(n, _safe_steps(pos[i, 1] - dc.STONE_RADIUS - dc.NEAR_BOARD_Y, -vel[i, 1], v, _HALF))
        if n < MIN_JUMP:
            return n
    for i in range(N):
        if not live[i]:
            continue
        for j in range(i + 1, N):
            closing = speed[i] + speed[j]
            if not live[j] or closing == 0.0:
                continue
            rx, ry = pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1]
            d = math.sqrt(rx * rx + ry * ry)
            approach = ((vel[i, 0] - vel[j, 0]) * rx + (vel[i, 1] - vel[j, 1]) * ry) / d
            acc = _HALF if speed[i] == 0.0 or speed[j] == 0.0 else 2.0 * _HALF
            n = min(n, _safe_steps(d - 2.0 * p.RADIUS, approach, closing, acc))
            if n < MIN_JUMP:
                return n
    return n


@njit(cache=True)
def _out(x: float, y: float) -> int:
    """The status a stone at (x, y) gets from DC3's test in motion (IN_PLAY if it stays)."""
    if abs(x) + dc.STONE_RADIUS >= dc.SIDE_X:
        return p.OUT_SIDE
    if y - dc.STONE_RADIUS >= dc.BACK_LINE_Y or y - dc.STONE_RADIUS <= dc.NEAR_BOARD_Y:
        return p.OUT_BACK
    return p.IN_PLAY


@njit(cache=True)
def _frame(traj: np.ndarray, k: int, pos: np.ndarray, live: np.ndarray) -> None:
    for i in range(N):
        traj[k, i, 0] = pos[i, 0] if live[i] else np.nan
        traj[k, i, 1] = pos[i, 1] if live[i] else np.nan


@njit(cache=True)
def run_shot(
    t: np.ndarray, grid: np.ndarray, stop: int, start: np.ndarray, slot: int, vx: float,
    vy: float, w0: float, record: bool, traj: np.ndarray, out_pos: np.ndarray, out_rest: np.ndarray,
    out_status: np.ndarray,
) -> tuple[int, int]:  # fmt: skip
    """Throw stone ``slot`` from the hack with velocity (vx, vy) and spin ``w0`` into the stones
    of ``start`` (16, 2); fills ``out_pos`` (the position after the shot, (0, 0) for stones
    out of play), ``out_rest`` and ``out_status``; with ``record`` the frames into ``traj``.
    Returns (steps, frames)."""
    pos = start.copy()
    vel = np.zeros((N, 2))
    w = np.zeros(N)
    live = np.zeros(N, dtype=np.bool_)
    for i in range(N):
        live[i] = pos[i, 0] != 0.0 or pos[i, 1] != 0.0
    awake = np.zeros(N, dtype=np.bool_)  # placed stones sleep until a contact wakes them
    live[slot] = awake[slot] = True
    pos[slot, 0] = pos[slot, 1] = 0.0
    vel[slot, 0], vel[slot, 1], w[slot] = vx, vy, w0
    for i in range(N):
        out_status[i] = p.IN_PLAY if live[i] else p.EMPTY
    touching = np.zeros((N, N), dtype=np.bool_)
    nimp, timp = np.zeros((N, N)), np.zeros((N, N))
    stamp = np.zeros((N, N), dtype=np.int64)
    clock = np.zeros(1, dtype=np.int64)
    speed, frac = np.zeros(N), np.zeros(N)
    index = np.zeros(N, dtype=np.int64)
    before = np.zeros((N, 2))
    work = workspace()
    for i in range(N):  # a placed stone outside the play area goes at the first step's test
        code = _out(pos[i, 0], pos[i, 1]) if live[i] and i != slot else p.IN_PLAY
        if code != p.IN_PLAY:
            live[i] = False
            out_status[i] = code
            out_rest[i, 0], out_rest[i, 1] = pos[i, 0], pos[i, 1]
    frames = 0
    if record:
        _frame(traj, 0, pos, live)
        frames = 1
    step = 0
    while step < p.MAX_STEPS:
        limit = p.MAX_STEPS - step
        if record:
            limit = min(limit, p.FRAME_STEPS - step % p.FRAME_STEPS)
        n = _jump_length(t, grid, stop, pos, vel, w, live, speed, index, frac, limit)
        if n >= MIN_JUMP:
            for i in range(N):
                if not live[i]:
                    continue
                if speed[i] > 0.0:
                    jump(t, pos, vel, w, i, index[i], frac[i], n)
                elif w[i] != 0.0:
                    w[i] = math.copysign(abs(w[i]) - n * _REST_SPIN_STEP, w[i])
            touching[:, :] = False  # apart throughout: no contact touches after the jump
            step += n
        else:
            for i in range(N):
                before[i, 0], before[i, 1] = pos[i, 0], pos[i, 1]
                if live[i] and (vel[i, 0] != 0.0 or vel[i, 1] != 0.0 or w[i] != 0.0):
                    free_step(vel, w, i)
                    awake[i] = awake[i] or vel[i, 0] != 0.0 or vel[i, 1] != 0.0 or w[i] != 0.0
            box2d_step(pos, vel, w, live, awake, touching, nimp, timp, stamp, clock, work)
            step += 1
            for i in range(N):
                if live[i]:
                    code = _out(pos[i, 0], pos[i, 1])
                    if code != p.IN_PLAY:
                        live[i] = False
                        out_status[i] = code
                        out_rest[i, 0], out_rest[i, 1] = before[i, 0], before[i, 1]
                        drop(i, touching, nimp, timp, stamp)
        if record and step % p.FRAME_STEPS == 0:
            _frame(traj, frames, pos, live)
            frames += 1
        stopped = True
        for i in range(N):
            if live[i] and (vel[i, 0] ** 2 + vel[i, 1] ** 2 > p.STOP_EPS or w[i] > p.STOP_EPS):
                stopped = False
                break
        if stopped:
            break
    if record and step % p.FRAME_STEPS != 0:
        _frame(traj, frames, pos, live)
        frames += 1
    for i in range(N):
        out_pos[i, 0] = out_pos[i, 1] = 0.0
        if not live[i]:
            continue
        out_rest[i, 0], out_rest[i, 1] = pos[i, 0], pos[i, 1]
        if pos[i, 1] - dc.STONE_RADIUS <= dc.HOG_Y:
            out_status[i] = p.OUT_HOG
        else:
            out_pos[i, 0], out_pos[i, 1] = pos[i, 0], pos[i, 1]
    return step, frames


@njit(cache=True)
def run_batch(
    t: np.ndarray, grid: np.ndarray, stop: int, starts: np.ndarray, slots: np.ndarray,
    throws: np.ndarray, out_pos: np.ndarray, out_rest: np.ndarray, out_status: np.ndarray,
    steps: np.ndarray,
) -> None:  # fmt: skip
    """:func:`run_shot` for each row: ``starts`` (N, 16, 2), ``slots`` (N,), ``throws`` (N, 3)
    vx, vy, w0; outputs (N, 16, 2), (N, 16, 2), (N, 16), (N,)."""
    dummy = np.zeros((1, N, 2))
    for k in range(starts.shape[0]):
        s, _ = run_shot(
            t, grid, stop, starts[k], slots[k], throws[k, 0], throws[k, 1], throws[k, 2], False,
            dummy, out_pos[k], out_rest[k], out_status[k],
        )  # fmt: skip
        steps[k] = s

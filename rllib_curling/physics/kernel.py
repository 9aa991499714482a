"""The compiled tick loop (numba). Internal: use :mod:`.engine`.

Per shot the kernel keeps, for the 16 stones of a position, arrays ``pos`` (16, 2), ``vel``
(16, 2), ``spin`` (16,) rad/s (positive = counter-clockwise in the (x, y) frame, which is the
platform's positive ``w`` and curls toward +x), ``mode`` (16,) and ``budget`` (16,):

======  ===========================================================================
mode    meaning
======  ===========================================================================
0       not in play (position reported as 0, 0)
1       at rest
2       moving under the running-band model (the thrown stone until its first contact)
3       moving as a rigid body after a contact (Coulomb friction, no curl)
======  ===========================================================================

``budget[i]`` is a lower bound on the free distance of moving stone ``i`` before it can touch
any other stone; contacts are only searched for while it is used up (contact culling). Contacts
are found by a swept test (time of impact within the tick), so nothing tunnels at any speed.

Each tick: velocities are updated (friction), then positions advance by ``vel * dt`` with
contacts resolved at their time of impact, then out-of-play stones are removed, then the
mid-sheet trigger is checked; this is the platform's order (script step, then PhysX step).

Two fast paths do the same with less work: :func:`_free_flight` runs the thrown stone alone
(band mode, nothing else moving) while it cannot reach any stone, in steps of many ticks
(:mod:`rllib_curling.physics.flight`) between the ticks where something happens, and
:func:`rllib_curling.physics.rigid.rigid_jump` moves stones that only slide after a contact
by many ticks at once in closed form.

A batch of throws runs one after another (:func:`run_batch`) or spread over Numba's threads
(:func:`run_batch_parallel`: each thread its own scratch arrays; every throw has its own seed,
so the results are the same bit for bit).

Development note: numba's on-disk cache of a function only tracks its own file; after editing
contact.py or rigid.py, touch this file (or delete ``__pycache__/*.nb*``) so that the cached
``run_shot`` is rebuilt with the new helpers.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from rllib_curling.physics import contact as c
from rllib_curling.physics import flight as fl
from rllib_curling.physics.contact import BAND, OUT, REST, advance, gap
from rllib_curling.physics.flight import band_accel
from rllib_curling.physics.rigid import rigid_jump

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0


@njit(cache=True, inline="always")
def _splitmix_bits(state: np.uint64) -> tuple[np.uint64, np.uint64]:
    """splitmix64 step: (next state, 64 random bits)."""
    state = state + _GOLDEN
    z = state
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return state, z ^ (z >> _S31)


@njit(cache=True, inline="always")
def _splitmix(state: np.uint64) -> tuple[np.uint64, float]:
    """splitmix64 step: (next state, uniform float in [0, 1))."""
    state, z = _splitmix_bits(state)
    return state, float(z >> _S11) * _INV53


# Per-shot bookkeeping kept in a small int64 vector between the kernel's functions.
C_TICK, C_CROSSED, C_REPORTED, C_SWEEP_FROM, C_FRAMES = 0, 1, 2, 3, 4
N_CTX = 5


@njit(cache=True, inline="always")
def _friction_mu(
    y: float, tick: int, sweep_from: int, sweep_limit: float, prm: np.ndarray
) -> tuple[float, int]:
    """Friction coefficient of the thrown stone this tick (swept or not) and the updated
    ``sweep_from`` (-1 once sweeping has ended)."""
    if sweep_from >= 0 and tick >= sweep_from:
        if y > sweep_limit:
            return prm[c.P_MU_SWEPT], tick
        return prm[c.P_MU], -1
    return prm[c.P_MU], sweep_from


@njit(cache=True, inline="always")
def _trigger(
    slot: int, pos: np.ndarray, vel: np.ndarray, spin: np.ndarray, ctx: np.ndarray,
    prm: np.ndarray, mid_out: np.ndarray, sweep: float,
) -> bool:  # fmt: skip
    """Mid-sheet trigger after a tick; True when MOTIONINFO was reported this tick."""
    tick = ctx[C_TICK]
    if ctx[C_CROSSED] < 0 and pos[slot, 1] <= prm[c.P_TRIG_Y]:
        ctx[C_CROSSED] = tick
    if ctx[C_CROSSED] < 0 or tick - ctx[C_CROSSED] < prm[c.P_TRIG_DELAY]:
        return False
    ctx[C_REPORTED] = 1
    mid_out[0] = pos[slot, 0]
    mid_out[1] = pos[slot, 1]
    mid_out[2] = vel[slot, 0]
    mid_out[3] = vel[slot, 1]
    mid_out[4] = spin[slot]
    if sweep > 0.0:
        ctx[C_SWEEP_FROM] = tick + int(prm[c.P_SWEEP_DELAY])
    return True


@njit(cache=True, inline="always")
def _store_frame(traj: np.ndarray, n: int, pos: np.ndarray, mode: np.ndarray) -> None:
    for k in range(16):
        keep = mode[k] != OUT
        traj[n, k, 0] = pos[k, 0] if keep else 0.0
        traj[n, k, 1] = pos[k, 1] if keep else 0.0


@njit(cache=True, inline="always")
def _frame(
    traj: np.ndarray, stride: int, ctx: np.ndarray, pos: np.ndarray, mode: np.ndarray
) -> None:
    if stride > 0 and ctx[C_TICK] % stride == 0 and ctx[C_FRAMES] < traj.shape[0]:
        _store_frame(traj, ctx[C_FRAMES], pos, mode)
        ctx[C_FRAMES] += 1


#: The thrown stone alone runs in steps of many ticks (flight.band_ticks): at most
#: ``MAX_STEP_TICKS`` a step, and a step changes the speed by at most ``STEP_SPEED_SHARE`` of
#: it (error and cost measured in flight.py); steps shorter than ``MIN_STEP_TICKS`` go tick by
#: tick, as do stones spinning slower than ``MIN_STEP_SPIN`` rad/s (the platform's spin floor).
MAX_STEP_TICKS = 32
STEP_SPEED_SHARE = 0.3
MIN_STEP_TICKS = 4
MIN_STEP_SPIN = 1e-3


_U16 = np.uint64(0xFFFF)
_S16, _S32, _S48 = np.uint64(16), np.uint64(32), np.uint64(48)
_IRWIN_HALL_4 = math.sqrt(3.0) / 65536.0  # 4 uniforms on [0, 1): variance 1/3, scaled to 1


@njit(cache=True, inline="always")
def _normal(state: np.uint64) -> tuple[np.uint64, float]:
    """A draw of mean 0 and variance 1, close to normal: the sum of four 16-bit uniforms
    (Irwin-Hall) from one splitmix64 number."""
    state, z = _splitmix_bits(state)
    total = float(z & _U16) + float((z >> _S16) & _U16) + float((z >> _S32) & _U16)
    total += float(z >> _S48)
    return state, (total - 131070.0) * _IRWIN_HALL_4


@njit(cache=True, inline="always")
def _ticks_before(distance: float, per_tick: float) -> int:
    """Whole ticks (at most ``MAX_STEP_TICKS``) that cover less than ``distance`` at
    ``per_tick`` each (``distance`` may be inf)."""
    if distance >= MAX_STEP_TICKS * per_tick:
        return MAX_STEP_TICKS
    return int(distance / per_tick) if distance > 0.0 else 0


@njit(cache=True, inline="always")
def _regime_floor(reg: int, prm: np.ndarray) -> float:
    """The speed below which regime ``reg`` ends (the stop speed for the slowest)."""
    floor: float = prm[c.P_FAST] if reg == 2 else (prm[c.P_SLOW] if reg == 1 else prm[c.P_STOP])
    return floor


@njit(cache=True)
def _step_frames(
    traj: np.ndarray, stride: int, ctx: np.ndarray, pos: np.ndarray, mode: np.ndarray,
    slot: int, tick: int, m: int, dt: float, x: float, y: float, vx: float, vy: float,
    st: np.ndarray,
) -> None:  # fmt: skip
    """The frames of the ticks inside a step of ``m`` ticks from ``tick`` (the thrown stone
    alone moves): its position by cubic Hermite interpolation between the step's ends, so
    that recording a trajectory never changes the steps (nor the result)."""
    h = m * dt
    x1, y1, vx1, vy1 = st[fl.S_X], st[fl.S_Y], st[fl.S_VX], st[fl.S_VY]
    first = tick + stride - tick % stride
    for f in range(first, tick + m + 1, stride):
        if ctx[C_FRAMES] >= traj.shape[0]:
            break
        s = (f - tick) / m
        h00, h10 = (1 + 2 * s) * (1 - s) ** 2, s * (1 - s) ** 2
        h01, h11 = s * s * (3 - 2 * s), s * s * (s - 1)
        pos[slot, 0] = h00 * x + h10 * h * vx + h01 * x1 + h11 * h * vx1
        pos[slot, 1] = h00 * y + h10 * h * vy + h01 * y1 + h11 * h * vy1
        _store_frame(traj, ctx[C_FRAMES], pos, mode)
        ctx[C_FRAMES] += 1


@njit(cache=True)
def _free_flight(
    slot: int, pos: np.ndarray, vel: np.ndarray, spin: np.ndarray, mode: np.ndarray,
    ctx: np.ndarray, rng: np.ndarray, noise: bool, prm: np.ndarray, table: np.ndarray,
    mid_out: np.ndarray, sweep: float, sweep_limit: float, until_mid: bool, traj: np.ndarray,
    stride: int,
) -> int:  # fmt: skip
    """Move the thrown stone alone (band mode, nothing else moving) while it cannot reach any
    other stone: in steps of many ticks (flight.band_ticks) up to the ticks where something
    happens, tick by tick around them. Returns 0 when a contact may come within a tick (the
    caller runs a general tick), 1 when the stone stopped or left play, 2 when MOTIONINFO
    ends an ``until_mid`` run or the tick cap is reached."""
    dt = prm[c.P_DT]
    stop = prm[c.P_STOP]
    dist = 2.0 * prm[c.P_RC]
    free = gap(slot, pos, mode, dist)
    x, y = pos[slot, 0], pos[slot, 1]
    vx, vy, w = vel[slot, 0], vel[slot, 1], spin[slot]
    if abs(w) <= prm[c.P_SPIN_ZERO]:
        w = prm[c.P_SPIN_FLOOR]  # what the next tick would do (flight.band_velocity)
    tick = ctx[C_TICK]
    max_ticks = int(prm[c.P_MAX_TICKS])
    state = rng[0]
    sweep_from = ctx[C_SWEEP_FROM]
    watch = ctx[C_REPORTED] == 0  # MOTIONINFO still to come
    trig_y = prm[c.P_TRIG_Y]
    travelled = 0.0
    result = 2
    st = np.empty(fl.N_STATE)  # the state of steps of many ticks (flight.S_*)
    fl_reg, fl_base = -1, 0.0  # regime and friction of the last step (its slope holds for them)
    while tick < max_ticks:
        sp = math.sqrt(vx * vx + vy * vy)
        if sp <= stop:
            vx, vy, w = 0.0, 0.0, 0.0
            mode[slot] = REST
            result = 1
            break
        step = (sp + 1e-6) * dt
        if travelled + step > free:
            pos[slot, 0], pos[slot, 1] = x, y
            free = travelled + gap(slot, pos, mode, dist)
            if travelled + step > free:
                result = 0
                break
        # -- many ticks at once, up to the next tick where something happens ----------------
        swept = sweep_from >= 0 and tick >= sweep_from and y > sweep_limit
        m = 0
        if abs(w) > MIN_STEP_SPIN:
            # the nearest of: a possible contact, a side, the back line, the trigger, the end
            # of sweeping (the stone covers less than ``step`` a tick)
            room = min(free - travelled, x - prm[c.P_X_MIN], prm[c.P_X_MAX] - x)
            room = min(room, y - prm[c.P_Y_MIN])
            if watch:
                room = min(room, y - trig_y)
            if swept:
                room = min(room, y - sweep_limit)
            m = min(max_ticks - tick, _ticks_before(room, step))
            if not swept and sweep_from > tick:
                m = min(m, sweep_from - tick)
        if m >= MIN_STEP_TICKS:
            reg = fl.regime(sp, prm)
            base = prm[c.P_MU_SWEPT] if swept else prm[c.P_MU]
            z = 0.0
            if noise:
                state, z = _normal(state)
            st[fl.S_X], st[fl.S_Y], st[fl.S_VX], st[fl.S_VY], st[fl.S_W] = x, y, vx, vy, w
            fl.set_rate(st, reg, base, prm, table)
            if reg != fl_reg or base != fl_base:
                st[fl.S_SLOPE], st[fl.S_SLOPE + 1], st[fl.S_SLOPE + 2] = 0.0, 0.0, 0.0
                fl_reg, fl_base = reg, base
            g = math.sqrt(st[fl.S_G] * st[fl.S_G] + st[fl.S_G + 1] * st[fl.S_G + 1])
            floor = _regime_floor(reg, prm)
            m = min(m, int(STEP_SPEED_SHARE * sp / (g * dt)), int(0.9 * (sp - floor) / (g * dt)))
            g0 = (st[fl.S_G], st[fl.S_G + 1], st[fl.S_G + 2])
            slope = (st[fl.S_SLOPE], st[fl.S_SLOPE + 1], st[fl.S_SLOPE + 2])
            while m >= MIN_STEP_TICKS:
                mu = base + prm[c.P_MU_NOISE] * z / math.sqrt(3.0 * m)
                st[fl.S_X], st[fl.S_Y], st[fl.S_VX], st[fl.S_VY], st[fl.S_W] = x, y, vx, vy, w
                for k in range(3):
                    st[fl.S_G + k] = g0[k] + (mu - base) * st[fl.S_DRY + k]  # g is linear in mu
                    st[fl.S_SLOPE + k] = slope[k]
                fl.band_ticks(st, m, reg, mu, prm, table)
                end = math.sqrt(st[fl.S_VX] * st[fl.S_VX] + st[fl.S_VY] * st[fl.S_VY])
                if end > floor and st[fl.S_W] * w > 0.0 and abs(st[fl.S_W]) > MIN_STEP_SPIN:
                    break
                # The regime ends (or the spin nears 0) inside the step: stop short of it.
                m = min(m - 1, int((sp - floor) / (sp - end) * m) - 1) if end < sp else m // 2
            if m >= MIN_STEP_TICKS:
                if stride > 0:
                    _step_frames(traj, stride, ctx, pos, mode, slot, tick, m, dt, x, y, vx, vy, st)
                x, y, vx, vy, w = st[fl.S_X], st[fl.S_Y], st[fl.S_VX], st[fl.S_VY], st[fl.S_W]
                travelled += step * m
                tick += m
                continue
        # -- one tick ---------------------------------------------------------------------
        mu, sweep_from = _friction_mu(y, tick, sweep_from, sweep_limit, prm)
        if noise:
            state, u = _splitmix(state)
            mu += prm[c.P_MU_NOISE] * (2.0 * u - 1.0)
        vx, vy, w = band_accel(vx, vy, w, sp, mu, prm, table)
        x += vx * dt
        y += vy * dt
        travelled += step
        tick += 1
        fl_reg = -1  # after a single tick the next step starts without a slope
        if x <= prm[c.P_X_MIN] or x >= prm[c.P_X_MAX] or y <= prm[c.P_Y_MIN]:
            vx, vy, w = 0.0, 0.0, 0.0
            mode[slot] = OUT
            result = 1
            break
        if (watch and y <= trig_y) or (stride > 0 and tick % stride == 0):
            pos[slot, 0], pos[slot, 1] = x, y
            vel[slot, 0], vel[slot, 1], spin[slot] = vx, vy, w
            ctx[C_TICK] = tick
            if watch and _trigger(slot, pos, vel, spin, ctx, prm, mid_out, sweep):
                watch = False
                sweep_from = ctx[C_SWEEP_FROM]
                if until_mid:
                    break
            _frame(traj, stride, ctx, pos, mode)
    pos[slot, 0], pos[slot, 1] = x, y
    vel[slot, 0], vel[slot, 1], spin[slot] = vx, vy, w
    ctx[C_TICK] = tick
    ctx[C_SWEEP_FROM] = sweep_from
    rng[0] = state
    return result


@njit(cache=True, inline="always")
def _rigid_step(i: int, sp: float, vel: np.ndarray, spin: np.ndarray, prm: np.ndarray) -> bool:
    """One tick of Coulomb friction for a stone moved by a contact; False once it stops."""
    dv = prm[c.P_CDECEL] * prm[c.P_DT]
    if dv >= sp:
        vel[i, 0] = 0.0
        vel[i, 1] = 0.0
        spin[i] = 0.0
        return False
    f = 1.0 - dv / sp
    vel[i, 0] *= f
    vel[i, 1] *= f
    lim = prm[c.P_MAXSPIN]
    spin[i] = min(max(spin[i] * prm[c.P_DAMP], -lim), lim)
    return True


@njit(cache=True)
def _general_tick(
    slot: int, pos: np.ndarray, vel: np.ndarray, spin: np.ndarray, mode: np.ndarray,
    budget: np.ndarray, mov: np.ndarray, speed: np.ndarray, ctx: np.ndarray, rng: np.ndarray,
    noise: bool, prm: np.ndarray, table: np.ndarray, sweep_limit: float,
) -> int:  # fmt: skip
    """One tick for any number of moving stones; returns how many moved."""
    moving = 0
    for i in range(16):
        m = mode[i]
        if m < BAND:
            continue
        sp = math.sqrt(vel[i, 0] * vel[i, 0] + vel[i, 1] * vel[i, 1])
        if sp <= prm[c.P_STOP]:
            vel[i, 0], vel[i, 1], spin[i] = 0.0, 0.0, 0.0
            mode[i] = REST
            continue
        if m == BAND:
            mu, ctx[C_SWEEP_FROM] = _friction_mu(
                pos[i, 1], ctx[C_TICK], ctx[C_SWEEP_FROM], sweep_limit, prm
            )
            if noise:
                rng[0], u = _splitmix(rng[0])
                mu += prm[c.P_MU_NOISE] * (2.0 * u - 1.0)
            vel[i, 0], vel[i, 1], spin[i] = band_accel(
                vel[i, 0], vel[i, 1], spin[i], sp, mu, prm, table
            )
        elif not _rigid_step(i, sp, vel, spin, prm):
            mode[i] = REST
            continue
        mov[moving] = i
        speed[i] = sp + 1e-6  # speeds only drop in a tick, up to rounding
        moving += 1
    if moving == 0:
        return 0
    advance(mov, moving, speed, pos, vel, spin, mode, budget, prm)
    for i in range(16):
        if mode[i] >= BAND and (
            pos[i, 0] <= prm[c.P_X_MIN]
            or pos[i, 0] >= prm[c.P_X_MAX]
            or pos[i, 1] <= prm[c.P_Y_MIN]
        ):
            mode[i] = OUT
            vel[i, 0], vel[i, 1], spin[i] = 0.0, 0.0, 0.0
    ctx[C_TICK] += 1
    return moving


@njit(cache=True)
def run_shot(
    pos: np.ndarray, slot: int, throw: np.ndarray, seed: np.uint64, noise: bool,
    prm: np.ndarray, table: np.ndarray, until_mid: bool, traj: np.ndarray, stride: int,
    mid_out: np.ndarray, vel: np.ndarray, spin: np.ndarray, mode: np.ndarray,
    budget: np.ndarray, mov: np.ndarray, speed: np.ndarray,
) -> tuple[int, int]:  # fmt: skip
    """Simulate one throw in place on ``pos`` (16, 2). Returns (ticks, trajectory frames).

    ``throw`` is (v, h, w, sweep), already clamped. ``mid_out`` (5,) receives the MOTIONINFO
    state or stays NaN. With ``stride > 0`` frames go to ``traj`` (T, 16, 2) every ``stride``
    ticks, plus the first and the last frame.
    """
    for k in range(16):
        vel[k, 0], vel[k, 1], spin[k], budget[k] = 0.0, 0.0, 0.0, -1.0
        mode[k] = OUT if (pos[k, 0] == 0.0 and pos[k, 1] == 0.0) else REST
    mid_out[:] = np.nan
    pos[slot, 0] = prm[c.P_REL_X] + throw[1]
    pos[slot, 1] = prm[c.P_REL_Y]
    vel[slot, 1] = -throw[0]
    spin[slot] = throw[2]
    mode[slot] = BAND
    sweep = throw[3]
    sweep_limit = max(prm[c.P_SWEEP_ORIGIN] - sweep, prm[c.P_SWEEP_END])
    ctx = np.zeros(N_CTX, dtype=np.int64)
    ctx[C_CROSSED], ctx[C_SWEEP_FROM] = -1, -1
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = seed
    if stride > 0:
        _store_frame(traj, 0, pos, mode)
        ctx[C_FRAMES] = 1
    max_ticks = int(prm[c.P_MAX_TICKS])
    moving = 1
    while ctx[C_TICK] < max_ticks:
        if moving == 1 and mode[slot] == BAND:
            res = _free_flight(
                slot, pos, vel, spin, mode, ctx, rng, noise, prm, table, mid_out, sweep,
                sweep_limit, until_mid, traj, stride,
            )  # fmt: skip
            if res != 0:
                break
        moving = _general_tick(
            slot, pos, vel, spin, mode, budget, mov, speed, ctx, rng, noise, prm, table,
            sweep_limit,
        )  # fmt: skip
        if moving == 0:
            break
        if ctx[C_REPORTED] == 0 and mode[slot] != OUT:
            if _trigger(slot, pos, vel, spin, ctx, prm, mid_out, sweep) and until_mid:
                break
        _frame(traj, stride, ctx, pos, mode)
        if mode[slot] != BAND and (ctx[C_REPORTED] == 1 or mode[slot] == OUT):
            # Only rigid stones move (contacts happened): jump over ticks where nothing can.
            jumped, ctx[C_FRAMES] = rigid_jump(
                pos, vel, spin, mode, budget, prm, max_ticks - ctx[C_TICK], traj, stride,
                ctx[C_TICK], ctx[C_FRAMES],
            )  # fmt: skip
            ctx[C_TICK] += jumped
    if not until_mid:
        _remove_out_of_play(pos, mode, prm)
    for k in range(16):
        if mode[k] == OUT:
            pos[k, 0], pos[k, 1] = 0.0, 0.0
    nframes = ctx[C_FRAMES]
    if stride > 0:
        # The last frame is the final position (after removal): append it, or overwrite the
        # frame of this tick if one was just stored.
        tick = ctx[C_TICK]
        if (tick == 0 or tick % stride != 0) and nframes < traj.shape[0]:
            nframes += 1
        _store_frame(traj, nframes - 1, pos, mode)
    return ctx[C_TICK], nframes


@njit(cache=True)
def _remove_out_of_play(pos: np.ndarray, mode: np.ndarray, prm: np.ndarray) -> None:
    """After every stone stopped: anything outside the play area leaves play."""
    for k in range(16):
        if mode[k] != OUT and (
            pos[k, 0] <= prm[c.P_X_MIN] or pos[k, 0] >= prm[c.P_X_MAX]
            or pos[k, 1] <= prm[c.P_Y_MIN] or pos[k, 1] >= prm[c.P_Y_MAX]
        ):  # fmt: skip
            mode[k] = OUT


@njit(cache=True)
def _run_rows(
    positions: np.ndarray, slots: np.ndarray, throws: np.ndarray, seeds: np.ndarray,
    noise: bool, prm: np.ndarray, table: np.ndarray, mid: np.ndarray, ticks: np.ndarray,
    start: int, stop: int,
) -> None:  # fmt: skip
    """Throws ``start:stop`` of a batch, one after another, with scratch arrays of their own."""
    vel = np.zeros((16, 2))
    spin = np.zeros(16)
    mode = np.zeros(16, dtype=np.int8)
    budget = np.zeros(16)
    mov = np.zeros(16, dtype=np.int64)
    speed = np.zeros(16)
    traj = np.zeros((1, 16, 2))
    for n in range(start, stop):
        t, _ = run_shot(
            positions[n], slots[n], throws[n], seeds[n], noise, prm, table, False, traj, 0,
            mid[n], vel, spin, mode, budget, mov, speed,
        )  # fmt: skip
        ticks[n] = t


@njit(cache=True)
def run_batch(
    positions: np.ndarray, slots: np.ndarray, throws: np.ndarray, seeds: np.ndarray,
    noise: bool, prm: np.ndarray, table: np.ndarray, mid: np.ndarray, ticks: np.ndarray,
) -> None:  # fmt: skip
    """Simulate ``N`` throws in place on ``positions`` (N, 16, 2); fills ``mid`` and ``ticks``."""
    n = positions.shape[0]
    _run_rows(positions, slots, throws, seeds, noise, prm, table, mid, ticks, 0, n)


@njit(cache=True, parallel=True)
def run_batch_parallel(
    positions: np.ndarray, slots: np.ndarray, throws: np.ndarray, seeds: np.ndarray,
    noise: bool, prm: np.ndarray, table: np.ndarray, mid: np.ndarray, ticks: np.ndarray,
    chunks: int,
) -> None:  # fmt: skip
    """:func:`run_batch` with the throws split into ``chunks`` parts run in parallel (one per
    Numba thread)."""
    n = positions.shape[0]
    for k in prange(chunks):
        start, stop = k * n // chunks, (k + 1) * n // chunks
        _run_rows(positions, slots, throws, seeds, noise, prm, table, mid, ticks, start, stop)

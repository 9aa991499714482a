"""Public API of the physics engine: clamp a throw, simulate one throw or a batch of them.

Pure: positions, a throw, an :class:`~rllib_curling.physics.ice.IceModel` and a
``numpy.random.Generator`` go in, new positions come out. Randomness (the platform's per-tick
friction noise) comes from one 64-bit seed per shot drawn from the Generator
(:func:`derive_seeds`) and a splitmix64 stream inside the compiled kernel, so the same
Generator state and inputs give bit-identical results, one shot at a time or batched: row ``k``
of :func:`simulate_batch` equals :func:`simulate` called with ``seed=seeds[k]``.

A batch of ``PARALLEL_MIN_THROWS`` or more throws is spread over Numba's threads (one per core
by default; ``NUMBA_NUM_THREADS=1`` turns it off), with the same results. The search bots'
batches (levels 5–8, and ``--search``) use the idle cores this way; calls from several Python
threads take turns (Numba's default thread pool is not re-entrant).

Array layouts (protocol frame, sheet.py):

==============  ============  ==============================================================
name            shape         meaning
==============  ============  ==============================================================
position        (16, 2)       x, y of stones 0..15 in throwing order; (0, 0) = not in play
throw           (3,) / (4,)   v m/s, h m (release x = RELEASE_X + h), w rad/s (+ curls to
                              +x), sweep m after the mid-sheet line (default 0)
mid             (5,)          MOTIONINFO: x, y, vx, vy, spin of the thrown stone
trajectory      (T, 16, 2)    positions every ``trajectory_stride`` ticks (0.01 s), first
                              frame at release, last frame = final position
==============  ============  ==============================================================
"""

from __future__ import annotations

import functools
import math
import threading
from dataclasses import dataclass

import numpy as np

from rllib_curling import sheet
from rllib_curling.errors import InvalidThrowError
from rllib_curling.physics import contact as c
from rllib_curling.physics.band import build_table
from rllib_curling.physics.ice import PLATFORM, IceModel
from rllib_curling.physics.kernel import run_batch, run_batch_parallel, run_shot

THROW_NAMES = ("v", "h", "w", "sweep")
#: Batches at least this large run on all of Numba's threads (below, starting them costs more).
PARALLEL_MIN_THROWS = 16
_PARALLEL_LOCK = threading.Lock()
#: Lower and upper clamp of each throw component, as the platform clamps BESTSHOT.
THROW_LOW = np.array([0.0, -sheet.H_MAX, -sheet.W_MAX, 0.0])
THROW_HIGH = np.array([sheet.V_MAX, sheet.H_MAX, sheet.W_MAX, sheet.SWEEP_MAX])


@dataclass(frozen=True)
class SimResult:
    """One simulated throw.

    ``position`` (16, 2): after every stone stopped and out-of-play removal (with
    ``until_midsheet``: the stones at the MOTIONINFO tick, thrown stone still moving).
    ``mid`` (5,) x, y, vx, vy, spin at MOTIONINFO, or None if the stone never got there.
    ``trajectory`` (T, 16, 2) or None. ``ticks``: 0.01 s ticks simulated.
    """

    position: np.ndarray
    mid: np.ndarray | None
    trajectory: np.ndarray | None
    ticks: int


@dataclass(frozen=True)
class BatchResult:
    """N simulated throws: ``positions`` (N, 16, 2), ``mid`` (N, 5) with NaN rows where the
    thrown stone never reached the mid-sheet trigger, ``trajectories`` list of (T_i, 16, 2) or
    None, ``ticks`` (N,)."""

    positions: np.ndarray
    mid: np.ndarray
    trajectories: list[np.ndarray] | None
    ticks: np.ndarray


def clamp_throw(throw: object) -> np.ndarray:
    """Validate and clamp one throw; returns a new (4,) float64 array ``v, h, w, sweep``.

    Accepts ``(v, h, w)`` or ``(v, h, w, sweep)``. Clamps like the platform's BESTSHOT entry:
    v to [0, 6] m/s, h to [-2.23, 2.23] m, w to [-15.7, 15.7] rad/s; sweep to [0, 12] m (the
    sweep window ends at the far hog line, about 11 m on, anyway). The platform turns a speed
    below 0.0001 into 1.0; we keep it (a zero-speed stone stays at the release point and is
    removed as short of the hog). NaN, inf, non-numbers or another length raise
    :class:`InvalidThrowError` naming the value, e.g. ``throw v=nan is not a finite number``.
    """
    fast = _clamp_plain(throw)
    if fast is not None:
        return fast
    clamped: np.ndarray = _clamp(np.atleast_2d(_as_float(throw, "throw")), "throw", single=True)[0]
    return clamped


_PLAIN_NUMBERS = (float, int, np.floating, np.integer)
_LOW, _HIGH = THROW_LOW.tolist(), THROW_HIGH.tolist()


def _clamp_plain(throw: object) -> np.ndarray | None:
    """``clamp_throw`` of 3 or 4 finite plain numbers (the common case: a tuple from the wire
    or a 1-d float array) in plain Python, with the same result; None for anything else (the
    general path then checks it and words the error)."""
    if isinstance(throw, np.ndarray):
        if throw.ndim != 1 or throw.dtype.kind != "f":
            return None
        values = throw.tolist()
    elif isinstance(throw, tuple | list):
        values = throw
    else:
        return None
    n = len(values)
    if n != 3 and n != 4:
        return None
    out = []
    for x, lo, hi in zip(values, _LOW, _HIGH, strict=False):  # 3 values: no sweep
        if type(x) is not float:
            if isinstance(x, bool) or not isinstance(x, _PLAIN_NUMBERS):
                return None
            x = float(x)
        if not lo < x < hi:
            if not math.isfinite(x):
                return None
            x = lo if x <= lo else hi  # as np.clip: -0.0 at the bound 0.0 becomes 0.0
        out.append(x)
    if n == 3:
        out.append(0.0)
    return np.array(out)


def _as_float(value: object, what: str) -> np.ndarray:
    try:
        return np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidThrowError(
            f"{what} must be numbers in a rectangular array, got {value!r}"
        ) from exc


def _clamp(throws: np.ndarray, what: str, single: bool = False) -> np.ndarray:
    if throws.ndim != 2 or throws.shape[1] not in (3, 4):
        shape = throws.shape[1:] if single else throws.shape
        want = "(3,) or (4,)" if single else "(N, 3) or (N, 4)"
        raise InvalidThrowError(f"{what} must have shape {want} (v, h, w[, sweep]); got {shape}")
    bad = np.argwhere(~np.isfinite(throws))
    if bad.size:
        row, col = bad[0]
        where = what if single else f"{what}[{row}]"
        raise InvalidThrowError(
            f"{where} {THROW_NAMES[col]}={throws[row, col]} is not a finite number"
        )
    out = np.zeros((throws.shape[0], 4))
    out[:, : throws.shape[1]] = throws
    return np.clip(out, THROW_LOW, THROW_HIGH)


def clamp_throws(throws: object) -> np.ndarray:
    """``clamp_throw`` of each row of an (N, 3) or (N, 4) array: a new (N, 4) float64 array.
    Raises :class:`InvalidThrowError` naming the first row that is not finite numbers."""
    return _clamp(np.atleast_2d(_as_float(throws, "throws")), "throws")


def derive_seeds(rng: np.random.Generator, n: int) -> np.ndarray:
    """One 64-bit seed per shot from ``rng`` (uint64 array of length ``n``)."""
    return rng.integers(0, 2**63, size=n, dtype=np.int64).astype(np.uint64)


def pack_params(model: IceModel) -> np.ndarray:
    """The model's scalars as the kernel's parameter vector (layout in physics.contact)."""
    p = np.zeros(c.N_PARAMS)
    p[c.P_DT] = model.dt
    p[c.P_MAX_TICKS] = model.max_ticks
    p[c.P_MU], p[c.P_MU_NOISE], p[c.P_MU_SWEPT] = model.mu, model.mu_noise, model.mu_swept
    p[c.P_BAND_R] = model.band_radius
    p[c.P_FAST], p[c.P_SLOW] = model.regime_fast, model.regime_slow
    p[c.P_DAMP] = max(0.0, 1.0 - model.angular_damping * model.dt)
    p[c.P_STOP] = model.stop_speed
    p[c.P_TRIG_Y], p[c.P_TRIG_DELAY] = model.midsheet_trigger_y, model.midsheet_delay_ticks
    p[c.P_SWEEP_ORIGIN], p[c.P_SWEEP_END] = model.sweep_origin_y, model.sweep_end_y
    p[c.P_SWEEP_DELAY] = model.sweep_delay_ticks
    p[c.P_SPIN_ZERO], p[c.P_SPIN_FLOOR] = model.spin_zero, model.spin_floor
    p[c.P_RC], p[c.P_REST], p[c.P_BOUNCE] = (
        model.collider_radius, model.restitution, model.bounce_threshold,
    )  # fmt: skip
    p[c.P_CFRIC], p[c.P_CINERTIA] = model.contact_friction, model.contact_inertia_factor
    p[c.P_CDECEL] = model.contact_mu * model.contact_friction_anchors * model.gravity
    p[c.P_MAXSPIN] = model.max_contact_spin
    p[c.P_X_MIN], p[c.P_X_MAX] = sheet.PLAY_X_MIN, sheet.PLAY_X_MAX
    p[c.P_Y_MIN], p[c.P_Y_MAX] = sheet.PLAY_Y_MIN, sheet.PLAY_Y_MAX
    p[c.P_REL_X], p[c.P_REL_Y] = sheet.RELEASE_X, sheet.RELEASE_Y
    return p


@functools.lru_cache(maxsize=16)
def compiled_model(model: IceModel) -> tuple[np.ndarray, np.ndarray]:
    """(parameter vector, friction table) of a model, built once per process."""
    return pack_params(model), build_table(model)


#: The last model ``_params`` compiled: found by identity, without hashing its ~30 fields.
_LAST_MODEL: list[tuple[IceModel, np.ndarray, np.ndarray]] = []


def _params(model: IceModel, remove_out_of_play: bool) -> tuple[np.ndarray, np.ndarray]:
    last = _LAST_MODEL[0] if _LAST_MODEL else None
    if last is not None and last[0] is model:
        prm, table = last[1], last[2]
    else:
        prm, table = compiled_model(model)
        _LAST_MODEL[:] = [(model, prm, table)]
    if not remove_out_of_play:
        prm = prm.copy()
        prm[[c.P_X_MIN, c.P_Y_MIN]] = -np.inf
        prm[[c.P_X_MAX, c.P_Y_MAX]] = np.inf
    return prm, table


def _check_positions(positions: np.ndarray, slots: np.ndarray, single: bool) -> None:
    if positions.shape[-2:] != (16, 2):
        raise InvalidThrowError(f"position must have shape (16, 2); got {positions.shape}")
    if not np.all(np.isfinite(positions)):
        raise InvalidThrowError("position contains a value that is not a finite number")
    if np.any((slots < 0) | (slots > 15)):
        bad = int(slots[(slots < 0) | (slots > 15)][0])
        raise InvalidThrowError(f"slot must be in 0..15, got {bad}")
    stones = positions[np.arange(len(slots)), slots]
    taken = np.any(stones != 0.0, axis=1)
    if np.any(taken):
        n = int(np.argmax(taken))
        where = "" if single else f" in position[{n}]"
        x, y = stones[n]
        raise InvalidThrowError(
            f"slot {int(slots[n])}{where} is occupied by a stone at ({x:g}, {y:g});"
            " the thrown stone needs an empty (0, 0) slot"
        )


def _seeds(rng: np.random.Generator | None, seeds: object, n: int, noise: bool) -> np.ndarray:
    if seeds is not None:
        out = np.asarray(seeds).astype(np.uint64).reshape(-1)
        if out.shape[0] != n:
            raise ValueError(f"need {n} seeds, got {out.shape[0]}")
        return out
    if rng is None:
        if noise:
            raise ValueError(
                "noise=True needs a numpy.random.Generator (rng=np.random.default_rng(seed))"
                " or explicit seeds; pass noise=False for the noise-free model"
            )
        return np.zeros(n, dtype=np.uint64)
    return derive_seeds(rng, n)


def _frames(model: IceModel, stride: int) -> int:
    return model.max_ticks // stride + 2


def simulate(
    position: np.ndarray, slot: int, throw: object, rng: np.random.Generator | None = None,
    *, model: IceModel = PLATFORM, noise: bool = True, trajectory_stride: int = 0,
    until_midsheet: bool = False, seed: int | None = None, remove_out_of_play: bool = True,
) -> SimResult:  # fmt: skip
    """Throw stone ``slot`` into ``position`` and run until every stone stops.

    The stone is released at (RELEASE_X + h, RELEASE_Y) with velocity (0, -v) and spin w; slot
    ``slot`` must be empty ((0, 0)) or :class:`InvalidThrowError` is raised. ``rng`` supplies
    the friction noise (required unless ``noise=False`` or ``seed`` is given: ValueError).
    ``until_midsheet=True`` stops at the MOTIONINFO tick: the first tick after the thrown
    stone's centre reaches ``model.midsheet_trigger_y`` (21.5486, where its collider enters the
    platform's Midline trigger) plus ``model.midsheet_delay_ticks`` (1): on average y = 21.52
    as the calibration table says. To report MOTIONINFO and later finish the same shot with
    a sweep, draw one seed (:func:`derive_seeds`) and pass ``seed=`` to both calls.
    ``remove_out_of_play=False`` keeps stones that leave the play area (for comparing rest
    points with calibration tables); the rules always remove them.
    """
    pos = _as_float(position, "position")
    if pos.shape != (16, 2):
        raise InvalidThrowError(f"position must have shape (16, 2); got {pos.shape}")
    plain = isinstance(slot, int | np.integer) and 0 <= slot <= 15
    # A sum of finite values is finite unless it overflows, and then the full check decides.
    if not (plain and math.isfinite(pos.sum()) and pos[slot].tolist() == [0.0, 0.0]):
        _check_positions(pos[None], np.array([slot], dtype=np.int64), single=True)  # raises
    th = clamp_throw(throw)
    stride = int(trajectory_stride)
    if stride < 0:
        raise ValueError(f"trajectory_stride must be >= 0, got {stride}")
    if type(seed) is int and rng is None and 0 <= seed < 2**63:
        s = np.uint64(seed)  # the value ``_seeds`` gives for ``[seed]``, without the arrays
    else:
        s = _seeds(rng, None if seed is None else [seed], 1, noise)[0]
    prm, table = _params(model, remove_out_of_play)
    scratch = _scratch()
    traj = np.zeros((_frames(model, stride), 16, 2)) if stride else scratch[0]
    mid = np.empty(5)  # the kernel fills it: the MOTIONINFO state, or NaN
    ticks, frames = run_shot(
        pos, int(slot), th, s, bool(noise), prm, table, bool(until_midsheet), traj, stride, mid,
        *scratch[1:],
    )  # fmt: skip
    return SimResult(
        position=pos,
        mid=None if math.isnan(mid[0]) else mid,
        trajectory=traj[:frames].copy() if stride else None,
        ticks=int(ticks),
    )


def _run_batch(
    positions: np.ndarray, slots: np.ndarray, throws: np.ndarray, seeds: np.ndarray,
    noise: bool, prm: np.ndarray, table: np.ndarray, mid: np.ndarray, ticks: np.ndarray,
) -> None:  # fmt: skip
    """``kernel.run_batch``, on all of Numba's threads for a large batch (module docstring)."""
    import numba

    n = positions.shape[0]
    threads = numba.get_num_threads()
    args = positions, slots, throws, seeds, noise, prm, table, mid, ticks
    if n < PARALLEL_MIN_THROWS or threads < 2:
        run_batch(*args)
        return
    with _PARALLEL_LOCK:
        run_batch_parallel(*args, min(threads, n))


_SCRATCH = threading.local()


def _scratch() -> tuple[np.ndarray, ...]:
    """This thread's work arrays of the kernel, made once: an unused (1, 16, 2) trajectory,
    then vel, spin, mode, budget, moving list, speed bound. The kernel sets every one it reads
    (``kernel.run_shot``), so reusing them changes no result."""
    arrays = getattr(_SCRATCH, "arrays", None)
    if arrays is None:
        arrays = _SCRATCH.arrays = (
            np.zeros((1, 16, 2)), np.zeros((16, 2)), np.zeros(16), np.zeros(16, dtype=np.int8),
            np.zeros(16), np.zeros(16, dtype=np.int64), np.zeros(16),
        )  # fmt: skip
    return arrays


def simulate_batch(
    positions: np.ndarray, slots: object, throws: object,
    rng: np.random.Generator | None = None, *, model: IceModel = PLATFORM, noise: bool = True,
    trajectory_stride: int = 0, seeds: object = None, remove_out_of_play: bool = True,
) -> BatchResult:  # fmt: skip
    """Simulate N throws in one compiled call (see :func:`simulate` for one throw).

    ``positions`` (N, 16, 2), or (16, 2) shared by all throws; ``slots`` (N,) or one int;
    ``throws`` (N, 3) or (N, 4). Seeds: ``seeds`` (N,) if given, else drawn from ``rng``
    (:func:`derive_seeds`). With ``trajectory_stride > 0`` the shots run one compiled call each
    and ``trajectories`` lists their (T_i, 16, 2) frames. ``remove_out_of_play``: as in
    :func:`simulate`.
    """
    th = clamp_throws(throws)
    n = th.shape[0]
    pos = _as_float(positions, "positions")
    if pos.ndim == 2:
        pos = np.repeat(pos[None], n, axis=0)
    elif pos.ndim != 3 or pos.shape[0] != n:
        raise InvalidThrowError(f"positions must be (16, 2) or ({n}, 16, 2); got {pos.shape}")
    sl = np.broadcast_to(np.asarray(slots, dtype=np.int64), (n,)).copy()
    _check_positions(pos, sl, single=False)
    stride = int(trajectory_stride)
    if stride < 0:
        raise ValueError(f"trajectory_stride must be >= 0, got {stride}")
    sd = _seeds(rng, seeds, n, noise)
    prm, table = _params(model, remove_out_of_play)
    mid = np.full((n, 5), np.nan)
    ticks = np.zeros(n, dtype=np.int64)
    trajectories = None
    if stride == 0:
        _run_batch(pos, sl, th, sd, bool(noise), prm, table, mid, ticks)
    else:
        trajectories = []
        traj = np.zeros((_frames(model, stride), 16, 2))
        scratch = _scratch()[1:]
        for k in range(n):
            t, frames = run_shot(
                pos[k], int(sl[k]), th[k], sd[k], bool(noise), prm, table, False, traj, stride,
                mid[k], *scratch,
            )  # fmt: skip
            ticks[k] = t
            trajectories.append(traj[:frames].copy())
    return BatchResult(positions=pos, mid=mid, trajectories=trajectories, ticks=ticks)

"""Public API of the fcv1 ice (UEC Digital Curling's physics): throw one stone, or a batch.

Pure: stones, a throw (and, for noise, a ``numpy.random.Generator``) in; where the stones rest
out. No noise unless asked: DC's execution noise is :func:`.noise.noisy_throws`, applied here
when ``rng`` is given.

Array layouts (DC shot frame, :mod:`rllib_curling.dc_sheet`: hack at the origin, +y down the
sheet, metres):

==============  ============  ==============================================================
name            shape         meaning
==============  ============  ==============================================================
position        (16, 2)       x, y of DC's bodies 0..15 (team 0's stones 0..7, then team
                              1's); (0, 0) = not in play
throw           (3,)          vx, vy m/s at release from the hack; rotation: +1 ccw (w > 0,
                              curls toward -x), -1 cw (curls toward +x)
status          (16,)         int8 codes, names in :data:`STATUS_NAMES`: 0 empty, 1 in_play,
                              2 out_side, 3 out_back, 4 out_hog
rest            (16, 2)       where each stone ended: its rest point (in play and out_hog), its
                              last position in play (removed in motion), 0 for empty slots
trajectory      (T, 16, 2)    positions every 0.1 s from the release, then the final one
                              (before the hog-line removal); NaN for stones not in play
==============  ============  ==============================================================
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rllib_curling import dc_sheet
from rllib_curling.errors import InvalidThrowError
from rllib_curling.physics.fcv1 import params as p
from rllib_curling.physics.fcv1.flight import V_TOP, table
from rllib_curling.physics.fcv1.kernel import run_batch, run_shot
from rllib_curling.physics.fcv1.noise import NORMAL_DIST, NoiseModel, noisy_throws

STATUS_NAMES = p.STATUS_NAMES
THROW_NAMES = ("vx", "vy", "rotation")


@dataclass(frozen=True)
class Fcv1Result:
    """One shot: ``position`` (16, 2) after it ((0, 0) out of play), ``status`` (16,) int8,
    ``rest`` (16, 2), ``steps`` (0.001 s steps until all stopped), ``trajectory`` (T, 16, 2) or
    None, ``throw`` (3,) as thrown (after noise, if any)."""

    position: np.ndarray
    status: np.ndarray
    rest: np.ndarray
    steps: int
    trajectory: np.ndarray | None
    throw: np.ndarray


@dataclass(frozen=True)
class Fcv1Batch:
    """N shots: ``positions`` (N, 16, 2), ``status`` (N, 16), ``rest`` (N, 16, 2), ``steps``
    (N,), ``trajectories`` list of (T_i, 16, 2) or None, ``throws`` (N, 3) as thrown."""

    positions: np.ndarray
    status: np.ndarray
    rest: np.ndarray
    steps: np.ndarray
    trajectories: list[np.ndarray] | None
    throws: np.ndarray


def check_throws(throws: object) -> np.ndarray:
    """Throws as an (N, 3) float64 array ``vx, vy, rotation`` (rotation -1 or +1); raises
    :class:`InvalidThrowError` naming the bad value."""
    try:
        th = np.atleast_2d(np.array(throws, dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise InvalidThrowError(
            f"throws must be numbers (vx, vy, rotation), got {throws!r}"
        ) from exc
    if th.ndim != 2 or th.shape[1] != 3:
        raise InvalidThrowError(
            f"throws must have shape (3,) or (N, 3) (vx, vy, rotation); got {th.shape}"
        )
    bad = np.argwhere(~np.isfinite(th))
    if bad.size:
        row, col = bad[0]
        raise InvalidThrowError(
            f"throw {row} {THROW_NAMES[col]}={th[row, col]} is not a finite number"
        )
    rot = th[:, 2]
    if not np.all((rot == 1.0) | (rot == -1.0)):
        row = int(np.flatnonzero((rot != 1.0) & (rot != -1.0))[0])
        raise InvalidThrowError(f"throw {row} rotation={rot[row]:g}; allowed: +1 (ccw) or -1 (cw)")
    speed = np.hypot(th[:, 0], th[:, 1])
    if np.any(speed >= V_TOP):
        row = int(np.flatnonzero(speed >= V_TOP)[0])
        raise InvalidThrowError(f"throw {row} speed {speed[row]:g} m/s; allowed: below {V_TOP:g}")
    return th


def _check_positions(pos: np.ndarray, slots: np.ndarray) -> None:
    if pos.shape[-2:] != (16, 2):
        raise InvalidThrowError(f"position must have shape (16, 2); got {pos.shape}")
    if not np.all(np.isfinite(pos)):
        raise InvalidThrowError("position contains a value that is not a finite number")
    if np.any((slots < 0) | (slots > 15)):
        raise InvalidThrowError(
            f"slot must be in 0..15, got {int(slots[(slots < 0) | (slots > 15)][0])}"
        )
    stones = pos[np.arange(len(slots)), slots]
    taken = np.any(stones != 0.0, axis=1)
    if np.any(taken):
        k = int(np.argmax(taken))
        raise InvalidThrowError(
            f"slot {int(slots[k])} is occupied by a stone at ({stones[k, 0]:g}, {stones[k, 1]:g});"
            " the thrown stone needs an empty (0, 0) slot"
        )


def _prepare(
    positions: object, slots: object, throws: object, rng: np.random.Generator | None,
    noise: NoiseModel,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    th = check_throws(throws)
    n = th.shape[0]
    try:
        pos = np.array(positions, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidThrowError(f"positions must be numbers, got {positions!r}") from exc
    if pos.ndim == 2:
        pos = np.repeat(pos[None], n, axis=0)
    if pos.ndim != 3 or pos.shape[0] != n:
        raise InvalidThrowError(f"positions must be (16, 2) or ({n}, 16, 2); got {pos.shape}")
    sl = np.broadcast_to(np.asarray(slots, dtype=np.int64), (n,)).copy()
    _check_positions(pos, sl)
    if rng is not None:
        th = th.copy()
        th[:, :2] = noisy_throws(th[:, :2], rng, noise)
    kernel_throws = th.copy()
    kernel_throws[:, 2] = th[:, 2] * dc_sheet.RELEASE_OMEGA
    return pos, sl, th, kernel_throws


def simulate(
    position: object, slot: int, throw: object, rng: np.random.Generator | None = None, *,
    noise: NoiseModel = NORMAL_DIST, trajectory: bool = False,
) -> Fcv1Result:  # fmt: skip
    """Throw DC body ``slot`` (empty in ``position``) from the hack with ``throw`` = (vx, vy,
    rotation) and run until every stone stops (module docstring for the arrays). With ``rng``
    the throw first gets DC's execution noise (``noise``: a player's parameters)."""
    pos, sl, th, kt = _prepare(position, [slot], [throw], rng, noise)
    out_pos, out_rest = np.zeros((16, 2)), np.zeros((16, 2))
    status = np.zeros(16, dtype=np.int8)
    traj = (
        np.zeros((p.MAX_STEPS // p.FRAME_STEPS + 2, 16, 2)) if trajectory else np.zeros((1, 16, 2))
    )
    steps, frames = run_shot(
        *table(), pos[0], int(sl[0]), kt[0, 0], kt[0, 1], kt[0, 2], trajectory, traj, out_pos,
        out_rest, status,
    )  # fmt: skip
    return Fcv1Result(
        position=out_pos, status=status, rest=out_rest, steps=int(steps),
        trajectory=traj[:frames].copy() if trajectory else None, throw=th[0],
    )  # fmt: skip


def simulate_batch(
    positions: object, slots: object, throws: object, rng: np.random.Generator | None = None, *,
    noise: NoiseModel = NORMAL_DIST, trajectory: bool = False,
) -> Fcv1Batch:  # fmt: skip
    """N shots in one compiled call: ``positions`` (N, 16, 2) or one (16, 2) for all, ``slots``
    (N,) or one int, ``throws`` (N, 3). Row k equals :func:`simulate` of row k (with ``rng``:
    the noise of all rows is drawn first, in row order)."""
    pos, sl, th, kt = _prepare(positions, slots, throws, rng, noise)
    n = th.shape[0]
    out_pos, out_rest = np.zeros((n, 16, 2)), np.zeros((n, 16, 2))
    status = np.zeros((n, 16), dtype=np.int8)
    steps = np.zeros(n, dtype=np.int64)
    trajectories: list[np.ndarray] | None = None
    if not trajectory:
        run_batch(*table(), pos, sl, kt, out_pos, out_rest, status, steps)
    else:
        trajectories = []
        traj = np.zeros((p.MAX_STEPS // p.FRAME_STEPS + 2, 16, 2))
        for k in range(n):
            s, frames = run_shot(
                *table(), pos[k], int(sl[k]), kt[k, 0], kt[k, 1], kt[k, 2], True, traj,
                out_pos[k], out_rest[k], status[k],
            )  # fmt: skip
            steps[k] = s
            trajectories.append(traj[:frames].copy())
    return Fcv1Batch(
        positions=out_pos, status=status, rest=out_rest, steps=steps, trajectories=trajectories,
        throws=th,
    )  # fmt: skip


def status_name(code: int) -> str:
    """The name of a status code (``in_play``, ``out_side``, ...)."""
    return STATUS_NAMES[code]

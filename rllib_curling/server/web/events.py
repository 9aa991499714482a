"""What the page is told: game records turned into page events, shot trajectories, the sheet.

**Events** are the records of ``server.records`` (the same dicts, the same field names), plus:

| field        | in            | meaning                                                          |
|--------------|---------------|------------------------------------------------------------------|
| ``seq``      | every event   | its index in the game's event list (0 = ``game_start``)          |
| ``next_seat``| ``shot``      | the seat that throws next (``game.first_seat_after`` at an end's |
|              |               | last stone), null once the game is over                          |
| ``frames``   | ``shot``      | the thrown stone's path and the stones it moved (below), or      |
|              |               | absent: the page then asks ``POST /api/trajectory`` for it       |
| ``seed``     | ``shot``      | the physics seed itself (``simulate(…, seed=seed)``), as server  |
|              |               | records and ``curling match`` write it; records written before  |
|              |               | it hold ``shot_seed`` (``default_rng(shot_seed)``) instead       |

``shot_seed`` and ``seed`` are sent as strings: 64-bit integers are beyond JavaScript's exact
ones (``POST /api/trajectory`` takes them back either way).

**Frames** (``shot_frames``): the engine's trajectory (``physics.simulate`` with
``trajectory_stride``, 0.01 s ticks), decimated to at most ``MAX_FRAMES`` frames, only the stones
that moved, rounded to the millimetre::

    {"dt": seconds between frames, "stones": [k, ...], "xy": [[x_k, y_k, ...] per frame]}

The first frame is the release, the last one the rest position of every moving stone before the
rules (free guard zone, centre line, out of play) settle the shot: the page ends every animation
on the event's ``position``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rllib_curling import sheet
from rllib_curling.game import BLANK_END_CHOICES, GameConfig, first_seat_after
from rllib_curling.physics.ice import PLATFORM
from rllib_curling.server.records import shot_randomness

#: At most this many frames per shot (a draw rolls about 2000 ticks: one frame per 0.1 s).
MAX_FRAMES = 240
#: The physics tick, seconds (the platform's ice: Unity's fixed time step).
TICK_S = PLATFORM.dt
#: The record types the page reads; others (``run``) are not forwarded.
EVENT_TYPES = ("game_start", "shot", "reset", "game")


def sheet_geometry() -> dict[str, Any]:
    """The sheet as the page draws it, from ``rllib_curling.sheet`` (metres, protocol frame)."""
    return {
        "width": sheet.SHEET_WIDTH, "length": sheet.SHEET_LENGTH, "centre_x": sheet.CENTRE_X,
        "tee": list(sheet.TEE), "rings": list(sheet.RING_RADII),
        "house_score_radius": sheet.HOUSE_SCORE_RADIUS, "stone_radius": sheet.STONE_RADIUS,
        # The back line touches the outer ring; stones fully past it leave play (PLAY_Y_MIN).
        "back_line_y": sheet.TEE_Y - sheet.RING_RADII[-1],
        "hog_line_y": sheet.FAR_HOG_Y, "midsheet_y": sheet.MIDSHEET_Y,
        "release": [sheet.RELEASE_X, sheet.RELEASE_Y],
        "fgz": [sheet.FGZ_Y_MIN, sheet.FGZ_Y_MAX], "rule_last_shot": sheet.RULE_LAST_SHOT,
        "play": [sheet.PLAY_X_MIN, sheet.PLAY_X_MAX, sheet.PLAY_Y_MIN, sheet.PLAY_Y_MAX],
        "stones_per_end": sheet.STONES_PER_END,
    }  # fmt: skip


def game_config(ends: int, blank_end: str | None = None) -> GameConfig:
    """The rules a record's game was played with (``blank_end`` from the run's config)."""
    blank = blank_end if blank_end in BLANK_END_CHOICES else "swap"
    return GameConfig(ends=int(ends), blank_end=blank)  # type: ignore[arg-type]


def next_seat(record: dict[str, Any], config: GameConfig) -> int | None:
    """The seat that throws after the ``shot`` record, or None when it ended the game."""
    shot, thrower = int(record["shot"]), int(record["thrower"])
    if record.get("end_score") is None:
        return 1 - thrower
    if not config.unlimited and int(record["end"]) + 1 >= config.ends:
        return None
    first = thrower if shot % 2 == 0 else 1 - thrower
    return first_seat_after(first, tuple(record["end_score"]), config)


def compact_frames(trajectory: np.ndarray, stride_ticks: int) -> dict[str, Any]:
    """``frames`` (module docstring) from a ``(T, 16, 2)`` trajectory taken every
    ``stride_ticks`` ticks; its last frame is always kept."""
    traj = np.asarray(trajectory, dtype=np.float64)
    step = max(1, math.ceil(len(traj) / MAX_FRAMES))
    keep = list(range(0, len(traj), step))
    if keep[-1] != len(traj) - 1:
        keep.append(len(traj) - 1)
    moved = np.flatnonzero(np.any(np.abs(traj - traj[:1]) > 1e-9, axis=(0, 2)))
    picked = np.round(traj[keep][:, moved, :], 3).reshape(len(keep), -1)
    return {
        "dt": stride_ticks * step * TICK_S,
        "stones": [int(k) for k in moved],
        "xy": picked.tolist(),
    }


def shot_frames(
    before: Any,
    shot: int,
    throw: Any,
    *,
    shot_seed: int | None = None,
    seed: int | None = None,
    rng: np.random.Generator | None = None,
    noise: bool = True,
) -> tuple[dict[str, Any], np.ndarray]:
    """Simulate a recorded shot again with its trajectory: ``(frames, position)``.

    The randomness is the record's (``records.shot_randomness``): ``seed`` (the physics seed
    itself), ``shot_seed`` (older server records: ``default_rng(shot_seed)``) or ``rng`` (a copy
    of the generator the shot was thrown with). Same inputs, same path, bit for bit.
    ``noise=False``: the throw without the platform's noise (no randomness needed).
    """
    from rllib_curling import physics

    stride = 2
    if not noise:
        randomness: dict[str, Any] = {"noise": False}
    elif seed is None and rng is not None:
        randomness = {"rng": rng}
    else:
        randomness = shot_randomness(seed=seed, shot_seed=shot_seed)
    position = np.asarray(before, dtype=np.float64).reshape(sheet.STONES_PER_END, 2)
    result = physics.simulate(position, int(shot), throw, trajectory_stride=stride, **randomness)
    assert result.trajectory is not None  # asked for with trajectory_stride
    return compact_frames(result.trajectory, stride), result.position


def frames_for_record(record: dict[str, Any]) -> dict[str, Any] | None:
    """``frames`` of a ``shot`` record, or None (a lost turn, or nothing to simulate with)."""
    if record.get("throw") is None:
        return None
    if record.get("shot_seed") is None and record.get("seed") is None:
        return None
    frames, _ = shot_frames(
        record["before"], record["shot"], record["throw"],
        shot_seed=record.get("shot_seed"), seed=record.get("seed"),
    )  # fmt: skip
    return frames

"""The rules of digital curling as pure functions on positions (protocol.md §5).

Positions are ``float64`` arrays of shape ``(16, 2)`` in the protocol frame (``sheet.py``):

| row k      | stone k of this end in throwing order                                  |
|------------|------------------------------------------------------------------------|
| even k     | the team that throws first in this end ("even team", no hammer)        |
| odd k      | the team with the hammer ("odd team")                                  |
| ``(0, 0)`` | not in play: not thrown yet, or removed                                |

Every function also takes batches ``(..., 16, 2)`` (per-stone helpers take any ``(..., 2)``), so
bots can judge thousands of candidate outcomes in one call; the ``*_batch`` names return arrays,
the plain names return Python scalars for one position. The batch functions are the definition;
``stone_facts`` and ``score_end``/``score_for`` (one position: the server's and the env's every
throw) run the same rules in plain Python on 16 stones, several times faster than numpy on arrays
this small, and ``resolve_shot_batch``/``resolve_shot`` run them compiled (``rules_kernel``);
tests hold the paths equal to the last bit.

Decisions where the sources are silent (protocol.md §5, §6):

- **House**: a stone is in the house when its centre is strictly nearer than
  ``HOUSE_SCORE_RADIUS`` (2.015 m) to the tee; the free guard zone takes distance ``>= 2.015``,
  so the two never overlap. Inclusive boundaries get ``BOUNDARY_EPS`` (1e-9 m) of slack.
- **Ties**: a stone counts only if it is strictly nearer than the opponent's nearest stone in the
  house. If the nearest stones of the two teams are exactly equidistant, the end is blank (0-0).
- **Centre line, "moved"**: a protected guard counts as moved when its centre moved more than
  ``MOVE_TOLERANCE`` (1 mm); only then is "off the centre line or out of the zone" a foul.
- **Free guard zone vs centre line**: when one throw breaks both rules, the free guard zone rule
  applies (the position is restored automatically, which also undoes the centre-line foul) and no
  centre-line violation is reported. ``resolve_shot_batch`` applies this precedence; the two
  ``*_violation`` functions report each rule on its own.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from rllib_curling import positions, sheet
from rllib_curling.errors import InvalidThrowError

#: A protected centre guard must move more than this (metres) to count as moved.
MOVE_TOLERANCE = sheet.MOVE_TOLERANCE
#: Slack for the inclusive boundaries (``>= 2.015``, ``<= 0.145``); see ``sheet``.
BOUNDARY_EPS = sheet.BOUNDARY_EPS

_TEE = np.array(sheet.TEE, dtype=np.float64)
_ROWS = np.arange(sheet.STONES_PER_END)


def as_position(position: object, *, batch: bool = False) -> np.ndarray:
    """Return ``position`` as a ``float64`` array ``(16, 2)`` (``(N, 16, 2)`` when ``batch``).

    Raises ``InvalidThrowError`` on a wrong shape or a non-finite value.
    """
    arr = np.asarray(position, dtype=np.float64)
    want = "(N, 16, 2)" if batch else "(16, 2)"
    ok = arr.ndim == (3 if batch else 2) and arr.shape[-2:] == (sheet.STONES_PER_END, 2)
    if not ok:
        raise InvalidThrowError(f"a position must have shape {want}, got {arr.shape}")
    # One position: a sum of finite values is finite unless it overflows, and then (or for a
    # batch) every value is looked at.
    quick = not batch and math.isfinite(sum(arr.ravel().tolist()))
    if not quick and not np.all(np.isfinite(arr)):
        raise InvalidThrowError(f"a position must be finite, got non-finite values in {arr!r}")
    return arr


# --- per-stone predicates, (..., 2) -> (...) ----------------------------------------------------


in_play = positions.in_play  # True where a stone is in play, i.e. not (0, 0)


def distance_to_tee(xy: np.ndarray) -> np.ndarray:
    """Distance (m) from each stone centre to the tee; geometry only (``(0, 0)`` is not masked)."""
    xy = np.asarray(xy, dtype=np.float64)
    return _length(xy[..., 0] - _TEE[0], xy[..., 1] - _TEE[1])


def _length(dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """``sqrt(dx² + dy²)``: only correctly rounded operations, so ``math.sqrt`` on Python floats
    (the one-position path) gives the same value to the last bit (``hypot`` differs by an ulp)."""
    return np.asarray(np.sqrt(dx * dx + dy * dy))


def in_house(xy: np.ndarray) -> np.ndarray:
    """True where a stone is in play and its centre is nearer than 2.015 m to the tee."""
    return in_play(xy) & (distance_to_tee(xy) < sheet.HOUSE_SCORE_RADIUS - BOUNDARY_EPS)


def in_free_guard_zone(xy: np.ndarray) -> np.ndarray:
    """True where a stone is in play, 5.025 < y < 10.525 and at least 2.015 m from the tee."""
    xy = np.asarray(xy, dtype=np.float64)
    y = xy[..., 1]
    band = (y > sheet.FGZ_Y_MIN) & (y < sheet.FGZ_Y_MAX)
    return in_play(xy) & band & (distance_to_tee(xy) >= sheet.HOUSE_SCORE_RADIUS - BOUNDARY_EPS)


def touches_centre_line(xy: np.ndarray) -> np.ndarray:
    """True where a stone is in play and touches the centre line: ``|x - 2.375| <= 0.145``."""
    xy = np.asarray(xy, dtype=np.float64)
    off_centre = np.abs(xy[..., 0] - sheet.CENTRE_X)
    return in_play(xy) & (off_centre <= sheet.STONE_RADIUS + BOUNDARY_EPS)


def remove_out_of_play(position: np.ndarray) -> np.ndarray:
    """Return a copy with stopped stones outside the playing area set to ``(0, 0)``.

    In play: ``0.145 < x < 4.605`` and ``2.865 < y < 10.525`` (physics.md §1). Any shape
    ``(..., 2)``.
    """
    out = np.array(position, dtype=np.float64, copy=True)
    x, y = out[..., 0], out[..., 1]
    inside = (
        (x > sheet.PLAY_X_MIN)
        & (x < sheet.PLAY_X_MAX)
        & (y > sheet.PLAY_Y_MIN)
        & (y < sheet.PLAY_Y_MAX)
    )
    out[~inside] = 0.0
    return out


# --- scoring ------------------------------------------------------------------------------------


def house_distances(positions: np.ndarray) -> np.ndarray:
    """``(..., 16)``: distance to the tee of each stone in the house, ``inf`` for the others."""
    pos = np.asarray(positions, dtype=np.float64)
    return np.where(in_house(pos), distance_to_tee(pos), np.inf)


def points_from_distances(dist: np.ndarray, mine: np.ndarray) -> np.ndarray:
    """The end's score from one side, given ``house_distances`` ``(..., 16)``: ``(...)`` int64.

    ``mine`` ``(16,)`` bool marks the rows of that side. Positive: that side scores so many
    points; negative: the opponent does; 0: blank (empty house, or a tie for the nearest stone).
    This is the one scoring rule of the package; every other scoring helper calls it.
    """
    dm = np.where(mine, dist, np.inf)
    do = np.where(mine, np.inf, dist)
    bm, bo = dm.min(axis=-1), do.min(axis=-1)
    pm = (dm < bo[..., None]).sum(axis=-1)
    po = (do < bm[..., None]).sum(axis=-1)
    return np.where(bm < bo, pm, np.where(bo < bm, -po, 0)).astype(np.int64)


def score_for_batch(positions: np.ndarray, parity: int) -> np.ndarray:
    """``(...)`` int64: the score if the end ended now, from the view of the rows of ``parity``
    (0 = even rows, the team throwing first; 1 = odd rows, the hammer); > 0 when they score."""
    return points_from_distances(house_distances(positions), _ROWS % 2 == parity)


def score_for(position: np.ndarray, parity: int) -> int:
    """One position's ``score_for_batch``: points now from the view of the rows of ``parity``."""
    return points_for(stone_facts(position), parity)


def score_end_batch(positions: np.ndarray) -> np.ndarray:
    """Points of each end if it ended now: ``(..., 16, 2)`` -> ``(..., 2)`` int64.

    Column 0 = the even team (throws first this end), column 1 = the odd team (hammer). At most
    one column is non-zero. See the module docstring for ties.
    """
    even = score_for_batch(positions, 0)
    return np.stack([np.maximum(even, 0), np.maximum(-even, 0)], axis=-1)


def score_end(position: np.ndarray) -> tuple[int, int]:
    """Points ``(even_team, odd_team)`` of one position ``(16, 2)`` (protocol.md §5).

    The team with the stone nearest the tee in the house scores one point per stone of its own
    nearer than the opponent's nearest stone in the house (all of its house stones when the
    opponent has none). Empty house, or equidistant nearest stones: ``(0, 0)``.
    """
    even = points_for(stone_facts(position), 0)
    return max(even, 0), max(-even, 0)


# --- free guard zone and centre line ------------------------------------------------------------


def opponent_rows(shot: int) -> np.ndarray:
    """Bool mask ``(16,)`` of stones already thrown by the opponent of the thrower of ``shot``."""
    rows: np.ndarray = (_ROWS < shot) & (_ROWS % 2 != shot % 2)
    return rows


def restored_position(before: np.ndarray, shot: int) -> np.ndarray:
    """``before`` with the thrown stone (row ``shot``) removed: the FGZ restore and the RESET."""
    out = np.array(before, dtype=np.float64, copy=True)
    out[..., shot, :] = 0.0
    return out


def fgz_protected(position: np.ndarray, shot: int) -> np.ndarray:
    """Bool ``(..., 16)``: stones the free guard zone rule keeps in play against throw ``shot``:
    the thrower's opponent's stones in the zone, during shots 0..``sheet.RULE_LAST_SHOT``."""
    zone = in_free_guard_zone(position)
    if shot > sheet.RULE_LAST_SHOT:
        return np.zeros_like(zone)
    protected: np.ndarray = zone & opponent_rows(shot)
    return protected


def free_guard_zone_violation_batch(
    before: np.ndarray, afters: np.ndarray, shot: int
) -> np.ndarray:
    """Bool ``(...)``: during shots 0..4 an opponent stone in the FGZ before is out of play after.

    ``before`` is ``(16, 2)`` or broadcastable to ``afters`` ``(..., 16, 2)``; ``afters`` are
    positions after the stones stopped (out-of-play stones already ``(0, 0)``).
    """
    afters = np.asarray(afters, dtype=np.float64)
    if shot > sheet.RULE_LAST_SHOT:
        return np.zeros(afters.shape[:-2], dtype=bool)
    removed: np.ndarray = np.any(fgz_protected(before, shot) & ~in_play(afters), axis=-1)
    return removed


def centre_line_violation_batch(before: np.ndarray, afters: np.ndarray, shot: int) -> np.ndarray:
    """Bool ``(...)``: during shots 0..4 an opponent guard on the centre line was moved off it.

    Protected: an opponent stone that, before the throw, was in the free guard zone and touched the
    centre line. Foul: it moved more than ``MOVE_TOLERANCE`` and afterwards no longer touches the
    centre line or is no longer in the zone (including out of play). Reported on its own, without
    the free guard zone precedence (see ``resolve_shot_batch``).
    """
    before = np.asarray(before, dtype=np.float64)
    afters = np.asarray(afters, dtype=np.float64)
    if shot > sheet.RULE_LAST_SHOT:
        return np.zeros(afters.shape[:-2], dtype=bool)
    guards = in_free_guard_zone(before) & touches_centre_line(before) & opponent_rows(shot)
    moved = _length(*np.moveaxis(afters - before, -1, 0)) > MOVE_TOLERANCE
    off = ~(touches_centre_line(afters) & in_free_guard_zone(afters))
    foul: np.ndarray = np.any(guards & moved & off, axis=-1)
    return foul


def free_guard_zone_violation(before: np.ndarray, after: np.ndarray, shot: int) -> bool:
    """One-position ``free_guard_zone_violation_batch``; the thrower owns rows of ``shot % 2``."""
    return bool(free_guard_zone_violation_batch(as_position(before), as_position(after), shot))


def centre_line_violation(before: np.ndarray, after: np.ndarray, shot: int) -> bool:
    """One-position form of ``centre_line_violation_batch``; the thrower owns rows ``shot % 2``."""
    return bool(centre_line_violation_batch(as_position(before), as_position(after), shot))


def resolve_shot_batch(
    before: np.ndarray, afters: np.ndarray, shot: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Apply the rules to physics outcomes of throwing stone ``shot`` from ``before``.

    Returns ``(positions, fgz_restored, centre_line)``: ``positions`` ``(..., 16, 2)`` after
    out-of-play removal and the free guard zone restore (where it applies), with a centre-line
    foul left as is (the fouled team's KEEP; its RESET is ``restored_position(before, shot)``);
    ``fgz_restored`` and ``centre_line`` are bool ``(...)``, never both true.

    Runs compiled (``rules_kernel.resolve_batch``); ``resolve_shot_batch_numpy`` is the same
    rules in numpy passes, the definition the tests hold it to.
    """
    from rllib_curling import rules_kernel  # numba: imported on first use, as the physics is

    before = np.asarray(before, dtype=np.float64)
    afters = np.asarray(afters, dtype=np.float64)
    for arr in (before, afters):
        if arr.ndim < 2 or arr.shape[-2:] != (sheet.STONES_PER_END, 2):
            raise InvalidThrowError(f"positions must have shape (..., 16, 2), got {arr.shape}")
    shape = afters.shape if before.ndim == 2 else np.broadcast_shapes(before.shape, afters.shape)
    flat = np.ascontiguousarray(np.broadcast_to(afters, shape)).reshape(-1, *shape[-2:])
    if before.ndim == 2:
        first = before[None]
    else:
        first = np.broadcast_to(before, shape).reshape(-1, *shape[-2:])
    if not first.flags.c_contiguous:
        first = np.ascontiguousarray(first)
    positions, fgz, centre = rules_kernel.resolve_batch(first, flat, int(shot))
    return positions.reshape(shape), fgz.reshape(shape[:-2]), centre.reshape(shape[:-2])


def resolve_shot_batch_numpy(
    before: np.ndarray, afters: np.ndarray, shot: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``resolve_shot_batch`` in numpy passes over the batch (the definition)."""
    before = np.asarray(before, dtype=np.float64)
    afters = remove_out_of_play(afters)
    fgz = free_guard_zone_violation_batch(before, afters, shot)
    centre = centre_line_violation_batch(before, afters, shot) & ~fgz
    positions = np.where(fgz[..., None, None], restored_position(before, shot), afters)
    return positions, fgz, centre


def resolve_shot(before: np.ndarray, after: np.ndarray, shot: int) -> tuple[np.ndarray, bool, bool]:
    """One position's ``resolve_shot_batch``: ``(position (16, 2), fgz_restored, centre_line)``.

    The compiled rules on a batch of one (``rules_kernel.resolve_batch``: the server's and the
    env's every throw). Raises ``InvalidThrowError`` on a wrong shape or a non-finite value.
    """
    from rllib_curling import rules_kernel  # numba: imported on first use, as the physics is

    b, a = _checked(before), _checked(after)
    positions, fgz, centre = rules_kernel.resolve_batch(b[None], a[None], int(shot))
    return positions[0], bool(fgz[0]), bool(centre[0])


def _checked(position: object) -> np.ndarray:
    """``position`` as a C-contiguous float64 ``(16, 2)``; ``as_position``'s errors (quicker)."""
    arr = np.ascontiguousarray(position, dtype=np.float64)
    if arr.shape != (sheet.STONES_PER_END, 2) or not math.isfinite(sum(arr.ravel().tolist())):
        arr = np.ascontiguousarray(as_position(arr))  # raises, unless a finite sum overflowed
    return arr


class StoneFacts(NamedTuple):
    """One row of a position as the rules see it (``stone_facts``)."""

    x: float
    y: float
    distance: float  #: to the tee (``distance_to_tee``)
    in_play: bool
    in_house: bool
    in_fgz: bool  #: ``in_free_guard_zone``
    on_centre_line: bool  #: ``touches_centre_line``

    @property
    def house_distance(self) -> float:
        """``house_distances``: the distance in the house, ``inf`` outside it."""
        return self.distance if self.in_house else math.inf


def stone_facts(position: object) -> list[StoneFacts]:
    """The per-stone predicates of one position ``(16, 2)``, row by row, in plain Python: the
    values of ``distance_to_tee``, ``in_play``, ``in_house``, ``in_free_guard_zone`` and
    ``touches_centre_line`` to the last bit (a test holds them equal), several times faster
    than numpy on 16 stones. ``as_position``'s errors for a bad position."""
    out = []
    make = StoneFacts._make
    for x, y in _rows(position):
        d = tee_distance(x, y)
        on = x != 0.0 or y != 0.0
        out.append(make((x, y, d, on, on and d < _HOUSE, _in_fgz(x, y, d), _on_centre_line(x, y))))
    return out


def points_for(facts: list[StoneFacts], parity: int) -> int:
    """``score_for`` from ``stone_facts``: points now from the view of the rows of ``parity``."""
    dist = [f.house_distance for f in facts]
    mine, theirs = dist[parity::2], dist[1 - parity :: 2]
    best_mine, best_theirs = min(mine), min(theirs)
    if best_mine < best_theirs:
        return sum(d < best_theirs for d in mine)
    if best_theirs < best_mine:
        return -sum(d < best_mine for d in theirs)
    return 0


# --- one position in plain Python (see the module docstring) ------------------------------------

_HOUSE = sheet.HOUSE_SCORE_RADIUS - BOUNDARY_EPS
_CENTRE_LINE = sheet.STONE_RADIUS + BOUNDARY_EPS


def _rows(position: object) -> list[tuple[float, float]]:
    """The 16 rows as ``(x, y)`` Python floats; ``as_position``'s errors for a bad position."""
    arr = np.asarray(position, dtype=np.float64)
    if arr.shape != (sheet.STONES_PER_END, 2):
        arr = as_position(arr)  # raises
    flat = arr.ravel().tolist()
    if not math.isfinite(sum(flat)):
        as_position(arr)  # raises unless a sum of huge finite values overflowed
    return list(zip(flat[0::2], flat[1::2], strict=True))


def _distance(dx: float, dy: float) -> float:
    """``_length`` of Python floats (the same value to the last bit)."""
    return math.sqrt(dx * dx + dy * dy)


def tee_distance(x: float, y: float) -> float:
    """``distance_to_tee`` of one stone at ``(x, y)`` (Python floats), to the last bit."""
    return _distance(x - sheet.TEE_X, y - sheet.TEE_Y)


def _in_fgz(x: float, y: float, d: float) -> bool:
    return (x != 0.0 or y != 0.0) and sheet.FGZ_Y_MIN < y < sheet.FGZ_Y_MAX and d >= _HOUSE


def _on_centre_line(x: float, y: float) -> bool:
    return (x != 0.0 or y != 0.0) and abs(x - sheet.CENTRE_X) <= _CENTRE_LINE

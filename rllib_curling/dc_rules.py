"""Digital Curling's rules (UEC's DC3 and DC4) as pure functions on positions in DC's shot frame.

The platform's rules are ``rules.py``; this is DC's parallel room (``docs/digital_curling.md``,
section "DC rules", has the sources and the decisions where they are silent). Geometry comes
from ``dc_sheet`` (hack at the origin, tee at (0, 38.405), throwing toward +y).

Positions are ``float64`` arrays ``(16, 2)``, batches ``(..., 16, 2)``:

| row k      | stone k of this end in throwing order                                  |
|------------|------------------------------------------------------------------------|
| even k     | the team that throws first in this end (no hammer)                     |
| odd k      | the team with the hammer                                               |
| column 0/1 | x (lateral, centre line at 0) / y (from the hack toward the house), m  |
| ``(0, 0)`` | not in play: not thrown yet, or removed (DC4 reports such stones so)   |

DC reports stones per team (``team0[i]``, ``team1[i]``, i = the team's i-th stone of the end):
``to_teams`` and ``from_teams`` convert.

The rules in short:

- **In play** once all stones stopped: ``|x| + r < SIDE_X``, ``y - r > HOG_Y`` (fully past the
  hog line), ``y - r < BACK_LINE_Y`` (not entirely beyond the back line); the others are removed
  (``remove_out_of_play``).
- **Scoring**: stones whose centre is nearer than ``HOUSE_SCORE_RADIUS`` (house + stone) to the
  tee; the team with the nearest stone scores one per stone nearer than the opponent's nearest.
  Equidistant nearest stones: a blank end.
- **Guard rules** during an end's shots ``0 .. GUARD_SHOTS - 1``: an opponent stone that lay in
  the free guard zone before the shot is protected. ``"fgz"`` (DC3's five-rock rule): removing it
  from play is a foul. ``"modified_fgz"``: also moving it out of the zone. ``"no_tick"``: the
  five-rock rule, and a protected guard that touched the centre line must still touch it. On a
  foul the position before the shot is restored, without the thrown stone.

Plain names take one position and return Python values, in plain Python (the server's every
throw: several times faster than numpy on 16 stones); ``*_batch`` names take batches and return
arrays (bots judging thousands of outcomes). The tests hold the two paths equal.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from rllib_curling import dc_sheet, positions
from rllib_curling.errors import ConfigError, InvalidThrowError, RuleError

Rule = Literal["fgz", "modified_fgz", "no_tick"]
#: The guard rules a DC game can play (DC4's ``applied_rule`` without its ``_rule`` suffix).
RULES: tuple[Rule, ...] = ("fgz", "modified_fgz", "no_tick")
#: The guard rules protect during an end's shots 0 .. GUARD_SHOTS - 1 (the five-rock rule).
GUARD_SHOTS = 5

_N = dc_sheet.SHOTS_PER_END
_ROWS = np.arange(_N)
_R = dc_sheet.STONE_RADIUS
_HOUSE = dc_sheet.HOUSE_SCORE_RADIUS


def check_rule(rule: object) -> Rule:
    """``rule`` if it is one of ``RULES``, else ``ConfigError`` listing them."""
    if rule not in RULES:
        raise ConfigError(f"rule must be one of {list(RULES)}, got {rule!r}")
    return rule


def as_positions(positions: object) -> np.ndarray:
    """``positions`` as ``float64`` ``(..., 16, 2)``; ``InvalidThrowError`` on another shape or a
    non-finite value."""
    arr = np.asarray(positions, dtype=np.float64)
    if arr.ndim < 2 or arr.shape[-2:] != (_N, 2):
        raise InvalidThrowError(f"positions must have shape (..., {_N}, 2), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InvalidThrowError("positions must be finite, got non-finite values")
    return arr


def _check_shot(shot: int) -> int:
    if not 0 <= shot < _N:
        raise RuleError(f"shot must be in 0..{_N - 1}, got {shot}")
    return int(shot)


# --- per-stone predicates, (..., 2) -> (...) ----------------------------------------------------


in_play = positions.in_play  # True where a stone is in play, i.e. not (0, 0)


def distance_to_tee(xy: np.ndarray) -> np.ndarray:
    """Distance (m) from each stone's centre to the tee (geometry only, ``(0, 0)`` not masked)."""
    xy = np.asarray(xy, dtype=np.float64)
    dx, dy = xy[..., 0] - dc_sheet.TEE_X, xy[..., 1] - dc_sheet.TEE_Y
    return np.asarray(np.sqrt(dx * dx + dy * dy))


def in_play_area(xy: np.ndarray) -> np.ndarray:
    """True where a stopped stone stays in play: inside the side walls, fully past the hog line,
    not entirely beyond the back line (``(0, 0)``, at the hack, is outside)."""
    xy = np.asarray(xy, dtype=np.float64)
    x, y = xy[..., 0], xy[..., 1]
    inside: np.ndarray = (
        (np.abs(x) + _R < dc_sheet.SIDE_X)
        & (y - _R > dc_sheet.HOG_Y)
        & (y - _R < dc_sheet.BACK_LINE_Y)
    )
    return inside


def in_house(xy: np.ndarray) -> np.ndarray:
    """True where a stone is in play and its centre nearer than house + stone radius to the tee."""
    return in_play(xy) & (distance_to_tee(xy) < _HOUSE)


def in_guard_zone(xy: np.ndarray) -> np.ndarray:
    """True where a stone is in play, outside the house and entirely in front of the tee line."""
    xy = np.asarray(xy, dtype=np.float64)
    front = xy[..., 1] + _R < dc_sheet.FGZ_LINE_Y
    zone: np.ndarray = in_play_area(xy) & front & (distance_to_tee(xy) >= _HOUSE)
    return zone


def on_centre_line(xy: np.ndarray) -> np.ndarray:
    """True where a stone is in play and touches the centre line: ``|x| < STONE_RADIUS``."""
    xy = np.asarray(xy, dtype=np.float64)
    return in_play(xy) & (np.abs(xy[..., 0] - dc_sheet.CENTRE_X) < _R)


def remove_out_of_play(positions: np.ndarray) -> np.ndarray:
    """A copy with the stones outside the play area (``in_play_area``) set to ``(0, 0)``."""
    out = np.array(positions, dtype=np.float64, copy=True)
    out[~in_play_area(out)] = 0.0
    return out


# --- scoring ------------------------------------------------------------------------------------


def house_distances(positions: np.ndarray) -> np.ndarray:
    """``(..., 16)``: each stone's distance to the tee if it is in the house, else ``inf``."""
    pos = np.asarray(positions, dtype=np.float64)
    return np.where(in_house(pos), distance_to_tee(pos), np.inf)


def score_end_batch(positions: np.ndarray) -> np.ndarray:
    """Points if the end ended now: ``(..., 16, 2)`` -> ``(..., 2)`` int64, column 0 the team
    throwing first (even rows), column 1 the hammer (odd rows); at most one is non-zero."""
    dist = house_distances(as_positions(positions))
    even, odd = dist[..., 0::2], dist[..., 1::2]
    best_even, best_odd = even.min(axis=-1), odd.min(axis=-1)
    points_even = (even < best_odd[..., None]).sum(axis=-1)
    points_odd = (odd < best_even[..., None]).sum(axis=-1)
    return np.stack(
        [
            np.where(best_even < best_odd, points_even, 0),
            np.where(best_odd < best_even, points_odd, 0),
        ],
        axis=-1,
    ).astype(np.int64)


def score_end(position: object) -> tuple[int, int]:
    """One position's ``score_end_batch``: ``(even rows' points, odd rows' points)``."""
    dist = [_house_distance(x, y) for x, y in _rows(position)]
    even, odd = dist[0::2], dist[1::2]
    best_even, best_odd = min(even), min(odd)
    if best_even < best_odd:
        return sum(d < best_odd for d in even), 0
    if best_odd < best_even:
        return 0, sum(d < best_even for d in odd)
    return 0, 0


# --- guard rules --------------------------------------------------------------------------------


def protected_rows(shot: int) -> np.ndarray:
    """Bool ``(16,)``: rows the guard rules may protect against throw ``shot`` (the thrower's
    opponent's stones thrown so far), none from shot ``GUARD_SHOTS`` on."""
    shot = _check_shot(shot)
    rows: np.ndarray = (_ROWS < shot) & (_ROWS % 2 != shot % 2) & (shot < GUARD_SHOTS)
    return rows


def restored_position(before: np.ndarray, shot: int) -> np.ndarray:
    """``before`` with the thrown stone (row ``shot``) removed: the position after a foul."""
    out = np.array(before, dtype=np.float64, copy=True)
    out[..., _check_shot(shot), :] = 0.0
    return out


def foul_batch(before: np.ndarray, afters: np.ndarray, shot: int, rule: str) -> np.ndarray:
    """Bool ``(...)``: throw ``shot`` broke guard rule ``rule`` (one of ``RULES``).

    ``before`` ``(16, 2)`` or broadcastable to ``afters`` ``(..., 16, 2)``; ``afters`` after the
    stones stopped and the out-of-play stones were removed (``remove_out_of_play``).
    """
    rule = check_rule(rule)
    before, afters = as_positions(before), as_positions(afters)
    guarded = in_guard_zone(before) & protected_rows(shot)
    if rule == "modified_fgz":
        broken = ~in_guard_zone(afters)
    else:
        broken = ~in_play(afters)
        if rule == "no_tick":
            broken = broken | (on_centre_line(before) & ~on_centre_line(afters))
    foul: np.ndarray = np.any(guarded & broken, axis=-1)
    return foul


def resolve_shot_batch(
    before: np.ndarray, afters: np.ndarray, shot: int, rule: str
) -> tuple[np.ndarray, np.ndarray]:
    """Apply the rules to physics outcomes of throwing stone ``shot`` from ``before``:
    ``(positions (..., 16, 2), fouls (...))``, out-of-play stones removed and, where a guard rule
    was broken, ``restored_position(before, shot)``."""
    before = as_positions(before)
    afters = remove_out_of_play(as_positions(afters))
    fouls = foul_batch(before, afters, shot, rule)
    positions = np.where(fouls[..., None, None], restored_position(before, shot), afters)
    return positions, fouls


def resolve_shot(before: object, after: object, shot: int, rule: str) -> tuple[np.ndarray, bool]:
    """One position's ``resolve_shot_batch``, in plain Python: ``(position (16, 2), foul)``."""
    rule = check_rule(rule)
    shot = _check_shot(shot)
    kept = [(x, y) if _inside(x, y) else (0.0, 0.0) for x, y in _rows(after)]
    old = _rows(before)
    foul = False
    if shot < GUARD_SHOTS:
        for k in range(1 - shot % 2, shot, 2):  # the opponent's stones thrown so far
            bx, by = old[k]
            if _in_zone(bx, by) and _breaks(rule, bx, by, *kept[k]):
                foul = True
                break
    if foul:
        return restored_position(np.array(old), shot), True
    return np.array(kept, dtype=np.float64), False


def _breaks(rule: str, bx: float, by: float, ax: float, ay: float) -> bool:
    """Whether a protected guard moved from ``(bx, by)`` to ``(ax, ay)`` breaks ``rule``."""
    if rule == "modified_fgz":
        return not _in_zone(ax, ay)
    removed = ax == 0.0 and ay == 0.0
    if rule == "no_tick":
        return removed or (_on_centre(bx, by) and not _on_centre(ax, ay))
    return removed


# --- team order ---------------------------------------------------------------------------------


def to_teams(position: np.ndarray, first_team: int) -> tuple[np.ndarray, np.ndarray]:
    """``(team0 (..., 8, 2), team1 (..., 8, 2))`` as DC reports them, from rows in throwing
    order whose even rows belong to ``first_team`` (0 or 1)."""
    pos = as_positions(position)
    first, second = pos[..., 0::2, :].copy(), pos[..., 1::2, :].copy()
    return (first, second) if first_team == 0 else (second, first)


def from_teams(team0: np.ndarray, team1: np.ndarray, first_team: int) -> np.ndarray:
    """Rows in throwing order ``(..., 16, 2)`` from DC's per-team stones (``to_teams``' inverse)."""
    t0, t1 = np.asarray(team0, dtype=np.float64), np.asarray(team1, dtype=np.float64)
    first, second = (t0, t1) if first_team == 0 else (t1, t0)
    out = np.empty((*first.shape[:-2], _N, 2))
    out[..., 0::2, :], out[..., 1::2, :] = first, second
    return as_positions(out)


# --- one position in plain Python (the same comparisons, to the last bit) ----------------------


def _rows(position: object) -> list[tuple[float, float]]:
    """The 16 rows of one position as Python floats; ``as_positions``' errors."""
    arr = as_positions(position)
    if arr.shape != (_N, 2):
        raise InvalidThrowError(f"a position must have shape ({_N}, 2), got {arr.shape}")
    flat = arr.ravel().tolist()
    return list(zip(flat[0::2], flat[1::2], strict=True))


def _tee_distance(x: float, y: float) -> float:
    dx, dy = x - dc_sheet.TEE_X, y - dc_sheet.TEE_Y
    return math.sqrt(dx * dx + dy * dy)


def _inside(x: float, y: float) -> bool:
    return abs(x) + _R < dc_sheet.SIDE_X and dc_sheet.HOG_Y < y - _R < dc_sheet.BACK_LINE_Y


def _house_distance(x: float, y: float) -> float:
    d = _tee_distance(x, y)
    return d if (x != 0.0 or y != 0.0) and d < _HOUSE else math.inf


def _in_zone(x: float, y: float) -> bool:
    return _inside(x, y) and y + _R < dc_sheet.FGZ_LINE_Y and _tee_distance(x, y) >= _HOUSE


def _on_centre(x: float, y: float) -> bool:
    return (x != 0.0 or y != 0.0) and abs(x - dc_sheet.CENTRE_X) < _R

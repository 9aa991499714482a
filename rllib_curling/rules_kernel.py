"""The rules compiled (numba), for the hot batch paths: a search judges thousands of outcomes.

The same rules, tolerances and arithmetic as ``rules`` (its docstring has the decisions where the
sources are silent), written stone by stone so that one compiled loop does what ``rules`` does in
a dozen numpy passes. ``rules.resolve_shot_batch`` calls ``resolve_batch``; the bots' evaluation
uses ``house_distance`` and ``points``. Every value equals the numpy definition to the last bit
(only correctly rounded operations, in the same order, no fast-math; tests compare them on many
random positions).

Arrays: ``before`` ``(B, 16, 2)`` with ``B`` 1 (one position for all outcomes) or ``N``;
``afters`` ``(N, 16, 2)``; positions in the protocol frame, ``(0, 0)`` = not in play (``rules``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rllib_curling import sheet

_HOUSE = sheet.HOUSE_SCORE_RADIUS - sheet.BOUNDARY_EPS
_CENTRE_LINE = sheet.STONE_RADIUS + sheet.BOUNDARY_EPS
_TEE_X, _TEE_Y = sheet.TEE
_N = sheet.STONES_PER_END


@njit(cache=True, inline="always")
def tee_distance(x: float, y: float) -> float:
    """``rules.distance_to_tee`` of one stone."""
    dx, dy = x - _TEE_X, y - _TEE_Y
    return math.sqrt(dx * dx + dy * dy)


@njit(cache=True, inline="always")
def in_play(x: float, y: float) -> bool:
    """``rules.in_play``."""
    return x != 0.0 or y != 0.0


@njit(cache=True, inline="always")
def in_fgz(x: float, y: float) -> bool:
    """``rules.in_free_guard_zone``."""
    band = y > sheet.FGZ_Y_MIN and y < sheet.FGZ_Y_MAX
    return in_play(x, y) and band and tee_distance(x, y) >= _HOUSE


@njit(cache=True, inline="always")
def on_centre_line(x: float, y: float) -> bool:
    """``rules.touches_centre_line``."""
    return in_play(x, y) and abs(x - sheet.CENTRE_X) <= _CENTRE_LINE


@njit(cache=True, inline="always")
def inside(x: float, y: float) -> bool:
    """In the playing area (``rules.remove_out_of_play`` keeps these)."""
    return (
        x > sheet.PLAY_X_MIN
        and x < sheet.PLAY_X_MAX
        and y > sheet.PLAY_Y_MIN
        and y < sheet.PLAY_Y_MAX
    )


@njit(cache=True, inline="always")
def house_distance(x: float, y: float) -> float:
    """``rules.house_distances`` of one stone: its distance in the house, ``inf`` outside."""
    d = tee_distance(x, y)
    return d if in_play(x, y) and d < _HOUSE else np.inf


@njit(cache=True)
def points(dist: np.ndarray, parity: int) -> int:
    """``rules.points_from_distances`` of one position's 16 house distances, from the view of the
    rows of ``parity``: > 0 they score so many, < 0 the other side does, 0 blank."""
    best_mine, best_theirs = np.inf, np.inf
    for k in range(_N):
        if k % 2 == parity:
            best_mine = min(best_mine, dist[k])
        else:
            best_theirs = min(best_theirs, dist[k])
    count = 0
    if best_mine < best_theirs:
        for k in range(parity, _N, 2):
            count += dist[k] < best_theirs
        return count
    if best_theirs < best_mine:
        for k in range(1 - parity, _N, 2):
            count += dist[k] < best_mine
        return -count
    return 0


@njit(cache=True)
def resolve_batch(
    before: np.ndarray, afters: np.ndarray, shot: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``rules.resolve_shot_batch`` on ``before`` ``(B, 16, 2)`` and ``afters`` ``(N, 16, 2)``:
    ``(positions (N, 16, 2), fgz_restored (N,), centre_line (N,))``."""
    n = afters.shape[0]
    out = np.empty((n, _N, 2))
    fgz = np.zeros(n, dtype=np.bool_)
    centre = np.zeros(n, dtype=np.bool_)
    rules_apply = shot <= sheet.RULE_LAST_SHOT
    for i in range(n):
        b = before[i if before.shape[0] > 1 else 0]
        for k in range(_N):
            x, y = afters[i, k, 0], afters[i, k, 1]
            keep = inside(x, y)
            out[i, k, 0] = x if keep else 0.0
            out[i, k, 1] = y if keep else 0.0
        if rules_apply:
            for k in range(_N):
                if k >= shot or k % 2 == shot % 2:  # only the opponent's stones thrown so far
                    continue
                gx, gy = b[k, 0], b[k, 1]
                if not in_fgz(gx, gy):
                    continue
                ax, ay = out[i, k, 0], out[i, k, 1]
                if not in_play(ax, ay):
                    fgz[i] = True
                    continue
                dx, dy = ax - gx, ay - gy
                if (
                    on_centre_line(gx, gy)
                    and math.sqrt(dx * dx + dy * dy) > sheet.MOVE_TOLERANCE
                    and not (on_centre_line(ax, ay) and in_fgz(ax, ay))
                ):
                    centre[i] = True
        if fgz[i]:
            centre[i] = False
            out[i] = b
            out[i, shot, 0] = 0.0
            out[i, shot, 1] = 0.0
    return out, fgz, centre

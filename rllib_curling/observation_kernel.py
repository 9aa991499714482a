"""``observation.encode_observation`` compiled (numba): the env's every step in one call.

The same features, arithmetic and ``float32`` rounding as the plain-Python encoder
``observation.encode_observation_python`` (the definition; the layout tables are in
``observation``), with the rules' predicates from ``rules_kernel``. ``observation`` hands over
its scales (``X_SCALE``, ``Y_SCALE``, ``DIST_SCALE``, ``SCORE_SCALE``, ``OBS_LOW``, ``OBS_HIGH``,
``UNLIMITED_MAX_ENDS``) as ``scales``, in that order, so they are defined once.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rllib_curling import rules_kernel as rk
from rllib_curling import sheet

_N = sheet.STONES_PER_END
_LAST = sheet.STONES_PER_END - 1  # the shot feature is shot / _LAST
_TEAM = float(sheet.STONES_PER_TEAM)  # stones left are counted in _TEAM-ths
_FEATURES = 10  # observation.STONE_FEATURES


@njit(cache=True)
def encode(
    position: np.ndarray,
    shot: int,
    end: int,
    total_ends: int,
    my_parity: int,
    score_diff: float,
    scales: np.ndarray,
    out: np.ndarray,
) -> bool:
    """Fill ``out`` (float32, ``observation.OBS_SIZE``) from ``position`` (16, 2); False (and
    ``out`` unspecified) when a coordinate is not finite. ``shot`` is already clamped to 0..16."""
    x_scale, y_scale, d_scale, s_scale = scales[0], scales[1], scales[2], scales[3]
    low, high, unlimited_ends = scales[4], scales[5], scales[6]
    dist = np.empty(_N)
    for k in range(_N):
        x, y = position[k, 0], position[k, 1]
        if not (math.isfinite(x) and math.isfinite(y)):
            return False
        dist[k] = rk.house_distance(x, y)
    house = rk.points(dist, my_parity)
    best_even, best_odd = np.inf, np.inf
    for k in range(0, _N, 2):
        best_even = min(best_even, dist[k])
        best_odd = min(best_odd, dist[k + 1])
    guarded = (1 - shot % 2) if shot <= sheet.RULE_LAST_SHOT else -1
    for k in range(_N):
        x, y = position[k, 0], position[k, 1]
        parity = k % 2
        on = rk.in_play(x, y)
        row = k * _FEATURES
        out[row + 0] = (x - sheet.CENTRE_X) / x_scale if on else 0.0
        out[row + 1] = (y - sheet.TEE_Y) / y_scale if on else 0.0
        out[row + 2] = rk.tee_distance(x, y) / d_scale if on else 0.0
        out[row + 3] = on
        out[row + 4] = on and math.isfinite(dist[k])
        out[row + 5] = parity == my_parity
        out[row + 6] = k < shot
        out[row + 7] = parity == guarded and k < shot and rk.in_fgz(x, y)
        out[row + 8] = rk.on_centre_line(x, y)
        out[row + 9] = dist[k] < (best_even if parity == 1 else best_odd)
    mine_left = 0
    for k in range(shot, _N):
        mine_left += k % 2 == my_parity
    theirs_left = (_N - shot) - mine_left
    if total_ends > 0:
        end_frac = end / max(total_ends - 1, 1)
        left = max(total_ends - end - 1, 0) / total_ends
    else:
        end_frac, left = min(end / unlimited_ends, 1.0), 1.0
    c = _N * _FEATURES
    out[c + 0] = min(shot, _LAST) / _LAST
    out[c + 1] = min(end_frac, 1.0)
    out[c + 2] = left
    out[c + 3] = min(max(score_diff / s_scale, -1.0), 1.0)
    out[c + 4] = 1.0 if my_parity == 1 else 0.0
    out[c + 5] = mine_left / _TEAM
    out[c + 6] = theirs_left / _TEAM
    out[c + 7] = min(max(house / s_scale, -1.0), 1.0)
    lo, hi = np.float32(low), np.float32(high)
    for i in range(out.shape[0]):
        out[i] = min(max(out[i], lo), hi)
    return True


@njit(cache=True)
def encode_batch(
    positions: np.ndarray,
    shot: int,
    end: int,
    total_ends: int,
    my_parity: int,
    score_diff: float,
    scales: np.ndarray,
    out: np.ndarray,
) -> bool:
    """``encode`` of each of ``positions`` (M, 16, 2) into ``out`` (M, OBS_SIZE), one game
    context for all; False when a coordinate is not finite."""
    for m in range(positions.shape[0]):
        if not encode(positions[m], shot, end, total_ends, my_parity, score_diff, scales, out[m]):
            return False
    return True

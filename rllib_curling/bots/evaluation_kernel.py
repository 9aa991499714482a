"""``evaluation.end_branches`` compiled (numba): one loop per position instead of numpy passes.

The same judgement and arithmetic as the numpy definition in ``evaluation`` (its docstring has
the terms), position by position; the rules' predicates come from ``rules_kernel``. The weights
stay defined in ``evaluation``, which hands them over as ``params`` (float64, this layout):

| idx | ``evaluation`` name          | idx | ``evaluation`` name                          |
|-----|------------------------------|-----|----------------------------------------------|
| 0   | ``Q_OPEN``                   | 7   | ``CENTRE_GUARD_VALUE``                       |
| 1   | ``Q_GUARDED``                | 8   | ``HOUSE_STONE_VALUE``                        |
| 2   | ``GUARD_DX``                 | 9   | ``SHOT_LOSS``                                |
| 3   | ``GUARD_DY[0]``              | 10  | ``DRAW_Q[0]`` (offset)                       |
| 4   | ``GUARD_DY[1]``              | 11  | ``DRAW_Q[1]`` (scale)                        |
| 5   | ``CENTRE_GUARD_DX``          | 12  | ``DRAW_Q[2]`` (cap)                          |
| 6   | ``CENTRE_GUARD_Y_MAX``       | 13  | ``LAST_STONE_Q[0]``, 14 ``LAST_STONE_Q[1]``  |
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from rllib_curling import rules_kernel as rk
from rllib_curling import sheet

_N = sheet.STONES_PER_END


@njit(cache=True)
def _guarded(pos: np.ndarray, target: int, params: np.ndarray) -> bool:
    """``evaluation.guarded`` of one position: another stone in play just in front of ``target``."""
    tx, ty = pos[target, 0], pos[target, 1]
    for k in range(_N):
        if k == target or not rk.in_play(pos[k, 0], pos[k, 1]):
            continue
        dy = pos[k, 1] - ty
        if abs(pos[k, 0] - tx) < params[2] and dy > params[3] and dy < params[4]:
            return True
    return False


@njit(cache=True)
def _strategy(
    pos: np.ndarray, dist: np.ndarray, parity: int, params: np.ndarray
) -> tuple[int, int, int]:
    """``evaluation._strategy``'s counts: (centre guards even rows, odd rows, house presence)."""
    even = odd = presence = 0
    for k in range(_N):
        x, y = pos[k, 0], pos[k, 1]
        if rk.in_fgz(x, y) and abs(x - sheet.CENTRE_X) < params[5] and y < params[6]:
            if k % 2 == 0:
                even += 1
            else:
                odd += 1
        if math.isfinite(dist[k]):
            presence += 1 if k % 2 == parity else -1
    return even, odd, presence


@njit(cache=True)
def branches(
    positions: np.ndarray,
    parity: int,
    n_left: int,
    simple: bool,
    lam: float,
    hammer: float,
    share: float,
    sign: float,
    params: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``evaluation.end_branches`` of ``positions`` ``(M, 16, 2)``: ``(values, probs)`` (M, 2).

    ``lam``, ``hammer`` (the signed ``HAMMER_VALUE``), ``share`` and ``sign`` are the context's
    numbers as ``end_branches`` computes them."""
    m = positions.shape[0]
    values = np.empty((m, 2))
    probs = np.empty((m, 2))
    dist = np.empty(_N)
    for i in range(m):
        pos = positions[i]
        for k in range(_N):
            dist[k] = rk.house_distance(pos[k, 0], pos[k, 1])
        s = float(rk.points(dist, parity))
        if simple or n_left == 0:
            values[i, 0] = values[i, 1] = s
            probs[i, 0], probs[i, 1] = 1.0, 0.0
            continue
        best, d_best = 0, dist[0] if parity == 0 else np.inf
        for k in range(1, _N):
            d = dist[k] if k % 2 == parity else np.inf
            if d < d_best:
                best, d_best = k, d
        kept = dist[best]
        dist[best] = np.inf
        s_wo = float(rk.points(dist, parity)) - params[9]
        dist[best] = kept
        q_take = params[1] if _guarded(pos, best, params) else params[0]
        q_draw = min(max((d_best - params[10]) / params[11], 0.0), params[12])
        q = max(q_take, q_draw if math.isfinite(d_best) else 0.0)
        q = q if s > 0 else 0.0
        if n_left == 1:
            hit = s_wo if s > 0 else s - 1
            q = q if s > 0 else (params[13] if s < 0 else params[14])
            values[i, 0], values[i, 1] = s, hit
        else:
            even, odd, presence = _strategy(pos, dist, parity, params)
            guards = even - 0.5 * odd
            strategy = share * (sign * params[7] * guards + params[8] * presence)
            rest = (1 - lam) * hammer + strategy
            values[i, 0] = lam * s + rest
            values[i, 1] = lam * (s_wo if s > 0 else s) + rest
        probs[i, 0], probs[i, 1] = 1 - q, q
    return values, probs

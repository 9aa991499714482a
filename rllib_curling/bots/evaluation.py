"""How the search bots judge a position: expected points of the end, and the chance to win.

Everything takes a batch of positions ``(M, 16, 2)`` right after the thrower's stone stopped
(rules applied) and returns ``(M,)`` values from the thrower's view; the opponent throws next.

The expected end score ``E`` (thrower's points minus the opponent's, for this end) is a heuristic:

| term              | meaning                                                                   |
|-------------------|---------------------------------------------------------------------------|
| ``s``             | the score if the end ended now (``rules.score_end_batch``)                 |
| threat            | when the thrower lies shot, the opponent's next stone removes or beats     |
|                   | its shot stone with probability ``q`` (low when guarded or on the button), |
|                   | which leaves ``s'`` (the score without that stone)                         |
| last stone        | when only the opponent's hammer stone is left and the house is empty or    |
|                   | theirs, they draw for one more                                              |
| ``n_left >= 2``   | the above, shrunk toward the hammer's average (``±HAMMER_VALUE``) as more   |
|                   | stones remain: ``lam = KAPPA / (KAPPA + n_left - 1)``                       |
| early strategy    | centre guards help the team without the hammer; stones in the house count  |
|                   | a little (both scaled by the share of stones still to come)               |

``E`` is the mean of two branches of the opponent's next stone (``end_branches``): it does no
harm, or (chance ``q``) it removes or beats our shot stone. ``win_value`` turns the branches into
the chance to win the game (draws count half) with a normal model of the rest of the game,
``sum_b p_b Phi((diff + E_b) / sigma)``, where ``sigma`` grows with the stones and ends still to
play; unlimited games (``ends = -1``) use ``E`` itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rllib_curling import rules, sheet
from rllib_curling.game import GameState

HAMMER_VALUE = 0.6
KAPPA = 3.0
#: Chance that the opponent's next stone removes an open / a guarded shot stone.
Q_OPEN = 0.8
Q_GUARDED = 0.3
#: A stone within GUARD_DX (m) sideways and GUARD_DY (m) in front of a stone protects it.
GUARD_DX = 0.27
GUARD_DY = (0.3, 6.5)
CENTRE_GUARD_DX = 0.6
CENTRE_GUARD_VALUE = 0.25
HOUSE_STONE_VALUE = 0.12
#: A centre guard lies short of this y (m).
CENTRE_GUARD_Y_MAX = 9.5
#: The score without our shot stone is worth this much less (the opponent's shooter may count).
SHOT_LOSS = 0.3
#: Chance that the opponent draws inside our shot stone at distance d: clip((d - a) / b, 0, cap).
DRAW_Q = (0.1, 1.5, 0.8)
#: Chance of the opponent's hammer stone to score one when we lie second / the house is empty.
LAST_STONE_Q = (0.3, 0.8)
#: The weights above in ``evaluation_kernel``'s ``params`` layout (its docstring has the table).
KERNEL_PARAMS = np.array(
    [Q_OPEN, Q_GUARDED, GUARD_DX, *GUARD_DY, CENTRE_GUARD_DX, CENTRE_GUARD_Y_MAX]
    + [CENTRE_GUARD_VALUE, HOUSE_STONE_VALUE, SHOT_LOSS, *DRAW_Q, *LAST_STONE_Q]
)
#: Per-end spread of end scores (points) for the win-probability model.
END_SIGMA = 1.4
#: Weight of the expected points next to the win probability (prefers points when it is decided).
POINTS_TIEBREAK = 0.02


@dataclass(frozen=True)
class EvalContext:
    """What the evaluation needs to know besides the positions (thrower's view).

    ``parity``: rows of the thrower; ``n_left``: stones still to throw in this end after this one;
    ``hammer``: the thrower throws stone 15; ``diff``: match score (thrower − opponent) before this
    end; ``ends_after``: ends still to play after this one (−1 in unlimited games).
    """

    parity: int
    n_left: int
    hammer: bool
    diff: int
    ends_after: int

    @classmethod
    def of(cls, state: GameState) -> EvalContext:
        """The context of throwing stone ``state.shot`` from ``state``."""
        seat = state.next_seat
        p1, p2 = state.totals
        diff = p1 - p2 if seat == 0 else p2 - p1
        ends_after = -1 if state.config.unlimited else state.config.ends - state.end - 1
        return cls(
            parity=state.seat_parity(seat),
            n_left=sheet.STONES_PER_END - 1 - state.shot,
            hammer=seat == state.hammer_seat,
            diff=diff,
            ends_after=ends_after,
        )


def signed_scores(dist: np.ndarray, mine: np.ndarray) -> np.ndarray:
    """(M,) score now from the view of the rows ``mine`` (16,), given ``rules.house_distances``."""
    return rules.points_from_distances(dist, mine).astype(np.float64)


def guarded(positions: np.ndarray, index: np.ndarray) -> np.ndarray:
    """(M,) whether stone ``index[m]`` of position m has another stone in play just in front."""
    m = np.arange(len(positions))
    target = positions[m, index]  # (M, 2)
    dx = np.abs(positions[..., 0] - target[:, None, 0])
    dy = positions[..., 1] - target[:, None, 1]
    cover = rules.in_play(positions) & (dx < GUARD_DX) & (dy > GUARD_DY[0]) & (dy < GUARD_DY[1])
    cover[m, index] = False
    covered: np.ndarray = cover.any(axis=-1)
    return covered


def _threat(
    positions: np.ndarray, dist: np.ndarray, mine: np.ndarray, s: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(M,) chance ``q`` that the opponent's next stone removes or beats the thrower's shot stone,
    and (M,) the score ``s'`` if it does (our shot stone gone, their shooter maybe counting)."""
    dm = np.where(mine, dist, np.inf)
    best = dm.argmin(axis=-1)
    d_best = dm.min(axis=-1)
    without = dist.copy()
    without[np.arange(len(dist)), best] = np.inf
    s_wo = signed_scores(without, mine) - SHOT_LOSS
    q_take = np.where(guarded(positions, best), Q_GUARDED, Q_OPEN)
    q_draw = np.clip((d_best - DRAW_Q[0]) / DRAW_Q[1], 0.0, DRAW_Q[2])
    q = np.maximum(q_take, np.where(np.isfinite(d_best), q_draw, 0.0))
    return np.where(s > 0, q, 0.0), s_wo


def _strategy(
    positions: np.ndarray, dist: np.ndarray, mine: np.ndarray, ctx: EvalContext
) -> np.ndarray:
    """(M,) early-end terms: centre guards of the team without hammer, stones in the house."""
    x, y = positions[..., 0], positions[..., 1]
    centre = rules.in_free_guard_zone(positions) & (np.abs(x - sheet.CENTRE_X) < CENTRE_GUARD_DX)
    centre &= y < CENTRE_GUARD_Y_MAX
    non_hammer_rows = np.arange(sheet.STONES_PER_END) % 2 == 0
    guards = (centre & non_hammer_rows).sum(axis=-1) - 0.5 * (centre & ~non_hammer_rows).sum(-1)
    sign = -1.0 if ctx.hammer else 1.0
    in_house = np.isfinite(dist)
    presence = (in_house & mine).sum(axis=-1) - (in_house & ~mine).sum(axis=-1)
    share = ctx.n_left / (sheet.STONES_PER_END - 1)
    value: np.ndarray = share * (sign * CENTRE_GUARD_VALUE * guards + HOUSE_STONE_VALUE * presence)
    return value


def end_branches(
    positions: np.ndarray, ctx: EvalContext, *, simple: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """End points for the thrower in two branches of the opponent's next stone, and their chances.

    Returns ``(values, probs)``, both (M, 2): branch 0 the opponent's stone does no harm, branch 1
    it removes or beats our shot stone (when we lie shot; on their last stone otherwise: they
    draw or add one). ``simple``: the score now, with certainty (level 5's judgement).

    Runs compiled (``evaluation_kernel.branches``); ``end_branches_numpy`` is the definition the
    tests hold it to.
    """
    from rllib_curling.bots import evaluation_kernel  # numba: imported on first use

    positions = np.ascontiguousarray(positions, dtype=np.float64)
    lam = _lead_weight(ctx.n_left) if ctx.n_left >= 2 else 0.0  # the kernel uses it from 2 on
    hammer = HAMMER_VALUE if ctx.hammer else -HAMMER_VALUE
    share = ctx.n_left / (sheet.STONES_PER_END - 1)
    sign = -1.0 if ctx.hammer else 1.0
    flat = positions.reshape(-1, sheet.STONES_PER_END, 2)
    values, probs = evaluation_kernel.branches(
        flat, ctx.parity, ctx.n_left, simple, lam, hammer, share, sign, KERNEL_PARAMS
    )
    return values.reshape(*positions.shape[:-2], 2), probs.reshape(*positions.shape[:-2], 2)


def end_branches_numpy(
    positions: np.ndarray, ctx: EvalContext, *, simple: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """``end_branches`` in numpy passes over the batch (the definition)."""
    positions = np.asarray(positions, dtype=np.float64)
    dist = rules.house_distances(positions)
    mine = np.arange(sheet.STONES_PER_END) % 2 == ctx.parity
    s = signed_scores(dist, mine)
    if simple or ctx.n_left == 0:
        return np.stack([s, s], axis=-1), np.stack([np.ones_like(s), np.zeros_like(s)], axis=-1)
    q, s_wo = _threat(positions, dist, mine, s)
    if ctx.n_left == 1:  # the opponent's hammer stone: they draw for one when not shot
        hit = np.where(s > 0, s_wo, s - 1)
        q = np.where(s > 0, q, np.where(s < 0, *LAST_STONE_Q))
        values = np.stack([s, hit], axis=-1)
    else:
        lam = _lead_weight(ctx.n_left)
        hammer = HAMMER_VALUE if ctx.hammer else -HAMMER_VALUE
        rest = (1 - lam) * hammer + _strategy(positions, dist, mine, ctx)
        values = lam * np.stack([s, np.where(s > 0, s_wo, s)], axis=-1) + rest[:, None]
    return values, np.stack([1 - q, q], axis=-1)


def _lead_weight(n_left: int) -> float:
    """``lam``: how much the score now counts with ``n_left`` >= 2 stones still to come."""
    return KAPPA / (KAPPA + n_left - 1)


def win_value(values: np.ndarray, probs: np.ndarray, ctx: EvalContext) -> np.ndarray:
    """(M,) chance to win the game (draws half) over the branches, plus a points tie-break.

    Not a monotone function of the expected points: it weighs risk (e.g. a sure point against a
    gamble when one point wins the game).
    """
    expected: np.ndarray = (values * probs).sum(axis=-1)
    if ctx.ends_after < 0:
        return expected
    var = 0.25 + END_SIGMA**2 * (ctx.n_left / sheet.STONES_PER_END + ctx.ends_after)
    z = (ctx.diff + values) / np.sqrt(var)
    win: np.ndarray = (probs / (1.0 + np.exp(-1.702 * z))).sum(axis=-1)
    return win + POINTS_TIEBREAK * expected


def evaluate(
    positions: np.ndarray, ctx: EvalContext, *, simple: bool = False, win_prob: bool = False
) -> np.ndarray:
    """(M,) value of each position for the thrower: expected points, or the win value."""
    values, probs = end_branches(positions, ctx, simple=simple)
    return win_value(values, probs, ctx) if win_prob else (values * probs).sum(axis=-1)

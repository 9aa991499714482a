"""Ratings from game results: Bradley-Terry strengths by maximum likelihood, on the Elo scale.

Pure numpy; ``curling rate`` plays the games and calls ``fit_ratings``.

**Model.** Player i has a strength ``theta_i`` (natural-log scale); i beats j with probability
``p_ij = 1 / (1 + exp(theta_j - theta_i))``. A game's score for a is 1 (won), 0.5 (drawn) or 0
(lost); a draw counts as half a win each way, so the log-likelihood is
``sum_games s log p_ab + (1 - s) log p_ba`` (no separate draw parameter).

**Prior.** A player who won (or lost) every game has no finite maximum-likelihood strength, so
each player also gets ``PRIOR_DRAWS`` (one) virtual drawn game against the players' mean
strength ``mean(theta)``. The term depends on differences only, shrinks every rating a little
toward the mean (one game against the hundreds a pair plays), keeps every rating finite and
makes the fit unique even when some players never met.

**Scale and anchor.** Ratings are ``ELO_PER_NAT * theta`` (``400 / ln 10``: 200 points of
difference = 76 % expected score), shifted so the anchor player (default: the first player)
has rating 0 exactly; every rating and interval is relative to it.

**Intervals** (95 %): from the observed Fisher information, i.e. the inverse of the negative
Hessian of the log-posterior (likelihood + prior) at the fit, in the coordinates with the
anchor's strength fixed at 0: ``rating_i ± Z95 * se_i``. The anchor's interval is [0, 0]. They
are intervals of the difference to the anchor, and normal approximations (fine for tens of
games per pair; rough for a handful).

Layouts: ``players`` is a list of P names; ``score[i, j]`` is i's total score against j (wins +
half the draws), ``games[i, j]`` the number of games between i and j (symmetric, 0 on the
diagonal); ``score + score.T == games``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Elo points per unit of Bradley-Terry strength: 400 / ln(10).
ELO_PER_NAT = 400.0 / math.log(10.0)
#: Two-sided 95 % normal quantile.
Z95 = 1.959963984540054
#: Virtual drawn games of each player against the players' mean strength (see the prior).
PRIOR_DRAWS = 1.0
#: The allowed scores of one game, for a: won, drawn, lost.
SCORES = (1.0, 0.5, 0.0)

#: One game: (player a, player b, a's score 1 / 0.5 / 0).
GameScore = tuple[str, str, float]


@dataclass(frozen=True)
class Ratings:
    """The fit: per player (in ``players`` order) rating, interval, games and score share."""

    players: tuple[str, ...]
    anchor: str
    rating: np.ndarray  # (P,) Elo scale, anchor = 0
    stderr: np.ndarray  # (P,) Elo scale, anchor = 0
    score: np.ndarray  # (P, P) row's total score against column
    games: np.ndarray  # (P, P) games between row and column

    @property
    def low(self) -> np.ndarray:
        """(P,) lower ends of the 95 % intervals."""
        return self.rating - Z95 * self.stderr

    @property
    def high(self) -> np.ndarray:
        """(P,) upper ends of the 95 % intervals."""
        return self.rating + Z95 * self.stderr

    @property
    def played(self) -> np.ndarray:
        """(P,) games each player played."""
        played: np.ndarray = self.games.sum(axis=1)
        return played

    @property
    def score_share(self) -> np.ndarray:
        """(P,) each player's score over its games (draws half); NaN without games."""
        with np.errstate(invalid="ignore", divide="ignore"):
            share: np.ndarray = self.score.sum(axis=1) / self.played
            return share

    def order(self) -> list[int]:
        """Player indices, best rating first (ties: list order)."""
        return sorted(range(len(self.players)), key=lambda i: (-self.rating[i], i))

    def expected(self, a: str, b: str) -> float:
        """The model's expected score of ``a`` against ``b``."""
        i, j = self.players.index(a), self.players.index(b)
        return float(1.0 / (1.0 + 10.0 ** ((self.rating[j] - self.rating[i]) / 400.0)))

    def as_dict(self) -> dict[str, Any]:
        """Plain dict, ranked best first, for ``--json``."""
        share = self.score_share
        rows = [
            {"rank": rank, "player": self.players[i], "rating": float(self.rating[i]),
             "low": float(self.low[i]), "high": float(self.high[i]),
             "stderr": float(self.stderr[i]), "games": int(self.played[i]),
             "score": None if math.isnan(share[i]) else float(share[i])}
            for rank, i in enumerate(self.order(), start=1)
        ]  # fmt: skip
        return {
            "model": "bradley-terry (draws = half a win), Elo scale",
            "interval": "95 %, observed Fisher information",
            "anchor": self.anchor,
            "prior_draws": PRIOR_DRAWS,
            "ratings": rows,
            "players": list(self.players),
            "score": self.score.tolist(),
            "games": self.games.astype(int).tolist(),
        }


def tally(players: Sequence[str], results: Iterable[GameScore]) -> tuple[np.ndarray, np.ndarray]:
    """``(score, games)`` matrices from game results; ValueError on unknown players or scores."""
    index = {name: i for i, name in enumerate(players)}
    n = len(players)
    score, games = np.zeros((n, n)), np.zeros((n, n))
    for a, b, s in results:
        if a not in index or b not in index:
            raise ValueError(f"game between {a!r} and {b!r}: players are {list(players)}")
        if a == b:
            raise ValueError(f"a game of {a!r} against itself")
        if s not in SCORES:
            raise ValueError(f"a game's score is one of {SCORES}, got {s!r}")
        i, j = index[a], index[b]
        score[i, j] += s
        score[j, i] += 1.0 - s
        games[i, j] += 1
        games[j, i] += 1
    return score, games


def _gradient_hessian(
    theta: np.ndarray, score: np.ndarray, games: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-posterior, its gradient (P,) and Hessian (P, P) at ``theta`` (P,)."""
    diff = theta[:, None] - theta[None, :]
    log_p = -np.logaddexp(0.0, -diff)  # log p_ij
    p = np.exp(log_p)
    value = float((score * log_p).sum())  # each game counted once from each side's score
    grad = (score - games * p).sum(axis=1)
    w = games * p * (1.0 - p)
    hess = w - np.diag(w.sum(axis=1))
    # prior: PRIOR_DRAWS draws of each player against the mean strength, u = theta - mean
    n = len(theta)
    centre = np.eye(n) - 1.0 / n
    u = centre @ theta
    pu = 1.0 / (1.0 + np.exp(-u))
    value += PRIOR_DRAWS * float((-0.5 * np.logaddexp(0.0, -u) - 0.5 * np.logaddexp(0.0, u)).sum())
    grad = grad + PRIOR_DRAWS * centre @ (0.5 - pu)
    hess = hess - PRIOR_DRAWS * centre @ np.diag(pu * (1.0 - pu)) @ centre
    return value, grad, hess


def _maximise(score: np.ndarray, games: np.ndarray, anchor: int) -> tuple[np.ndarray, np.ndarray]:
    """Newton's method with step halving, the anchor's strength fixed at 0.

    Returns ``theta`` (P,) and the covariance (P, P) of the free strengths (zero for the anchor).
    """
    n = len(score)
    free = np.array([k for k in range(n) if k != anchor])
    theta = np.zeros(n)
    value, grad, hess = _gradient_hessian(theta, score, games)
    for _ in range(100):
        step = np.linalg.solve(hess[np.ix_(free, free)], -grad[free])
        t = 1.0
        while True:
            trial = theta.copy()
            trial[free] += t * step
            new = _gradient_hessian(trial, score, games)
            if new[0] >= value - 1e-12 or t < 1e-6:
                break
            t /= 2
        theta, (value, grad, hess) = trial, new
        if np.max(np.abs(t * step)) < 1e-10:
            break
    cov = np.zeros((n, n))
    cov[np.ix_(free, free)] = np.linalg.inv(-hess[np.ix_(free, free)])
    return theta, cov


def fit_ratings(
    players: Sequence[str], results: Iterable[GameScore], anchor: str | None = None
) -> Ratings:
    """Fit Bradley-Terry ratings (Elo scale, ``anchor`` = 0; default the first player).

    ``results``: (a, b, a's score 1 / 0.5 / 0) per game. ValueError with one line: fewer than 2
    players, a player listed twice, an unknown anchor, player or score.
    """
    players = tuple(players)
    if len(players) < 2:
        raise ValueError(f"a rating needs at least 2 players, got {len(players)}")
    if len(set(players)) != len(players):
        twice = sorted({p for p in players if players.count(p) > 1})
        raise ValueError(f"players listed more than once: {twice}")
    anchor = players[0] if anchor is None else anchor
    if anchor not in players:
        raise ValueError(f"the anchor {anchor!r} is not one of the players {list(players)}")
    score, games = tally(players, results)
    theta, cov = _maximise(score, games, players.index(anchor))
    return Ratings(
        players=players,
        anchor=anchor,
        rating=ELO_PER_NAT * theta,
        stderr=ELO_PER_NAT * np.sqrt(np.clip(np.diag(cov), 0.0, None)),
        score=score,
        games=games,
    )

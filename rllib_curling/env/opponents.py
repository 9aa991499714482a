"""The single-agent env's opponents: ``OpponentMixture``, a weighted mixture of built-in levels
(or ``"external"``) drawn once per pair of games, so the hammer alternates against each
opponent. The multi-agent envs' counterpart is their ``Seating`` (``env.multi_agent``,
``env.league.LeagueSeating``)."""

from __future__ import annotations

import numpy as np

from rllib_curling.env.config import opponent_weights
from rllib_curling.errors import ConfigError

#: An opponent: a built-in level or ``"external"``.
Opponent = int | str


class OpponentMixture:
    """Who the env plays, pair by pair of games on one connection.

    ``weights``: ``{opponent: weight}`` (``env.config.opponent_weights``); ``current`` is the
    opponent of the current (or next) game; ``games`` the games started against it on this
    connection. At a reset the env asks ``draw()`` whether the next game needs a new opponent.
    """

    def __init__(self, weights: dict[Opponent, float], seed: int | None) -> None:
        self.weights = dict(weights)
        self.current: Opponent = next(iter(self.weights))
        self.games = 0
        self.rng = np.random.default_rng(seed)

    def set_weights(self, opponent: object) -> None:
        """Draw from ``opponent`` (anything the ``opponent`` key takes) from the next pair on.
        ``ConfigError`` for a bad one, or for a switch between built-in and external ones."""
        weights = opponent_weights(opponent)
        if ("external" in weights) != ("external" in self.weights):
            raise ConfigError("set_opponents cannot switch between built-in and external opponents")
        self.weights = weights

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def in_pair(self) -> bool:
        """True between the two games of a pair: the next game keeps the opponent."""
        return self.games % 2 == 1

    def draw(self) -> Opponent:
        """The opponent of the next pair (no draw when the mixture has one)."""
        if len(self.weights) == 1:
            return next(iter(self.weights))
        names = list(self.weights)
        p = np.array([self.weights[k] for k in names])
        return names[int(self.rng.choice(len(names), p=p / p.sum()))]

    def game_started(self) -> None:
        self.games += 1

    def connection_closed(self) -> None:
        """The connection is gone: the next game starts a pair."""
        self.games = 0

    def sit(self, opponent: Opponent) -> None:
        """A new connection against ``opponent``: its games count from zero."""
        self.current, self.games = opponent, 0

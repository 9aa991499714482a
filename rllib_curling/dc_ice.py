"""The fcv1 ice behind DC's game: ``DCGame``'s simulator (``dc_game.Simulator``) on
``physics.fcv1``, with DC's execution noise per team and player.

``dc_game`` never imports physics; this module joins the two from the layer above them. It
converts between the game's rows (throwing order: even rows for the team throwing first in the
end) and fcv1's DC body order (team 0's stones 0–7, then team 1's)::

    rng = np.random.default_rng(7)
    simulate = Fcv1Simulator(rng)                    # DC3's normal_dist player on both teams
    state = DCGame.init(DCGameConfig(standard_end_count=1))
    state = DCGame.step(state, (0.0, 2.35, 1.0), simulate).state

A shot is fcv1's throw ``(vx, vy, rotation)`` in DC's shot frame: the release velocity in m/s
and +1 for ccw (ω > 0, curls toward −x) or −1 for cw. fcv1 releases every stone at
``dc_sheet.RELEASE_OMEGA`` in the rotation's direction.

**Players**: each team has four (``NoiseModel`` each); stone ``shot`` of an end is thrown by
its team's player ``shot // 4`` (DC4's ``total_shot // 4 + 1``, counted from 1): two stones
each.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rllib_curling import dc_rules, dc_sheet
from rllib_curling.dc_game import DCGameState
from rllib_curling.errors import RuleError
from rllib_curling.physics.fcv1 import NORMAL_DIST, NoiseModel
from rllib_curling.physics.fcv1 import simulate as fcv1_simulate

PLAYERS_PER_TEAM = 4
#: Four players of DC3's defaults.
DEFAULT_PLAYERS: tuple[NoiseModel, ...] = (NORMAL_DIST,) * PLAYERS_PER_TEAM


@dataclass(frozen=True)
class Fcv1Throw:
    """One stone on the fcv1 ice: ``position`` (16, 2) where every stone stopped, rows in the
    game's throwing order (before the rules remove anything), and ``thrown`` (vx, vy, rotation)
    as released (after the noise)."""

    position: np.ndarray
    thrown: tuple[float, float, float]


def player_of(shot: int) -> int:
    """The team's player (0–3) throwing stone ``shot`` (0–15) of an end."""
    return shot // (dc_sheet.SHOTS_PER_END // PLAYERS_PER_TEAM)


def throw_stone(
    state: DCGameState,
    shot: object,
    rng: np.random.Generator | None = None,
    noise: NoiseModel = NORMAL_DIST,
) -> Fcv1Throw:
    """Throw stone ``state.shot`` with ``shot`` = (vx, vy, rotation) from ``state.position``;
    with ``rng``, DC's noise ``noise`` first. ``InvalidThrowError`` for a throw fcv1 refuses."""
    team = state.next_team
    if team is None:
        raise RuleError("nobody throws: the game is over or the end finished (shot 16)")
    bodies = np.concatenate(dc_rules.to_teams(state.position, state.first_team))
    body = team * dc_sheet.STONES_PER_TEAM + state.shot // 2
    result = fcv1_simulate(bodies, body, shot, rng, noise=noise)
    position = dc_rules.from_teams(result.position[:8], result.position[8:], state.first_team)
    vx, vy, rotation = result.throw.tolist()
    return Fcv1Throw(position=position, thrown=(vx, vy, rotation))


class Fcv1Simulator:
    """A ``dc_game.Simulator`` on the fcv1 ice: ``simulate(state, shot) -> position``.

    ``rng``: the Generator the noise is drawn from (None: no noise); ``players``: per team
    (team 0, team 1), four ``NoiseModel``; ``last``: the last ``Fcv1Throw`` (what was thrown).
    Same seed, same shots: the same positions.
    """

    def __init__(
        self,
        rng: np.random.Generator | None,
        players: tuple[tuple[NoiseModel, ...], tuple[NoiseModel, ...]] = (
            DEFAULT_PLAYERS,
            DEFAULT_PLAYERS,
        ),
    ) -> None:
        for team, models in enumerate(players):
            if len(models) != PLAYERS_PER_TEAM:
                raise ValueError(
                    f"team {team} has {len(models)} players; allowed: {PLAYERS_PER_TEAM}"
                )
        self.rng = rng
        self.players = players
        self.last: Fcv1Throw | None = None

    def noise_for(self, state: DCGameState) -> NoiseModel:
        """The noise of the player throwing stone ``state.shot``."""
        team = state.next_team
        if team is None:
            raise RuleError("nobody throws: the game is over or the end finished (shot 16)")
        return self.players[team][player_of(state.shot)]

    def __call__(self, state: DCGameState, shot: object) -> np.ndarray:
        self.last = throw_stone(state, shot, self.rng, self.noise_for(state))
        return self.last.position


def warm_up() -> None:
    """Throw one stone on the fcv1 ice, so its kernels are compiled (or loaded from numba's
    cache) before the first client's shot waits for them."""
    from rllib_curling.dc_game import DCGame

    throw_stone(DCGame.init(), (0.0, 2.3, 1.0), np.random.default_rng(0))

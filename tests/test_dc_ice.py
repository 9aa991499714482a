"""Tests of rllib_curling.dc_ice: DCGame's simulator on the fcv1 ice (body order, noise per team
and player, seeded repeats)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rllib_curling import dc_rules
from rllib_curling.dc_game import DCGame, DCGameConfig, DCGameState
from rllib_curling.dc_ice import DEFAULT_PLAYERS, Fcv1Simulator, player_of, throw_stone
from rllib_curling.errors import RuleError
from rllib_curling.physics.fcv1 import NoiseModel, simulate

DRAW = (0.05, 2.38, 1.0)  # ccw, curls toward -x: comes to rest near the house
EXACT = NoiseModel(speed_std=0.0, angle_std=0.0)


def _state(shot: int, first_team: int, position: np.ndarray | None = None) -> DCGameState:
    state = DCGame.init(DCGameConfig(standard_end_count=2))
    pos = np.zeros((16, 2)) if position is None else position
    return dataclasses.replace(state, shot=shot, first_team=first_team, position=pos)


@pytest.mark.parametrize(("shot", "first_team"), [(0, 0), (0, 1), (5, 0), (5, 1)])
def test_throw_stone__lands_where_fcv1_puts_that_body(shot: int, first_team: int) -> None:
    state = _state(shot, first_team)
    thrower = state.next_team
    assert thrower is not None
    body = thrower * 8 + shot // 2
    expected = simulate(np.zeros((16, 2)), body, DRAW).position[body]

    out = throw_stone(state, DRAW)

    assert np.array_equal(out.position[shot], expected)
    assert expected[1] > 30.0  # it went down the ice
    assert np.count_nonzero(np.any(out.position != 0.0, axis=1)) == 1
    assert out.thrown == DRAW


def test_throw_stone__a_placed_stone_keeps_its_team_and_row() -> None:
    position = np.zeros((16, 2))
    position[1] = (1.0, 36.0)  # the hammer's first stone (team 1 when team 0 leads)
    state = _state(2, 0, position)
    bodies = np.concatenate(dc_rules.to_teams(state.position, 0))
    assert np.array_equal(bodies[8], position[1])  # team 1's stone 0 is DC body 8
    expected = simulate(bodies, 1, DRAW).position  # team 0's second stone: body 1

    out = throw_stone(state, DRAW)

    assert np.array_equal(out.position[2], expected[1])
    assert np.array_equal(out.position[1], expected[8])


def test_simulator__seeded_runs_repeat_and_the_noise_is_drawn() -> None:
    def play(seed: int) -> list[np.ndarray]:
        simulate_ = Fcv1Simulator(np.random.default_rng(seed))
        state = DCGame.init(DCGameConfig(standard_end_count=1))
        positions = []
        for _ in range(6):
            state = DCGame.step(state, DRAW, simulate_).state
            positions.append(state.position.copy())
        return positions

    first, again, other = play(3), play(3), play(4)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))


def test_simulator__each_team_and_player_has_its_noise() -> None:
    exact_team1 = (DEFAULT_PLAYERS, (EXACT,) * 4)
    simulate_ = Fcv1Simulator(np.random.default_rng(0), exact_team1)
    state = _state(1, 0)  # team 1 throws shot 1
    assert simulate_.noise_for(state) is EXACT
    assert np.allclose(simulate_(state, DRAW), throw_stone(state, DRAW).position, atol=1e-9)
    noisy = _state(0, 0)
    assert simulate_.noise_for(noisy) is DEFAULT_PLAYERS[0]
    simulate_(noisy, DRAW)
    assert simulate_.last is not None and simulate_.last.thrown != DRAW
    assert [player_of(s) for s in range(16)] == [s // 4 for s in range(16)]


def test_simulator__refuses_a_team_without_four_players_and_a_finished_end() -> None:
    with pytest.raises(ValueError, match="3 players"):
        Fcv1Simulator(None, ((EXACT,) * 3, DEFAULT_PLAYERS))
    with pytest.raises(RuleError, match="nobody throws"):
        throw_stone(DCGame.concede(_state(0, 0)), DRAW)

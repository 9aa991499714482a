"""agent.dc_search: DC level 8's search judging by the chance to win and the network's, from its
value head or its end-score head through DC's win table."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rllib_curling import dc_win_table
from rllib_curling.agent.dc_search import (
    Chance,
    DCValueSearch,
    end_score_chance,
    result_chance,
)
from rllib_curling.dc_bots.candidates import win_judge
from rllib_curling.dc_bots.levels import make_dc_bot
from rllib_curling.dc_env.spaces import OBS_SIZE, encode
from rllib_curling.dc_game import DCGame, DCGameConfig, DCGameState
from rllib_curling.dc_ice import Fcv1Simulator
from rllib_curling.win_odds import END_SCORES


def busy_state(shots: int) -> DCGameState:
    """A DC state after ``shots`` stones of level 3 (noise off), in the second of four ends (team
    1 scored the first, so throws first)."""
    bot = make_dc_bot(3)
    first = DCGame.init(DCGameConfig(standard_end_count=4))
    state = dataclasses.replace(first, end=1, end_scores=((0, 1),), first_team=1)
    simulate = Fcv1Simulator(None)
    for _ in range(shots):
        state = DCGame.step(state, bot.choose(state, None), simulate).state
    return state


def some_positions(state: DCGameState, n: int = 5) -> np.ndarray:
    """(n, 16, 2) positions: ``state``'s with the stone to throw placed at different spots."""
    rng = np.random.default_rng(3)
    out = np.repeat(np.asarray(state.position)[None], n, axis=0)
    out[:, state.shot] = np.c_[rng.uniform(-1.0, 1.0, n), rng.uniform(36.5, 40.0, n)]
    return out


def constant(v: float, seen: list[np.ndarray] | None = None) -> Chance:
    """The chance of a value head that answers ``v`` everywhere (and keeps what it was shown in
    ``seen``)."""

    def values(obs: np.ndarray) -> np.ndarray:
        assert obs.shape[1:] == (OBS_SIZE,)
        if seen is not None:
            seen.append(obs)
        return np.full(len(obs), v)

    return result_chance(values)


def certain_of(score: int) -> Chance:
    """The chance of an end-score head sure that the mover scores ``score`` in this end."""

    def end_scores(obs: np.ndarray) -> np.ndarray:
        assert obs.shape[1:] == (OBS_SIZE,)
        return np.tile((END_SCORES == score).astype(np.float64), (len(obs), 1))

    return end_score_chance(end_scores)


@pytest.mark.parametrize(
    ("shots", "weight"),
    [(5, 0.0), (15, 1.0)],  # weight 0; after the end's last stone, whatever the weight
    ids=["weight_zero", "the_ends_last_stone"],
)
def test_dc_value_search__the_chance_to_win_alone_decides(shots: int, weight: float) -> None:
    state = busy_state(shots)
    positions = some_positions(state)
    search = DCValueSearch(constant(0.9), value_weight=weight)
    np.testing.assert_array_equal(search.value(state, positions), win_judge(state, positions))


def test_dc_value_search__learned_value_is_read_from_the_side_of_the_team_to_throw() -> None:
    state = busy_state(5)  # stone 5 is the hammer's; after it, the first team throws
    positions = some_positions(state)
    search = DCValueSearch(constant(0.6), value_weight=1.0)
    # After our stone the opponent moves: its 0.8 chance to win is our 0.2.
    np.testing.assert_allclose(search.value(state, positions), 0.2)
    # After the opponent's reply we move again: our own 0.8.
    np.testing.assert_allclose(search.value(state, positions, state.shot + 1), 0.8)
    half = DCValueSearch(constant(0.6), value_weight=0.5).value(state, positions)
    np.testing.assert_allclose(half, 0.5 * win_judge(state, positions) + 0.5 * 0.2)


def test_dc_value_search__the_network_sees_each_position_as_the_env_would() -> None:
    state = busy_state(6)
    positions = some_positions(state)
    seen: list[np.ndarray] = []
    DCValueSearch(constant(0.0, seen), value_weight=0.5).value(state, positions)
    mover = 1 - state.next_team  # type: ignore[operator]
    for obs, position in zip(seen[0], positions, strict=True):
        after = dataclasses.replace(state, position=position, shot=state.shot + 1)
        np.testing.assert_array_equal(obs, encode(after, mover))


def test_dc_value_search__plays_a_shot_and_refuses_a_weight_outside_0_1() -> None:
    state = busy_state(4)
    shot = DCValueSearch(constant(0.0), value_weight=0.5).choose(state, np.random.default_rng(0))
    assert np.all(np.isfinite(shot))
    with pytest.raises(ValueError, match="value_weight"):
        DCValueSearch(constant(0.0), value_weight=1.5)


@pytest.mark.parametrize("score", [-2, 0, 1, 3])
def test_end_score_chance__a_sure_score_reads_the_win_table_after_the_end(score: int) -> None:
    state = busy_state(6)  # end 1 of 4, team 1 one up and throwing first; stone 6: team 1's
    mover = state.next_team
    assert mover == 1 and state.hammer_team == 0
    obs = np.zeros((3, OBS_SIZE))
    found = certain_of(score)(state, obs)
    table = dc_win_table.load()
    # One up, two ends after this one, no hammer in it.
    np.testing.assert_allclose(found, table.after_end(1, score, 2, 0))


def test_end_score_chance__weighs_each_score_by_its_probability() -> None:
    state = busy_state(6)
    p = np.zeros(len(END_SCORES))
    p[END_SCORES == -1], p[END_SCORES == 2] = 0.25, 0.75
    chance = end_score_chance(lambda obs: np.tile(p, (len(obs), 1)))
    table = dc_win_table.load()
    expected = 0.25 * table.after_end(1, -1, 2, 0) + 0.75 * table.after_end(1, 2, 2, 0)
    np.testing.assert_allclose(chance(state, np.zeros((1, OBS_SIZE))), [expected])


def test_dc_value_search__end_score_head_read_from_the_side_of_the_team_to_throw() -> None:
    state = busy_state(5)  # stone 5 is the hammer team's (team 0); after it team 1 throws
    positions = some_positions(state)
    search = DCValueSearch(certain_of(2), value_weight=1.0)
    table = dc_win_table.load()
    # After our stone team 1 moves and scores 2 for sure (one up, no hammer): its chance, seen
    # from our side.
    np.testing.assert_allclose(search.value(state, positions), 1.0 - table.after_end(1, 2, 2, 0))

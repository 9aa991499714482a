"""Tests of rllib_curling.dc_game: shots 0-16, hammer, extra ends, clocks, concession, winner."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest

from rllib_curling import dc_rules, dc_sheet
from rllib_curling.dc_game import (
    EXTRA_END_MAX,
    DCGame,
    DCGameConfig,
    DCGameState,
    DCTransition,
    first_team_after,
)
from rllib_curling.errors import ConfigError, InvalidThrowError, RuleError

TX, TY = dc_sheet.TEE
GUARD = (0.6, 35.0)  # in the free guard zone


def at(d: float, angle: float = 0.0) -> tuple[float, float]:
    """A point ``d`` from the tee (angle 0: toward the hack)."""
    return (TX + d * math.sin(angle), TY - d * math.cos(angle))


def scoring(state: DCGameState, team: int | None, n: int = 1) -> np.ndarray:
    """A final position where ``team`` scores ``n`` this end (None: a blank end)."""
    out = np.zeros((16, 2))
    if team is None:
        return out
    rows = 0 if team == state.first_team else 1
    for i in range(n):
        out[rows + 2 * i] = at(0.2 * (i + 1), i)
    out[1 - rows] = at(1.9)  # an opponent stone in the house, farther out
    return out


def play_end(state: DCGameState, final: np.ndarray) -> DCTransition:
    """Throw stones 0..14 out of play, then settle stone 15 at ``final``."""
    for _ in range(15):
        state = DCGame.settle(state, state.position).state
    return DCGame.settle(state, final)


def play_ends(state: DCGameState, *teams: int | None) -> DCGameState:
    """Play one end per item: the team scoring 1 in it, None for a blank end."""
    for team in teams:
        state = play_end(state, scoring(state, team)).state
    return state


# --- config -------------------------------------------------------------------------------------


def test_config__defaults_are_dcs() -> None:
    config = DCGameConfig()
    assert (config.standard_end_count, config.rule, config.extra_end_clock) == (
        10,
        "fgz",
        "per_end",
    )
    assert config.standard_time == 219.0 and config.extra_end_time_limit == 21.9
    assert DCGameConfig(standard_end_count=8).standard_time == pytest.approx(175.2)
    assert DCGameConfig(standard_end_count=8, time_limit=300).standard_time == 300.0


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("standard_end_count", 0),
        ("standard_end_count", True),
        ("standard_end_count", 2.0),
        ("standard_end_count", "10"),
        ("time_limit", 0),
        ("time_limit", -1.0),
        ("time_limit", math.nan),
        ("time_limit", True),
        ("extra_end_time_limit", math.inf),
        ("extra_end_clock", "none"),
    ],
)
def test_config__rejects_bad_values(key: str, value: object) -> None:
    with pytest.raises(ConfigError, match=key):
        DCGameConfig(**{key: value})  # type: ignore[arg-type]


def test_config__unknown_rule_or_key_lists_the_valid_ones() -> None:
    with pytest.raises(ConfigError, match="'fgz', 'modified_fgz', 'no_tick'"):
        DCGameConfig(rule="fgz_rule")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unknown .*'ends'.*valid keys.*standard_end_count"):
        DCGameConfig.from_dict({"ends": 8})
    config = DCGameConfig.from_dict({"standard_end_count": 8, "rule": "no_tick"})
    assert config == DCGameConfig(standard_end_count=8, rule="no_tick")


# --- state --------------------------------------------------------------------------------------


def test_init__team0_throws_first_and_team1_has_the_hammer() -> None:
    state = DCGame.init()
    assert (state.shot, state.end, state.first_team, state.end_scores) == (0, 0, 0, ())
    assert state.next_team == 0 and state.hammer_team == 1 and state.team_shot == 0
    assert state.remaining == (219.0, 219.0) and state.extra_remaining == (21.9, 21.9)
    assert not state.is_terminal and state.winner is None and state.totals == (0, 0)
    assert state.score_lists() == ((0,) * 11, (0,) * 11)


def test_state__position_is_read_only_and_copied() -> None:
    raw = np.zeros((16, 2))
    raw[0] = GUARD
    state = dataclasses.replace(DCGame.init(), position=raw, shot=1)
    raw[0] = 0.0
    assert tuple(state.position[0]) == GUARD
    with pytest.raises(ValueError):
        state.position[0, 0] = 1.0
    assert state == dataclasses.replace(DCGame.init(), position=state.position.copy(), shot=1)
    assert state != dataclasses.replace(state, shot=2)


def test_state__inconsistent_fields_are_rejected() -> None:
    state = DCGame.init()
    with pytest.raises(RuleError, match="end scores"):
        dataclasses.replace(state, end=1)
    with pytest.raises(RuleError, match="shot"):
        dataclasses.replace(state, shot=17)
    with pytest.raises(RuleError, match="reason"):
        dataclasses.replace(state, reason="time")  # a loss on time needs a winner
    with pytest.raises(RuleError):
        dataclasses.replace(state, winner=0, reason="draw")
    with pytest.raises(InvalidThrowError, match="shape"):
        dataclasses.replace(state, position=np.zeros((8, 2)))


# --- shots and ends -----------------------------------------------------------------------------


def test_step__throws_through_the_injected_simulator() -> None:
    seen: list[tuple[int, Any]] = []

    def simulate(state: DCGameState, shot: Any) -> np.ndarray:
        seen.append((state.shot, shot))
        after = state.position.copy()
        after[state.shot] = shot
        return after

    t = DCGame.step(DCGame.init(), (0.2, 37.0), simulate)
    assert seen == [(0, (0.2, 37.0))] and t.thrower == 0
    assert t.thrown_rest == (0.2, 37.0) and not t.foul and t.end_score is None
    t2 = DCGame.step(t.state, (0.0, 20.0), simulate)  # short of the hog line: removed
    assert t2.thrower == 1 and t2.thrown_rest is None and not t2.state.position[1].any()
    assert (t2.state.shot, t2.state.next_team, t2.state.team_shot) == (2, 0, 1)


@pytest.mark.parametrize("rule", dc_rules.RULES)
def test_settle__a_guard_foul_restores_the_position_and_is_reported(rule: str) -> None:
    state = DCGame.init(DCGameConfig(rule=rule))  # type: ignore[arg-type]
    state = DCGame.settle(state, np.array([GUARD] + [(0.0, 0.0)] * 15)).state
    after = np.zeros((16, 2))
    after[1] = at(0.3)  # team 1's stone 1 knocks team 0's guard out
    t = DCGame.settle(state, after)
    assert t.foul and t.thrown_rest is None and t.thrower == 1
    assert np.array_equal(t.state.position, state.position) and t.state.shot == 2


def test_end__shot_16_is_the_final_state_then_the_next_end_starts() -> None:
    t = play_end(DCGame.init(), scoring(DCGame.init(), 1, n=2))
    end_state = t.end_state
    assert end_state is not None and t.end_score == (0, 2)
    assert (end_state.shot, end_state.team_shot, end_state.next_team) == (16, 8, None)
    assert end_state.end_finished and end_state.end_scores == ((0, 2),)
    assert np.array_equal(end_state.position, scoring(DCGame.init(), 1, n=2))
    nxt = t.state
    assert (nxt.shot, nxt.end, nxt.end_scores) == (0, 1, ((0, 2),))
    assert not nxt.position.any() and nxt.score_lists()[1][0] == 2
    with pytest.raises(RuleError, match="shot 16"):
        DCGame.settle(end_state, end_state.position)


def test_hammer__the_scoring_team_throws_first_next_end() -> None:
    after_team1 = play_ends(DCGame.init(), 1)
    assert (after_team1.first_team, after_team1.next_team, after_team1.hammer_team) == (1, 1, 0)
    after_team0 = play_ends(after_team1, 0)
    assert after_team0.first_team == 0 and after_team0.hammer_team == 1
    assert first_team_after(1, (2, 0)) == 0 and first_team_after(0, (0, 3)) == 1


def test_hammer__a_blank_end_keeps_the_order() -> None:
    assert play_ends(DCGame.init(), None).first_team == 0
    assert play_ends(DCGame.init(), 1, None).first_team == 1
    assert first_team_after(1, (0, 0)) == 1


def test_end__scores_go_to_the_right_team_when_team1_throws_first() -> None:
    state = play_ends(DCGame.init(), 1)  # team 1 throws first in end 1: its stones are even rows
    t = play_end(state, scoring(state, 1, n=3))
    assert t.end_score == (0, 3) and t.state.totals == (0, 4)
    end_state = t.end_state
    assert end_state is not None
    team0, team1 = end_state.team_stones()
    assert np.array_equal(team1, end_state.position[0::2])
    assert np.array_equal(team0, end_state.position[1::2])


# --- the game's end -----------------------------------------------------------------------------


def test_game__ends_after_the_standard_ends_when_not_tied() -> None:
    state = play_ends(DCGame.init(DCGameConfig(standard_end_count=2)), 1)
    t = play_end(state, scoring(state, None))
    assert t.state is t.end_state and t.state.is_terminal
    assert (t.state.winner, t.state.reason, t.state.next_team) == (1, "score", None)
    assert t.state.score_lists() == ((0, 0, 0), (1, 0, 0))
    with pytest.raises(RuleError, match="over"):
        DCGame.settle(t.state, t.state.position)


def test_extra_end__tied_games_play_extra_ends_scored_in_the_extra_slot() -> None:
    state = play_ends(DCGame.init(DCGameConfig(standard_end_count=2)), 1, 0)
    assert state.end == 2 and state.is_extra_end and not state.is_terminal
    state = play_ends(state, None)  # a blank extra end: another one
    assert state.end == 3 and state.first_team == 0 and not state.is_terminal
    final = play_ends(state, 0)
    assert (final.winner, final.reason, final.end) == (0, "score", 3)
    assert final.end_scores == ((0, 1), (1, 0), (0, 0), (1, 0))
    assert final.score_lists() == ((0, 1, 1), (1, 0, 0)) and final.totals == (2, 1)


def test_extra_end__still_tied_after_end_index_254_is_a_draw() -> None:
    config = DCGameConfig(standard_end_count=1)
    clocks = {"remaining": (219.0, 219.0), "extra_remaining": (21.9, 21.9)}
    late = DCGameState(config, end=EXTRA_END_MAX - 2, end_scores=((0, 0),) * 253, **clocks)
    last = play_ends(late, None)
    assert last.end == EXTRA_END_MAX - 1 and not last.is_terminal
    draw = play_ends(last, None)
    assert draw.is_terminal and (draw.winner, draw.reason) == (None, "draw")
    assert len(draw.end_scores) == EXTRA_END_MAX


# --- clocks and concession ----------------------------------------------------------------------


def test_clock__charges_the_team_to_move() -> None:
    state = DCGame.charge_time(DCGame.init(), 10.0)
    assert state.remaining == (209.0, 219.0) and state.time_left(0) == 209.0
    state = DCGame.settle(state, state.position).state
    state = DCGame.charge_time(state, 19.5)
    assert state.remaining == (209.0, 199.5) and not state.is_terminal
    with pytest.raises(RuleError, match="seconds"):
        DCGame.charge_time(state, -1.0)


def test_clock__running_past_zero_loses_on_time() -> None:
    state = dataclasses.replace(DCGame.init(), remaining=(5.0, 100.0))
    exact = DCGame.charge_time(state, 5.0)
    assert exact.remaining == (0.0, 100.0) and not exact.is_terminal
    late = DCGame.charge_time(state, 5.01)
    assert late.is_terminal and (late.winner, late.reason) == (1, "time")
    assert late.remaining == (0.0, 100.0) and late.next_team is None
    with pytest.raises(RuleError, match="no team to move"):
        DCGame.charge_time(late, 1.0)
    with pytest.raises(RuleError, match="over"):
        DCGame.settle(late, late.position)


@pytest.mark.parametrize(("clock", "left"), [("per_end", 21.9), ("shared", 1.9)])
def test_clock__extra_ends_run_on_the_extra_clock(clock: str, left: float) -> None:
    config = DCGameConfig(standard_end_count=1, extra_end_clock=clock)  # type: ignore[arg-type]
    state = play_ends(DCGame.init(config), None)
    state = DCGame.charge_time(state, 20.0)
    assert state.remaining == (21.9, 21.9) and state.extra_remaining == pytest.approx((1.9, 21.9))
    assert state.time_left(0) == pytest.approx(1.9)
    state = play_ends(state, None)  # a second extra end
    assert state.extra_remaining[0] == pytest.approx(left)
    lost = DCGame.charge_time(state, 22.0)
    assert (lost.winner, lost.reason) == (1, "time")


def test_concede__the_conceding_team_loses() -> None:
    state = DCGame.init()
    assert (DCGame.concede(state).winner, DCGame.concede(state).reason) == (1, "concede")
    second = DCGame.settle(state, state.position).state
    assert DCGame.concede(second).winner == 0
    assert DCGame.concede(second, team=0).winner == 1
    with pytest.raises(RuleError, match="over"):
        DCGame.concede(DCGame.concede(state))

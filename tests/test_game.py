"""Tests of rllib_curling.game: shots, ends, hammer, match result, the rules through settle."""

from __future__ import annotations

import dataclasses
import json
import math
import sys
import types
from typing import Any

import numpy as np
import pytest
from positions import CENTRE_GUARD, GUARD, TX, at, pos, random_layouts

from rllib_curling import rules
from rllib_curling.errors import ConfigError, InvalidThrowError, RuleError
from rllib_curling.game import (
    Game,
    GameConfig,
    GameState,
    Result,
    Transition,
    check_ends,
    first_seat_after,
    result_for,
    result_of,
    score_rate,
)


def play_end(state: GameState, final: np.ndarray) -> Transition:
    """Throw stones 0..14 out of play, then settle stone 15 at ``final``."""
    for _ in range(15):
        state = Game.settle(state, state.position).state
    return Game.settle(state, final)


def even_scores(n: int) -> np.ndarray:
    """Final position where the even team (first_seat) scores ``n``."""
    return pos(**{f"s{2 * i}": at(0.2 * (i + 1), i) for i in range(n)}, s15=at(1.9))


def odd_scores(n: int) -> np.ndarray:
    return pos(**{f"s{2 * i + 1}": at(0.2 * (i + 1), i) for i in range(n)}, s14=at(1.9))


BLANK = np.zeros((16, 2))


# --- config and state ---------------------------------------------------------------------------


@pytest.mark.parametrize("ends", [0, -2, 2.0, True, "4"])
def test_config__rejects_bad_ends(ends: object) -> None:
    with pytest.raises(ConfigError, match="ends"):
        GameConfig(ends=ends)  # type: ignore[arg-type]


def test_config__rejects_bad_blank_end() -> None:
    with pytest.raises(ConfigError, match="blank_end"):
        GameConfig(blank_end="flip")  # type: ignore[arg-type]


def test_init__empty_sheet_player1_first() -> None:
    state = Game.init(GameConfig(ends=8))
    assert (state.shot, state.end, state.first_seat, state.end_scores) == (0, 0, 0, ())
    assert not rules.in_play(state.position).any()
    assert state.setstate_fields() == (0, 0, 8, 0)
    assert state.hammer_seat == 1 and state.totals == (0, 0) and not state.is_terminal


def test_state__position_is_read_only_and_copied() -> None:
    raw = pos(s0=GUARD)
    state = dataclasses.replace(Game.init(), position=raw, shot=1)
    raw[0] = 0.0
    assert tuple(state.position[0]) == GUARD
    with pytest.raises(ValueError):
        state.position[0, 0] = 1.0


def test_state__inconsistent_fields_are_rejected() -> None:
    with pytest.raises(RuleError, match="end scores"):
        GameState(end=1)
    with pytest.raises(RuleError, match="shot"):
        GameState(shot=17)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_state__non_finite_position_is_rejected(bad: float) -> None:
    raw = pos(s0=GUARD)
    raw[3, 1] = bad
    with pytest.raises(InvalidThrowError, match="finite"):
        GameState(position=raw, shot=1)


def test_state__position_of_another_shape_or_type_is_checked() -> None:
    with pytest.raises(InvalidThrowError, match="shape"):
        GameState(position=np.zeros((15, 2)))
    huge = pos(s0=(1e308, 1e308), s1=(1e308, 1e308))  # finite, though its sum overflows
    assert GameState(position=huge, shot=2).position[1, 0] == 1e308
    listed = GameState(position=pos(s0=GUARD).tolist(), shot=1)
    assert listed.position.dtype == np.float64 and tuple(listed.position[0]) == GUARD
    assert not listed.position.flags.writeable


def test_state__equality_compares_positions() -> None:
    a = dataclasses.replace(Game.init(), position=pos(s0=GUARD), shot=1)
    b = dataclasses.replace(Game.init(), position=pos(s0=GUARD), shot=1)
    assert a == b and hash(a) == hash(b)
    assert a != dataclasses.replace(b, position=pos(s0=at(1.0)))


# --- shots --------------------------------------------------------------------------------------


def test_settle__alternates_seats_and_reports_rest() -> None:
    state = Game.init()
    t = Game.settle(state, pos(s0=GUARD), mid=np.arange(5.0))
    assert t.thrower_seat == 0 and t.state.next_seat == 1 and t.state.shot == 1
    assert t.thrown_rest == GUARD and t.mid is not None and t.before is state
    assert t.end_score is None and t.end_state is None and t.fouled_seat is None
    t2 = Game.settle(t.state, pos(s0=GUARD, s1=(0.05, 7.0)))  # stone 1 onto the side
    assert t2.thrown_rest is None and not rules.in_play(t2.state.position[1])


def test_settle__fgz_restores_position_and_removes_thrown_stone() -> None:
    state = dataclasses.replace(Game.init(), position=pos(s0=at(0.5), s1=GUARD), shot=2)
    t = Game.settle(state, pos(s0=at(0.5), s2=at(1.0)))
    assert t.fgz_restored and not t.centre_line_violation
    assert np.array_equal(t.state.position, state.position)
    assert t.thrown_rest is None and t.fouled_seat == 1 and t.state.shot == 3


def test_settle__no_fgz_restore_at_shot_5() -> None:
    start = pos(s0=GUARD, s1=at(0.3), s2=at(0.6), s3=at(0.9), s4=at(1.2, 1.0))
    state = dataclasses.replace(Game.init(), position=start, shot=5)
    after = np.array(start)
    after[0] = 0.0
    after[5] = at(1.5, 2.0)
    t = Game.settle(state, after)
    assert not t.fgz_restored and np.array_equal(t.state.position, after)


def test_settle__own_guard_knocked_out_is_not_restored() -> None:
    state = dataclasses.replace(Game.init(), position=pos(s0=GUARD, s1=at(0.5)), shot=2)
    t = Game.settle(state, pos(s1=at(0.5), s2=at(1.0)))
    assert not t.fgz_restored and t.thrown_rest is not None


def test_settle__centre_line_violation_offers_reset() -> None:
    state = dataclasses.replace(Game.init(), position=pos(s0=CENTRE_GUARD), shot=1)
    after = pos(s0=(TX + 0.5, 7.0), s1=(TX, 8.0))
    t = Game.settle(state, after)
    assert t.centre_line_violation and not t.fgz_restored and t.fouled_seat == 0
    assert np.array_equal(t.state.position, after)
    assert t.reset_state is not None and np.array_equal(t.reset_state.position, state.position)
    assert t.reset_state.shot == t.state.shot == 2
    assert t.resolve("RESET") is t.reset_state and t.resolve("KEEP") is t.state
    with pytest.raises(RuleError, match="RESET or KEEP"):
        t.resolve("UNDO")


def test_settle__no_reset_state_without_violation() -> None:
    t = Game.settle(Game.init(), pos(s0=GUARD))
    assert t.reset_state is None and t.resolve("RESET") is t.state


# --- ends and hammer ----------------------------------------------------------------------------


def test_end__scored_and_next_end_led_by_scoring_team() -> None:
    t = play_end(Game.init(), odd_scores(2))  # end 0: Player2 (odd rows) scores 2
    assert t.end_score == (0, 2)
    assert t.end_state is not None and t.end_state.shot == 16
    assert t.end_state.setstate_fields() == (16, 0, 4, 1)
    assert np.array_equal(t.end_state.position, odd_scores(2))
    s = t.state
    assert (s.shot, s.end, s.first_seat, s.totals) == (0, 1, 1, (0, 2))
    assert s.setstate_fields() == (0, 1, 4, 1) and not rules.in_play(s.position).any()
    t = play_end(s, even_scores(3))  # end 1: Player2 throws first (even rows) and scores 3
    assert t.end_score == (0, 3) and t.state.first_seat == 1 and t.state.totals == (0, 5)


def test_end__player1_scoring_leads_next_end() -> None:
    t = play_end(Game.init(), even_scores(1))
    assert t.end_score == (1, 0) and t.state.first_seat == 0


def test_end__blank_end_swaps_by_default() -> None:
    t = play_end(Game.init(), BLANK)
    assert t.end_score == (0, 0) and t.state.first_seat == 1
    assert t.end_state is not None and t.end_state.next_seat == 1


def test_end__blank_end_keeps_with_keep() -> None:
    t = play_end(Game.init(GameConfig(blank_end="keep")), BLANK)
    assert t.end_score == (0, 0) and t.state.first_seat == 0


def test_first_seat_after__rule_table() -> None:
    swap, keep, unlimited = GameConfig(), GameConfig(blank_end="keep"), GameConfig(ends=-1)
    assert first_seat_after(1, (2, 0), swap) == 0
    assert first_seat_after(0, (0, 1), swap) == 1
    assert first_seat_after(0, (0, 0), swap) == 1 and first_seat_after(1, (0, 0), keep) == 1
    assert first_seat_after(0, (0, 3), unlimited) == 0


def test_unlimited__keeps_order_and_never_ends() -> None:
    state = Game.init(GameConfig(ends=-1))
    for end in range(10):
        t = play_end(state, odd_scores(1) if end % 2 else BLANK)
        state = t.state
        assert state.first_seat == 0 and not state.is_terminal and state.end == end + 1
    assert state.totals == (0, 5) and state.setstate_fields() == (0, 10, -1, 0)


# --- game over ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ends", "finals", "totals", "p1"),
    [
        (4, [even_scores(2), BLANK, BLANK, BLANK], (2, 0), "WIN"),
        (4, [odd_scores(1), BLANK, even_scores(1), odd_scores(1)], (1, 2), "LOSE"),
        (8, [even_scores(1), odd_scores(1)] + [BLANK] * 6, (1, 1), "DRAW"),
    ],
)
def test_game_over__after_last_end(
    ends: int, finals: list[np.ndarray], totals: tuple[int, int], p1: str
) -> None:
    state = Game.init(GameConfig(ends=ends))
    for final in finals:
        assert not state.is_terminal
        t = play_end(state, final)
        state = t.state
    assert state.is_terminal and Game.is_terminal(state) and t.state is t.end_state
    assert state.totals == totals and len(state.end_scores) == ends
    assert state.result_for(0) == p1
    assert state.result_for(1) == {"WIN": "LOSE", "LOSE": "WIN", "DRAW": "DRAW"}[p1]
    assert state.setstate_fields()[:3] == (16, ends - 1, ends)
    with pytest.raises(RuleError, match="over"):
        Game.settle(state, state.position)
    with pytest.raises(RuleError, match="over"):
        Game.step(state, (3.0, 0.0, 0.0))


def test_step__on_finished_end_state_raises() -> None:
    t = play_end(Game.init(), BLANK)
    assert t.end_state is not None
    with pytest.raises(RuleError, match="end finished"):
        Game.settle(t.end_state, t.end_state.position)


# --- step: the physics contract ------------------------------------------------------------------


def test_step__calls_physics_simulate_then_settles(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []

    def simulate(position: np.ndarray, slot: int, throw: Any, rng: Any, **kw: Any) -> Any:
        calls.append({"slot": slot, "throw": throw, "rng": rng, **kw})
        out = np.array(position)
        out[slot] = GUARD
        return types.SimpleNamespace(position=out, mid=np.ones(5), trajectory=None)

    fake = types.ModuleType("rllib_curling.physics")
    fake.simulate = simulate  # type: ignore[attr-defined]
    import rllib_curling

    monkeypatch.setitem(sys.modules, "rllib_curling.physics", fake)
    monkeypatch.setattr(rllib_curling, "physics", fake, raising=False)
    rng = np.random.default_rng(0)
    t = Game.step(Game.init(), (2.5, 0.6, 0.0), rng, noise=False, model="ice")
    assert calls == [
        {"slot": 0, "throw": (2.5, 0.6, 0.0), "rng": rng, "noise": False, "model": "ice"}
    ]
    assert t.thrown_rest == GUARD and t.state.shot == 1 and np.array_equal(t.mid, np.ones(5))
    Game.step(t.state, (2.5, 0.6, 0.0))
    assert calls[1]["slot"] == 1 and "model" not in calls[1] and calls[1]["noise"] is True


# --- with real physics --------------------------------------------------------------------------


def test_step__draw_stops_in_play_without_noise() -> None:
    t = Game.step(Game.init(), (3.0, 0.0, 0.0), noise=False)
    assert t.thrown_rest is not None and t.state.shot == 1
    assert rules.distance_to_tee(t.thrown_rest) < 2.0


def test_step__random_game_reaches_terminal_with_consistent_totals() -> None:
    rng = np.random.default_rng(7)
    state = Game.init(GameConfig(ends=4))
    scores = []
    while not state.is_terminal:
        throw = (rng.uniform(2.6, 4.5), rng.uniform(-0.4, 0.4), rng.uniform(-3.0, 3.0))
        t = Game.step(state, throw, rng, noise=True)
        if t.centre_line_violation:
            state = t.resolve("RESET")
        else:
            state = t.state
        if t.end_score is not None:
            scores.append(t.end_score)
            assert t.end_score == t.end_state.end_scores[-1]  # type: ignore[union-attr]
    assert tuple(scores) == state.end_scores and len(scores) == 4
    assert state.totals == tuple(int(sum(s[i] for s in scores)) for i in range(2))
    assert all(min(s) == 0 for s in scores)


def test_settle__states_equal_the_dataclass_built_ones_on_random_positions() -> None:
    """``settle`` builds its states without ``dataclasses.replace``'s copy and checks: they must be
    the same states (equal, same hash, read-only position), for every shot and both rules."""
    rng = np.random.default_rng(51)
    befores, afters = random_layouts(rng, 60), random_layouts(rng, 60)
    for i, (before, after) in enumerate(zip(befores, afters, strict=True)):
        shot = i % 16
        before[shot:] = 0.0
        state = GameState(position=before, shot=shot, end=1, first_seat=i % 2, end_scores=((1, 0),))
        t = Game.settle(state, after)
        want, fgz, centre = rules.resolve_shot_batch_numpy(before, after, shot)
        assert (t.fgz_restored, t.centre_line_violation) == (bool(fgz), bool(centre))
        shown = t.end_state if shot == 15 else t.state
        built = dataclasses.replace(
            state, position=want, shot=shot + 1, end_scores=shown.end_scores
        )
        assert shown == built and hash(shown) == hash(built)
        assert not shown.position.flags.writeable
        assert shown.position.dtype == np.float64 and shown.position.shape == (16, 2)
        with pytest.raises(ValueError):
            shown.position[0, 0] = 1.0


def test_result__draw_scores_half() -> None:
    assert [r.points for r in (Result.WIN, Result.DRAW, Result.LOSE)] == [1.0, 0.5, 0.0]


def test_result__is_the_gameover_word() -> None:
    assert Result("DRAW") is Result.DRAW and Result.WIN == "WIN"
    assert f"{Result.LOSE}" == str(Result.LOSE) == "LOSE"
    assert json.dumps([Result.WIN]) == '["WIN"]'
    with pytest.raises(ValueError):
        Result("TIE")


@pytest.mark.parametrize(
    ("mine", "theirs", "result"),
    [(3, 1, Result.WIN), (2, 2, Result.DRAW), (0, 0, Result.DRAW), (1, 4, Result.LOSE)],
)
def test_result_of__from_totals(mine: int, theirs: int, result: Result) -> None:
    assert result_of(mine, theirs) is result


@pytest.mark.parametrize(
    ("team", "winner", "result"),
    [
        (0, 0, Result.WIN),
        (1, 1, Result.WIN),
        (0, 1, Result.LOSE),
        (1, 0, Result.LOSE),
        (0, None, Result.DRAW),
        (1, None, Result.DRAW),
    ],  # fmt: skip
)
def test_result_for__a_team_from_the_winner(team: int, winner: int | None, result: Result) -> None:
    assert result_for(team, winner) is result


def test_score_rate__draws_count_half() -> None:
    assert score_rate(wins=3, draws=2, games=8) == pytest.approx(0.5)


def test_score_rate__no_games_is_nan() -> None:
    assert math.isnan(score_rate(0, 0, 0))


def test_result_for__returns_a_result() -> None:
    state = Game.init(GameConfig(ends=4))
    assert state.result_for(0) is Result.DRAW


@pytest.mark.parametrize("ends", [1, 4, 8, -1])
def test_check_ends__positive_or_unlimited(ends: int) -> None:
    assert check_ends(ends) == ends


@pytest.mark.parametrize("ends", [0, -2, True, 4.0, "4"])
def test_check_ends__refuses_the_rest(ends: object) -> None:
    with pytest.raises(ConfigError, match="ends must be a positive int or -1"):
        check_ends(ends)

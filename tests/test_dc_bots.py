"""Tests of rllib_curling.dc_bots: the DC levels choose legal fcv1 shots, do what their level
says in simple positions, and play whole DC games on the fcv1 ice."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rllib_curling import dc_rules, dc_sheet
from rllib_curling.dc_aiming import dc_shot_tables
from rllib_curling.dc_bots.base import DUMB_SHOT, DCStones, signed_score
from rllib_curling.dc_bots.candidates import candidates, judge, outcomes, win_judge
from rllib_curling.dc_bots.levels import DC_LEVELS, check_dc_level, make_dc_bot
from rllib_curling.dc_bots.matches import play_dc_game, play_dc_match
from rllib_curling.dc_bots.search import REPLY_SPEC, SearchDCBot
from rllib_curling.dc_game import DCGame, DCGameConfig, DCGameState
from rllib_curling.dc_ice import Fcv1Simulator
from rllib_curling.errors import ConfigError
from rllib_curling.physics.fcv1 import check_throws

TEE = dc_sheet.TEE


def _state(shot: int, position: np.ndarray | None = None, first_team: int = 0) -> DCGameState:
    state = DCGame.init(DCGameConfig(standard_end_count=1))
    pos = np.zeros((16, 2)) if position is None else position
    return dataclasses.replace(state, shot=shot, first_team=first_team, position=pos)


def _after(state: DCGameState, shot: object) -> np.ndarray:
    """Where the stones lie after ``shot`` from ``state``, noise off, DC's rules applied."""
    return DCGame.step(state, shot, Fcv1Simulator(None)).state.position


@pytest.mark.parametrize("level", DC_LEVELS)
def test_make_dc_bot__each_level_chooses_a_valid_fcv1_shot(level: int) -> None:
    position = np.zeros((16, 2))
    position[0], position[1] = (0.3, 38.0), (-0.5, 34.8)
    bot = make_dc_bot(level)

    shot = bot.choose(_state(2, position), np.random.default_rng(1))

    assert bot.level == level
    check_throws(shot)  # finite, rotation ±1, below fcv1's top speed
    assert np.hypot(shot[0], shot[1]) <= dc_sheet.MAX_SPEED
    assert shot == bot.choose(_state(2, position), np.random.default_rng(1))  # pure


@pytest.mark.parametrize("bad", [9, -1, "3", True, 2.0])
def test_make_dc_bot__refuses_an_unknown_level(bad: object) -> None:
    with pytest.raises(ConfigError, match="DC bot level"):
        check_dc_level(bad)


def test_check_dc_level__accepts_levels_0_to_8() -> None:
    assert DC_LEVELS == tuple(range(9))
    assert [check_dc_level(k) for k in range(9)] == list(range(9))
    assert check_dc_level(np.int64(8)) == 8


@pytest.mark.parametrize("level", [7, 8])
def test_make_dc_bot__levels_7_and_8_search_with_replies(level: int) -> None:
    bot = make_dc_bot(level)

    assert isinstance(bot, SearchDCBot) and bot.level == level
    assert bot.spec.reply > 0
    assert bot.spec.win_prob == (level == 8)


def test_dumb_shot__is_removed_short_of_the_hog_line() -> None:
    assert not dc_rules.in_play(_after(_state(0), DUMB_SHOT)).any()


@pytest.mark.parametrize("level", [2, 3])
def test_draw_levels__draw_to_the_button_on_an_empty_sheet(level: int) -> None:
    state = _state(0)

    position = _after(state, make_dc_bot(level).choose(state, np.random.default_rng(0)))

    assert dc_rules.distance_to_tee(position[0]) < 0.05


@pytest.mark.parametrize("level", [3, 4, 5, 6, 7, 8])
def test_levels_3_up__remove_the_opponents_lone_shot_stone(level: int) -> None:
    position = np.zeros((16, 2))
    position[0] = (0.2, 38.2)  # team 0's stone, team 1 (odd rows) to throw shot 9
    state = _state(9, position)

    after = _after(state, make_dc_bot(level).choose(state, np.random.default_rng(0)))

    assert signed_score(after, 1) >= 0  # team 0 no longer lies shot


def test_level_4__guards_the_centre_without_the_hammer() -> None:
    state = _state(0)  # team 0 throws first: team 1 has the hammer

    after = _after(state, make_dc_bot(4).choose(state, np.random.default_rng(0)))

    assert dc_rules.in_guard_zone(after[0])
    assert abs(after[0, 0]) < 0.2


def test_level_4__guards_its_shot_stone() -> None:
    position = np.zeros((16, 2))
    position[1] = (0.1, 38.3)  # team 1 lies shot, unguarded; team 1 throws shot 7
    state = _state(7, position)

    after = _after(state, make_dc_bot(4).choose(state, np.random.default_rng(0)))

    stones = DCStones(after, 1)
    assert len(stones.mine) == 2
    guard = after[7]
    assert guard[1] < 37.0 and abs(guard[0] - 0.1) < 0.25


@pytest.mark.parametrize("level", [4, 5, 8])
def test_last_stone__the_hammer_scores_when_it_can(level: int) -> None:
    position = np.zeros((16, 2))
    position[0] = (1.2, 39.6)  # team 0's stone at the back of the house
    state = _state(15, position)

    after = _after(state, make_dc_bot(level).choose(state, np.random.default_rng(0)))

    assert signed_score(after, 1) >= 1


def test_level_8__tied_in_the_last_end_takes_out_the_stone_on_the_button_and_sticks() -> None:
    """Tied, the last end's last stone, the opponent's lone stone on the button: only a hit that
    stays in the house wins (a draw cannot beat it; a blank goes to an extra end)."""
    position = np.zeros((16, 2))
    position[0] = TEE
    state = _state(15, position)  # a 1-end game, 0-0, team 1 has the hammer
    bot = make_dc_bot(8)

    shot = bot.choose(state, np.random.default_rng(3))
    after = _after(state, shot)

    assert not dc_rules.in_play(after[0]) or dc_rules.distance_to_tee(after[0]) > 0.3
    assert signed_score(after, 1) >= 1  # team 1 scores: the game is won
    assert shot == bot.choose(state, np.random.default_rng(3))  # reproducible with a seed


def test_level_8__values_the_chance_to_win_on_the_ends_last_two_stones_only() -> None:
    position = np.zeros((16, 2))
    position[1] = TEE  # team 1 lies one
    bot = make_dc_bot(8)
    assert isinstance(bot, SearchDCBot)

    for shot, expected in ((3, judge), (13, judge), (14, win_judge), (15, win_judge)):
        state, lie = _state(shot, position), position[None]
        np.testing.assert_allclose(bot.value(state, lie), expected(state, lie))
    assert not np.allclose(judge(_state(14, position), position[None]),
                           win_judge(_state(14, position), position[None]))  # fmt: skip


def _worst_reply(state: DCGameState, shot: object) -> float:
    """The thrower's end value after ``shot`` (noise off) and the opponent's best answer."""
    after = _after(state, shot)
    theirs = dataclasses.replace(state, position=after, shot=state.shot + 1)
    answers = candidates(dc_shot_tables(), after, REPLY_SPEC)
    return float(judge(state, outcomes(theirs, answers)).min())


def test_level_7__its_shot_stands_up_to_the_best_reply_better_than_level_6s() -> None:
    """Shot 13 (team 1), team 0 lies shot at the top of the house with a stone short of it:
    level 7 keeps the candidate whose worst case after team 0's answer is best."""
    position = np.zeros((16, 2))
    position[0] = (0.3, 37.7)
    position[2] = (-0.5, 38.9)
    position[1] = (0.9, 38.6)
    state = _state(13, position)
    six = make_dc_bot(6).choose(state, np.random.default_rng(4))
    seven = make_dc_bot(7).choose(state, np.random.default_rng(4))

    assert _worst_reply(state, seven) >= _worst_reply(state, six)


def test_search__noisy_replies_rethrow_the_best_answers_under_noise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With ``reply_top`` and ``reply_samples``, each of the ``reply`` candidates' best answers
    (noise off) is thrown again ``reply_samples`` times with noise; no level does this."""
    from rllib_curling.dc_bots import search

    assert all(search.DC_SEARCH_SPECS[level].reply_top == 0 for level in (5, 6, 7, 8))
    position = np.zeros((16, 2))
    position[0] = (0.3, 37.7)
    position[1] = (0.9, 38.6)
    state = _state(12, position)
    spec = dataclasses.replace(search.DC_SEARCH_SPECS[8], reply=3, reply_top=2, reply_samples=4)
    calls: list[tuple[int, int, bool]] = []

    def spied(state: DCGameState, shots: np.ndarray, rng: object = None) -> np.ndarray:
        calls.append((state.shot, len(shots), rng is not None))
        return outcomes(state, shots, rng)

    monkeypatch.setattr(search, "outcomes", spied)
    shot = SearchDCBot(8, spec).choose(state, np.random.default_rng(5))
    replies = [(n, noisy) for shot_no, n, noisy in calls if shot_no == 13]
    assert [noisy for _, noisy in replies] == [False, True] * 3  # each answer set, then its best
    assert all(n == 2 * 4 for n, noisy in replies if noisy)
    calls.clear()
    assert SearchDCBot(8, spec).choose(state, np.random.default_rng(5)) == shot  # seeded


def test_play_dc_game__plays_to_the_end_and_is_seeded() -> None:
    bots = (make_dc_bot(2), make_dc_bot(3))
    config = DCGameConfig(standard_end_count=2)

    one = play_dc_game(bots, config, np.random.default_rng(5))
    two = play_dc_game(bots, config, np.random.default_rng(5))

    assert one == two
    assert len(one.end_scores) >= 2
    assert one.shots == 16 * len(one.end_scores)
    assert one.players == (bots[0].name, bots[1].name)
    assert (one.winner is None) == (one.totals[0] == one.totals[1])


def test_play_dc_match__the_stronger_level_wins_and_teams_alternate() -> None:
    match = play_dc_match(make_dc_bot(0), make_dc_bot(2), 2, DCGameConfig(standard_end_count=1))

    assert match.a_teams == (0, 1)
    assert match.wins == (0, 2, 0)
    assert match.a_score == 0.0
    assert match.points[1] > 0 == match.points[0]


def test_shot_layout__candidates_are_its_legal_shots_in_order() -> None:
    from rllib_curling.dc_aiming import dc_shot_tables
    from rllib_curling.dc_bots.candidates import candidates, shot_layout
    from rllib_curling.dc_bots.search import DC_SEARCH_SPECS

    tables, spec = dc_shot_tables(), DC_SEARCH_SPECS[6]
    position = np.zeros((16, 2))
    position[[0, 3, 6]] = [(0.2, 38.0), (-0.9, 35.0), (0.5, 39.1)]
    layout = shot_layout(spec)
    legal = layout.legal(position)
    rows = layout.hits[:, 3].astype(int)
    assert legal[layout.n_draws : -1].tolist() == np.isin(rows, [0, 3, 6]).tolist()
    shots = candidates(tables, position, spec)
    np.testing.assert_array_equal(shots, layout.throws(tables, position)[legal])
    on_row_3 = layout.n_draws + int(np.flatnonzero(rows == 3)[0])
    np.testing.assert_array_equal(layout.throw(on_row_3, tables, position),
                                  layout.throws(tables, position)[on_row_3])  # fmt: skip
    # each stone in play gets offsets x weights x rotations hits, plus draws and the throw-away
    per_stone = len(spec.hit_offsets) * len(spec.hit_speeds) * 2
    assert len(shots) == layout.n_draws + 3 * per_stone + 1
    np.testing.assert_array_equal(shots[-1], DUMB_SHOT)
    absent = layout.n_draws + int(np.flatnonzero(rows == 1)[0])
    np.testing.assert_array_equal(layout.throw(absent, tables, position), DUMB_SHOT)

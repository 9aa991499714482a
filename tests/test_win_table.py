"""The win table (rllib_curling.win_table): exact at the end, monotone, and counted right."""

from __future__ import annotations

import numpy as np
import pytest

from rllib_curling import win_table
from rllib_curling.game import GameConfig


@pytest.fixture(scope="module")
def table() -> win_table.WinTable:
    return win_table.load()


def test_win__a_finished_game_is_its_result(table: win_table.WinTable) -> None:
    assert table.win(1, 0, 0) == 1.0 and table.win(-1, 0, 1) == 0.0
    assert table.win(0, 0, 0) == 0.5


def test_win__ahead_and_the_hammer_help(table: win_table.WinTable) -> None:
    for ends in (1, 2, 4):
        for hammer in (0, 1):
            values = table.win(np.arange(-5, 6), ends, hammer)
            assert (np.diff(values) >= 0).all()
        assert table.win(0, ends, 1) > table.win(0, ends, 0)


def test_win__tied_is_fair_between_the_two_sides(table: win_table.WinTable) -> None:
    for ends in (1, 3, 8):
        assert table.win(0, ends, 1) + table.win(0, ends, 0) == pytest.approx(1.0)
        assert table.win(2, ends, 0) + table.win(-2, ends, 1) == pytest.approx(1.0)


def test_last_end__one_down_with_the_hammer() -> None:
    """Down 1 with the hammer in the last end: 2+ wins, 1 ties (½), a blank passes the
    hammer (game over anyway: a loss), a steal loses."""
    p = np.zeros(win_table.N_SCORES)
    p[win_table.SCORE_MAX + 2] = 0.3
    p[win_table.SCORE_MAX + 1] = 0.5
    p[win_table.SCORE_MAX - 1] = 0.2
    table = win_table.WinTable(p)
    assert table.win(-1, 1, 1) == pytest.approx(0.3 + 0.5 * 0.5)


def test_after_end__the_scorer_loses_the_hammer() -> None:
    p = np.zeros(win_table.N_SCORES)
    p[win_table.SCORE_MAX + 1] = 1.0  # the hammer always scores one
    table = win_table.WinTable(p)
    # We score 1 without the hammer (a steal): 1 ahead, they have the hammer, one end left: tie.
    assert table.after_end(0, 1, 1, hammer=False) == pytest.approx(0.5)
    # A blank end passes the hammer: we had it, now they do and score one.
    assert table.after_end(0, 0, 1, hammer=True) == pytest.approx(0.0)


def test_hammer_scores__follow_the_hammer_through_the_ends() -> None:
    # End 1: Player2 has the hammer and scores 2; Player1 then has it and scores 1;
    # then Player2 has it and blanks: the hammer passes to Player1.
    ends = [(0, 2), (1, 0), (0, 0), (0, 3)]
    assert win_table.hammer_scores(ends, GameConfig(ends=4)) == [2, 1, 0, -3]


def test_from_counts__probabilities_with_a_prior() -> None:
    counts = win_table.count_end_scores([1, 1, 2, -9])
    assert counts[win_table.SCORE_MAX + 1] == 2 and counts[0] == 1  # -9 clamps to -8
    table = win_table.from_counts(counts)
    assert table.end_scores.sum() == pytest.approx(1.0) and (table.end_scores > 0).all()


def test_win_table__bad_probabilities_are_refused() -> None:
    with pytest.raises(ValueError, match="probabilities"):
        win_table.WinTable(np.ones(win_table.N_SCORES))


def _hammer_scores_one_half_blanks_the_rest() -> np.ndarray:
    p = np.zeros(win_table.N_SCORES)
    p[win_table.SCORE_MAX] = 0.5  # blank
    p[win_table.SCORE_MAX + 1] = 0.3  # the hammer scores one
    p[win_table.SCORE_MAX - 1] = 0.2  # a steal
    return p


def test_win__extra_ends_decide_a_tie_by_the_first_end_that_is_not_blank() -> None:
    p = _hammer_scores_one_half_blanks_the_rest()
    keep = win_table.WinTable(p, blank_end="keep", extra_ends=True)
    swap = win_table.WinTable(p, blank_end="swap", extra_ends=True)

    assert keep.win(0, 0, 1) == pytest.approx(0.3 / 0.5)  # blanks keep the hammer: 3 to 2
    assert keep.win(0, 0, 0) == pytest.approx(0.2 / 0.5)
    assert swap.win(0, 0, 1) == pytest.approx((0.3 + 0.5 * 0.2) / 0.75)
    assert swap.win(0, 0, 1) + swap.win(0, 0, 0) == pytest.approx(1.0)
    assert win_table.WinTable(p).win(0, 0, 1) == 0.5  # no extra ends: a draw


def test_after_end__a_blank_keeps_the_hammer_under_keep() -> None:
    p = _hammer_scores_one_half_blanks_the_rest()
    keep = win_table.WinTable(p, blank_end="keep")
    swap = win_table.WinTable(p)

    # Tied, we blank the next-to-last end with the hammer: we keep it (keep) or lose it (swap).
    assert keep.after_end(0, 0, 1, hammer=True) == pytest.approx(keep.win(0, 1, 1))
    assert swap.after_end(0, 0, 1, hammer=True) == pytest.approx(swap.win(0, 1, 0))
    assert keep.win(0, 1, 1) > keep.win(0, 1, 0)


def test_win_table__an_unknown_blank_end_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="blank_end"):
        win_table.WinTable(_hammer_scores_one_half_blanks_the_rest(), blank_end="pass")  # type: ignore[arg-type]

"""DC's win table (rllib_curling.dc_win_table): DC's hammer rules and the committed table."""

from __future__ import annotations

import numpy as np
import pytest

from rllib_curling import dc_sheet, dc_win_table, sheet, win_odds


def test_hammer_scores__a_blank_end_keeps_the_hammer_in_dc() -> None:
    # Team 1 has the hammer in end 0 and scores 2; team 0 then has it and blanks, so keeps it
    # and scores 1; team 1 has it in the last end and is stolen from by team 0.
    ends = [(0, 2), (0, 0), (1, 0), (1, 0)]

    assert dc_win_table.hammer_scores(ends) == [2, 0, 1, -1]
    assert dc_win_table.hammer_scores([(0, 0), (0, 1)], first_team=1) == [0, -1]


def test_load__the_committed_table_plays_dc_rules() -> None:
    table = dc_win_table.load()

    assert table.blank_end == "keep" and table.extra_ends
    assert table.end_scores.shape == (win_odds.N_SCORES,)
    assert 0.5 < table.win(0, 0, 1) < 1.0  # tied after the standard ends: the hammer's extra end
    assert table.win(0, 8, 1) > table.win(0, 8, 0)
    assert table.win(0, 8, 1) + table.win(0, 8, 0) == pytest.approx(1.0)
    assert (np.diff(table.win(np.arange(-4, 5), 3, 0)) >= 0).all()
    assert dc_win_table.load() is table  # read once


def test_score_max__a_team_throws_as_many_stones_on_both_sheets() -> None:
    assert win_odds.SCORE_MAX == sheet.STONES_PER_TEAM == dc_sheet.STONES_PER_TEAM

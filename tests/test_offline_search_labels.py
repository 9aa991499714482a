"""A search's judgement as data over the shot set (rllib_curling.offline.search_labels)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rllib_curling.aiming import shots
from rllib_curling.aiming.tables import shot_tables
from rllib_curling.bots.search import SPECS, SearchBot
from rllib_curling.errors import ConfigError
from rllib_curling.game import Game, GameConfig
from rllib_curling.offline.dataset import DatasetConfig, labelling_spec, shard_rows
from rllib_curling.offline.search_labels import JudgingBot


@pytest.fixture(scope="module")
def self_play_rows() -> list[dict]:
    config = DatasetConfig(teacher=8, opponents=("self",), games=1, games_per_shard=1,
                           action="shots", ends=2)  # fmt: skip
    rows, summary = shard_rows(config, 0)
    assert summary["rows"] == len(rows) == 32  # 2 ends x 16 stones, both seats labelled
    return rows


def _state_after(throws: int) -> object:
    state = Game.init(GameConfig(ends=2))
    rng = np.random.default_rng(3)
    for _ in range(throws):
        state = Game.step(state, (3.1, 0.0, 1.57, 0.0), rng).state
    return state


def test_shot_search__candidates_are_the_legal_shots_in_order() -> None:
    state = _state_after(3)
    bot = SearchBot(8, dataclasses.replace(SPECS[8], shots=True))
    found = bot.candidates(state, shot_tables())  # type: ignore[arg-type]
    every = shots.shot_throws(state.position, shot_tables())  # type: ignore[attr-defined]
    assert (found == every[shots.legal_shots(state.position)]).all()  # type: ignore[attr-defined]


def test_judge__its_order_is_ranks_and_it_keeps_the_values() -> None:
    state = _state_after(4)
    bot = SearchBot(8, dataclasses.replace(SPECS[8], shots=True))
    judged = bot.judge(state, np.random.default_rng(1))  # type: ignore[arg-type]
    throws, order = bot.rank(state, np.random.default_rng(1))  # type: ignore[arg-type]
    assert (judged.order == order).all() and (judged.throws == throws).all()
    assert len(judged.top) == SPECS[8].top_k and len(judged.replied) == SPECS[8].reply
    assert set(judged.order[: SPECS[8].reply]) <= set(judged.top)
    assert (np.diff(judged.replied) <= 0).all()  # best first
    assert (judged.top_se >= 0).all()


def test_rows__the_played_action_is_legal_and_is_the_throw(self_play_rows: list[dict]) -> None:
    tables = shot_tables()
    for row in self_play_rows:
        mask = row["obs"]["action_mask"]
        assert mask[row["actions"]] == 1.0
        screen = row["screen"]
        assert np.isfinite(screen[mask > 0]).all() and np.isnan(screen[mask == 0]).all()
        assert row["actions"] in row["judged"]
        replied = row["replied"][row["replied"] >= 0]
        if len(replied):
            assert replied[0] == row["actions"]
        assert row["shot"] < 16 and row["obs"]["observations"].shape == (168,)
    # the throw is the action's throw for the row's position: checked on the first row
    first = self_play_rows[0]
    throw = shots.shot_throw(int(first["actions"]), np.zeros((16, 2)), tables)
    assert np.allclose(first["throw"], throw, atol=1e-5)


def test_rows__value_targets_bootstrap_within_an_end(self_play_rows: list[dict]) -> None:
    for seat in (0, 1):
        rows = [r for r in self_play_rows if r["eps_id"].endswith(f"-{seat}")]
        assert len(rows) == 16 and rows[-1]["terminateds"] and not rows[0]["terminateds"]
        for now, nxt in zip(rows[:-1], rows[1:], strict=True):
            if now["end"] == nxt["end"]:
                assert now["value_target"] == pytest.approx(min(max(nxt["search_value"], 0), 1))
        # the game's last turn: the result
        assert rows[-1]["value_target"] == pytest.approx(rows[-1]["result"])
        assert {r["hammer"] for r in rows if r["end"] == 0} == {seat == 1}


def test_judging_bot__throws_the_best_candidate() -> None:
    state = _state_after(2)
    bot = JudgingBot(SearchBot(6, dataclasses.replace(SPECS[6], shots=True)))
    throw = bot.choose(state, np.random.default_rng(0))  # type: ignore[arg-type]
    assert bot.last is not None
    assert np.allclose(throw, bot.last.throws[bot.last.order[0]])


def test_dataset_config__shot_teachers_are_search_levels_and_labels_need_shots() -> None:
    assert DatasetConfig(opponents=("self",)).opponents == ("self",)  # discrete self-play too
    with pytest.raises(ConfigError, match="search level"):
        DatasetConfig(teacher=4, action="shots")
    with pytest.raises(ConfigError, match="action must be one of"):
        DatasetConfig(action="templates")
    with pytest.raises(ConfigError, match="labels must be one of"):
        DatasetConfig(action="shots", labels="deep")
    with pytest.raises(ConfigError, match="needs action='shots'"):
        DatasetConfig(labels="screen")


def test_screen_labels__the_row_plays_the_screens_best_and_judges_nothing_more() -> None:
    config = DatasetConfig(teacher=8, opponents=(6,), games=1, games_per_shard=1,
                           action="shots", ends=1, labels="screen")  # fmt: skip
    rows, summary = shard_rows(config, 0)
    assert summary["rows"] == len(rows) == 8  # one end, the teacher's 8 stones
    for row in rows:
        screen = row["screen"]
        assert row["actions"] == int(np.nanargmax(screen))
        assert row["search_value"] == pytest.approx(float(np.nanmax(screen)))
        assert len(row["judged"]) == len(row["judged_mean"]) == len(row["replied"]) == 0


def test_labelling_spec__screen_cuts_every_step_after_the_screen() -> None:
    spec = labelling_spec(SPECS[8], "screen")
    assert spec.shots and spec.top_k == spec.samples == spec.reply == 0
    assert labelling_spec(SPECS[8], "search") == dataclasses.replace(SPECS[8], shots=True)

"""tune_results: a Tune trial's ``result.json`` rows, their metrics, and which iterations
evaluated (rows as RLlib 2.60's PPO writes them with ``evaluation_interval``)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from rllib_curling.tune_results import evaluation, read_rows, value


def _row(iteration: int, interval: int | None, win_rate: float | None) -> dict:
    row: dict = {"training_iteration": iteration, "config": {"evaluation_interval": interval}}
    if win_rate is not None:
        row["evaluation"] = {"env_runners": {"win_rate": win_rate, "num_episodes": 16}}
    return row


def test_read_rows__skips_a_line_being_written_and_reads_a_missing_file_as_none(
    tmp_path: Path,
) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"training_iteration": 1}) + '\n{"training_iter')
    assert read_rows(path) == [{"training_iteration": 1}]
    assert read_rows(tmp_path / "missing.json") == []


def test_value__nested_keys_and_nan_where_missing() -> None:
    row = {"env_runners": {"win_rate": 0.5, "opponents": {"L6": {"score_rate": 1}}}}
    assert value(row, "env_runners/win_rate") == 0.5
    assert value(row, "env_runners/opponents/L6/score_rate") == 1.0
    assert math.isnan(value(row, "env_runners/episode_return_mean"))
    assert math.isnan(value({"env_runners": "text"}, "env_runners/win_rate"))


def test_evaluation__counts_the_games_only_at_the_iteration_that_played_them() -> None:
    # RLlib evaluates at 5 and repeats those games' metrics in 6's row
    assert evaluation(_row(5, 5, 0.75)) == 0.75
    assert math.isnan(evaluation(_row(6, 5, 0.75)))
    assert math.isnan(evaluation(_row(10, 5, None)))  # no games in the row
    assert math.isnan(evaluation(_row(5, None, 0.75)))  # a run that does not evaluate
    assert math.isnan(evaluation(_row(4, 0, 0.75)))

"""``curling plot`` on a run directory's ``result.json`` (rows as Tune writes them)."""

from __future__ import annotations

import json
from pathlib import Path

from rllib_curling.cli.commands.plot import evaluation_points, opponents_of, read_trials, title_of
from rllib_curling.cli.curling import main as curling_main


def _row(i: int, level: int, rates: dict[str, float]) -> dict:
    return {
        "training_iteration": i,
        "time_total_s": 60.0 * i,
        "num_env_steps_sampled_lifetime": 1000 * i,
        "env_runners": {
            "win_rate": 0.5,
            "episode_return_mean": 0.1 * i,
            "opponents": {k: {"score_rate": v, "games": 10 * i} for k, v in rates.items()},
        },
        "curling": {"opponent": level},
        "config": {"env": "curling", "env_config": {"curriculum": {"levels": [2, 3, 10]}}},
    }


def test_plot__curriculum_run_has_one_curve_per_opponent(tmp_path: Path) -> None:
    trial = tmp_path / "run" / "CurlingPPO_curling_00000_0_2026-11-23_01-00-00"
    trial.mkdir(parents=True)
    rows = [_row(1, 2, {"L2": 0.6}), _row(2, 3, {"L2": 0.9, "L3": 0.2}),
            _row(3, 10, {"L10": 0.1, "L3": 0.8})]  # fmt: skip
    (trial / "result.json").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    trials = read_trials(tmp_path / "run")
    assert opponents_of(trials[trial.name]) == ["L2", "L3", "L10"]
    assert "vs curriculum [2, 3, 10]" in title_of(tmp_path / "run", trials)
    out = tmp_path / "curve.png"
    assert curling_main(["plot", str(tmp_path / "run"), "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot__an_evaluated_run_draws_its_evaluation_games(tmp_path: Path) -> None:
    rows = [_row(i, 6, {"L6": 0.5}) for i in range(1, 7)]
    for i, row in enumerate(rows, start=1):  # RLlib's evaluation_interval: 2
        row["config"]["evaluation_interval"] = 2
        if i > 1:  # played at 2 and 4, repeated in the rows of 3 and 5
            row["evaluation"] = {"env_runners": {"win_rate": 0.125 * (i - (i % 2))}}
    assert evaluation_points(rows, "time_total_s", 1 / 60) == [(2.0, 0.25), (4.0, 0.5), (6.0, 0.75)]
    assert evaluation_points(rows[:1], "time_total_s") == []  # iteration 1 did not evaluate
    trial = tmp_path / "run" / "CurlingPPO_curling_00000_0_2026-12-08_01-00-00"
    trial.mkdir(parents=True)
    (trial / "result.json").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "curve.png"
    assert curling_main(["plot", str(tmp_path / "run"), "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

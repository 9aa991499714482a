"""The `rllib` command on the real curling env with private servers: `rllib train` (flags and
YAML), a Tune sweep, `rllib evaluate`, `curling plot` and `curling play`, with `--watch`. The
algorithms themselves: test_rllib.py. Slow (Ray start-up, real games), still in CI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from rllib_helpers import announced_server
from server_helpers import CTRL_C_CHILD, stop_and_reap

from rllib_curling.cli import rllib as rllib_cli

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

ENV = {"opponent": 1, "ends": 1}


SMALL_CONFIG = json.dumps(
    {
        "num_env_runners": 0,
        "num_envs_per_env_runner": 1,
        "train_batch_size_per_learner": 64,
        "minibatch_size": 32,
        "num_epochs": 1,
        "env_config": ENV,
    }
)
STOP_1 = '{"training_iteration": 1}'


@pytest.fixture(scope="module")
def cli_checkpoint(ray_session: None, tmp_path_factory: pytest.TempPathFactory) -> str:
    storage = tmp_path_factory.mktemp("rllib_train")
    args = ["train", "--run", "PPO", "--env", "curling", "--stop", STOP_1]
    args += ["--config", SMALL_CONFIG, "--storage-path", str(storage), "-n", "cli"]
    assert rllib_cli.main(args) == 0
    checkpoints = list((storage / "cli").glob("*/checkpoint_*"))
    assert checkpoints, "rllib train wrote no checkpoint"
    return str(storage / "cli")


def test_rllib_train__flags_write_a_checkpoint(cli_checkpoint: str) -> None:
    from rllib_curling.agent.policy import load_policy
    from rllib_curling.observation import OBS_SIZE

    policy = load_policy(cli_checkpoint)  # the experiment folder names its newest checkpoint
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    assert policy.action_space.contains(np.asarray(policy(obs), dtype=np.float32))


def test_rllib_train__yaml_file_with_stop_override(
    ray_session: None, tmp_path: Path, no_leftover_servers: None
) -> None:
    root = Path(__file__).resolve().parents[1]
    args = ["train", "-f", str(root / "tune_configs" / "ppo.yaml"), "--stop", STOP_1]
    args += ["--config", SMALL_CONFIG, "--storage-path", str(tmp_path)]
    assert rllib_cli.main(args) == 0
    assert list(tmp_path.glob("curling-ppo/*/checkpoint_*"))
    # The 2.x form, `rllib train file FILE`, reads the same experiment: test_cli_train.py.


def test_rllib_train__an_evaluated_run_names_its_best_evaluated_checkpoint(
    ray_session: None, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    no_leftover_servers: None,
) -> None:  # fmt: skip
    from rllib_curling.rl.checkpoints import find_checkpoint
    from rllib_curling.tune_results import evaluation, read_rows

    # RLlib's evaluation (the network without sampling, as ppo_shots.yaml sets it) and a
    # checkpoint every iteration
    config = {**json.loads(SMALL_CONFIG), "evaluation_interval": 1, "evaluation_duration": 2,
              "evaluation_duration_unit": "episodes", "evaluation_num_env_runners": 0,
              "evaluation_config": {"explore": False}}  # fmt: skip
    args = ["train", "--run", "PPO", "--env", "curling", "--stop", '{"training_iteration": 3}',
            "--config", json.dumps(config), "--storage-path", str(tmp_path), "-n", "evaluated",
            "--checkpoint-freq", "1"]  # fmt: skip
    assert rllib_cli.main(args) == 0
    (trial,) = [d for d in (tmp_path / "evaluated").iterdir() if (d / "result.json").is_file()]
    scores = [evaluation(row) for row in read_rows(trial / "result.json")]
    assert len(scores) == 3 and all(0.0 <= score <= 1.0 for score in scores)  # 2 games each
    best = max(range(3), key=lambda i: (scores[i], i))  # the newer on a tie
    assert find_checkpoint(tmp_path / "evaluated") == trial / f"checkpoint_{best:06d}"
    assert f"best checkpoint: {trial / f'checkpoint_{best:06d}'}" in capsys.readouterr().out


def test_tune_sweep__two_trials_one_iteration_each(
    ray_session: None, tmp_path: Path, no_leftover_servers: None
) -> None:
    from rllib_curling.rl.experiments import ExperimentSpec
    from rllib_curling.rl.tuning import run_experiment

    config = json.loads(SMALL_CONFIG)
    config["lr"] = {"grid_search": [1.0e-4, 5.0e-4]}
    spec = ExperimentSpec(
        name="sweep", run="PPO", env="curling", stop={"training_iteration": 1}, config=config,
        storage_path=str(tmp_path),
    )  # fmt: skip
    best = run_experiment(spec)
    assert best is not None
    trials = [p for p in (tmp_path / "sweep").iterdir() if p.is_dir()]
    assert len(trials) == 2


def test_rllib_evaluate__one_line_per_game_and_a_row_per_opponent(
    cli_checkpoint: str, capsys: pytest.CaptureFixture[str], no_leftover_servers: None
) -> None:
    args = ["evaluate", cli_checkpoint, "--episodes", "2", "--opponent", "0,1", "--ends", "1"]
    assert rllib_cli.main(args) == 0
    out = capsys.readouterr().out
    assert len(re.findall(r"^level [01] game \d: (WIN|LOSE|DRAW)", out, re.M)) == 4
    rows = re.findall(r"^level ([01]) +2 +(\d+) +(\d+) +(\d+) +([\d.]+) %", out, re.M)
    assert [r[0] for r in rows] == ["0", "1"]
    for _, w, d, l, rate in rows:
        assert int(w) + int(d) + int(l) == 2
        assert float(rate) == pytest.approx(100 * (int(w) + 0.5 * int(d)) / 2)


def test_rllib_evaluate__json_and_relative_paths(
    cli_checkpoint: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    no_leftover_servers: None,
) -> None:
    run_dir = Path(cli_checkpoint)
    monkeypatch.chdir(run_dir.parent)  # a relative experiment directory, as the README writes it
    args = ["evaluate", run_dir.name, "--episodes", "1", "--opponent", "0", "--ends", "1", "--json"]
    assert rllib_cli.main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["checkpoint"].startswith(str(run_dir)) and "checkpoint_" in data["checkpoint"]
    (row,) = data["opponents"]
    assert row["opponent"] == 0 and row["games"] == 1 and 0.0 <= row["win_rate"] <= 1.0


def test_curling_plot__learning_curves_of_a_run(cli_checkpoint: str, tmp_path: Path) -> None:
    from rllib_curling.cli.curling import main as curling_main

    out = tmp_path / "curve.png"
    assert curling_main(["plot", cli_checkpoint, "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_rllib_train__more_cpus_than_the_cluster_has_is_refused(
    ray_session: None, capsys: pytest.CaptureFixture[str]
) -> None:
    config = json.loads(SMALL_CONFIG) | {"num_env_runners": 3}
    args = ["train", "--run", "PPO", "--env", "curling", "--config", json.dumps(config)]
    assert rllib_cli.main(args) == 2
    err = capsys.readouterr().err
    assert "needs 4 CPUs" in err and "has 2" in err


def test_curling_play__whole_game_on_a_test_server(
    cli_checkpoint: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    no_leftover_servers: None,
) -> None:
    from rllib_curling.cli.curling import main as curling_main

    with announced_server(games=1, ends=2) as (host, port):
        monkeypatch.chdir(cli_checkpoint)  # a trial directory, relative: its newest checkpoint
        trial = next(p.name for p in Path(cli_checkpoint).iterdir() if p.name.startswith("PPO_"))
        args = ["play", "--checkpoint", trial, "-H", host, "-p", port, "-k", "localtest:2"]
        assert curling_main(args) == 0
        out = capsys.readouterr().out
        assert re.search(r"^game 1: (WIN|LOSE|DRAW) \d+-\d+", out, re.M), out
        assert "session over after 1 game" in out


def _until_linger(proc, marker: str) -> tuple[list[str], str]:  # type: ignore[no-untyped-def]
    """Lines of a ``--watch`` command up to the one that says the page stays up, and its URL."""
    lines: list[str] = []
    while not lines or marker not in lines[-1]:
        line = proc.stdout.readline()
        assert line, f"the command ended early: {lines}"
        lines.append(line.strip())
    url = re.search(r"(http://127\.0\.0\.1:\d+/)", lines[-1])
    assert url, lines[-1]
    return lines, url.group(1)


def test_rllib_evaluate__watch_shows_every_game_on_one_page(
    cli_checkpoint: str, no_leftover_servers: None
) -> None:
    import signal
    import subprocess
    import sys

    from web_helpers import get_json

    cmd = [sys.executable, "-m", "rllib_curling.cli.rllib", "evaluate", cli_checkpoint,
           "--episodes", "1", "--opponent", "0,1", "--ends", "1", "--watch"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, **CTRL_C_CHILD)
    try:
        lines, url = _until_linger(proc, "until Ctrl+C")
        assert f"watch the games at {url}" in lines
        assert lines[-1] == f"all 2 games stay on {url} until Ctrl+C"
        games = get_json(url + "api/games")
        bots = [next(k for k in g["kinds"] if k.startswith("bot:")) for g in games]
        assert bots == ["bot:0", "bot:1"]
        assert {g["status"] for g in games} == {"finished"}
    finally:
        stopped = stop_and_reap(proc, signal.SIGINT, timeout=60)  # Ctrl+C
    assert stopped.clean, stopped.stderr[-2000:]


def test_curling_play__watch_shows_the_games_it_plays(
    cli_checkpoint: str, no_leftover_servers: None
) -> None:
    import signal
    import subprocess
    import sys

    from web_helpers import get_json

    with announced_server(games=1, ends=1) as (host, port):
        cmd = [sys.executable, "-m", "rllib_curling", "play", "--checkpoint", cli_checkpoint,
               "-H", host, "-p", port, "-k", "localtest:2", "--name", "mine"]  # fmt: skip
        cmd.append("--watch")
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, **CTRL_C_CHILD)
        try:
            lines, url = _until_linger(proc, "until Ctrl+C")
            assert lines[0] == f"watch the games at {url}"
            (game,) = get_json(url + "api/games")
            assert game["status"] == "finished" and "mine" in game["players"]
            assert game["shots"] == 16
        finally:
            stopped = stop_and_reap(proc, signal.SIGINT, timeout=60)  # Ctrl+C
        assert stopped.clean, stopped.stderr[-2000:]

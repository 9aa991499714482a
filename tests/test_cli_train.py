"""``rllib train`` refuses mistakes at once, with one line and exit code 2, before Ray starts."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from rllib_curling.cli import rllib as rllib_cli
from rllib_curling.errors import ConfigError
from rllib_curling.rl.env_names import DC_ENVS
from rllib_curling.rl.experiments import ExperimentSpec, read_experiment_file
from rllib_curling.rl.registration import CURLING_ENVS

ROOT = Path(__file__).resolve().parents[1]


def _refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    start = time.monotonic()
    assert rllib_cli.main(args) == 2
    assert time.monotonic() - start < 60  # seconds, not a hang (generous: a loaded CI machine)
    err = capsys.readouterr().err.strip()
    assert err.startswith("rllib train: ") and "\n" not in err, err
    return err


@pytest.mark.parametrize(
    ("env_config", "message"),
    [
        ({"oponent": 3}, "unknown env_config key 'oponent' (did you mean 'opponent'?)"),
        ({"opponent": 99}, "opponent must be a built-in level"),
        ({"opponent": {"grid_search": [2, 77]}}, "got 77"),
    ],
)
def test_train__bad_env_config_is_one_line(
    env_config: dict, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["train", "--run", "PPO", "--env", "curling"]
    err = _refused([*args, "--config", json.dumps({"env_config": env_config})], capsys)
    assert message in err


def test_train__unknown_algorithm_lists_the_valid_ones(capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(["train", "--run", "PPOO", "--env", "curling"], capsys)
    assert "unknown algorithm 'PPOO'" in err and "did you mean 'PPO'" in err and "DQN" in err


def test_train__unknown_env_lists_the_valid_ones(capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(["train", "--run", "PPO", "--env", "curlin"], capsys)
    assert "unknown env 'curlin'" in err and "curling, curling_multi" in err


def test_train__misspelt_config_key_names_the_closest(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["train", "--run", "PPO", "--env", "curling", "--config", '{"lamda_": 0.9}']
    err = _refused(args, capsys)
    assert "unknown config key 'lamda_'" in err and "did you mean 'lambda_'" in err


def test_train__yaml_unknown_keys_at_every_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    top = tmp_path / "top.yaml"
    top.write_text("exp:\n  run: PPO\n  env: curling\n  stpo: {training_iteration: 1}\n")
    err = _refused(["train", "-f", str(top)], capsys)
    assert f"{top}: experiment 'exp': unknown key 'stpo'" in err and "'stop'" in err
    ckpt = tmp_path / "ckpt.yaml"
    ckpt.write_text("exp:\n  run: PPO\n  checkpoint_config: {checkpoint_frequncy: 2}\n")
    assert "unknown key 'checkpoint_frequncy'" in _refused(["train", "-f", str(ckpt)], capsys)
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("exp:\n  run: PPO\n  env: curling\n  config: {lamda_: 0.9}\n")
    assert "unknown config key 'lamda_'" in _refused(["train", "-f", str(cfg)], capsys)


def test_train__yaml_syntax_error_is_file_line_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("exp:\n  run: PPO\n   env: curling\n")
    err = _refused(["train", "-f", str(bad)], capsys)
    assert f"{bad}:3:" in err


def test_experiment_file__every_shipped_config_reads() -> None:
    for path in sorted((ROOT / "tune_configs").glob("*.yaml")):
        (spec,) = read_experiment_file(path)
        assert isinstance(spec, ExperimentSpec) and spec.run
        assert spec.env in CURLING_ENVS + DC_ENVS


def test_train__config_env_config_is_merged_into_the_files(tmp_path: Path) -> None:
    from rllib_curling.cli.commands.train import _experiments_from_args

    league = "tune_configs/ppo_league.yaml"
    (spec,) = read_experiment_file(ROOT / league)
    want = spec.config["env_config"]
    override = {"env_config": {"league": {"start_from": "results/curling-ppo"}}, "lr": 1e-4}
    args = rllib_cli.build_parser().parse_args(
        ["train", "-f", str(ROOT / league), "--config", json.dumps(override)]
    )
    (merged,) = _experiments_from_args(args)
    env_config = merged.config["env_config"]
    assert env_config["league"] == {**want["league"], "start_from": "results/curling-ppo"}
    assert {k: v for k, v in env_config.items() if k != "league"} == {
        k: v for k, v in want.items() if k != "league"
    }
    assert merged.config["lr"] == 1e-4


def test_train__experiment_name_renames_the_files_experiment(tmp_path: Path) -> None:
    from rllib_curling.cli.commands.train import _experiments_from_args

    one = ["train", "-f", str(ROOT / "tune_configs" / "bc_shots.yaml"), "-n", "shots-2"]
    (spec,) = _experiments_from_args(rllib_cli.build_parser().parse_args(one))
    assert spec.name == "shots-2"
    two = tmp_path / "two.yaml"
    two.write_text("a: {run: PPO, env: curling}\nb: {run: DQN, env: curling}\n")
    args = rllib_cli.build_parser().parse_args(["train", "-f", str(two), "-n", "x"])
    with pytest.raises(ConfigError, match="holds 2 experiments; --experiment-name names one"):
        _experiments_from_args(args)


def test_train__the_2x_file_form_reads_what_dash_f_reads() -> None:
    from rllib_curling.cli.commands.train import _experiments_from_args

    path = str(ROOT / "tune_configs" / "ppo.yaml")
    flags = ["--stop", '{"training_iteration": 1}', "--config", '{"lr": 0.001}']
    parse = rllib_cli.build_parser().parse_args
    (dash_f,) = _experiments_from_args(parse(["train", "-f", path, *flags]))
    (file_form,) = _experiments_from_args(parse(["train", "file", path, *flags]))
    assert file_form == dash_f
    assert file_form.stop == {"training_iteration": 1} and file_form.config["lr"] == 0.001
    with pytest.raises(ConfigError, match="did you mean `rllib train file FILE`"):
        _experiments_from_args(parse(["train", "fiel", path]))


def test_experiment_spec__non_mapping_sections_are_refused() -> None:
    with pytest.raises(ConfigError, match="stop must be a mapping"):
        ExperimentSpec.from_mapping("x", {"run": "PPO", "stop": [1]}, "f.yaml")


def test_evaluate__zero_episodes_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        rllib_cli.main(["evaluate", "somewhere", "--episodes", "0"])
    assert exit_info.value.code == 2
    assert "--episodes: must be at least 1, got 0" in capsys.readouterr().err


def test_evaluate__bad_opponent_list_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        rllib_cli.main(["evaluate", "somewhere", "--opponent", "2,9"])
    assert "opponent must be one of" in capsys.readouterr().err


def test_evaluate__missing_checkpoint_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert rllib_cli.main(["evaluate", str(tmp_path / "nothing")]) == 2
    assert "no checkpoint directory at" in capsys.readouterr().err


@pytest.mark.slow
def test_evaluate__no_server_at_the_address_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    args = [
        "evaluate",
        "builtin",
        "--no-search",
        "--episodes",
        "1",
        "--server",
        f"127.0.0.1:{port}",
    ]
    assert rllib_cli.main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"rllib evaluate: no games on 127.0.0.1:{port}: cannot connect to ")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_evaluate__a_server_that_never_alternates_the_hammer_gets_a_note() -> None:
    from rllib_curling.cli.commands.evaluate import EvaluationResult, _hammer_note
    from rllib_curling.game import Result

    never = EvaluationResult(opponent=3)
    alternating = EvaluationResult(opponent=3)
    for game in range(4):
        never.add(Result.WIN, 2, 1, hammer=False)
        alternating.add(Result.WIN, 2, 1, hammer=game % 2 == 1)
    note = _hammer_note(never)
    assert note is not None and note.startswith(
        "note: the server seated the policy without the hammer in end 1 in all 4 games "
        "against level 3; `curling server --games 0` alternates it"
    )
    assert _hammer_note(alternating) is None

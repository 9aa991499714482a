"""find_checkpoint: every way a user names a checkpoint (README, "Using it")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rllib_curling.rl.checkpoints import MODULE_DIR, find_checkpoint


def _checkpoint(path: Path) -> Path:
    (path / MODULE_DIR).mkdir(parents=True)
    return path


def _trial(path: Path, n_checkpoints: int, win_rates: list[float], returns: list[float]) -> Path:
    path.mkdir(parents=True)
    for k in range(n_checkpoints):
        _checkpoint(path / f"checkpoint_{k:06d}")
    with open(path / "result.json", "w", encoding="utf-8") as fh:
        for w, r in zip(win_rates, returns, strict=True):
            row = {"env_runners": {"win_rate": w, "episode_return_mean": r}}
            fh.write(json.dumps(row) + "\n")
    return path


@pytest.fixture
def experiment(tmp_path: Path) -> Path:
    """results/curling-ppo with three trials; the second's last win rate is the best."""
    exp = tmp_path / "results" / "curling-ppo"
    _trial(exp / "PPO_curling_a_00000", 3, [0.9, 0.2], [5.0, -1.0])  # best once, not at the end
    _trial(exp / "PPO_curling_a_00001", 12, [0.1, 0.6], [-3.0, 2.0])
    _trial(exp / "PPO_curling_a_00002", 2, [0.6], [1.0])  # same win rate, lower return
    (exp / "basic-variant-state.json").write_text("{}")
    return exp


def test_experiment_dir__newest_checkpoint_of_the_best_trial(experiment: Path) -> None:
    # checkpoint_000011 sorts after checkpoint_000002: names are zero-padded
    expected = experiment / "PPO_curling_a_00001" / "checkpoint_000011"
    assert find_checkpoint(experiment) == expected


def test_trial_dir__its_newest_checkpoint(experiment: Path) -> None:
    trial = experiment / "PPO_curling_a_00000"
    assert find_checkpoint(trial) == trial / "checkpoint_000002"


def test_checkpoint_and_module_dirs__as_they_are(experiment: Path) -> None:
    ckpt = experiment / "PPO_curling_a_00000" / "checkpoint_000001"
    assert find_checkpoint(ckpt) == ckpt
    module = _checkpoint(experiment / "saved") / MODULE_DIR / "default_policy"
    module.mkdir()
    (module / "class_and_ctor_args.pkl").write_bytes(b"")
    assert find_checkpoint(module) == module


def test_find_checkpoint__relative_and_home_paths(
    experiment: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = experiment / "PPO_curling_a_00001" / "checkpoint_000011"
    monkeypatch.chdir(tmp_path)
    assert find_checkpoint("results/curling-ppo") == expected
    assert find_checkpoint(Path("results") / "curling-ppo") == expected
    monkeypatch.setenv("HOME", str(tmp_path))
    assert find_checkpoint("~/results/curling-ppo") == expected

    class TuneCheckpoint:  # anything with .path, as ray.tune.Checkpoint
        path = "results/curling-ppo/PPO_curling_a_00000"

    assert find_checkpoint(TuneCheckpoint()).name == "checkpoint_000002"


def test_missing_or_empty__says_what_it_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no checkpoint directory at"):
        find_checkpoint(tmp_path / "nope")
    (tmp_path / "empty" / "PPO_curling_0").mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="holds no RLlib checkpoint"):
        find_checkpoint(tmp_path / "empty")

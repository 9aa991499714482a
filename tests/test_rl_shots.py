"""The env's ``action="shots"`` under RLlib: every algorithm trains on it (the module masks
illegal shots), BC and MARWIL on a search's judgement (``curling dataset --action shots``), and
the result plays through ``rllib evaluate``. Slow (Ray, real games), still in CI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rllib_curling.cli import rllib as rllib_cli
from rllib_curling.offline.dataset import DatasetConfig, generate
from rllib_curling.rl.algorithm_configs import algorithm_config

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[1]
STOP_1 = '{"training_iteration": 1}'
SMALL = {"width": 16, "layers": 1, "heads": 2, "hiddens": [32]}
ENV = {"opponent": 1, "ends": 1, "action": "shots"}


@pytest.fixture(scope="module")
def data(ray_session: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("offline") / "shots"
    config = DatasetConfig(teacher=6, opponents=("self", 2), games=4, ends=1, games_per_shard=2,
                           action="shots")  # fmt: skip
    generate(out, config)
    return out


def _config(data: Path, **extra: object) -> str:
    return json.dumps({"input_": str(data), "dataset_num_iters_per_learner": 2,
                       "train_batch_size_per_learner": 16,
                       "model": {"custom_model_config": SMALL}, **extra})  # fmt: skip


@pytest.fixture(scope="module")
def bc_run(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    storage = tmp_path_factory.mktemp("bc")
    args = ["train", "-f", str(ROOT / "tune_configs" / "bc_shots.yaml"), "--stop", STOP_1]
    args += ["--config", _config(data), "--storage-path", str(storage)]
    assert rllib_cli.main(args) == 0
    return storage / "curling-shots"


def test_bc_shots__distils_the_search_with_every_loss(bc_run: Path) -> None:
    lines = next(bc_run.glob("*/result.json")).read_text().splitlines()
    learner = json.loads(lines[-1])["learners"]["default_policy"]
    assert learner["num_module_steps_trained"] >= 16
    for key in ("policy_loss", "hard_loss", "vf_loss", "score_loss", "accuracy"):
        assert np.isfinite(learner[key]), key
    assert list(bc_run.glob("*/checkpoint_*"))


def test_marwil__trains_on_the_shots_data(data: Path, tmp_path: Path) -> None:
    args = ["train", "-f", str(ROOT / "tune_configs" / "marwil.yaml"), "--stop", STOP_1]
    config = _config(data, env_config={"ends": 1, "action": "shots"})
    args += ["--config", config, "--storage-path", str(tmp_path)]
    assert rllib_cli.main(args) == 0
    results = next((tmp_path / "curling-marwil").glob("*/result.json")).read_text().splitlines()
    learner = json.loads(results[-1])["learners"]["default_policy"]
    assert np.isfinite(learner["vf_loss"]) and np.isfinite(learner["policy_loss"])


def test_rllib_evaluate__the_distilled_network_plays_alone(
    bc_run: Path, capsys: pytest.CaptureFixture[str], no_leftover_servers: None
) -> None:
    code = rllib_cli.main(["evaluate", str(bc_run), "--episodes", "2", "--opponent", "1",
                           "--ends", "1", "--json"])  # fmt: skip
    assert code == 0
    (row,) = json.loads(capsys.readouterr().out)["opponents"]
    assert row["opponent"] == 1 and row["games"] == 2


@pytest.mark.parametrize("algo", ["PPO", "DQN", "IMPALA", "APPO"])
def test_online_algorithms__learn_on_the_shot_set(
    algo: str, ray_session: None, no_leftover_servers: None
) -> None:
    # The local env runner: remote ones (asynchronous for APPO) are test_rllib's.
    config = algorithm_config(algo, env_config=dict(ENV), num_env_runners=0, model_config=SMALL)
    config.reporting(min_time_s_per_iteration=0.5, min_sample_timesteps_per_iteration=16)
    if algo == "PPO":
        config.training(train_batch_size_per_learner=32, minibatch_size=16, num_epochs=1)
    elif algo == "DQN":
        config.training(train_batch_size_per_learner=8, num_steps_sampled_before_learning_starts=8)
    else:
        config.training(train_batch_size_per_learner=16)
    algo_obj = config.build_algo()
    try:
        for _ in range(20):
            result = algo_obj.train()
            if "default_policy" in result.get("learners", {}):
                break
        assert "default_policy" in result["learners"]  # the shot network was updated
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] > 0
    finally:
        algo_obj.stop()

"""Offline RL on a teacher's games: ``rllib train -f tune_configs/bc.yaml`` (and MARWIL) on data of
``curling dataset``, and PPO starting from the BC checkpoint (``start_from``: the same weights)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rllib_curling.cli import rllib as rllib_cli
from rllib_curling.errors import ConfigError
from rllib_curling.offline.dataset import DatasetConfig, generate

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[1]
STOP_1 = '{"training_iteration": 1}'


@pytest.fixture(scope="module")
def data(ray_session: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("offline") / "level5"
    generate(out, DatasetConfig(teacher=5, opponents=(2,), games=2, ends=1, games_per_shard=1))
    return out


def _config(data: Path, **extra: object) -> str:
    return json.dumps({"input_": str(data), "dataset_num_iters_per_learner": 2,
                       "train_batch_size_per_learner": 16, **extra})  # fmt: skip


@pytest.fixture(scope="module")
def bc_run(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    storage = tmp_path_factory.mktemp("bc")
    args = ["train", "-f", str(ROOT / "tune_configs" / "bc.yaml"), "--stop", STOP_1]
    args += ["--config", _config(data), "--storage-path", str(storage)]
    assert rllib_cli.main(args) == 0
    return storage / "curling-bc"


def test_rllib_train__bc_yaml_trains_on_the_dataset(bc_run: Path) -> None:
    lines = next(bc_run.glob("*/result.json")).read_text().splitlines()
    results = [json.loads(line) for line in lines]
    learner = results[-1]["learners"]["default_policy"]
    assert learner["num_module_steps_trained"] >= 16 and np.isfinite(learner["policy_loss"])
    # CurlingBCLearner: the value head is trained on the games' results (bc.yaml's settings)
    assert np.isfinite(learner["vf_loss"]) and "vf_explained_var" in learner
    assert results[-1]["config"]["learner_config_dict"]["soft_targets"] == 0.5
    assert list(bc_run.glob("*/checkpoint_*"))


def test_rllib_train__marwil_yaml_trains_on_the_dataset(data: Path, tmp_path: Path) -> None:
    args = ["train", "-f", str(ROOT / "tune_configs" / "marwil.yaml"), "--stop", STOP_1]
    args += ["--config", _config(data), "--storage-path", str(tmp_path)]
    assert rllib_cli.main(args) == 0
    results = next((tmp_path / "curling-marwil").glob("*/result.json")).read_text().splitlines()
    learner = json.loads(results[-1])["learners"]["default_policy"]
    assert np.isfinite(learner["vf_loss"]) and np.isfinite(learner["policy_loss"])


def test_start_from__ppo_starts_with_the_bc_checkpoints_weights(
    bc_run: Path, no_leftover_servers: None
) -> None:
    import torch
    from ray.rllib.core.rl_module.rl_module import RLModule

    from rllib_curling.rl.checkpoints import module_checkpoint_dir
    from rllib_curling.rl.experiments import ExperimentSpec
    from rllib_curling.rl.tuning import _start_from_on_init, build_config

    spec = ExperimentSpec(name="ppo", run="PPO", env="curling", config={
        "env_config": {"ends": 1, "action": "discrete", "opponent": 2},
        "num_env_runners": 0, "num_envs_per_env_runner": 1,
    })  # fmt: skip
    config = _start_from_on_init(build_config(spec), str(bc_run))
    algorithm = config.build_algo()
    try:
        state = algorithm.learner_group.get_state(components="learner/rl_module")
        loaded = state["learner"]["rl_module"]["default_policy"]  # the learner's, value head too
        acting = algorithm.get_module().state_dict()  # the env runner's (inference only)
    finally:
        algorithm.stop()
    source = RLModule.from_checkpoint(module_checkpoint_dir(bc_run).as_posix()).state_dict()
    assert loaded.keys() == source.keys() and set(acting) <= set(source)
    for name, weights in source.items():
        assert torch.equal(torch.as_tensor(loaded[name]), torch.as_tensor(weights)), name
        if name in acting:
            assert torch.equal(torch.as_tensor(acting[name]), torch.as_tensor(weights)), name


def test_start_from__missing_checkpoint_is_one_line(tmp_path: Path) -> None:
    from rllib_curling.rl.tuning import _start_from_on_init

    with pytest.raises(ConfigError, match="start_from"):
        _start_from_on_init(object(), str(tmp_path / "nothing"))


def test_rllib_train__offline_data_that_is_not_there_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["train", "-f", str(ROOT / "tune_configs" / "bc.yaml")]
    args += ["--config", json.dumps({"input_": str(tmp_path / "none")})]
    assert rllib_cli.main(args) == 2
    assert "curling dataset" in capsys.readouterr().err

"""The course book's idioms on Ray 2.60: ``tune.run("PPO", config={"env": "curling"})`` (and with
``"model": {"custom_model": "curling_net"}``) trains the curling network with the curling metrics,
for PPO, IMPALA, APPO and DQN, through ``tune.run``, ``tune.Tuner`` and ``rllib train``. Slow: one
short iteration each on the real env, in one Ray session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

ENV_CONFIG = {"opponent": 0, "ends": 1}
SMALL_MODEL = {"stone_hiddens": [16], "context_hiddens": [8], "hiddens": [32]}


def small(algo: str) -> dict[str, Any]:
    """Config keys that make one iteration short on 2 cores (RLlib's defaults otherwise)."""
    config: dict[str, Any] = {
        "env_config": dict(ENV_CONFIG), "num_env_runners": 0, "num_learners": 0,
        "min_sample_timesteps_per_iteration": 48, "min_time_s_per_iteration": 0,
    }  # fmt: skip
    if algo == "PPO":
        config.update(train_batch_size_per_learner=64, minibatch_size=32, num_epochs=1)
    elif algo == "DQN":
        config.update(train_batch_size_per_learner=16, num_steps_sampled_before_learning_starts=16)
    else:
        config.update(train_batch_size_per_learner=32)
    return config


def _module_class(checkpoint_dir: str) -> type:
    from ray.rllib.core.rl_module.rl_module import RLModule

    from rllib_curling.rl.checkpoints import module_checkpoint_dir

    return type(RLModule.from_checkpoint(module_checkpoint_dir(checkpoint_dir).as_posix()))


def _expected_class(algo: str) -> type:
    from rllib_curling.rl.models import MODULES

    return MODULES["curling_net"][algo.lower()]


CUSTOM_MODEL = {"custom_model": "curling_net", "custom_model_config": SMALL_MODEL}


# Each algorithm passes through the book's ModelCatalog idiom once: PPO here, IMPALA and DQN
# through tune.Tuner, APPO through `rllib train`.
@pytest.mark.parametrize("form", ["env", "custom_model"])
def test_tune_run__trains_the_curling_network_with_curling_metrics(
    form: str, ray_session: None, tmp_path: Path, no_leftover_servers: None
) -> None:
    from ray import tune

    config: dict[str, Any] = {"env": "curling", **small("PPO")}
    if form == "custom_model":  # the book's ModelCatalog idiom, on the new API stack
        config["model"] = CUSTOM_MODEL
    analysis = tune.run(
        "PPO", config=config, stop={"training_iteration": 1}, storage_path=str(tmp_path),
        checkpoint_config=tune.CheckpointConfig(checkpoint_at_end=True), verbose=0,
    )  # fmt: skip
    (trial,) = analysis.trials
    assert trial.status == "TERMINATED", trial.error_file
    assert "win_rate" in trial.last_result["env_runners"]
    assert trial.last_result["curling"]["opponent"] == 0
    assert issubclass(_module_class(trial.checkpoint.path), _expected_class("PPO"))


@pytest.mark.parametrize("algo", ["IMPALA", "DQN"])
def test_tuner__trains_the_curling_network(
    algo: str, ray_session: None, tmp_path: Path, no_leftover_servers: None
) -> None:
    from ray import tune

    results = tune.Tuner(
        algo,
        param_space={"env": "curling", "model": CUSTOM_MODEL, **small(algo)},
        run_config=tune.RunConfig(
            storage_path=str(tmp_path), stop={"training_iteration": 1}, verbose=0,
            checkpoint_config=tune.CheckpointConfig(checkpoint_at_end=True),
        ),
    ).fit()  # fmt: skip
    result = results[0]
    assert result.error is None, result.error
    assert "win_rate" in result.metrics["env_runners"]
    assert issubclass(_module_class(result.checkpoint.path), _expected_class(algo))


def test_rllib_train__appo_trains_the_curling_network(
    ray_session: None, tmp_path: Path, no_leftover_servers: None
) -> None:
    import json

    from rllib_curling.cli import rllib as rllib_cli

    args = ["train", "--run", "APPO", "--env", "curling", "--stop", '{"training_iteration": 1}']
    config = json.dumps({**small("APPO"), "model": CUSTOM_MODEL})
    args += ["--config", config, "--storage-path", str(tmp_path), "-n", "appo"]
    assert rllib_cli.main(args) == 0
    (trial,) = (tmp_path / "appo").glob("APPO_curling_*")  # trials named after the algorithm
    checkpoint = sorted(trial.glob("checkpoint_*"))[-1]
    assert issubclass(_module_class(str(checkpoint)), _expected_class("APPO"))


def test_tune_run__old_stack_keeps_the_modelcatalog_model(
    ray_session: None, tmp_path: Path, no_leftover_servers: None
) -> None:
    from ray import tune
    from ray.rllib.algorithms.algorithm import Algorithm

    from rllib_curling.rl.model_v2 import CurlingModelV2

    config = {
        "env": "curling", "env_config": dict(ENV_CONFIG), "num_env_runners": 0,
        "enable_rl_module_and_learner": False, "enable_env_runner_and_connector_v2": False,
        "model": {"custom_model": "curling_net", "custom_model_config": SMALL_MODEL},
        "train_batch_size": 64, "minibatch_size": 32, "num_epochs": 1,
    }  # fmt: skip
    analysis = tune.run(
        "PPO", config=config, stop={"training_iteration": 1}, storage_path=str(tmp_path),
        checkpoint_config=tune.CheckpointConfig(checkpoint_at_end=True), verbose=0,
    )  # fmt: skip
    (trial,) = analysis.trials
    assert trial.status == "TERMINATED", trial.error_file
    algo = Algorithm.from_checkpoint(trial.checkpoint.path)
    try:
        assert isinstance(algo.get_policy().model, CurlingModelV2)
    finally:
        algo.stop()

"""One-iteration RLlib runs of every algorithm with the curling network, on a fake curling env.

The real env (``rllib_curling.env``) is not needed: ``FakeCurlingEnv`` has the same spaces (the
observation of ``observation.OBS_SIZE`` floats; a Box(3) shot, or the templates with
``action="discrete"``), random
observations and 8-step episodes.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from rllib_helpers import assert_resumes

from rllib_curling import observation as spaces
from rllib_curling.agent.policy import load_policy
from rllib_curling.aiming.templates import TEMPLATES
from rllib_curling.rl import registration
from rllib_curling.rl.algorithm_configs import algorithm_config

FAKE_ENV = "curling-smoke-test-fake"
SMALL = {"stone_hiddens": [16, 16], "context_hiddens": [16], "hiddens": [32]}
TIMINGS: dict[str, float] = {}


class FakeCurlingEnv(gym.Env):
    """Random curling-shaped observations; reward for shots close to a fixed target."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        config = dict(config or {})
        self.observation_space = gym.spaces.Box(
            spaces.OBS_LOW, spaces.OBS_HIGH, (spaces.OBS_SIZE,), np.float32
        )
        if config.get("action", "continuous") == "discrete":
            self.action_space: gym.Space = gym.spaces.Discrete(len(TEMPLATES))
        else:
            self.action_space = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)
        self._rng = np.random.default_rng()
        self._t = 0

    def _obs(self) -> np.ndarray:
        obs = self._rng.uniform(-1.0, 1.0, spaces.OBS_SIZE).astype(np.float32)
        stones, _ = spaces.split_observation(obs)
        stones[:, 3] = (np.arange(spaces.N_STONES) < self._t).astype(np.float32)
        return obs

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._t = 0
        return self._obs(), {}

    def step(self, action: Any) -> tuple:
        self._t += 1
        if isinstance(self.action_space, gym.spaces.Discrete):
            reward = float(int(action) == 7)
        else:
            reward = -float(np.abs(np.asarray(action) - 0.5).sum())
        return self._obs(), reward, self._t >= 8, False, {}


@pytest.fixture(scope="module")
def ray_session(ray_session: None) -> Iterator[None]:
    """conftest's Ray session, with this module's fake env registered."""
    from ray import cloudpickle
    from ray.tune.registry import register_env

    # Ship this test module's env class by value: runners cannot import a test module.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    register_env(FAKE_ENV, lambda ctx: FakeCurlingEnv(ctx))
    try:
        yield
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
        if TIMINGS:
            print("\nsmoke timings (s):", {k: round(v, 1) for k, v in TIMINGS.items()})


def _small(config: Any, algo: str) -> Any:
    """Shrink a config from ``algorithm_config`` to a few seconds per iteration."""
    if algo == "PPO":
        config.training(
            train_batch_size_per_learner=256, train_batch_size=256, minibatch_size=64, num_epochs=1
        )
    elif algo == "DQN":
        config.training(num_steps_sampled_before_learning_starts=64, train_batch_size=32)
        config.reporting(min_sample_timesteps_per_iteration=128)
    else:
        config.training(train_batch_size_per_learner=64, train_batch_size=64)
        config.env_runners(rollout_fragment_length=32)
        config.reporting(min_time_s_per_iteration=1)
    return config


def _assert_learned(result: dict[str, Any], old_stack: bool = False) -> None:
    if old_stack:
        assert result["info"]["learner"], result["info"]
    else:
        assert "default_policy" in result["learners"], sorted(result["learners"])


def _train_until_learned(algo: Any, old_stack: bool = False, budget_s: float = 150.0) -> dict:
    """``train()`` once; async algorithms (IMPALA, APPO) may need a few calls to see a batch.

    The wait ends at the first learner result (usually the first call: every algorithm here
    samples on the local env runner); the budget is for a busy machine."""
    deadline = time.perf_counter() + budget_s
    while True:
        result = algo.train()
        learned = result.get("info", {}).get("learner") if old_stack else result.get("learners")
        if (learned and (old_stack or "default_policy" in learned)) or (
            time.perf_counter() > deadline
        ):
            return result


def _check_policy(checkpoint: Any, action_space: gym.Space) -> None:
    policy = load_policy(checkpoint)
    obs = FakeCurlingEnv()._obs()
    action = policy(obs)
    assert action_space.contains(np.asarray(action, dtype=action_space.dtype)), action
    batch = policy(np.stack([obs, obs, obs]))
    assert len(batch) == 3
    assert all(action_space.contains(np.asarray(a, dtype=action_space.dtype)) for a in batch)


# Every algorithm samples on the local env runner here (a few seconds each); sampling on remote
# runners, asynchronous for IMPALA and APPO, is test_rllib's, on private servers.
@pytest.mark.slow
@pytest.mark.parametrize("algo", ["PPO", "DQN", "IMPALA", "APPO"])
def test_new_stack__trains_saves_restores(ray_session: None, tmp_path: Path, algo: str) -> None:

    start = time.perf_counter()
    config = algorithm_config(algo, env=FAKE_ENV, num_env_runners=0, model_config=SMALL)
    built = _small(config, algo).build_algo()
    try:
        module = built.get_module()
        assert type(module).__name__.startswith("Curling")
        _assert_learned(_train_until_learned(built))
        path = built.save_to_path(tmp_path / "ckpt")
    finally:
        built.stop()
    assert_resumes(path)
    if algo in ("PPO", "DQN"):
        space = FakeCurlingEnv({"action": "discrete" if algo == "DQN" else "continuous"})
        _check_policy(path, space.action_space)
    TIMINGS[f"{algo} new stack"] = time.perf_counter() - start


@pytest.mark.slow
@pytest.mark.parametrize("algo", ["PPO", "IMPALA", "APPO"])
def test_old_stack__trains_with_the_model_catalog_model(ray_session: None, algo: str) -> None:
    from rllib_curling.rl.model_v2 import CurlingModelV2

    start = time.perf_counter()
    config = algorithm_config(
        algo, env=FAKE_ENV, num_env_runners=0, model_config=SMALL, old_stack=True
    )
    built = _small(config, algo).build_algo()
    try:
        assert isinstance(built.get_policy().model, CurlingModelV2)
        _assert_learned(_train_until_learned(built, old_stack=True), old_stack=True)
    finally:
        built.stop()
    TIMINGS[f"{algo} old stack"] = time.perf_counter() - start


@pytest.mark.slow
def test_load_policy__from_a_tune_trial_checkpoint(ray_session: None, tmp_path: Path) -> None:
    from ray import tune

    start = time.perf_counter()
    assert registration.register_trainables() == ["PPO", "DQN", "IMPALA", "APPO", "BC", "MARWIL"]
    config = _small(algorithm_config("ppo", env=FAKE_ENV, num_env_runners=0), "PPO")
    results = tune.Tuner(
        "PPO",  # a string: resolved through register_trainables()
        param_space=config,
        run_config=tune.RunConfig(
            storage_path=str(tmp_path),
            name="smoke",
            stop={"training_iteration": 1},
            checkpoint_config=tune.CheckpointConfig(checkpoint_at_end=True),
            verbose=0,
        ),
    ).fit()
    result = results[0]
    assert result.error is None, result.error
    space = FakeCurlingEnv().action_space
    _check_policy(result.checkpoint, space)  # a ray.tune.Checkpoint
    _check_policy(result.checkpoint.path, space)  # .../checkpoint_000000
    _check_policy(result.path, space)  # the trial dir: its last checkpoint_*
    TIMINGS["PPO via Tune"] = time.perf_counter() - start


def test_algorithm_config__names_and_errors() -> None:
    with pytest.raises(ValueError, match="PPO, DQN, IMPALA, APPO"):
        algorithm_config("sac")
    with pytest.raises(ValueError, match="old API stack is broken"):
        algorithm_config("dqn", old_stack=True)
    with pytest.raises(ValueError, match="discrete"):
        algorithm_config("DQN", env_config={"action": "continuous"})
    config = algorithm_config("dqn", env_config={"seed": 3})
    assert config.env_config == {"seed": 3, "action": "discrete"}
    config = algorithm_config("Impala", num_env_runners=2, model_config={"hiddens": [8]})
    assert (config.num_learners, config.num_env_runners) == (0, 2)
    assert config.rl_module_spec.model_config["hiddens"] == [8]
    env = FakeCurlingEnv()
    spec = algorithm_config("ppo").get_rl_module_spec(env=env)
    assert spec.model_config["vf_share_layers"] is True  # ours wins over PPO's auto-included False
    old = algorithm_config("ppo", old_stack=True, model_config={"attention": True})
    assert not old.enable_rl_module_and_learner and old.num_gpus == 0
    assert old.model["custom_model"] == "curling_net"
    assert old.model["custom_model_config"]["attention"] is True


def test_curling_defaults__a_configs_custom_model_config_reaches_the_curling_network() -> None:
    # A YAML's or --config's "model": {"custom_model_config": ...} comes after algorithm_config
    # gave the run the curling network: its keys go over that network's, not lost.
    from rllib_curling.rl.trainables import curling_defaults

    config = algorithm_config("bc", model_config={"hiddens": [8]})
    config.update_from_dict({"model": {"custom_model_config": {"end_score_hiddens": [16]}}})
    spec = curling_defaults("BC", config).rl_module_spec
    assert spec.model_config["end_score_hiddens"] == [16] and spec.model_config["hiddens"] == [8]
    assert config.model["custom_model_config"] == {}  # moved into the module's spec


def test_async_algorithms__wait_for_their_runners_samples_instead_of_polling() -> None:
    from rllib_curling.rl.algorithm_configs import SAMPLER_WAIT_S
    from rllib_curling.rl.experiments import read_experiment_file

    assert SAMPLER_WAIT_S > 0  # RLlib's 0 polls in a busy loop
    configs = Path(__file__).resolve().parents[1] / "tune_configs"
    for algo in ("IMPALA", "APPO"):
        assert algorithm_config(algo).timeout_s_sampler_manager == SAMPLER_WAIT_S
        (spec,) = read_experiment_file(configs / f"{algo.lower()}.yaml")
        assert spec.config["timeout_s_sampler_manager"] == SAMPLER_WAIT_S

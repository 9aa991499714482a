"""RLlib on the real curling env with private servers: algorithms, env runners and their
ports, the old API stack, the curriculum. The `rllib` command: test_rllib_cli.py. Slow (Ray
start-up, real games), still in CI."""

from __future__ import annotations

from pathlib import Path

import pytest
from rllib_helpers import assert_resumes

from rllib_curling.rl.algorithm_configs import algorithm_config

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

SMALL_MODEL = {"stone_hiddens": [32], "context_hiddens": [16], "hiddens": [64]}
ENV = {"opponent": 1, "ends": 1}


def _small(config, algo: str):  # type: ignore[no-untyped-def]
    config.reporting(min_time_s_per_iteration=0.5, min_sample_timesteps_per_iteration=32)
    if algo == "PPO":
        config.training(train_batch_size_per_learner=64, minibatch_size=32, num_epochs=1)
    else:
        config.training(train_batch_size_per_learner=32)
    return config


def _train_until_learning(algo_obj, budget_s: float = 120.0) -> dict:  # type: ignore[no-untyped-def]
    import time

    deadline = time.monotonic() + budget_s
    while True:
        result = algo_obj.train()
        if "default_policy" in result.get("learners", {}) or time.monotonic() > deadline:
            return result


# Every algorithm trains, saves and restores in test_rl_algorithm_configs (a fake env, the local
# runner); here on private servers: APPO (IMPALA's subclass, the same aggregation and learner
# thread) stands for the asynchronous algorithms, PPO samples on the local env runner (its remote
# runners: test_env_runners below).
@pytest.mark.parametrize(("algo", "runners"), [("PPO", 0), ("APPO", 2)])
def test_algorithm__iterates_checkpoints_restores_on_auto_servers(
    algo: str, runners: int, ray_session: None, tmp_path: Path, no_leftover_servers: None
) -> None:

    config = _small(
        algorithm_config(
            algo, env_config=dict(ENV), num_env_runners=runners, model_config=SMALL_MODEL
        ),
        algo,
    )
    algo_obj = config.build_algo()
    try:
        result = _train_until_learning(algo_obj)
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] > 0
        assert "default_policy" in result["learners"]  # the curling network was updated
        ports = algo_obj.env_runner_group.foreach_env_runner(
            lambda r: [e.unwrapped.address for e in r.env.unwrapped.envs],
            local_env_runner=runners == 0,
        )
        flat = [p for per_runner in ports for p in per_runner]
        assert len(flat) == len(set(flat)) == max(runners, 1)  # an env, a server port each
        path = algo_obj.save_to_path(str(tmp_path / "ckpt"))
    finally:
        algo_obj.stop()
    assert_resumes(path)


@pytest.mark.parametrize(
    ("mode", "env_class", "processes"),
    [("vector_entry_point", "CurlingVectorEnv", 2), ("sync", "SyncVectorEnv", 4)],
)
def test_env_runners__two_runners_two_envs_each_get_four_ports(
    mode: str, env_class: str, processes: int, ray_session: None, no_leftover_servers: None
) -> None:
    """Every env has its own port. The default (vector) path: one server process per runner
    with a room per env; the sync path: one server process per env."""
    config = _small(
        algorithm_config(
            "PPO",
            env_config=dict(ENV),
            num_env_runners=2,
            num_envs_per_env_runner=2,
            model_config=SMALL_MODEL,
        ),
        "PPO",
    )
    assert config.gym_env_vectorize_mode == "vector_entry_point"  # algorithm_config's default
    config.env_runners(gym_env_vectorize_mode=mode)
    algo_obj = config.build_algo()
    try:
        result = algo_obj.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] > 0
        seen = algo_obj.env_runner_group.foreach_env_runner(
            lambda r: (
                type(r.env.unwrapped).__name__,
                [
                    (e.unwrapped.address, e.unwrapped._server.process.pid)
                    for e in r.env.unwrapped.envs
                ],
            ),  # fmt: skip
            local_env_runner=False,
        )
        assert {name for name, _ in seen} == {env_class}
        flat = [entry for _, per_runner in seen for entry in per_runner]
        assert len(flat) == 4 and len({address for address, _ in flat}) == 4, flat
        assert len({pid for _, pid in flat}) == processes, flat
    finally:
        algo_obj.stop()


def test_old_stack_ppo__modelcatalog_model_one_iteration(
    ray_session: None, no_leftover_servers: None
) -> None:
    config = algorithm_config(
        "PPO", env_config=dict(ENV), num_env_runners=0, old_stack=True, model_config=SMALL_MODEL
    ).training(train_batch_size=64, minibatch_size=32, num_epochs=1)
    algo_obj = config.build_algo()
    try:
        result = algo_obj.train()
        assert result["training_iteration"] == 1
        model = algo_obj.get_policy().model
        assert type(model).__name__ == "CurlingModelV2"
    finally:
        algo_obj.stop()


def test_curriculum__promotes_logs_per_opponent_and_a_restored_run_resumes_its_level(
    ray_session: None, no_leftover_servers: None, tmp_path: Path
) -> None:
    import time

    env_config = {
        **ENV,
        "opponent": 0,
        "curriculum": {"levels": [0, 1], "promote_at": 0.05, "window": 2, "review": 0.5},
    }
    config = _small(
        algorithm_config(
            "PPO", env_config=env_config, num_env_runners=1, num_envs_per_env_runner=2,
            model_config=SMALL_MODEL,
        ),
        "PPO",
    )  # fmt: skip
    algo_obj = config.build_algo()
    try:
        seen: list[int] = []
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            result = algo_obj.train()
            seen.append(result["curling"]["opponent"])
            opponents = result["env_runners"].get("opponents", {})
            if "L1" in opponents and opponents["L1"]["games"] >= 1:
                break
        # It started at level 0 (its games came first) and moved up once it had 2 of them.
        assert seen[-1] == 1 and result["curling"]["curriculum_stage"] == 1
        assert opponents["L0"]["games"] >= 2 and set(seen) <= {0, 1}
        mixtures = algo_obj.env_runner_group.foreach_env_runner(
            lambda r: [e.opponents for e in r.env.unwrapped.envs], local_env_runner=False
        )
        assert mixtures == [[{0: 0.5, 1: 0.5}] * 2]
        algo_obj.save_to_path(tmp_path / "checkpoint")
    finally:
        algo_obj.stop()
    # A new run restored from the checkpoint plays level 1 from its first iteration.
    restored = config.build_algo()
    try:
        restored.restore_from_path(tmp_path / "checkpoint")
        mixtures = restored.env_runner_group.foreach_env_runner(
            lambda r: [e.opponents for e in r.env.unwrapped.envs], local_env_runner=False
        )
        assert mixtures == [[{0: 0.5, 1: 0.5}] * 2]
        result = restored.train()
        assert result["curling"]["opponent"] == 1 and result["curling"]["curriculum_stage"] == 1
    finally:
        restored.stop()

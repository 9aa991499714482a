"""Ready-made RLlib configs with the curling network, and the Tune trainables.

``algorithm_config("PPO")`` gives a config that trains on a 2-core machine as it is:

| algo   | stack   | network                    | sizes (per iteration)                        |
|--------|---------|----------------------------|----------------------------------------------|
| PPO    | new/old | ``CurlingActorCritic``     | 2000 steps, minibatch 250, 6 epochs          |
| IMPALA | new/old | ``CurlingActorCritic``     | batches of 500, learner in the driver        |
| APPO   | new/old | ``CurlingAPPOActorCritic`` | as IMPALA, plus target networks              |
| DQN    | new     | ``CurlingQNetwork``        | RLlib's defaults: batch 32, dueling+double-Q |

DQN sets ``env_config["action"] = "discrete"`` (the env's discretised shot table). The old API
stack (``old_stack=True``) uses the ModelCatalog model ``"curling_net"`` (``CurlingModelV2``) and
``num_gpus=0``; it is not offered for DQN, whose old stack is broken in RLlib 2.60.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rllib_curling.rl.registration import ENV_NAME

if TYPE_CHECKING:
    from ray.rllib.algorithms.algorithm_config import AlgorithmConfig

ALGORITHMS = ("PPO", "DQN", "IMPALA", "APPO")


def _algorithm_classes() -> dict[str, tuple[type, type]]:
    """``{"PPO": (PPO, PPOConfig), ...}``; imported here so ``import training`` stays light."""
    from ray.rllib.algorithms.appo import APPO, APPOConfig
    from ray.rllib.algorithms.dqn import DQN, DQNConfig
    from ray.rllib.algorithms.impala import IMPALA, IMPALAConfig
    from ray.rllib.algorithms.ppo import PPO, PPOConfig

    return {
        "PPO": (PPO, PPOConfig),
        "DQN": (DQN, DQNConfig),
        "IMPALA": (IMPALA, IMPALAConfig),
        "APPO": (APPO, APPOConfig),
    }


def _canonical(algo: str) -> str:
    name = str(algo).upper()
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algo!r}; valid: {', '.join(ALGORITHMS)}")
    return name


def algorithm_config(
    algo: str,
    *,
    env: Any = "curling",
    env_config: dict[str, Any] | None = None,
    num_env_runners: int = 1,
    num_envs_per_env_runner: int = 1,
    model_config: dict[str, Any] | None = None,
    old_stack: bool = False,
) -> AlgorithmConfig:
    """An ``AlgorithmConfig`` for ``algo`` ("PPO", "DQN", "IMPALA", "APPO"; any case) with the
    curling network (``model_config`` keys: ``rllib_curling.rl.models.DEFAULT_MODEL_CONFIG``).

    Change anything further with the usual ``config.training(...)`` etc. before ``build_algo()``.
    """
    from rllib_curling.rl.models import module_spec
    from rllib_curling.rl.network import resolve_model_config

    name = _canonical(algo)
    env_config = dict(env_config or {})
    if name == "DQN":
        if env_config.get("action", "discrete") != "discrete":
            raise ValueError(
                f"DQN needs discrete actions; got env_config action={env_config['action']!r} "
                "(drop it or use 'discrete')"
            )
        env_config["action"] = "discrete"
        if old_stack:
            raise ValueError(
                "DQN on the old API stack is broken in RLlib 2.60: its EpisodeReplayBuffer check "
                "fails ('TypeError: argument of type 'ABCMeta' is not iterable' in "
                "Algorithm._create_local_replay_buffer_if_necessary). Use old_stack=False."
            )
    model_config = resolve_model_config(model_config)
    config = (
        _algorithm_classes()[name][1]()
        .environment(env, env_config=env_config)
        .framework("torch")
        .env_runners(
            num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs_per_env_runner
        )
    )
    _size(config, name)
    if old_stack:
        from rllib_curling.rl.model_v2 import MODEL_NAME

        config.api_stack(
            enable_rl_module_and_learner=False, enable_env_runner_and_connector_v2=False
        )
        config.training(model={"custom_model": MODEL_NAME, "custom_model_config": model_config})
        config.resources(num_gpus=0)
    else:
        config.rl_module(rl_module_spec=module_spec(name, **model_config))
        if env == ENV_NAME:
            from rllib_curling.rl.callbacks import CurlingMetrics

            config.callbacks(CurlingMetrics)  # env_runners/win_rate, points_for/against
    return config


def _size(config: AlgorithmConfig, name: str) -> None:
    """Batch sizes and resources that fit 2 CPU cores (new- and old-stack keys alike)."""
    config.learners(num_learners=0, num_gpus_per_learner=0)
    if name == "PPO":
        config.training(
            train_batch_size_per_learner=2000,
            train_batch_size=2000,
            minibatch_size=250,
            num_epochs=6,
            lr=3.0e-4,
        )
    elif name in ("IMPALA", "APPO"):
        # num_learners=0: a learner actor would need a third CPU and IMPALA would hang.
        config.training(train_batch_size_per_learner=500, train_batch_size=500)
    # DQN: RLlib's defaults (batch 32, 1000 steps before learning, dueling + double-Q) fit.


def register_trainables() -> list[str]:
    """Register PPO, DQN, IMPALA and APPO with Tune under their names; returns the names.

    Tune then resolves ``"PPO"`` without importing every RLlib algorithm. Safe to call again
    (re-registers, which also restores them after a ``ray.shutdown()``/``ray.init()``).
    """
    from ray import tune

    for name, (algorithm_cls, _) in _algorithm_classes().items():
        tune.register_trainable(name, algorithm_cls)
    return list(ALGORITHMS)

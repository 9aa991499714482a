"""Ready-made RLlib configs with the curling network, Tune trainables, and a checkpoint player.

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

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ray.rllib.algorithms.algorithm_config import AlgorithmConfig

ALGORITHMS = ("PPO", "DQN", "IMPALA", "APPO")
MODULE_DIR = Path("learner_group", "learner", "rl_module")


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
    curling network (``model_config`` keys: ``rllib_curling.models.DEFAULT_MODEL_CONFIG``).

    Change anything further with the usual ``config.training(...)`` etc. before ``build_algo()``.
    """
    from rllib_curling.models import module_spec, resolve_model_config

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
        from rllib_curling.models_v2 import MODEL_NAME, register_model

        register_model()
        config.api_stack(
            enable_rl_module_and_learner=False, enable_env_runner_and_connector_v2=False
        )
        config.training(model={"custom_model": MODEL_NAME, "custom_model_config": model_config})
        config.resources(num_gpus=0)
    else:
        config.rl_module(rl_module_spec=module_spec(name, **model_config))
        if env == "curling":
            from rllib_curling.callbacks import CurlingMetrics

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


def module_checkpoint_dir(checkpoint: Any, module_id: str = "default_policy") -> Path:
    """The RLModule directory inside an algorithm checkpoint.

    ``checkpoint`` may be an ``algo.save_to_path()`` dir, a Tune trial checkpoint dir
    (``.../checkpoint_000003``), a Tune trial dir (its last ``checkpoint_*`` is used), a Tune
    experiment dir (the newest checkpoint of its trials), a
    ``ray.tune.Checkpoint`` (anything with ``.path``) or the module dir itself.
    """
    path = Path(os.fspath(getattr(checkpoint, "path", checkpoint))).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"no checkpoint directory at {path}")
    if not (path / MODULE_DIR).is_dir() and not (path / "policies").is_dir():
        trial_checkpoints = sorted(path.glob("checkpoint_*"))
        if not trial_checkpoints:  # an experiment dir: the newest checkpoint of any trial
            trial_checkpoints = sorted(path.glob("*/checkpoint_*"), key=lambda p: p.stat().st_mtime)
        if trial_checkpoints:
            path = trial_checkpoints[-1]
    if (path / MODULE_DIR).is_dir():
        module_dir = path / MODULE_DIR / module_id
        if not module_dir.is_dir():
            found = sorted(p.name for p in (path / MODULE_DIR).iterdir())
            raise FileNotFoundError(f"no module {module_id!r} in {path}; found: {found}")
        return module_dir
    if (path / "policies").is_dir():
        raise ValueError(
            f"{path} is an old-API-stack checkpoint (policies/); load it with "
            "Algorithm.from_checkpoint(path).get_policy().compute_single_action(obs)"
        )
    if (path / "class_and_ctor_args.pkl").is_file() and not (path / "learner_group").exists():
        return path
    raise FileNotFoundError(f"{path} holds no RLlib checkpoint (no {MODULE_DIR}/{module_id})")


def load_policy(
    checkpoint: Any, module_id: str = "default_policy", *, normalize_actions: bool = True
) -> Callable[[np.ndarray], Any]:
    """A deterministic policy ``obs -> action`` from a checkpoint, without building the algorithm.

    Loads the module with ``RLModule.from_checkpoint`` and calls ``forward_inference``: argmax for
    Discrete/MultiDiscrete (and DQN's greedy action), the Gaussian's mean for Box, mapped from
    [-1, 1] to the Box bounds as RLlib does with ``normalize_actions=True`` (else clipped).
    ``obs`` of shape ``(OBS_SIZE,)`` gives one action; ``(B, OBS_SIZE)`` gives a batch.
    """
    import gymnasium as gym
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule
    from ray.rllib.utils.spaces.space_utils import unsquash_action

    module = RLModule.from_checkpoint(module_checkpoint_dir(checkpoint, module_id).as_posix())
    module.eval()
    space = module.action_space

    def policy(obs: np.ndarray) -> Any:
        batch = np.asarray(obs, dtype=np.float32)
        single = batch.ndim == 1
        if single:
            batch = batch[None]
        with torch.no_grad():
            out = module.forward_inference({Columns.OBS: torch.from_numpy(batch)})
            if Columns.ACTIONS in out:
                actions = out[Columns.ACTIONS]
            else:
                dist = module.get_inference_action_dist_cls().from_logits(
                    out[Columns.ACTION_DIST_INPUTS]
                )
                actions = dist.to_deterministic().sample()
        actions = actions.cpu().numpy()
        if isinstance(space, gym.spaces.Box):
            if normalize_actions:
                actions = unsquash_action(actions, space)
            actions = np.clip(actions, space.low, space.high).astype(space.dtype)
        else:
            actions = actions.astype(space.dtype)
        if not single:
            return actions
        return int(actions[0]) if isinstance(space, gym.spaces.Discrete) else actions[0]

    policy.module = module  # type: ignore[attr-defined]
    policy.action_space = space  # type: ignore[attr-defined]
    return policy

"""Checkpoints: find the RLModule inside an RLlib checkpoint or run directory, and load a policy.

``module_checkpoint_dir`` accepts what a user has at hand (an ``algo.save_to_path()`` dir, a Tune
trial checkpoint, a trial dir, an experiment dir, a ``ray.tune.Checkpoint``, the module dir);
``load_policy`` turns it into a deterministic ``obs -> action`` function without building the
algorithm.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

#: Where a new-API-stack algorithm checkpoint keeps its RLModules.
MODULE_DIR = Path("learner_group", "learner", "rl_module")


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

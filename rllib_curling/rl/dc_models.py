"""A small generic masked actor-critic for the DC env's ``action="shots"`` (``"curling_dc"``).

The platform's shot modules (``rl.shot_models``) are built around its own shot set; the DC env
has its own layout (``dc_env.spaces.dc_layout()``) and observation, so this module is generic:
an MLP over the flat observation (``"observations"``), a policy head of one logit per action
and a value head, the logits of illegal actions (``"action_mask"`` 0) set to ``FLOAT_MIN`` as
Ray's action-masking example does. Any ``Dict(observations=Box, action_mask=Box)`` observation
and ``Discrete`` action space fit.

| model_config key | default     | meaning                                      |
|------------------|-------------|----------------------------------------------|
| hidden           | [256, 256]  | widths of the shared MLP's layers (ReLU)     |

RLlib's new API stack takes it through an ``RLModuleSpec`` (``dc_module_spec``), which
``rl.algorithm_configs.dc_algorithm_config`` (and so ``rllib train`` with ``env: curling_dc``)
sets for ``action="shots"``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import gymnasium as gym
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.annotations import override
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

from rllib_curling.errors import ConfigError

#: The observation Dict's keys (RLlib's action-masking idiom; ``env.spaces`` names them too).
OBSERVATIONS, ACTION_MASK = "observations", "action_mask"
DEFAULT_DC_MODEL_CONFIG: dict[str, Any] = {"hidden": [256, 256]}


def resolve_dc_model_config(values: Any) -> dict[str, Any]:
    """The defaults updated with ``values`` (RLlib's own keys ignored); ``ConfigError`` for a
    bad ``hidden``."""
    if dataclasses.is_dataclass(values) and not isinstance(values, type):
        values = dataclasses.asdict(values)
    given = dict(values or {})
    hidden = given.get("hidden", DEFAULT_DC_MODEL_CONFIG["hidden"])
    if (
        not isinstance(hidden, list | tuple)
        or not hidden
        or not all(isinstance(w, int) and not isinstance(w, bool) and w > 0 for w in hidden)
    ):
        raise ConfigError(f"hidden must be a non-empty list of positive ints, got {hidden!r}")
    return {"hidden": [int(w) for w in hidden]}


class DCMaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """Actor-critic with masked logits for PPO (module docstring)."""

    @override(RLModule)
    def setup(self) -> None:
        space = self.observation_space
        masked = isinstance(space, gym.spaces.Dict) and {OBSERVATIONS, ACTION_MASK} <= set(space)
        if not masked or not isinstance(self.action_space, gym.spaces.Discrete):
            raise ValueError(
                f"DCMaskedActorCritic needs a Dict observation of {OBSERVATIONS!r} and "
                f"{ACTION_MASK!r} and Discrete actions; got {space} and {self.action_space}"
            )
        assert isinstance(space, gym.spaces.Dict)  # checked above, for mypy
        size = gym.spaces.flatdim(space[OBSERVATIONS])
        layers: list[nn.Module] = []
        for width in resolve_dc_model_config(self.model_config)["hidden"]:
            layers += [nn.Linear(size, width), nn.ReLU()]
            size = width
        self.encoder = nn.Sequential(*layers)
        self.pi = nn.Linear(size, int(self.action_space.n))
        self.vf = nn.Linear(size, 1)

    def _logits(self, obs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.encoder(obs[OBSERVATIONS])
        logits = self.pi(h)
        masked = torch.where(obs[ACTION_MASK] > 0.5, logits, torch.full_like(logits, FLOAT_MIN))
        return masked, h

    @override(RLModule)
    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        logits, _ = self._logits(batch[Columns.OBS])
        return {Columns.ACTION_DIST_INPUTS: logits}

    @override(RLModule)
    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        logits, h = self._logits(batch[Columns.OBS])
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: h}

    @override(ValueFunctionAPI)
    def compute_values(
        self, batch: dict[str, Any], embeddings: torch.Tensor | None = None
    ) -> torch.Tensor:
        if embeddings is None:
            embeddings = self.encoder(batch[Columns.OBS][OBSERVATIONS])
        return self.vf(embeddings).squeeze(-1)


def dc_module_spec(action: str, **model_config: Any) -> RLModuleSpec | None:
    """The RLModuleSpec for the DC env's ``action``: ``DCMaskedActorCritic`` for ``"shots"``;
    None for ``"throw"`` (RLlib's default MLP fits a Box)."""
    if action != "shots":
        return None
    return RLModuleSpec(
        module_class=DCMaskedActorCritic, model_config=resolve_dc_model_config(model_config)
    )

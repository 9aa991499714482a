"""A small generic masked actor-critic for the DC env's ``action="shots"`` (``"curling_dc"``).

The platform's shot modules (``rl.shot_models``) are built around its own shot set; the DC env
has its own layout (``dc_env.spaces.dc_layout()``) and observation, so this module is generic:
an MLP over the flat observation (``"observations"``), a policy head of one logit per action
and a value head, the logits of illegal actions (``"action_mask"`` 0) set to ``FLOAT_MIN`` as
Ray's action-masking example does. Any ``Dict(observations=Box, action_mask=Box)`` observation
and ``Discrete`` action space fit.

Beside the value head (what PPO and the other stock algorithms need) it has an **end-score
head** (``EndScoreAPI``): logits over the end's score from the thrower's side, −8 … +8
(``win_odds.END_SCORES``), which ``rl.learners.CurlingBCLearner`` trains on the data's
``end_points`` (``end_score_coeff``) and a win table turns into a chance to win
(``agent.dc_search``); stock algorithms leave it alone.

| model_config key | default     | meaning                                      |
|------------------|-------------|----------------------------------------------|
| hidden           | [256, 256]  | widths of the shared MLP's layers (ReLU)     |
| end_scores       | true        | the end-score head (false: agents exported   |
|                  |             | before it existed)                           |

RLlib's new API stack takes it through an ``RLModuleSpec`` (``dc_module_spec``), which
``rl.algorithm_configs.dc_algorithm_config`` (and so ``rllib train`` with ``env: curling_dc``)
sets for ``action="shots"``.
"""

from __future__ import annotations

import abc
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
from rllib_curling.win_odds import N_SCORES

#: The observation Dict's keys (RLlib's action-masking idiom; ``env.spaces`` names them too).
OBSERVATIONS, ACTION_MASK = "observations", "action_mask"
DEFAULT_DC_MODEL_CONFIG: dict[str, Any] = {"hidden": [256, 256], "end_scores": True}


class EndScoreAPI(abc.ABC):
    """A module that predicts the end's score (the end-score head; module docstring)."""

    @property
    @abc.abstractmethod
    def has_end_scores(self) -> bool:
        """Whether the head is built (a module may be built without it)."""

    @abc.abstractmethod
    def compute_end_scores(
        self, batch: dict[str, Any], embeddings: torch.Tensor | None = None
    ) -> torch.Tensor:
        """(B, N_SCORES) logits over ``win_odds.END_SCORES``, the end's score for the team
        about to throw."""


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
    end_scores = given.get("end_scores", DEFAULT_DC_MODEL_CONFIG["end_scores"])
    if not isinstance(end_scores, bool):
        raise ConfigError(f"end_scores must be true or false, got {end_scores!r}")
    return {"hidden": [int(w) for w in hidden], "end_scores": end_scores}


class DCMaskedActorCritic(TorchRLModule, ValueFunctionAPI, EndScoreAPI):
    """Actor-critic with masked logits for PPO, and an end-score head (module docstring)."""

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
        config = resolve_dc_model_config(self.model_config)
        for width in config["hidden"]:
            layers += [nn.Linear(size, width), nn.ReLU()]
            size = width
        self.encoder = nn.Sequential(*layers)
        self.pi = nn.Linear(size, int(self.action_space.n))
        self.vf = nn.Linear(size, 1)
        self.end_score = nn.Linear(size, N_SCORES) if config["end_scores"] else None

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

    @property
    def has_end_scores(self) -> bool:
        return self.end_score is not None

    def compute_end_scores(
        self, batch: dict[str, Any], embeddings: torch.Tensor | None = None
    ) -> torch.Tensor:
        if self.end_score is None:
            raise ValueError("this module has no end-score head (built with end_scores: false)")
        if embeddings is None:
            embeddings = self.encoder(batch[Columns.OBS][OBSERVATIONS])
        return self.end_score(embeddings)  # (B, N_SCORES)


def dc_module_spec(action: str, **model_config: Any) -> RLModuleSpec | None:
    """The RLModuleSpec for the DC env's ``action``: ``DCMaskedActorCritic`` for ``"shots"``;
    None for ``"throw"`` (RLlib's default MLP fits a Box)."""
    if action != "shots":
        return None
    return RLModuleSpec(
        module_class=DCMaskedActorCritic, model_config=resolve_dc_model_config(model_config)
    )

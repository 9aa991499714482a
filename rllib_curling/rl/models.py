"""The curling network as RLModules for RLlib's new API stack, and the name → class registry.

All are built on ``CurlingEncoder`` (``rllib_curling.rl.network``); heads are MLPs of
``head_hiddens`` ending in a linear layer:

| class                      | algorithms  | APIs                                 |
|----------------------------|-------------|--------------------------------------|
| ``CurlingActorCritic``     | PPO, IMPALA | ValueFunctionAPI, InferenceOnlyAPI,  |
|                            | BC, MARWIL  | EndScoreAPI (``end_score_hiddens``)  |
| ``CurlingAPPOActorCritic`` | APPO        | + TargetNetworkAPI (old encoder, pi) |
| ``CurlingQNetwork``        | DQN         | QNetAPI, TargetNetworkAPI (RLlib's)  |

``module_spec(algo, **model_config)`` gives the ``RLModuleSpec`` for ``config.rl_module``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.dqn.torch.default_dqn_torch_rl_module import DefaultDQNTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchMultiCategorical
from ray.rllib.core.learner.utils import make_target_network
from ray.rllib.core.models.base import ENCODER_OUT
from ray.rllib.core.rl_module.apis import (
    TARGET_NETWORK_ACTION_DIST_INPUTS,
    InferenceOnlyAPI,
    TargetNetworkAPI,
    ValueFunctionAPI,
)
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.annotations import override
from ray.rllib.utils.schedules.scheduler import Scheduler
from torch import nn

from rllib_curling.errors import ConfigError
from rllib_curling.observation import OBS_SIZE
from rllib_curling.rl import shot_models
from rllib_curling.rl.dc_models import EndScoreAPI
from rllib_curling.rl.network import (
    DQN_KEYS,
    MODEL_NAME,
    CurlingEncoder,
    check_observation_space,
    head,
    model_config_of,
    resolve_model_config,
)
from rllib_curling.rl.shot_network import SHOT_MODEL_NAME, resolve_shot_model_config
from rllib_curling.win_odds import N_SCORES


class CurlingActorCritic(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI, EndScoreAPI):
    """Actor-critic RLModule for PPO and IMPALA on ``CurlingEncoder``.

    Architecture: ``CurlingEncoder`` -> ``pi`` head (action-distribution inputs) and ``vf`` head
    (state value). With ``vf_share_layers=False`` the value has its own ``critic_encoder``. With
    ``end_score_hiddens`` (e.g. [256, 256]) an ``end_score`` head of its own over the flat
    observation gives logits over the end's score for the team to throw
    (``win_odds.END_SCORES``), which a search turns into a chance to win through the win table;
    its own layers leave the policy and the value as they are when it is added or trained.
    Actions: Box -> diagonal Gaussian (mean, log_std), Discrete -> categorical, MultiDiscrete ->
    one categorical per dimension. Inference-only copies (on EnvRunners) drop the value parts.

    Build it from two spaces:

    >>> import gymnasium as gym, numpy as np, torch
    >>> from ray.rllib.core.columns import Columns
    >>> from rllib_curling.env.spaces import observation_space
    >>> from rllib_curling.rl.models import CurlingActorCritic, module_spec
    >>> obs_space = observation_space()
    >>> act_space = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)
    >>> module = CurlingActorCritic(
    ...     observation_space=obs_space, action_space=act_space, model_config={"hiddens": [64]})
    >>> obs = torch.from_numpy(np.stack([obs_space.sample() for _ in range(4)]))
    >>> module.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS].shape
    torch.Size([4, 6])
    >>> module.compute_values({Columns.OBS: obs}).shape
    torch.Size([4])
    >>> spec = module_spec("ppo", hiddens=[64])  # for config.rl_module(rl_module_spec=spec)
    >>> spec.observation_space, spec.action_space = obs_space, act_space
    >>> type(spec.build()).__name__
    'CurlingActorCritic'
    """

    @override(RLModule)
    def setup(self) -> None:
        check_observation_space(self.observation_space)
        cfg = model_config_of(self.model_config)
        self.encoder = CurlingEncoder(cfg)
        self.pi = head(
            self.encoder.out_dim,
            cfg["head_hiddens"],
            self._action_dist_input_dim(),
            cfg["activation"],
            gain=0.01,
        )
        value_in = self.encoder.out_dim
        if not cfg["vf_share_layers"]:
            self.critic_encoder = CurlingEncoder(cfg)
            value_in = self.critic_encoder.out_dim
        self.vf = head(value_in, cfg["head_hiddens"], 1, cfg["activation"], gain=1.0)
        self.end_score: nn.Module | None = None
        if cfg["end_score_hiddens"]:
            self.end_score = head(
                OBS_SIZE, cfg["end_score_hiddens"], N_SCORES, cfg["activation"], gain=1.0
            )

    def _action_dist_input_dim(self) -> int:
        space = self.action_space
        if isinstance(space, gym.spaces.Discrete):
            return int(space.n)
        if isinstance(space, gym.spaces.Box) and len(space.shape) == 1:
            return 2 * int(space.shape[0])
        if isinstance(space, gym.spaces.MultiDiscrete) and len(space.nvec.shape) == 1:
            lens = [int(n) for n in space.nvec]
            self.action_dist_cls = TorchMultiCategorical.get_partial_dist_cls(  # type: ignore[misc]
                input_lens=lens
            )  # RLlib's classmethod is typed without its cls
            return int(np.sum(lens))
        raise ConfigError(
            f"curling_net supports 1-D Box, Discrete and MultiDiscrete actions; got {space}"
        )

    @override(RLModule)
    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self.pi(self.encoder(batch[Columns.OBS]))}

    @override(RLModule)
    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        # Keep the embeddings, so the Learner's value loss reuses them (shared encoder).
        embeddings = self.encoder(batch[Columns.OBS])
        out = {Columns.ACTION_DIST_INPUTS: self.pi(embeddings), Columns.EMBEDDINGS: embeddings}
        if hasattr(self, "critic_encoder"):
            out[Columns.EMBEDDINGS] = self.critic_encoder(batch[Columns.OBS])
        return out

    @override(ValueFunctionAPI)
    def compute_values(
        self, batch: dict[str, Any], embeddings: torch.Tensor | None = None
    ) -> torch.Tensor:
        if embeddings is None:
            encoder = getattr(self, "critic_encoder", self.encoder)
            embeddings = encoder(batch[Columns.OBS])
        return self.vf(embeddings).squeeze(-1)

    @property
    def has_end_scores(self) -> bool:
        return getattr(self, "end_score", None) is not None  # inference-only copies drop it

    def compute_end_scores(
        self, batch: dict[str, Any], embeddings: torch.Tensor | None = None
    ) -> torch.Tensor:
        """(B, N_SCORES) logits of the end's score, from the observation (the head has its
        own layers: ``embeddings`` play no part); ``ValueError`` without the head."""
        end_score = getattr(self, "end_score", None)
        if end_score is None:
            raise ValueError("this module has no end-score head (end_score_hiddens is [])")
        return end_score(batch[Columns.OBS])  # (B, N_SCORES)

    @override(InferenceOnlyAPI)
    def get_non_inference_attributes(self) -> list[str]:
        return ["vf", "critic_encoder", "end_score"]


class CurlingAPPOActorCritic(CurlingActorCritic, TargetNetworkAPI):
    """``CurlingActorCritic`` plus APPO's target ("old") encoder and policy head.

    Same architecture and construction as ``CurlingActorCritic``; APPO's Learner calls
    ``make_target_networks()`` after building it and keeps the copies in sync.
    """

    @override(TargetNetworkAPI)
    def make_target_networks(self) -> None:
        self._old_encoder = make_target_network(self.encoder)
        self._old_pi = make_target_network(self.pi)

    @override(TargetNetworkAPI)
    def get_target_network_pairs(self) -> list[tuple[nn.Module, nn.Module]]:
        return [(self.encoder, self._old_encoder), (self.pi, self._old_pi)]

    @override(TargetNetworkAPI)
    def forward_target(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        logits = self._old_pi(self._old_encoder(batch[Columns.OBS]))
        return {TARGET_NETWORK_ACTION_DIST_INPUTS: logits}

    @override(CurlingActorCritic)
    def get_non_inference_attributes(self) -> list[str]:
        return [*super().get_non_inference_attributes(), "_old_encoder", "_old_pi"]


class CurlingQEncoder(CurlingEncoder):
    """``CurlingEncoder`` with RLlib's encoder calling convention: ``batch -> {ENCODER_OUT: h}``."""

    @override(CurlingEncoder)
    def forward(self, batch: dict[str, Any]) -> dict[str, torch.Tensor]:  # type: ignore[override]
        return {ENCODER_OUT: super().forward(batch[Columns.OBS])}


class CurlingQNetwork(DefaultDQNTorchRLModule):
    """Q-network RLModule for DQN: ``CurlingEncoder`` -> advantage head ``af`` [+ value ``vf``].

    Only the torch parts of RLlib's ``DefaultDQNTorchRLModule`` are replaced, so RLlib still does
    dueling aggregation (mean-centred advantages), double-Q, target networks and epsilon-greedy;
    DQN copies ``dueling``, ``double_q``, ``epsilon`` and ``num_atoms`` into the model config
    (``num_atoms`` must be 1). Needs a Discrete action space (the env's ``action="discrete"``).

    >>> import gymnasium as gym, numpy as np, torch
    >>> from ray.rllib.core.columns import Columns
    >>> from rllib_curling.env.spaces import observation_space
    >>> from rllib_curling.rl.models import CurlingQNetwork
    >>> obs_space = observation_space()
    >>> q = CurlingQNetwork(observation_space=obs_space, action_space=gym.spaces.Discrete(40),
    ...                     model_config={"dueling": True, "double_q": True})
    >>> obs = torch.from_numpy(np.stack([obs_space.sample() for _ in range(4)]))
    >>> q.compute_q_values({Columns.OBS: obs})["qf_preds"].shape
    torch.Size([4, 40])
    """

    @override(DefaultDQNTorchRLModule)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Skip DefaultDQNTorchRLModule.__init__, which would build a DQNCatalog (MLP encoder
        # configs we never use, and a logged warning when the model config lacks its keys);
        # without a catalog, Discrete actions get TorchCategorical. This relies on RLlib 2.60's
        # constructor chain, which is why pyproject pins ray to the tested 2.60 series.
        kwargs.pop("catalog_class", None)
        TorchRLModule.__init__(self, *args, **kwargs)

    @override(DefaultDQNTorchRLModule)
    def setup(self) -> None:
        check_observation_space(self.observation_space)
        if not isinstance(self.action_space, gym.spaces.Discrete):
            raise ConfigError(
                f"DQN's curling_net needs a Discrete action space (env_config action='discrete'); "
                f"got {self.action_space}"
            )
        given = self.model_config or {}
        if dataclasses.is_dataclass(given) and not isinstance(given, type):
            given = dataclasses.asdict(given)
        raw: dict[str, Any] = dict(given)  # type: ignore[arg-type]  # a dict by now
        cfg = model_config_of(raw, DQN_KEYS)
        self.uses_dueling = bool(raw.get("dueling", True))
        self.uses_double_q = bool(raw.get("double_q", True))
        self.num_atoms = int(raw.get("num_atoms", 1))
        if self.num_atoms != 1:
            raise ConfigError(
                f"curling_net's Q-network supports num_atoms=1 only; got {self.num_atoms}"
            )
        epsilon = raw.get("epsilon", [(0, 1.0), (10000, 0.05)])
        self.epsilon_schedule = Scheduler(fixed_value_or_schedule=epsilon, framework="torch")
        self.encoder = CurlingQEncoder(cfg)
        n, act, width = int(self.action_space.n), cfg["activation"], self.encoder.out_dim
        self.af = head(width, cfg["head_hiddens"], n, act, gain=0.01)
        if self.uses_dueling:
            self.vf = head(width, cfg["head_hiddens"], 1, act, gain=1.0)


MODULES: dict[str, dict[str, type[TorchRLModule]]] = {
    MODEL_NAME: {
        "ppo": CurlingActorCritic,
        "bc": CurlingActorCritic,  # BC and MARWIL train PPO's module: PPO starts from them
        "marwil": CurlingActorCritic,
        "impala": CurlingActorCritic,
        "appo": CurlingAPPOActorCritic,
        "dqn": CurlingQNetwork,
    },
    SHOT_MODEL_NAME: shot_models.MODULES,
}


def module_spec(algo: str, name: str = MODEL_NAME, **model_config: Any) -> RLModuleSpec:
    """RLModuleSpec of network ``name`` for ``algo`` ("ppo", "bc", "marwil", "impala", "appo",
    "dqn").

    The spec carries the full resolved model config, so it wins over RLlib's own defaults
    (for example PPO's ``vf_share_layers=False``) when RLlib merges the two.
    """
    if name not in MODULES:
        raise ConfigError(f"unknown network {name!r}; registered: {sorted(MODULES)}")
    by_algo = MODULES[name]
    if algo.lower() not in by_algo:
        raise ConfigError(f"network {name!r} has no module for {algo!r}; valid: {sorted(by_algo)}")
    resolve = resolve_shot_model_config if name == SHOT_MODEL_NAME else resolve_model_config
    return RLModuleSpec(module_class=by_algo[algo.lower()], model_config=resolve(model_config))


def network_name(action: str) -> str:
    """The network for an env action mode: the shot network for ``"shots"``, else curling_net."""
    return SHOT_MODEL_NAME if action == "shots" else MODEL_NAME

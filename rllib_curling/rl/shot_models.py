"""The shot network (``rl.shot_network``) as RLModules for the env's ``action="shots"``.

The env's observation is then RLlib's action-masking idiom: a ``Dict`` of ``"observations"``
(the flat curling observation) and ``"action_mask"`` (1 where a shot is legal). The modules read
both and mask the logits, as Ray's own action-masking example does: an illegal shot gets the
logit ``FLOAT_MIN`` (probability 0), and for DQN the Q-value ``-inf``, which RLlib's DQN already
leaves out of its greedy choice, its random exploration and its targets.

| class                          | algorithms       | APIs                                     |
|--------------------------------|------------------|------------------------------------------|
| ``CurlingShotActorCritic``     | PPO, IMPALA, BC, | ValueFunctionAPI, InferenceOnlyAPI       |
|                                | MARWIL           |                                          |
| ``CurlingShotAPPOActorCritic`` | APPO             | + TargetNetworkAPI (the old network)     |
| ``CurlingShotQNetwork``        | DQN              | QNetAPI, TargetNetworkAPI (RLlib's)      |

Build one from the env's two spaces:

>>> import gymnasium as gym, numpy as np, torch
>>> from ray.rllib.core.columns import Columns
>>> from rllib_curling.aiming import shots
>>> from rllib_curling.env.spaces import observation_space
>>> obs_space = observation_space("shots")
>>> module = CurlingShotActorCritic(observation_space=obs_space,
...     action_space=gym.spaces.Discrete(shots.N_SHOTS), model_config={"width": 32, "layers": 1})
>>> obs = {k: torch.from_numpy(np.stack([obs_space[k].sample() for _ in range(2)]))
...        for k in obs_space.spaces}
>>> module.forward_inference({Columns.OBS: obs})[Columns.ACTION_DIST_INPUTS].shape
torch.Size([2, 1229])
"""

from __future__ import annotations

import dataclasses
from typing import Any

import gymnasium as gym
import torch
from ray.rllib.algorithms.dqn.torch.default_dqn_torch_rl_module import (
    QF_PREDS,
    DefaultDQNTorchRLModule,
)
from ray.rllib.core.columns import Columns
from ray.rllib.core.learner.utils import make_target_network
from ray.rllib.core.rl_module.apis import (
    TARGET_NETWORK_ACTION_DIST_INPUTS,
    InferenceOnlyAPI,
    TargetNetworkAPI,
    ValueFunctionAPI,
)
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.annotations import override
from ray.rllib.utils.schedules.scheduler import Scheduler
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

from rllib_curling.aiming import shots
from rllib_curling.errors import ConfigError
from rllib_curling.rl.network import DQN_KEYS, rllib_model_keys
from rllib_curling.rl.shot_network import (
    DEFAULT_SHOT_MODEL_CONFIG,
    SHOT_MODEL_NAME,
    ShotNet,
    resolve_shot_model_config,
)

#: The keys of the observation Dict (``env.spaces.OBSERVATIONS`` / ``ACTION_MASK``; the network
#: never imports the env, a test holds the two equal).
OBSERVATIONS, ACTION_MASK = "observations", "action_mask"
#: ``_forward_train``'s output key of the end-score logits (``CurlingShotLearner`` reads it).
SCORE_LOGITS = "end_score_logits"


def check_shot_spaces(observation_space: gym.Space | None, action_space: gym.Space | None) -> None:
    """ValueError unless the spaces are the env's ``action="shots"`` spaces."""
    ok = isinstance(observation_space, gym.spaces.Dict) and set(observation_space.spaces) == {
        OBSERVATIONS, ACTION_MASK,
    }  # fmt: skip
    if not ok or not isinstance(action_space, gym.spaces.Discrete):
        raise ConfigError(
            f"{SHOT_MODEL_NAME} needs the env's action='shots' spaces (a Dict observation of "
            f"{OBSERVATIONS!r} and {ACTION_MASK!r}, Discrete({shots.N_SHOTS}) actions); got "
            f"{observation_space} and {action_space}"
        )
    if int(action_space.n) != shots.N_SHOTS:
        raise ConfigError(f"{SHOT_MODEL_NAME} needs Discrete({shots.N_SHOTS}), got {action_space}")


def shot_config_of(model_config: Any, rllib_keys: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The network's config out of what RLlib hands a module (RLlib's own keys ignored)."""
    if dataclasses.is_dataclass(model_config) and not isinstance(model_config, type):
        model_config = dataclasses.asdict(model_config)
    given = dict(model_config or {})
    ours = {k: v for k, v in given.items() if k not in rllib_keys | rllib_model_keys()}
    return resolve_shot_model_config(ours)


def masked(logits: torch.Tensor, mask: torch.Tensor, floor: float = FLOAT_MIN) -> torch.Tensor:
    """``logits`` with every illegal action (``mask`` 0) set to ``floor``."""
    return torch.where(mask > 0.5, logits, torch.full_like(logits, floor))


class CurlingShotActorCritic(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """Actor-critic RLModule on ``ShotNet`` for PPO, IMPALA, BC and MARWIL (module docstring).
    One network: the policy, the value and the end-score heads share the encoder."""

    @override(RLModule)
    def setup(self) -> None:
        check_shot_spaces(self.observation_space, self.action_space)
        self.net = ShotNet(shot_config_of(self.model_config))

    def _logits(self, net: nn.Module, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        logits, _ = net(obs[OBSERVATIONS])
        return masked(logits, obs[ACTION_MASK])

    @override(RLModule)
    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._logits(self.net, batch[Columns.OBS])}

    @override(RLModule)
    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits, g = self.net(obs[OBSERVATIONS])
        return {
            Columns.ACTION_DIST_INPUTS: masked(logits, obs[ACTION_MASK]),
            Columns.EMBEDDINGS: g,
            SCORE_LOGITS: self.net.scores(g),
        }

    @override(ValueFunctionAPI)
    def compute_values(
        self, batch: dict[str, Any], embeddings: torch.Tensor | None = None
    ) -> torch.Tensor:
        if embeddings is None:
            _, embeddings = self.net(batch[Columns.OBS][OBSERVATIONS])
        return self.net.value(embeddings)

    @override(InferenceOnlyAPI)
    def get_non_inference_attributes(self) -> list[str]:
        return []  # the heads are small and share the encoder: env runners keep them


class CurlingShotAPPOActorCritic(CurlingShotActorCritic, TargetNetworkAPI):
    """``CurlingShotActorCritic`` plus APPO's target ("old") network."""

    @override(TargetNetworkAPI)
    def make_target_networks(self) -> None:
        self._old_net = make_target_network(self.net)

    @override(TargetNetworkAPI)
    def get_target_network_pairs(self) -> list[tuple[nn.Module, nn.Module]]:
        return [(self.net, self._old_net)]

    @override(TargetNetworkAPI)
    def forward_target(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {TARGET_NETWORK_ACTION_DIST_INPUTS: self._logits(self._old_net, batch[Columns.OBS])}

    @override(CurlingShotActorCritic)
    def get_non_inference_attributes(self) -> list[str]:
        return ["_old_net"]


class CurlingShotQNetwork(DefaultDQNTorchRLModule):
    """Q-network RLModule for DQN on ``ShotNet``: the shot logits are the Q-values, illegal shots
    ``-inf``. RLlib's DQN does double-Q, target networks and epsilon-greedy (its random actions
    skip ``-inf`` Q-values); no dueling head and ``num_atoms`` 1 here."""

    @override(DefaultDQNTorchRLModule)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # As models.CurlingQNetwork: skip the DQN catalog (MLP encoders we never use).
        kwargs.pop("catalog_class", None)
        TorchRLModule.__init__(self, *args, **kwargs)

    @override(DefaultDQNTorchRLModule)
    def setup(self) -> None:
        check_shot_spaces(self.observation_space, self.action_space)
        given = self.model_config or {}
        if dataclasses.is_dataclass(given) and not isinstance(given, type):
            given = dataclasses.asdict(given)
        raw: dict[str, Any] = dict(given)  # type: ignore[arg-type]  # a dict by now
        self.uses_dueling = False
        self.uses_double_q = bool(raw.get("double_q", True))
        self.num_atoms = int(raw.get("num_atoms", 1))
        if self.num_atoms != 1:
            raise ConfigError(f"{SHOT_MODEL_NAME} supports num_atoms=1 only; got {self.num_atoms}")
        epsilon = raw.get("epsilon", [(0, 1.0), (10000, 0.05)])
        self.epsilon_schedule = Scheduler(fixed_value_or_schedule=epsilon, framework="torch")
        self.net = ShotNet(shot_config_of(raw, DQN_KEYS))

    def _q(self, net: nn.Module, obs: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        q, _ = net(obs[OBSERVATIONS])
        return {QF_PREDS: masked(q, obs[ACTION_MASK], float("-inf"))}

    @override(DefaultDQNTorchRLModule)
    def compute_q_values(self, batch: dict[str, Any]) -> dict[str, Any]:
        return self._q(self.net, batch[Columns.OBS])

    @override(DefaultDQNTorchRLModule)
    def make_target_networks(self) -> None:
        self._target_net = make_target_network(self.net)

    @override(DefaultDQNTorchRLModule)
    def get_target_network_pairs(self) -> list[tuple[nn.Module, nn.Module]]:
        return [(self.net, self._target_net)]

    @override(DefaultDQNTorchRLModule)
    def forward_target(self, batch: dict[str, Any]) -> dict[str, Any]:
        return self._q(self._target_net, batch[Columns.OBS])

    @override(DefaultDQNTorchRLModule)
    def get_non_inference_attributes(self) -> list[str]:
        return ["_target_net"]

    @override(DefaultDQNTorchRLModule)
    def get_initial_state(self) -> dict[str, Any]:
        return {}  # no recurrent state (RLlib's asks its encoder, which this module has not)


MODULES: dict[str, type[TorchRLModule]] = {
    "ppo": CurlingShotActorCritic,
    "bc": CurlingShotActorCritic,
    "marwil": CurlingShotActorCritic,
    "impala": CurlingShotActorCritic,
    "appo": CurlingShotAPPOActorCritic,
    "dqn": CurlingShotQNetwork,
}
__all__ = ["DEFAULT_SHOT_MODEL_CONFIG", "MODULES", "SHOT_MODEL_NAME"]

"""The curling network for RLlib's new API stack: encoder, RLModules and a name registry.

``CurlingEncoder`` reads the flat observation of ``rllib_curling.spaces`` as a *set* of 16 stones
plus a context block, so the result does not depend on the order of the stone rows:

    stones (B, 16, 7) ─ shared stone MLP ─ [self-attention] ─ pool over in-play stones ─┐
                                              (mean, max, fraction of stones in play)  ├─ MLP ─ h
    context (B, 8) ──── context MLP ──────────────────────────────────────────────────┘

RLModules built on it (all heads are MLPs of ``head_hiddens`` ending in a linear layer):

| class                      | algorithms  | APIs                                 |
|----------------------------|-------------|--------------------------------------|
| ``CurlingActorCritic``     | PPO, IMPALA | ValueFunctionAPI, InferenceOnlyAPI   |
| ``CurlingAPPOActorCritic`` | APPO        | + TargetNetworkAPI (old encoder, pi) |
| ``CurlingQNetwork``        | DQN         | QNetAPI, TargetNetworkAPI (RLlib's)  |

Model config keys (``DEFAULT_MODEL_CONFIG``; pass them to ``module_spec(algo, **keys)``):
``stone_hiddens``, ``context_hiddens``, ``hiddens``, ``head_hiddens`` (lists of widths),
``pool`` ("mean", "max" or "mean+max"), ``attention`` (bool), ``attention_heads``,
``activation`` ("relu", "tanh", "silu", "elu") and ``vf_share_layers`` (actor-critic only: True
shares the encoder between policy and value, False gives the value its own encoder).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
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
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.schedules.scheduler import Scheduler
from torch import nn

from rllib_curling import spaces

# Column of the "in_play" flag in a stone row (see the stone-row table in ``spaces``).
IN_PLAY_FEATURE = spaces.STONE_IN_PLAY

DEFAULT_MODEL_CONFIG: dict[str, Any] = {
    "stone_hiddens": [64, 64],
    "context_hiddens": [64],
    "hiddens": [128, 128],
    "head_hiddens": [],
    "pool": "mean+max",
    "attention": False,
    "attention_heads": 4,
    "activation": "relu",
    "vf_share_layers": True,
}
POOLS = ("mean", "max", "mean+max")
ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh, "silu": nn.SiLU, "elu": nn.ELU}


def resolve_model_config(overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return ``DEFAULT_MODEL_CONFIG`` updated by ``overrides``; unknown keys raise ValueError."""
    overrides = dict(overrides or {})
    unknown = sorted(set(overrides) - set(DEFAULT_MODEL_CONFIG))
    if unknown:
        raise ValueError(
            f"unknown curling_net model_config key(s) {unknown}; "
            f"valid keys: {sorted(DEFAULT_MODEL_CONFIG)}"
        )
    cfg = {**DEFAULT_MODEL_CONFIG, **overrides}
    if cfg["pool"] not in POOLS:
        raise ValueError(f"pool={cfg['pool']!r}; valid: {list(POOLS)}")
    if cfg["activation"] not in ACTIVATIONS:
        raise ValueError(f"activation={cfg['activation']!r}; valid: {sorted(ACTIVATIONS)}")
    return cfg


def _known_keys(model_config: Any) -> dict[str, Any]:
    """Our keys out of whatever RLlib hands a module (it merges in its own defaults)."""
    if dataclasses.is_dataclass(model_config) and not isinstance(model_config, type):
        model_config = dataclasses.asdict(model_config)
    model_config = model_config or {}
    return resolve_model_config(
        {k: v for k, v in model_config.items() if k in DEFAULT_MODEL_CONFIG}
    )


def mlp(n_in: int, hiddens: Sequence[int], activation: str = "relu") -> tuple[nn.Sequential, int]:
    """Linear+activation layers of widths ``hiddens``; returns the module and its output width."""
    layers: list[nn.Module] = []
    for width in hiddens:
        layers += [nn.Linear(n_in, int(width)), ACTIVATIONS[activation]()]
        n_in = int(width)
    return nn.Sequential(*layers), n_in


def head(n_in: int, hiddens: Sequence[int], n_out: int, activation: str, gain: float) -> nn.Module:
    """An MLP ending in a linear layer of ``n_out`` units, initialised with std ``gain``-ish."""
    body, width = mlp(n_in, hiddens, activation)
    out = nn.Linear(width, n_out)
    nn.init.orthogonal_(out.weight, gain=gain)
    nn.init.zeros_(out.bias)
    return nn.Sequential(*body, out)


class CurlingEncoder(nn.Module):
    """Permutation-invariant encoder: flat observations ``(..., OBS_SIZE)`` to ``(..., out_dim)``.

    Each stone row goes through one shared MLP (``stone_hiddens``), optionally one residual
    self-attention layer over the in-play stones (``attention``), then is pooled over the stones
    whose ``in_play`` flag is set (mean and/or max, plus the fraction in play). The context block
    goes through its own MLP (``context_hiddens``); both are concatenated and mapped by ``hiddens``.
    """

    def __init__(self, model_config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        cfg = resolve_model_config(model_config)
        act = cfg["activation"]
        self.pool = cfg["pool"]
        self.stone_mlp, d_stone = mlp(spaces.STONE_FEATURES, cfg["stone_hiddens"], act)
        self.attention: nn.MultiheadAttention | None = None
        if cfg["attention"]:
            if d_stone % int(cfg["attention_heads"]):
                raise ValueError(
                    f"attention_heads={cfg['attention_heads']} must divide the stone width "
                    f"{d_stone}"
                )
            self.attention = nn.MultiheadAttention(
                d_stone, int(cfg["attention_heads"]), batch_first=True
            )
            self.attention_norm = nn.LayerNorm(d_stone)
        self.context_mlp, d_context = mlp(spaces.CONTEXT_FEATURES, cfg["context_hiddens"], act)
        d_pool = d_stone * (2 if self.pool == "mean+max" else 1) + 1
        self.trunk, self.out_dim = mlp(d_pool + d_context, cfg["hiddens"], act)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        lead = obs.shape[:-1]
        stones, context = spaces.split_observation(obs.reshape(-1, spaces.OBS_SIZE).float())
        mask = stones[..., IN_PLAY_FEATURE] > 0.5  # (B, 16)
        h = self.stone_mlp(stones)  # (B, 16, d)
        if self.attention is not None:
            # A row with no stone in play would attend to nothing (NaN): let it see all rows;
            # the pooling below ignores those rows anyway.
            ignore = ~mask & mask.any(dim=-1, keepdim=True)
            attended, _ = self.attention(h, h, h, key_padding_mask=ignore, need_weights=False)
            h = self.attention_norm(h + attended)
        count = mask.sum(dim=-1, keepdim=True)  # (B, 1)
        pooled = [count.float() / spaces.N_STONES]
        if self.pool in ("mean", "mean+max"):
            pooled.append((h * mask.unsqueeze(-1)).sum(dim=-2) / count.clamp(min=1))
        if self.pool in ("max", "mean+max"):
            masked = torch.where(mask.unsqueeze(-1), h, torch.full_like(h, float("-inf")))
            pooled.append(torch.where(count > 0, masked.amax(dim=-2), torch.zeros_like(h[:, 0])))
        x = torch.cat([*pooled, self.context_mlp(context)], dim=-1)
        return self.trunk(x).reshape(*lead, self.out_dim)


def check_observation_space(space: gym.Space) -> None:
    """Raise ValueError unless ``space`` is the flat curling observation Box."""
    if not isinstance(space, gym.spaces.Box) or tuple(space.shape) != (spaces.OBS_SIZE,):
        raise ValueError(
            f"curling_net needs a Box observation of shape ({spaces.OBS_SIZE},) laid out as in "
            f"rllib_curling.spaces; got {space}"
        )


class CurlingActorCritic(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """Actor-critic RLModule for PPO and IMPALA on ``CurlingEncoder``.

    Architecture: ``CurlingEncoder`` -> ``pi`` head (action-distribution inputs) and ``vf`` head
    (state value). With ``vf_share_layers=False`` the value has its own ``critic_encoder``.
    Actions: Box -> diagonal Gaussian (mean, log_std), Discrete -> categorical, MultiDiscrete ->
    one categorical per dimension. Inference-only copies (on EnvRunners) drop the value parts.

    Build it from two spaces:

    >>> import gymnasium as gym, numpy as np, torch
    >>> from ray.rllib.core.columns import Columns
    >>> from rllib_curling import spaces
    >>> from rllib_curling.models import CurlingActorCritic, module_spec
    >>> obs_space = gym.spaces.Box(-4.0, 4.0, (spaces.OBS_SIZE,), np.float32)
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

    def setup(self) -> None:
        check_observation_space(self.observation_space)
        cfg = _known_keys(self.model_config)
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

    def _action_dist_input_dim(self) -> int:
        space = self.action_space
        if isinstance(space, gym.spaces.Discrete):
            return int(space.n)
        if isinstance(space, gym.spaces.Box) and len(space.shape) == 1:
            return 2 * int(space.shape[0])
        if isinstance(space, gym.spaces.MultiDiscrete) and len(space.nvec.shape) == 1:
            lens = [int(n) for n in space.nvec]
            self.action_dist_cls = TorchMultiCategorical.get_partial_dist_cls(input_lens=lens)
            return int(np.sum(lens))
        raise ValueError(
            f"curling_net supports 1-D Box, Discrete and MultiDiscrete actions; got {space}"
        )

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self.pi(self.encoder(batch[Columns.OBS]))}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        # Keep the embeddings, so the Learner's value loss reuses them (shared encoder).
        embeddings = self.encoder(batch[Columns.OBS])
        out = {Columns.ACTION_DIST_INPUTS: self.pi(embeddings), Columns.EMBEDDINGS: embeddings}
        if hasattr(self, "critic_encoder"):
            out[Columns.EMBEDDINGS] = self.critic_encoder(batch[Columns.OBS])
        return out

    def compute_values(
        self, batch: dict[str, Any], embeddings: torch.Tensor | None = None
    ) -> torch.Tensor:
        if embeddings is None:
            encoder = getattr(self, "critic_encoder", self.encoder)
            embeddings = encoder(batch[Columns.OBS])
        return self.vf(embeddings).squeeze(-1)

    def get_non_inference_attributes(self) -> list[str]:
        return ["vf", "critic_encoder"]


class CurlingAPPOActorCritic(CurlingActorCritic, TargetNetworkAPI):
    """``CurlingActorCritic`` plus APPO's target ("old") encoder and policy head.

    Same architecture and construction as ``CurlingActorCritic``; APPO's Learner calls
    ``make_target_networks()`` after building it and keeps the copies in sync.
    """

    def make_target_networks(self) -> None:
        self._old_encoder = make_target_network(self.encoder)
        self._old_pi = make_target_network(self.pi)

    def get_target_network_pairs(self) -> list[tuple[nn.Module, nn.Module]]:
        return [(self.encoder, self._old_encoder), (self.pi, self._old_pi)]

    def forward_target(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        logits = self._old_pi(self._old_encoder(batch[Columns.OBS]))
        return {TARGET_NETWORK_ACTION_DIST_INPUTS: logits}

    def get_non_inference_attributes(self) -> list[str]:
        return [*super().get_non_inference_attributes(), "_old_encoder", "_old_pi"]


class CurlingQEncoder(CurlingEncoder):
    """``CurlingEncoder`` with RLlib's encoder calling convention: ``batch -> {ENCODER_OUT: h}``."""

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
    >>> from rllib_curling import spaces
    >>> from rllib_curling.models import CurlingQNetwork
    >>> obs_space = gym.spaces.Box(-4.0, 4.0, (spaces.OBS_SIZE,), np.float32)
    >>> q = CurlingQNetwork(observation_space=obs_space, action_space=gym.spaces.Discrete(40),
    ...                     model_config={"dueling": True, "double_q": True})
    >>> obs = torch.from_numpy(np.stack([obs_space.sample() for _ in range(4)]))
    >>> q.compute_q_values({Columns.OBS: obs})["qf_preds"].shape
    torch.Size([4, 40])
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Skip DefaultDQNTorchRLModule.__init__, which would build a DQNCatalog (MLP encoder
        # configs we never use); without a catalog, Discrete actions get TorchCategorical.
        kwargs.pop("catalog_class", None)
        TorchRLModule.__init__(self, *args, **kwargs)

    def setup(self) -> None:
        check_observation_space(self.observation_space)
        if not isinstance(self.action_space, gym.spaces.Discrete):
            raise ValueError(
                f"DQN's curling_net needs a Discrete action space (env_config action='discrete'); "
                f"got {self.action_space}"
            )
        raw = self.model_config or {}
        if dataclasses.is_dataclass(raw) and not isinstance(raw, type):
            raw = dataclasses.asdict(raw)
        cfg = _known_keys(raw)
        self.uses_dueling = bool(raw.get("dueling", True))
        self.uses_double_q = bool(raw.get("double_q", True))
        self.num_atoms = int(raw.get("num_atoms", 1))
        if self.num_atoms != 1:
            raise ValueError(
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
    "curling_net": {
        "ppo": CurlingActorCritic,
        "impala": CurlingActorCritic,
        "appo": CurlingAPPOActorCritic,
        "dqn": CurlingQNetwork,
    }
}


def module_spec(algo: str, name: str = "curling_net", **model_config: Any) -> RLModuleSpec:
    """RLModuleSpec of network ``name`` for ``algo`` ("ppo", "impala", "appo", "dqn").

    The spec carries the full resolved model config, so it wins over RLlib's own defaults
    (for example PPO's ``vf_share_layers=False``) when RLlib merges the two.
    """
    if name not in MODULES:
        raise ValueError(f"unknown network {name!r}; registered: {sorted(MODULES)}")
    by_algo = MODULES[name]
    if algo.lower() not in by_algo:
        raise ValueError(f"network {name!r} has no module for {algo!r}; valid: {sorted(by_algo)}")
    return RLModuleSpec(
        module_class=by_algo[algo.lower()], model_config=resolve_model_config(model_config)
    )

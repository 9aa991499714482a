"""The curling network's encoder, its building blocks and its model config.

``CurlingEncoder`` reads the flat observation of ``rllib_curling.observation`` as a *set* of 16
stones plus a context block, so the result does not depend on the order of the stone rows:

    stones (B, 16, 10) ─ shared stone MLP ─ [self-attention] ─ pool over in-play stones ┐
                                              (mean, max, fraction of stones in play)  ├─ MLP ─ h
    context (B, 8) ──── context MLP ──────────────────────────────────────────────────┘

Model config keys (``DEFAULT_MODEL_CONFIG``): ``stone_hiddens``, ``context_hiddens``,
``hiddens``, ``head_hiddens`` (lists of widths), ``pool`` ("mean", "max" or "mean+max"),
``attention`` (bool), ``attention_heads``, ``activation`` ("relu", "tanh", "silu", "elu"),
``vf_share_layers`` (actor-critic only: True shares the encoder between policy and value, False
gives the value its own encoder) and ``end_score_hiddens`` (actor-critic only: the widths of an
end-score head, an MLP of its own over the flat observation; [] builds none). The RLModules
(``models``) and the ModelV2 (``model_v2``) are built on this module; it needs torch and
gymnasium, not the rest of RLlib.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import torch
from torch import nn

from rllib_curling import observation
from rllib_curling.errors import ConfigError, refuse_unknown_keys

#: The network's name: in RLlib's ModelCatalog, and in ``module_spec(algo, name=...)``.
MODEL_NAME = "curling_net"
# Column of the "in_play" flag in a stone row (see the stone-row table in ``env.observation``).
IN_PLAY_FEATURE = observation.STONE_IN_PLAY

#: Keys DQN copies into the module's model config (``DQNConfig._model_config_auto_includes``).
DQN_KEYS = frozenset({"double_q", "dueling", "epsilon", "num_atoms", "std_init", "v_max", "v_min"})

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
    "end_score_hiddens": [],
}
POOLS = ("mean", "max", "mean+max")
ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh, "silu": nn.SiLU, "elu": nn.ELU}


def resolve_model_config(overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return ``DEFAULT_MODEL_CONFIG`` updated by ``overrides``; an unknown key or value raises
    ``ConfigError``."""
    overrides = dict(overrides or {})
    refuse_unknown_keys(overrides, DEFAULT_MODEL_CONFIG, f"{MODEL_NAME} model_config")
    cfg = {**DEFAULT_MODEL_CONFIG, **overrides}
    if cfg["pool"] not in POOLS:
        raise ConfigError(f"pool={cfg['pool']!r}; valid: {list(POOLS)}")
    if cfg["activation"] not in ACTIVATIONS:
        raise ConfigError(f"activation={cfg['activation']!r}; valid: {sorted(ACTIVATIONS)}")
    return cfg


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

    >>> import torch
    >>> from rllib_curling import observation
    >>> encoder = CurlingEncoder({"hiddens": [32], "attention": True})
    >>> encoder(torch.zeros(5, observation.OBS_SIZE)).shape  # (batch, hiddens[-1])
    torch.Size([5, 32])
    """

    def __init__(self, model_config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        cfg = resolve_model_config(model_config)
        act = cfg["activation"]
        self.pool = cfg["pool"]
        self.stone_mlp, d_stone = mlp(observation.STONE_FEATURES, cfg["stone_hiddens"], act)
        self.attention: nn.MultiheadAttention | None = None
        if cfg["attention"]:
            if d_stone % int(cfg["attention_heads"]):
                raise ConfigError(
                    f"attention_heads={cfg['attention_heads']} must divide the stone width "
                    f"{d_stone}"
                )
            self.attention = nn.MultiheadAttention(
                d_stone, int(cfg["attention_heads"]), batch_first=True
            )
            self.attention_norm = nn.LayerNorm(d_stone)
        self.context_mlp, d_context = mlp(observation.CONTEXT_FEATURES, cfg["context_hiddens"], act)
        d_pool = d_stone * (2 if self.pool == "mean+max" else 1) + 1
        self.trunk, self.out_dim = mlp(d_pool + d_context, cfg["hiddens"], act)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        lead = obs.shape[:-1]
        flat = obs.reshape(-1, observation.OBS_SIZE).float()
        stones, context = observation.split_observation(flat)
        mask = stones[..., IN_PLAY_FEATURE] > 0.5  # (B, 16)
        h = self.stone_mlp(stones)  # (B, 16, d)
        if self.attention is not None:
            # A row with no stone in play would attend to nothing (NaN): let it see all rows;
            # the pooling below ignores those rows anyway.
            ignore = ~mask & mask.any(dim=-1, keepdim=True)
            attended, _ = self.attention(h, h, h, key_padding_mask=ignore, need_weights=False)
            h = self.attention_norm(h + attended)
        count = mask.sum(dim=-1, keepdim=True)  # (B, 1)
        pooled = [count.float() / observation.N_STONES]
        if self.pool in ("mean", "mean+max"):
            pooled.append((h * mask.unsqueeze(-1)).sum(dim=-2) / count.clamp(min=1))
        if self.pool in ("max", "mean+max"):
            masked = torch.where(mask.unsqueeze(-1), h, torch.full_like(h, float("-inf")))
            pooled.append(torch.where(count > 0, masked.amax(dim=-2), torch.zeros_like(h[:, 0])))
        x = torch.cat([*pooled, self.context_mlp(context)], dim=-1)
        return self.trunk(x).reshape(*lead, self.out_dim)


def check_observation_space(space: gym.Space | None) -> None:
    """Raise ValueError unless ``space`` is the flat curling observation Box."""
    if not isinstance(space, gym.spaces.Box) or tuple(space.shape) != (observation.OBS_SIZE,):
        raise ValueError(
            f"{MODEL_NAME} needs a Box observation of shape ({observation.OBS_SIZE},) laid out "
            f"as in rllib_curling.observation; got {space}"
        )


def model_config_of(model_config: Any, rllib_keys: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The network's config out of what RLlib hands a module.

    RLlib merges its own keys into a module's ``model_config`` (``DefaultModelConfig``'s fields,
    the old stack's ``MODEL_DEFAULTS``, and per algorithm e.g. DQN's ``dueling``): those are
    ignored, as are ``rllib_keys``. Any other key that is not one of ours is a typo: ValueError
    listing the valid keys.
    """
    if dataclasses.is_dataclass(model_config) and not isinstance(model_config, type):
        model_config = dataclasses.asdict(model_config)
    given = dict(model_config or {})
    ours = set(given) - rllib_keys - rllib_model_keys()
    refuse_unknown_keys(ours, DEFAULT_MODEL_CONFIG, f"{MODEL_NAME} model_config")
    return resolve_model_config({k: v for k, v in given.items() if k in DEFAULT_MODEL_CONFIG})


def rllib_model_keys() -> set[str]:
    """Keys RLlib itself puts into model configs (new and old API stack)."""
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.models.catalog import MODEL_DEFAULTS

    return {f.name for f in dataclasses.fields(DefaultModelConfig)} | set(MODEL_DEFAULTS)

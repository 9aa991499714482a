"""The curling network as an old-API-stack ModelV2, registered in RLlib's ModelCatalog as
``"curling_net"`` (``register_model``, called by ``rllib_curling.rl.registration``)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.models.torch.torch_modelv2 import TorchModelV2
from ray.rllib.utils.annotations import override
from torch import nn

from rllib_curling.rl.network import (
    MODEL_NAME,
    CurlingEncoder,
    check_observation_space,
    head,
    resolve_model_config,
)


class CurlingModelV2(TorchModelV2, nn.Module):
    """ModelV2 on ``CurlingEncoder`` for the old API stack (PPO, IMPALA, APPO).

    Architecture: ``CurlingEncoder`` -> linear-ended ``pi`` head with ``num_outputs`` units (the
    action-distribution inputs RLlib asks for) and a ``vf`` head (``value_function()``); with
    ``vf_share_layers=False`` the value has its own encoder. With ``num_outputs`` None or 0 the
    model returns the embedding itself. The keys of ``custom_model_config`` are those of
    ``rllib_curling.rl.network.DEFAULT_MODEL_CONFIG``.

    Build it from two spaces (RLlib does this for ``model={"custom_model": "curling_net"}``):

    >>> import gymnasium as gym, numpy as np, torch
    >>> from rllib_curling.env.spaces import observation_space
    >>> from rllib_curling.rl.model_v2 import CurlingModelV2
    >>> obs_space = observation_space()
    >>> act_space = gym.spaces.Discrete(40)
    >>> model = CurlingModelV2(obs_space, act_space, 40, {}, "curling_net", hiddens=[64])
    >>> obs = torch.from_numpy(np.stack([obs_space.sample() for _ in range(4)]))
    >>> logits, _ = model({"obs": obs})
    >>> logits.shape, model.value_function().shape
    (torch.Size([4, 40]), torch.Size([4]))
    """

    def __init__(
        self,
        obs_space: gym.Space,
        action_space: gym.Space,
        num_outputs: int | None,
        model_config: dict[str, Any],
        name: str,
        **custom_model_config: Any,
    ) -> None:
        # RLlib passes num_outputs None for a model that only embeds (set below, as RLlib asks);
        # RLlib's stub types it int, hence the ignore.
        TorchModelV2.__init__(self, obs_space, action_space, num_outputs, model_config, name)  # type: ignore[arg-type]
        nn.Module.__init__(self)
        check_observation_space(getattr(obs_space, "original_space", obs_space))
        cfg = resolve_model_config(custom_model_config)
        act = cfg["activation"]
        self.encoder = CurlingEncoder(cfg)
        self.pi: nn.Module | None = None
        if num_outputs:
            self.pi = head(self.encoder.out_dim, cfg["head_hiddens"], num_outputs, act, 0.01)
        else:
            self.num_outputs = self.encoder.out_dim
        self.critic_encoder = None if cfg["vf_share_layers"] else CurlingEncoder(cfg)
        value_in = (self.critic_encoder or self.encoder).out_dim
        self.vf = head(value_in, cfg["head_hiddens"], 1, act, 1.0)
        self._value_embeddings: torch.Tensor | None = None

    @override(TorchModelV2)
    def forward(  # type: ignore[override]  # RLlib's stub widens state beyond what it passes
        self, input_dict: dict[str, Any], state: list[torch.Tensor], seq_lens: Any
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        obs = input_dict["obs"].float()
        embeddings = self.encoder(obs)
        self._value_embeddings = (
            embeddings if self.critic_encoder is None else self.critic_encoder(obs)
        )
        out = embeddings if self.pi is None else self.pi(embeddings)
        return out, state

    @override(TorchModelV2)
    def value_function(self) -> torch.Tensor:
        if self._value_embeddings is None:
            raise RuntimeError("call the model on a batch before value_function()")
        return self.vf(self._value_embeddings).squeeze(-1)


def register_model() -> None:
    """Register ``CurlingModelV2`` as ``"curling_net"`` in RLlib's ModelCatalog.

    Safe to call any number of times; it re-registers every time, because Ray's registry keeps
    the entry in the cluster's store, which a ``ray.shutdown()`` + ``ray.init()`` empties.
    """
    from ray.rllib.models.catalog import ModelCatalog

    ModelCatalog.register_custom_model(MODEL_NAME, CurlingModelV2)
